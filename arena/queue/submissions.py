"""Bot submissions: named bots stored in Redis, so a worker on any machine can run them.

A submission is a name, the games it plays, and either a directory with an entry command or a
built-in bot. A directory is packed as a tar.gz (a few MiB at most) and stored with its entry command
as one immutable *version*, named by the hash of that content; a worker fetches a version once, unpacks
it into ``$XDG_STATE_HOME/arena/bots/<version>`` and reuses it from then on. The entry command is kept
as an argv list and run without a shell, in the unpacked directory. The submitter gets an owner secret,
printed once; only its hash is stored, and updating or removing the bot needs the secret.

Design detail: jobs name each seat's version, not just the bot's name, so a bot updated while its
tournament is queued still plays the code it was entered with, and every worker runs the same bytes.
"""

from __future__ import annotations

import base64
import dataclasses
import gzip
import hashlib
import hmac
import inspect
import io
import json
import os
import re
import secrets
import shlex
import shutil
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import redis

from arena.bots import builtin_bots
from arena.games import get_game
from arena.queue import keys
from arena.referee.processes import BotSpec
from arena.referee.sandbox import declared_variables

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
VERSION_PATTERN = re.compile(r"^(?:[0-9a-f]{12}|builtin-[0-9a-f]{12})$")
MAX_PACKED_BYTES = 10 * 1024 * 1024  # a packed directory may be at most this big (10 MiB)
MAX_UNPACKED_BYTES = 100 * 1024 * 1024  # ... and its files together at most this big
SKIPPED = frozenset({"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
PYTHON_WORDS = frozenset({"python", "python3"})
DIRECTORY, BUILTIN = "directory", "builtin"


class SubmissionError(ValueError):
    """A submission that cannot be stored, found or run; the message says what to do."""


@dataclasses.dataclass(frozen=True)
class Package:
    """A bot directory packed for storage."""

    archive: bytes  # deterministic tar.gz: same files, same bytes
    files: int
    unpacked_bytes: int


@dataclasses.dataclass(frozen=True)
class Submission:
    """A submitted bot as stored (without its secret)."""

    name: str
    games: tuple[str, ...]
    kind: str  # DIRECTORY or BUILTIN
    version: str
    entry: tuple[str, ...] = ()  # DIRECTORY: the argv run in the unpacked directory
    builtin: str = ""  # BUILTIN: the built-in bot's name
    packed_bytes: int = 0
    files: int = 0
    created: float = 0.0
    updated: float = 0.0
    versions: tuple[str, ...] = ()  # every version it has had, sorted

    def to_json(self) -> dict:
        """Returns the submission as the ``arena bots list/show --json`` object."""
        return dataclasses.asdict(self)


def validate_name(name: str) -> str:
    """Returns ``name`` if it is a valid bot name, else raises SubmissionError."""
    if not NAME_PATTERN.fullmatch(name):
        raise SubmissionError(
            f"invalid bot name {name!r}: use 1-40 lowercase letters, digits, '-' or '_', "
            "starting with a letter or digit"
        )
    return name


def _walk(directory: Path) -> Iterable[tuple[str, Path]]:
    """Yields (relative posix path, path) of every entry to pack, sorted, skipping caches and VCS."""
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        base = Path(root)
        for name in sorted(dirs) + sorted(f for f in files if not f.endswith(".pyc")):
            path = base / name
            yield path.relative_to(directory).as_posix(), path


def _tarinfo(rel: str, path: Path) -> tarfile.TarInfo:
    """Returns a tar header that depends only on the file's name, kind, size and executable bit."""
    if path.is_symlink():
        raise SubmissionError(f"{rel} is a symbolic link: bots are packed without links; copy the file in")
    info = tarfile.TarInfo(rel)
    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
    if path.is_dir():
        info.type, info.mode = tarfile.DIRTYPE, 0o755
    elif path.is_file():
        st = path.stat()
        info.size, info.mode = st.st_size, 0o755 if st.st_mode & 0o111 else 0o644
    else:
        raise SubmissionError(f"{rel} is not a regular file or directory; remove it from the bot directory")
    return info


def pack(directory: Path) -> Package:
    """Returns the directory packed as a deterministic tar.gz; raises SubmissionError over the limits."""
    if not directory.is_dir():
        raise SubmissionError(f"{directory} is not a directory: give --dir the folder that holds your bot")
    buffer = io.BytesIO()
    files = unpacked = 0
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        for rel, path in _walk(directory):
            info = _tarinfo(rel, path)
            unpacked += info.size
            if unpacked > MAX_UNPACKED_BYTES or buffer.tell() > MAX_PACKED_BYTES:
                raise _too_big(directory)
            if info.isdir():
                tar.addfile(info)
                continue
            with open(path, "rb") as f:
                tar.addfile(info, f)
            files += 1
    archive = buffer.getvalue()
    if len(archive) > MAX_PACKED_BYTES:
        raise _too_big(directory)
    if files == 0:
        raise SubmissionError(f"{directory} holds no files to submit")
    return Package(archive, files, unpacked)


def _too_big(directory: Path) -> SubmissionError:
    return SubmissionError(
        f"bot directory {directory} is too big: at most {MAX_PACKED_BYTES // 2**20} MiB packed and "
        f"{MAX_UNPACKED_BYTES // 2**20} MiB unpacked; leave out files the bot does not need"
    )


def directory_version(archive: bytes, entry: Sequence[str]) -> str:
    """Returns the version of a packed directory and its entry command: a hash of both."""
    digest = hashlib.sha256(archive)
    digest.update(json.dumps(list(entry)).encode())
    return digest.hexdigest()[:12]


def builtin_version(builtin: str, games: Iterable[str]) -> str:
    """Returns the version of a built-in bot: a hash of the source of its class in each game."""
    digest = hashlib.sha256(builtin.encode())
    for game in sorted(games):
        cls = builtin_bots(game)[builtin]
        digest.update(game.encode())
        digest.update(inspect.getsource(sys.modules[cls.__module__]).encode())
    return "builtin-" + digest.hexdigest()[:12]


def hash_secret(secret: str) -> str:
    """Returns the stored form of an owner secret.

    Design detail: a plain SHA-256 suffices because the secret is 32 random bytes, not a password
    someone chose; there is nothing to guess.
    """
    return hashlib.sha256(secret.encode()).hexdigest()


def _games(games: Sequence[str]) -> tuple[str, ...]:
    names = []
    for game in games:
        try:
            names.append(get_game(game).spec.name)
        except ValueError as exc:
            raise SubmissionError(str(exc)) from None
    if not names:
        raise SubmissionError("name the games the bot plays, e.g. --games ninjan")
    return tuple(sorted(set(names)))


def _check_builtin(name: str, games: tuple[str, ...], builtin: str | None) -> None:
    """Refuses a built-in bot a game lacks, and a name that would shadow another built-in bot."""
    for game in games:
        bots = builtin_bots(game)
        if builtin is not None and builtin not in bots:
            raise SubmissionError(
                f"{builtin!r} is not a built-in bot of {game} ({', '.join(sorted(bots)) or 'none'})"
            )
        if name in bots and name != builtin:
            raise SubmissionError(f"{name!r} is the name of a built-in bot of {game}: choose another name")


def version_record(
    games: tuple[str, ...], directory: Path | None, entry: str | None, builtin: str | None
) -> dict[str, str]:
    """Returns the fields of the version to store for a directory (with entry) or a built-in bot."""
    if (directory is None) == (builtin is None):
        raise SubmissionError("give either --dir (with --entry) or --builtin")
    if builtin is not None:
        return {"kind": BUILTIN, "builtin": builtin, "version": builtin_version(builtin, games)}
    try:
        argv = shlex.split(entry or "")
    except ValueError as exc:  # an unclosed quote, a trailing backslash
        raise SubmissionError(f"cannot read --entry {entry!r}: {exc}") from None
    if not argv:
        raise SubmissionError("--dir needs --entry, the command that starts the bot, e.g. 'python bot.py'")
    package = pack(directory)  # type: ignore[arg-type]
    check_entry(directory, argv)  # type: ignore[arg-type]
    return {
        "kind": DIRECTORY,
        "entry": json.dumps(argv),
        "archive": base64.b64encode(package.archive).decode(),
        "packed_bytes": str(len(package.archive)),
        "unpacked_bytes": str(package.unpacked_bytes),
        "files": str(package.files),
        "version": directory_version(package.archive, argv),
    }


def check_entry(directory: Path, argv: Sequence[str]) -> None:
    """Raises SubmissionError unless the entry command can start in ``directory``: a program given by
    a relative path (``./bot``) is a file there with its execute bit, a bare name is not a file there
    that only a path would find, and the script an interpreter runs (its first argument that looks
    like a path: ``bot.py`` in ``python -u bot.py``, ``dist/bot.js``) is there.

    Design detail: the entry runs without a shell, in the unpacked folder, so what can be checked here
    is what the worker will find; an interpreter itself (python, node, /usr/bin/java) is the worker's.
    """
    _, command = declared_variables(argv)
    if not command:
        raise SubmissionError(
            "--entry holds only variables (NAME=value): add the command that starts the bot"
        )
    program, *arguments = command
    if "/" in program and not Path(program).is_absolute():
        path = _inside(directory, program, "program")
        if not path.is_file():
            raise SubmissionError(f"--entry's program {program} is a folder, not a program")
        if not os.access(path, os.X_OK):
            raise SubmissionError(
                f"--entry's program {program} is not executable: run 'chmod +x {path}' (the bit is packed)"
            )
        return
    if "/" not in program and (directory / program).is_file() and shutil.which(program) is None:
        raise SubmissionError(f"--entry {program!r} names a file of --dir: write it as ./{program}")
    script = _script_argument(arguments)
    if script is not None and not Path(script).is_absolute():
        _inside(directory, script, "script")


def _script_argument(arguments: Sequence[str]) -> str | None:
    """Returns the first argument that looks like a path (has a suffix or a '/'), skipping options;
    None when the interpreter runs no file (``python -m pkg``, ``-c CODE``) or none looks like one."""
    for word in arguments:
        if word in ("-m", "-c", "-e"):
            return None
        if not word.startswith("-") and ("/" in word or Path(word).suffix):
            return word
    return None


def _inside(directory: Path, name: str, what: str) -> Path:
    """Returns ``directory / name``; raises SubmissionError unless it exists inside ``directory``."""
    path = directory / name
    if not path.resolve().is_relative_to(directory.resolve()) or not path.exists():
        raise SubmissionError(f"--entry's {what} {name} is not in --dir {directory}")
    return path


def submit(
    client: redis.Redis,
    name: str,
    games: Sequence[str],
    *,
    directory: Path | None = None,
    entry: str | None = None,
    builtin: str | None = None,
    secret: str | None = None,
) -> tuple[Submission, str | None]:
    """Stores a new bot or a new version of one; returns it and its new owner secret (None on update).

    Updating needs the ``secret`` printed when the bot was first submitted.
    """
    validate_name(name)
    game_names = _games(games)
    _check_builtin(name, game_names, builtin)
    record = version_record(game_names, directory, entry, builtin)
    version = record["version"]
    now = repr(time.time())
    with client.pipeline() as pipe:
        while True:
            try:
                pipe.watch(keys.bot(name))
                existing = pipe.hgetall(keys.bot(name))
                new_secret = _authorize(name, existing, secret)
                fields = {
                    "games": ",".join(game_names),
                    "version": version,
                    "updated": now,
                    "created": existing.get("created", now),
                    "secret_sha256": existing.get("secret_sha256") or hash_secret(new_secret or ""),
                }
                pipe.multi()
                pipe.hset(keys.bot_version(version), mapping=record)
                pipe.sadd(keys.bot_versions(name), version)
                pipe.hset(keys.bot(name), mapping=fields)
                pipe.sadd(keys.BOTS_SET, name)
                pipe.execute()
                break
            except redis.WatchError:
                continue
    found = load(client, name)
    assert found is not None
    return found, new_secret


def _authorize(name: str, existing: dict[str, str], secret: str | None) -> str | None:
    """Returns a fresh secret for a new bot; for an existing one checks ``secret`` and returns None."""
    if not existing:
        return secrets.token_urlsafe(32)
    if secret is None:
        raise SubmissionError(f"bot {name} exists: pass its owner secret with --secret to update it")
    if not hmac.compare_digest(hash_secret(secret), existing.get("secret_sha256", "")):
        raise SubmissionError(f"wrong owner secret for bot {name}")
    return None


def load(client: redis.Redis, name: str) -> Submission | None:
    """Returns the submitted bot called ``name``, or None."""
    fields = client.hgetall(keys.bot(name))
    if not fields:
        return None
    version = fields["version"]
    info = client.hmget(keys.bot_version(version), ["kind", "entry", "builtin", "packed_bytes", "files"])
    kind, entry, builtin, packed, files = info
    return Submission(
        name=name,
        games=tuple(fields["games"].split(",")),
        kind=kind or "",
        version=version,
        entry=tuple(json.loads(entry)) if entry else (),
        builtin=builtin or "",
        packed_bytes=int(packed or 0),
        files=int(files or 0),
        created=float(fields.get("created", 0)),
        updated=float(fields.get("updated", 0)),
        versions=tuple(sorted(client.smembers(keys.bot_versions(name)))),
    )


def list_all(client: redis.Redis, game: str | None = None) -> list[Submission]:
    """Returns every submitted bot (those playing ``game`` if given), by name."""
    found = (load(client, name) for name in sorted(client.smembers(keys.BOTS_SET)))
    return [s for s in found if s is not None and (game is None or game in s.games)]


def remove(client: redis.Redis, name: str, secret: str) -> int:
    """Removes a bot and those of its versions no other bot uses; returns how many versions went.

    Queued jobs that still name a removed version fail with an error saying so (and are
    dead-lettered), rather than playing some other code under the bot's name.
    """
    fields = client.hgetall(keys.bot(name))
    if not fields:
        raise SubmissionError(f"no submitted bot {name!r}: see 'arena bots list'")
    if not hmac.compare_digest(hash_secret(secret), fields.get("secret_sha256", "")):
        raise SubmissionError(f"wrong owner secret for bot {name}")
    mine = client.smembers(keys.bot_versions(name))
    others: set[str] = set()
    for other in client.smembers(keys.BOTS_SET) - {name}:
        others |= client.smembers(keys.bot_versions(other))
    gone = sorted(mine - others)
    with client.pipeline() as pipe:
        pipe.delete(keys.bot(name), keys.bot_versions(name), *(keys.bot_version(v) for v in gone))
        pipe.srem(keys.BOTS_SET, name)
        pipe.execute()
    return len(gone)


def resolve(client: redis.Redis, game: str, name: str) -> str:
    """Returns the version a tournament of ``game`` plays for ``name``: a submitted bot playing the
    game, else a built-in bot (whose version is then stored too, so workers find every seat's
    version the same way)."""
    submission = load(client, name)
    if submission is not None and game in submission.games:
        return submission.version
    if name in builtin_bots(game):
        version = builtin_version(name, (game,))
        client.hset(keys.bot_version(version), mapping={"kind": BUILTIN, "builtin": name, "version": version})
        return version
    if submission is not None:
        raise SubmissionError(f"bot {name} does not play {game} (it plays {', '.join(submission.games)})")
    raise SubmissionError(
        f"unknown bot {name!r} for {game}: not a submitted bot (see 'arena bots list') "
        f"nor a built-in one ({', '.join(sorted(builtin_bots(game)))})"
    )


def bot_spec(client: redis.Redis, game: str, name: str, version: str, cache: Path) -> BotSpec:
    """Returns how a worker runs seat ``name`` at ``version``, unpacking the version if needed."""
    if not VERSION_PATTERN.fullmatch(version):
        raise SubmissionError(f"bot {name}: malformed version {version!r}")
    kind, builtin, entry = client.hmget(keys.bot_version(version), ["kind", "builtin", "entry"])
    if kind is None:
        raise SubmissionError(f"bot {name} version {version} is not stored (removed?): resubmit the bot")
    if kind == BUILTIN:
        bots = builtin_bots(game)
        if builtin not in bots:
            raise SubmissionError(f"bot {name}: {builtin!r} is not a built-in bot of {game}")
        return BotSpec(name, (sys.executable, "-m", "arena.bots", game, builtin), "builtin")
    stored = json.loads(entry)
    folder = unpacked(client, version, stored, cache)
    declared, argv = declared_variables(stored)
    if argv and argv[0] in PYTHON_WORDS:
        # Design detail: "python" means the worker's interpreter, the one with the arena SDK installed.
        argv = (sys.executable, *argv[1:])
    return BotSpec(name, argv, "submitted", cwd=folder, code=(folder,), env=tuple(declared.items()))


def unpacked(client: redis.Redis, version: str, entry: Sequence[str], cache: Path) -> Path:
    """Returns the folder holding ``version`` unpacked under ``cache``, fetching it the first time.

    Design detail: it is unpacked into a temporary folder beside the final one and renamed into
    place, so two workers sharing a cache never see a half-written bot; the loser of the race throws
    its copy away.
    """
    final = cache / version
    if final.is_dir():
        return final
    text = client.hget(keys.bot_version(version), "archive")
    if text is None:
        raise SubmissionError(f"bot version {version} has no stored files: resubmit the bot")
    archive = base64.b64decode(text)
    if directory_version(archive, entry) != version:
        raise SubmissionError(f"stored bot version {version} does not match its content: resubmit the bot")
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=cache))
    try:
        _extract(archive, tmp)
        os.rename(tmp, final)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
        if not final.is_dir():
            raise
    return final


def _extract(archive: bytes, folder: Path) -> None:
    """Unpacks a stored archive, refusing links, absolute paths, '..' and oversized contents."""
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        members = tar.getmembers()
        if sum(m.size for m in members) > MAX_UNPACKED_BYTES:
            raise SubmissionError("stored bot unpacks to more than the limit: resubmit the bot")
        if any(not (m.isfile() or m.isdir()) for m in members):
            raise SubmissionError("stored bot holds links or special files: resubmit the bot")
        tar.extractall(folder, filter="data")
