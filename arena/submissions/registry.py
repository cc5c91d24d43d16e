"""Bot submissions: named bots stored in Redis, so a worker on any machine can run them.

A submission is a name, the games it plays, and either a bot folder with an entry command (and an
optional build command) or a built-in bot. The folder travels as a tar.gz (packed here from a
directory, or uploaded to the server already packed), checked against ``ArchiveLimits`` by
``arena.submissions.archives`` wherever it is received or unpacked, and stored with its commands as one
immutable *version*, named by the hash of that content; a worker fetches a version once, verifies it
against its hash, unpacks it read-only into ``$XDG_STATE_HOME/arena/bots/<version>`` and reuses it
from then on. Commands are kept as argv lists and run without a shell, in the unpacked folder.

The submitter gets an owner secret, printed once (only its scrypt hash is stored), which updating or
removing the bot needs; a bot of an account (its ``account`` field, ``arena.submissions.accounts``) has
none: only its account may. A version may be stored as the bot's ``candidate``, not its active
``version`` (the server's path: active once its smoke match passes); tournaments play active versions.

Design detail, names and history: each registration of a name draws a random *nonce*, kept in the
bot's hash and in each of its version records and mixed into the version hash. Ratings are keyed by
``bot@version``, so a name removed and registered again, even with identical code, gets new versions
and starts with no rating; removing a bot also drops its name from each game's latest-version table
and adds its players to the game's retired set, which the leaderboard's views leave out.

Design detail: jobs name each seat's version, not just the bot's name, so a bot updated while its
tournament is queued still plays the code it was entered with, and every worker runs the same bytes.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import os
import re
import secrets
import shlex
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from pathlib import Path

import redis

from arena.bots import builtin_bots
from arena.games import GAMES, get_game
from arena.queue import keys
from arena.queue.connection import hash_fields, maybe_text_list, text_hash, text_set
from arena.ratings.pairs import player_id
from arena.referee.processes import BotSpec, builtin_spec
from arena.referee.sandbox import declared_variables
from arena.submissions.accounts import owned
from arena.submissions.archives import (
    ArchiveError,
    ArchiveLimits,
    ArchiveSummary,
    Package,
    SubmissionError,
    extract_archive,
    inspect_archive,
    pack,
    remove_tree,
    shown_name,
)
from arena.submissions.entries import check_archive_entry, check_entry
from arena.submissions.owner_secrets import hash_secret, is_scrypt, verify_secret

__all__ = [  # re-exported for the CLI, the server and the workers: one import for submissions
    "ArchiveLimits",
    "Package",
    "SubmissionError",
    "check_archive_entry",
    "check_entry",
    "hash_secret",
    "pack",
    "verify_secret",
]

NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
VERSION_PATTERN = re.compile(r"^(?:[0-9a-f]{12}|builtin-[0-9a-f]{12})$")
LIMITS = ArchiveLimits()  # the defaults; the server may configure its own
MAX_PACKED_BYTES = LIMITS.packed_bytes  # a packed directory may be at most this big (10 MiB)
MAX_UNPACKED_BYTES = LIMITS.unpacked_bytes  # ... and its files together at most this big
PYTHON_WORDS = frozenset({"python", "python3"})
DIRECTORY, BUILTIN = "directory", "builtin"


class VersionGone(SubmissionError):
    """A job names a version that is no longer stored: its owner removed the bot."""


@dataclasses.dataclass(frozen=True)
class Submission:
    """A submitted bot as stored (without its secret). Its details (kind, entry...) describe the
    active version, or the candidate when it has none yet."""

    name: str
    games: tuple[str, ...]
    kind: str  # DIRECTORY or BUILTIN
    version: str  # the active version tournaments play; "" until a candidate passes its smoke match
    entry: tuple[str, ...] = ()  # DIRECTORY: the argv run in the unpacked directory
    builtin: str = ""  # BUILTIN: the built-in bot's name
    packed_bytes: int = 0
    files: int = 0
    created: float = 0.0
    updated: float = 0.0
    versions: tuple[str, ...] = ()  # every version it has had, sorted
    candidate: str = ""  # a version stored but not active yet ("" when none)
    build: tuple[str, ...] = ()  # DIRECTORY: the argv building the version once, if any

    def to_json(self) -> dict:
        """Returns the submission as the ``arena bots list/show --json`` object."""
        return dataclasses.asdict(self)


def validate_name(name: str) -> str:
    """Returns ``name`` if it is a valid bot name, else raises SubmissionError."""
    if not NAME_PATTERN.fullmatch(name):
        raise SubmissionError(
            f"invalid bot name {shown_name(name)!r}: use 1-40 lowercase letters, digits, '-' or '_', "
            "starting with a letter or digit"
        )
    return name


def directory_version(
    archive: bytes, entry: Sequence[str], build: Sequence[str] = (), nonce: str = ""
) -> str:
    """Returns the version of a packed directory with its entry command, build command and
    registration nonce: a hash of all four (records stored before builds and nonces hash as before)."""
    digest = hashlib.sha256(archive)
    digest.update(json.dumps(list(entry)).encode())
    if build:
        digest.update(b"\0build" + json.dumps(list(build)).encode())
    if nonce:
        digest.update(b"\0nonce" + nonce.encode())
    return digest.hexdigest()[:12]


def builtin_version(builtin: str, games: Iterable[str], nonce: str = "") -> str:
    """Returns the version of a built-in bot: a hash of its name, and of its class and that class's
    ``revision`` in each game (and of the registration nonce of the submitted bot that runs it, if any).

    Design detail: the revision is declared, not read off the source, so moving, retyping or
    documenting a bot keeps its version (and its ratings); ``tests/test_builtin_versions.py`` holds each
    class's moves in seeded games against a stored fingerprint and fails until a change of its moves
    comes with a new revision.
    """
    digest = hashlib.sha256(builtin.encode())
    for game in sorted(games):
        cls = builtin_bots(game)[builtin]
        revision = getattr(cls, "revision", 0)  # every shipped bot declares one (the test above)
        digest.update(f"\0{game}\0{cls.__qualname__}\0{revision}".encode())
    if nonce:
        digest.update(b"\0nonce" + nonce.encode())
    return "builtin-" + digest.hexdigest()[:12]


def _stored_secret(fields: dict[str, str]) -> str:
    """Returns a bot's stored secret hash, in either form."""
    return fields.get("secret_hash") or fields.get("secret_sha256", "")


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
    """Refuses a built-in bot a game lacks, and the name of any game's built-in bot.

    Design detail: even ``random`` registered as the built-in ``random`` is refused: its owner could
    remove it while every smoke match and every tournament naming ``random`` waits to play it.
    """
    for game in games:
        bots = builtin_bots(game)
        if builtin is not None and builtin not in bots:
            raise SubmissionError(
                f"{builtin!r} is not a built-in bot of {game} ({', '.join(sorted(bots)) or 'none'})"
            )
    taken = [game for game in GAMES if name in builtin_bots(game)]
    if taken:
        raise SubmissionError(f"{name!r} is the name of a built-in bot of {taken[0]}: choose another name")


@dataclasses.dataclass(frozen=True)
class Draft:
    """A checked version before its registration's nonce is known; ``record`` makes it storable."""

    games: tuple[str, ...]
    builtin: str | None = None
    archive: bytes = b""
    entry: tuple[str, ...] = ()
    build: tuple[str, ...] = ()
    summary: ArchiveSummary | None = None

    def record(self, nonce: str = "") -> dict[str, str]:
        """Returns the fields of the version record to store under a registration's ``nonce``."""
        if self.builtin is not None:
            version = builtin_version(self.builtin, self.games, nonce)
            fields = {"kind": BUILTIN, "builtin": self.builtin, "version": version}
        else:
            assert self.summary is not None
            fields = {
                "kind": DIRECTORY,
                "entry": json.dumps(list(self.entry)),
                "archive": base64.b64encode(self.archive).decode(),
                "packed_bytes": str(len(self.archive)),
                "unpacked_bytes": str(self.summary.unpacked_bytes),
                "files": str(self.summary.files),
                "version": directory_version(self.archive, self.entry, self.build, nonce),
            }
            if self.build:
                fields["build"] = json.dumps(list(self.build))
        return fields | ({"nonce": nonce} if nonce else {})


def draft(
    games: tuple[str, ...],
    directory: Path | None = None,
    entry: str | None = None,
    builtin: str | None = None,
    *,
    archive: bytes | None = None,
    build: str | None = None,
    limits: ArchiveLimits = LIMITS,
) -> Draft:
    """Returns the checked version of a directory or an uploaded archive (with its entry and build
    commands), or of a built-in bot; raises SubmissionError for anything a worker could not run."""
    if sum(x is not None for x in (directory, archive, builtin)) != 1:
        raise SubmissionError("give either --dir (with --entry) or --builtin")
    if builtin is not None:
        if build is not None:
            raise SubmissionError("--build is for bots submitted with --dir; a built-in bot needs none")
        return Draft(games, builtin=builtin)
    argv = _argv(entry, "--entry")
    if not argv:
        raise SubmissionError("--dir needs --entry, the command that starts the bot, e.g. 'python bot.py'")
    build_argv = _argv(build, "--build") if build is not None else ()
    if build is not None and not build_argv:
        raise SubmissionError("--build is empty: give the command that builds the bot, or leave it out")
    # With a build command, the entry names what the build makes: it is checked after the build,
    # on the worker (arena.submissions.build.check_built_entry).
    if directory is not None:
        archive = pack(directory, limits).archive
        if not build_argv:
            check_entry(directory, argv)
    assert archive is not None
    summary = inspect_archive(archive, limits)
    if directory is None and not build_argv:
        check_archive_entry(summary, argv)
    return Draft(games, archive=archive, entry=argv, build=build_argv, summary=summary)


def version_record(
    games: tuple[str, ...], directory: Path | None, entry: str | None, builtin: str | None
) -> dict[str, str]:
    """Returns the fields of the version to store for a directory (with entry) or a built-in bot."""
    return draft(games, directory, entry, builtin).record()


def _argv(command: str | None, option: str) -> tuple[str, ...]:
    """Returns a command split like a shell would, without running one."""
    try:
        return tuple(shlex.split(command or ""))
    except ValueError as exc:  # an unclosed quote, a trailing backslash
        raise SubmissionError(f"cannot read {option} {command!r}: {exc}") from None


def submit(
    client: redis.Redis,
    name: str,
    games: Sequence[str],
    *,
    directory: Path | None = None,
    entry: str | None = None,
    builtin: str | None = None,
    secret: str | None = None,
    archive: bytes | None = None,
    build: str | None = None,
    limits: ArchiveLimits = LIMITS,
    activate: bool = True,
    account: str | None = None,
) -> tuple[Submission, str | None]:
    """Stores a new bot or a new version of one; returns it and its new owner secret (None on update).

    The code is a ``directory`` (packed here) or an uploaded ``archive`` (the server's path), either
    checked against ``limits`` with its ``entry`` and optional ``build`` command; or a ``builtin``.
    Updating needs the ``secret`` printed when the bot was first submitted; with ``account`` (whose
    token the server checked) a new bot is that account's, has no secret, and only it may update it.
    With ``activate=False`` the version is stored as the bot's ``candidate`` only: its active version
    (none for a new bot) stays until the candidate passes its smoke match (``arena.submissions.smoke``).
    """
    validate_name(name)
    game_names = _games(games)
    _check_builtin(name, game_names, builtin)
    checked = draft(game_names, directory, entry, builtin, archive=archive, build=build, limits=limits)
    now = repr(time.time())
    with client.pipeline() as pipe:
        while True:
            try:
                pipe.watch(keys.bot(name))
                existing = text_hash(pipe.hgetall(keys.bot(name)))
                new_secret = _authorize(name, existing, secret, account)
                nonce = existing.get("nonce", "") if existing else secrets.token_hex(8)
                record = checked.record(nonce)
                fields = {
                    "games": ",".join(game_names),
                    "updated": now,
                    "created": existing.get("created", now),
                }
                fields |= {"nonce": nonce} if nonce else {}
                mine = _renewed_secret(existing, new_secret or secret or "") if account is None else ""
                fields |= {"account": account} if account is not None else {"secret_hash": mine}
                fields |= {"version" if activate else "candidate": record["version"]}
                pipe.multi()
                pipe.hset(keys.bot_version(record["version"]), mapping=hash_fields(record))
                pipe.sadd(keys.bot_versions(name), record["version"])
                pipe.hdel(keys.bot(name), "secret_sha256", *(["candidate"] if activate else []))
                pipe.hset(keys.bot(name), mapping=hash_fields(fields))
                pipe.sadd(keys.BOTS_SET, name)
                if account is not None:
                    pipe.sadd(keys.account_bots(account), name)
                pipe.execute()
                break
            except redis.WatchError:
                continue
    found = load(client, name)
    assert found is not None
    return found, new_secret


def _authorize(name: str, existing: dict[str, str], secret: str | None, account: str | None) -> str | None:
    """Returns a new bot's fresh secret (none for an account's); checks an existing bot's credential."""
    if not existing:
        return None if account is not None else secrets.token_urlsafe(32)
    if owned(name, existing, account):
        return None
    if secret is None:
        raise SubmissionError(f"bot {name} exists: its owner secret updates it ($ARENA_BOT_SECRET)")
    if not verify_secret(_stored_secret(existing), secret):
        raise SubmissionError(f"wrong owner secret for bot {name}")
    return None


def _renewed_secret(existing: dict[str, str], secret: str) -> str:
    """Returns the secret hash to store: the bot's scrypt hash as it is, or a new one for a new bot
    or one stored with the legacy SHA-256 (upgraded now that its secret has been checked)."""
    stored = existing.get("secret_hash", "")
    return stored if is_scrypt(stored) else hash_secret(secret)


def load(client: redis.Redis, name: str) -> Submission | None:
    """Returns the submitted bot called ``name``, or None."""
    fields = text_hash(client.hgetall(keys.bot(name)))
    if not fields:
        return None
    version, candidate = fields.get("version", ""), fields.get("candidate", "")
    names = ["kind", "entry", "builtin", "packed_bytes", "files", "build"]
    version_fields = maybe_text_list(client.hmget(keys.bot_version(version or candidate), names))
    kind, entry, builtin, packed, files, build = version_fields
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
        versions=tuple(sorted(text_set(client.smembers(keys.bot_versions(name))))),
        candidate=candidate,
        build=tuple(json.loads(build)) if build else (),
    )


def list_all(client: redis.Redis, game: str | None = None) -> list[Submission]:
    """Returns every submitted bot (those playing ``game`` if given), by name."""
    found = (load(client, name) for name in sorted(text_set(client.smembers(keys.BOTS_SET))))
    return [s for s in found if s is not None and (game is None or game in s.games)]


def remove(client: redis.Redis, name: str, secret: str, account: str | None = None) -> int:
    """Removes a bot and those of its versions no other bot uses; returns how many versions went.

    Its name's history is retired: the bot leaves each game's latest-version table and loses its list
    of recent matches (the matches stay in the game's results), its versions join
    the game's retired players (which the leaderboard leaves out), and the cached views are dropped,
    so a bot registered again under the name starts with no rating and no record (module docstring).
    A queued match that still names a removed version is played with that seat forfeiting (its log
    says why; see ``worker.seat_specs``), rather than playing some other code under the bot's name or
    voiding the match. A bot of an ``account`` is removed for it, any other bot with its ``secret``.
    """
    with client.pipeline() as pipe:
        while True:
            try:
                pipe.watch(keys.bot(name), keys.bot_versions(name))
                gone = _remove_watched(pipe, name, secret, account)
                pipe.execute()
                return len(gone)
            except redis.WatchError:  # a version submitted meanwhile: check and remove again
                continue


def _remove_watched(pipe: redis.client.Pipeline, name: str, secret: str, account: str | None) -> list[str]:
    """Checks the secret (or the account) and queues the removal of bot ``name`` on a watching ``pipe``
    (see ``remove``); returns the versions that go with it."""
    fields = text_hash(pipe.hgetall(keys.bot(name)))
    if not fields:
        raise SubmissionError(f"no submitted bot {shown_name(name)!r}: see 'arena bots list'")
    if not owned(name, fields, account) and not verify_secret(_stored_secret(fields), secret):
        raise SubmissionError(f"wrong owner secret for bot {name}")
    mine = text_set(pipe.smembers(keys.bot_versions(name)))
    others: set[str] = set()
    for other in text_set(pipe.smembers(keys.BOTS_SET)) - {name}:
        others |= text_set(pipe.smembers(keys.bot_versions(other)))
    gone = sorted(mine - others)
    pipe.multi()
    pipe.delete(keys.bot(name), keys.bot_versions(name), *(keys.bot_version(v) for v in gone))
    pipe.srem(keys.BOTS_SET, name)
    if fields.get("account"):
        pipe.srem(keys.account_bots(fields["account"]), name)
    for game in sorted(GAMES):  # every game: it may have played one it no longer lists
        pipe.hdel(keys.played_versions(game), name)
        pipe.delete(keys.bot_matches(game, name))
        if mine:
            pipe.sadd(keys.retired_players(game), *(player_id(name, v) for v in sorted(mine)))
        pipe.delete(keys.fit(game))
    return gone


def resolve(client: redis.Redis, game: str, name: str) -> str:
    """Returns the version a tournament of ``game`` plays for ``name``: a submitted bot's active
    version, else a built-in bot's (whose version is then stored too, so workers find every seat's
    version the same way)."""
    submission = load(client, name)
    if submission is not None and game in submission.games:
        if not submission.version:
            raise SubmissionError(
                f"bot {name} has no active version yet: its candidate {submission.candidate} has not "
                f"passed its smoke match (see 'arena bots show {name}')"
            )
        return submission.version
    if name in builtin_bots(game):
        version = builtin_version(name, (game,))
        fields = {"kind": BUILTIN, "builtin": name, "version": version}
        client.hset(keys.bot_version(version), mapping=hash_fields(fields))
        return version
    if submission is not None:
        raise SubmissionError(f"bot {name} does not play {game} (it plays {', '.join(submission.games)})")
    raise SubmissionError(
        f"unknown bot {shown_name(name)!r} for {game}: not a submitted bot (see 'arena bots list') "
        f"nor a built-in one ({', '.join(sorted(builtin_bots(game)))})"
    )


def bot_spec(client: redis.Redis, game: str, name: str, version: str, cache: Path) -> BotSpec:
    """Returns how a worker runs seat ``name`` at ``version``, unpacking the version if needed."""
    if not VERSION_PATTERN.fullmatch(version):
        raise SubmissionError(f"bot {name}: malformed version {version!r}")
    stored_fields = client.hmget(keys.bot_version(version), ["kind", "builtin", "entry"])
    kind, builtin, entry = maybe_text_list(stored_fields)
    if kind is None:
        raise VersionGone(f"bot {name} version {version} is not stored (removed?): resubmit the bot")
    if kind == BUILTIN:
        bots = builtin_bots(game)
        if builtin not in bots:
            raise SubmissionError(f"bot {name}: {builtin!r} is not a built-in bot of {game}")
        return builtin_spec(game, builtin, name)
    assert entry is not None  # a directory version always has its entry (Draft.record)
    stored = json.loads(entry)
    folder = unpacked(client, version, stored, cache)
    declared, argv = declared_variables(stored)
    if argv and argv[0] in PYTHON_WORDS:
        # Design detail: "python" means the worker's interpreter, the one with the arena SDK installed.
        argv = (sys.executable, *argv[1:])
    return BotSpec(name, argv, "submitted", cwd=folder, code=(folder,), env=tuple(declared.items()))


def unpacked(
    client: redis.Redis, version: str, entry: Sequence[str], cache: Path, limits: ArchiveLimits = LIMITS
) -> Path:
    """Returns the folder holding ``version`` unpacked (read-only) under ``cache``, fetching it the
    first time: its archive is verified against the version hash, then checked against ``limits``
    while it is unpacked (``extract_archive``).

    Design detail: it is unpacked into a temporary folder beside the final one and renamed into
    place, so two workers sharing a cache never see a half-written bot; the loser of the race throws
    its copy away.
    """
    final = cache / version
    if final.is_dir():
        return final
    stored_fields = client.hmget(keys.bot_version(version), ["archive", "build", "nonce"])
    text, build, nonce = maybe_text_list(stored_fields)
    if text is None:
        raise SubmissionError(f"bot version {version} has no stored files: resubmit the bot")
    archive = base64.b64decode(text)
    if directory_version(archive, entry, json.loads(build) if build else (), nonce or "") != version:
        raise SubmissionError(f"stored bot version {version} does not match its content: resubmit the bot")
    cache.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{version}-", dir=cache))
    try:
        extract_archive(archive, tmp, limits)
        os.rename(tmp, final)
    except ArchiveError as exc:
        raise SubmissionError(f"stored bot version {version} is refused: {exc}") from None
    except OSError:
        remove_tree(tmp)
        if not final.is_dir():
            raise
    return final
