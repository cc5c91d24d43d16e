"""Bot submissions: names, packing, versions, owner secrets, the worker's cache, and the CLI.

Against the private redis-server of ``tests.conftest`` (never the Redis on 6379).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shutil
import stat
import sys
import tarfile
from pathlib import Path

import pytest
import redis

from arena.games.base import Termination
from arena.queue import keys, store
from arena.queue.jobs import MatchJob
from arena.referee.record import MatchRecord
from arena.results import PlayerResult
from arena.submissions import archives, registry
from arena.submissions.registry import SubmissionError
from leaderboard import data
from tests.conftest import REPO, run_arena, secret_file

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")


def bot_dir(tmp_path: Path, name: str = "tr") -> Path:
    folder = tmp_path / name
    (folder / "lib").mkdir(parents=True)
    shutil.copy(REPO / "bots" / "python" / "take_richest.py", folder / "bot.py")
    (folder / "lib" / "notes.txt").write_text("strategy notes\n")
    return folder


@pytest.mark.parametrize(
    "name", ["", "A", "-x", "_x", "../x", "a/b", "a b", "a;rm", "a$(id)", "é", "x" * 41, ".hidden"]
)
def test_invalid_names_are_refused(name: str) -> None:
    with pytest.raises(SubmissionError, match="invalid bot name"):
        registry.validate_name(name)


def test_valid_names_pass() -> None:
    for name in ["a", "0", "take-richest", "bot_2", "x" * 40]:
        assert registry.validate_name(name) == name


def test_packing_is_deterministic_and_the_version_follows_the_content(tmp_path: Path) -> None:
    folder = bot_dir(tmp_path)
    first = registry.pack(folder)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    os.utime(folder / "bot.py", (1, 1))
    again = registry.pack(folder)
    assert again == first and first.files == 2
    entry = ["python", "bot.py"]
    version = registry.directory_version(first.archive, entry)
    assert registry.VERSION_PATTERN.fullmatch(version)
    assert registry.directory_version(first.archive, ["python", "other.py"]) != version
    (folder / "lib" / "notes.txt").write_text("changed\n")
    assert registry.directory_version(registry.pack(folder).archive, entry) != version


def test_oversized_directories_symlinks_and_empty_folders_are_refused(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.mkdir()
    (big / "weights.bin").write_bytes(os.urandom(registry.MAX_PACKED_BYTES + 1024))
    with pytest.raises(SubmissionError, match=r"too big: at most 10 MiB packed"):
        registry.pack(big)
    linked = bot_dir(tmp_path, "linked")
    (linked / "passwd").symlink_to("/etc/passwd")
    with pytest.raises(SubmissionError, match="passwd is a symbolic link"):
        registry.pack(linked)
    many = archives.ArchiveLimits(files=3)  # lib, bot.py, lib/notes.txt, and one more
    (linked / "passwd").unlink()
    (linked / "extra.txt").write_text("x")
    with pytest.raises(SubmissionError, match="too big: at most 10 MiB packed, 100 MiB unpacked and 3 files"):
        registry.pack(linked, many)
    (tmp_path / "empty").mkdir()
    with pytest.raises(SubmissionError, match="holds no files"):
        registry.pack(tmp_path / "empty")
    with pytest.raises(SubmissionError, match="is not a directory"):
        registry.pack(tmp_path / "missing")


def all_values(client: redis.Redis) -> str:
    """Returns every string stored in Redis, concatenated (to look for a leaked secret)."""
    out = []
    for key in client.scan_iter("*"):
        kind = client.type(key)
        if kind == "string":
            out.append(client.get(key))
        elif kind == "hash":
            out += [f"{k}={v}" for k, v in client.hgetall(key).items()]
        elif kind == "set":
            out += list(client.smembers(key))
    return "\n".join(out)


def test_submit_update_and_remove_need_the_owner_secret(client: redis.Redis, tmp_path: Path) -> None:
    folder = bot_dir(tmp_path)
    bot, secret = registry.submit(client, "tr", ["ninjan"], directory=folder, entry="python bot.py")
    assert secret and bot.kind == "directory" and bot.entry == ("python", "bot.py") and bot.files == 2
    assert secret not in all_values(client)  # only its hash is stored
    with pytest.raises(SubmissionError, match=r"its owner secret updates it \(\$ARENA_BOT_SECRET\)"):
        registry.submit(client, "tr", ["ninjan"], builtin="greedy")
    with pytest.raises(SubmissionError, match="wrong owner secret"):
        registry.submit(client, "tr", ["ninjan"], builtin="greedy", secret="guess")
    updated, none = registry.submit(client, "tr", ["ninjan"], builtin="greedy", secret=secret)
    assert (
        none is None
        and updated.kind == "builtin"
        and updated.versions == tuple(sorted({bot.version, updated.version}))
    )
    assert updated.created == bot.created and [s.name for s in registry.list_all(client)] == ["tr"]
    assert registry.list_all(client, "pnrz") == []
    with pytest.raises(SubmissionError, match="wrong owner secret"):
        registry.remove(client, "tr", "guess")
    assert registry.remove(client, "tr", secret) == 2
    assert registry.load(client, "tr") is None and not client.keys("arena:bot*")


def test_built_in_names_cannot_be_taken_and_unknown_games_are_named(client: redis.Redis) -> None:
    with pytest.raises(SubmissionError, match="'greedy' is the name of a built-in bot of ninjan"):
        registry.submit(client, "greedy", ["ninjan"], builtin="random")
    with pytest.raises(SubmissionError, match="'builder' is not a built-in bot of ninjan"):
        registry.submit(client, "b", ["ninjan"], builtin="builder")
    with pytest.raises(SubmissionError, match="unknown game"):
        registry.submit(client, "b", ["chess"], builtin="random")
    with pytest.raises(SubmissionError, match="--dir needs --entry"):
        registry.submit(client, "b", ["ninjan"], directory=Path("."))


def test_a_worker_unpacks_a_version_once_and_runs_it_without_a_shell(
    client: redis.Redis, tmp_path: Path
) -> None:
    folder = bot_dir(tmp_path)
    bot, _ = registry.submit(client, "tr", ["ninjan"], directory=folder, entry="python bot.py --x 'a b'")
    cache = tmp_path / "cache"
    spec = registry.bot_spec(client, "ninjan", "tr", bot.version, cache)
    assert spec.argv == (sys.executable, "bot.py", "--x", "a b") and spec.cwd == cache / bot.version
    assert (spec.cwd / "bot.py").read_bytes() == (folder / "bot.py").read_bytes()
    assert (spec.cwd / "lib" / "notes.txt").is_file() and [p.name for p in cache.iterdir()] == [bot.version]
    client.hdel(keys.bot_version(bot.version), "archive")  # present in the cache: not fetched again
    assert registry.bot_spec(client, "ninjan", "tr", bot.version, cache) == spec
    with pytest.raises(SubmissionError, match="has no stored files"):
        registry.bot_spec(client, "ninjan", "tr", bot.version, tmp_path / "other-cache")
    with pytest.raises(SubmissionError, match="malformed version"):
        registry.bot_spec(client, "ninjan", "tr", "../../etc", cache)
    with pytest.raises(SubmissionError, match="is not stored"):
        registry.bot_spec(client, "ninjan", "tr", "0" * 12, cache)


def test_a_tampered_or_hostile_archive_is_not_unpacked(client: redis.Redis, tmp_path: Path) -> None:
    bot, _ = registry.submit(client, "tr", ["ninjan"], directory=bot_dir(tmp_path), entry="python bot.py")
    client.hset(keys.bot_version(bot.version), "archive", base64.b64encode(b"other bytes").decode())
    with pytest.raises(SubmissionError, match="does not match its content"):
        registry.bot_spec(client, "ninjan", "tr", bot.version, tmp_path / "cache")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        link = tarfile.TarInfo("bot.py")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    archive, entry = buffer.getvalue(), ["python", "bot.py"]
    version = registry.directory_version(archive, entry)
    client.hset(
        keys.bot_version(version),
        mapping={"kind": "directory", "entry": json.dumps(entry), "archive": base64.b64encode(archive)},
    )
    with pytest.raises(SubmissionError, match="links or special files"):
        registry.bot_spec(client, "ninjan", "evil", version, tmp_path / "cache")
    assert list((tmp_path / "cache").iterdir()) == []  # neither the version nor a temporary folder


def test_bots_cli_and_a_tournament_of_a_submitted_bot(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "state")}
    folder = bot_dir(tmp_path)
    common = ["--redis", redis_url]
    args = ["bots", "submit", "tr", "--games", "ninjan", "--dir", str(folder), "--entry", "python bot.py"]
    proc = run_arena(*args, *common, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("submitted tr version ")
    secret = proc.stdout.split("needed to update or remove tr): ")[1].strip()
    again = run_arena(*args, *common, env=env)
    assert again.returncode == 2
    assert again.stderr == "arena: error: bot tr exists: its owner secret updates it ($ARENA_BOT_SECRET)\n"
    listed = json.loads(run_arena("bots", "list", "--json", *common).stdout)
    version = listed[0]["version"]
    assert [b["name"] for b in listed] == ["tr"] and listed[0]["entry"] == ["python", "bot.py"]
    shown = run_arena("bots", "show", "tr", *common)
    assert f"version:  {version}" in shown.stdout
    bad = run_arena("bots", "submit", "../x", "--games", "ninjan", "--builtin", "greedy", *common)
    assert bad.returncode == 2 and bad.stderr.startswith("arena: error: invalid bot name '../x'")

    tour = ["tournament", "ninjan", "--bots", "tr,random", "--rounds", "2", "--workers", "1", *common]
    played = run_arena(*tour, env=env)
    assert played.returncode == 0, played.stderr
    board = json.loads(run_arena("leaderboard", "ninjan", "--json", *common).stdout)
    versions = {row["bot"]: row["version"] for row in board}
    assert versions == {"tr": version, "random": registry.builtin_version("random", ("ninjan",))}
    assert all(row["games"] == 4 for row in board)
    assert (tmp_path / "state" / "arena" / "bots" / version / "bot.py").is_file()
    assert version in played.stdout

    wrong = run_arena("bots", "remove", "tr", "--secret-file", secret_file(tmp_path, "guess"), *common)
    assert wrong.returncode == 2 and wrong.stderr == "arena: error: wrong owner secret for bot tr\n"
    removed = run_arena("bots", "remove", "tr", *common, env={"ARENA_BOT_SECRET": secret})
    assert removed.returncode == 0 and removed.stdout == "removed tr (1 stored version deleted)\n"
    assert json.loads(run_arena("bots", "list", "--json", *common).stdout) == []


# -- uploaded archives (the server's path), candidates, build commands ---------------------------------


def packed(tmp_path: Path, program_mode: int = 0o755) -> bytes:
    """Returns a bot folder with an executable-or-not ./bot and a bot.py, packed as the CLI would."""
    folder = bot_dir(tmp_path, f"packed-{program_mode:o}")
    (folder / "bot").write_text("#!/bin/sh\nexec python3 bot.py\n")
    (folder / "bot").chmod(program_mode)
    return registry.pack(folder).archive


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("python nope.py", "--entry's script nope.py is not in the archive"),
        ("python ../bot.py", "--entry's script ../bot.py is not in the archive"),
        ("./nope", "--entry's program ./nope is not in the archive"),
        ("./lib", "--entry's program ./lib is a folder"),
        ("./bot", "--entry's program ./bot is not executable: run 'chmod \\+x bot'"),
        ("bot.py", "--entry 'bot.py' names a file of the archive: write it as ./bot.py"),
    ],
)
def test_an_uploaded_archive_whose_entry_cannot_run_is_refused(
    client: redis.Redis, tmp_path: Path, entry: str, message: str
) -> None:
    archive = packed(tmp_path, 0o644)
    with pytest.raises(SubmissionError, match=message):
        registry.submit(client, "up", ["ninjan"], archive=archive, entry=entry)
    assert registry.load(client, "up") is None and not client.keys("arena:bot-version:*")


def test_a_hostile_upload_is_refused_before_anything_is_stored(client: redis.Redis) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for i in range(30):
            tar.addfile(tarfile.TarInfo(f"f{i}"), io.BytesIO(b""))
    limits = archives.ArchiveLimits(files=20)
    with pytest.raises(SubmissionError, match="more than 20 files and folders"):
        registry.submit(client, "up", ["ninjan"], archive=buffer.getvalue(), entry="./f0", limits=limits)
    assert not client.keys("arena:bot*")


def test_a_candidate_is_stored_but_not_played_until_activated(client: redis.Redis, tmp_path: Path) -> None:
    archive = packed(tmp_path)
    bot, secret = registry.submit(
        client, "up", ["ninjan"], archive=archive, entry="./bot", build="make bot", activate=False
    )
    assert bot.version == "" and bot.candidate and bot.entry == ("./bot",) and bot.build == ("make", "bot")
    record = client.hgetall(keys.bot_version(bot.candidate))
    assert json.loads(record["build"]) == ["make", "bot"] and record["nonce"]
    without_build = registry.directory_version(archive, ["./bot"], (), record["nonce"])
    assert without_build != bot.candidate  # the build command is part of the version
    with pytest.raises(
        SubmissionError, match=f"bot up has no active version yet: its candidate {bot.candidate}"
    ):
        registry.resolve(client, "ninjan", "up")
    # the smoke match's pass, as arena.submissions.smoke stores it: the candidate becomes the version
    client.hset(keys.bot("up"), "version", bot.candidate)
    client.hdel(keys.bot("up"), "candidate")
    assert registry.resolve(client, "ninjan", "up") == bot.candidate
    newer, _ = registry.submit(client, "up", ["ninjan"], builtin="greedy", secret=secret, activate=False)
    assert newer.version == bot.candidate and newer.candidate.startswith("builtin-")
    assert registry.resolve(client, "ninjan", "up") == bot.candidate  # still the active one
    spec = registry.bot_spec(client, "ninjan", "up", bot.candidate, tmp_path / "cache")
    assert spec.argv == ("./bot",) and os.access(spec.cwd / "bot", os.X_OK)
    assert stat.S_IMODE(spec.cwd.stat().st_mode) == 0o555  # the worker's copy is read-only
    assert stat.S_IMODE((spec.cwd / "bot.py").stat().st_mode) == 0o444
    with pytest.raises(SubmissionError, match="--build is for bots submitted with --dir"):
        registry.submit(client, "b2", ["ninjan"], builtin="greedy", build="make")


# -- owner secrets: scrypt, and the legacy SHA-256 ----------------------------------------------------


def test_secrets_are_stored_as_scrypt_hashes(client: redis.Redis) -> None:
    _, secret = registry.submit(client, "s", ["ninjan"], builtin="greedy")
    stored = client.hget(keys.bot("s"), "secret_hash")
    assert stored.startswith("scrypt$16384$8$1$") and not client.hexists(keys.bot("s"), "secret_sha256")
    _, _, _, _, salt, digest = stored.split("$")
    assert len(base64.b64decode(salt)) == 16 and len(base64.b64decode(digest)) == 64
    assert registry.verify_secret(stored, secret) and not registry.verify_secret(stored, secret + "x")
    assert registry.hash_secret(secret) != stored  # salted: a new hash each time
    for malformed in ["", "scrypt$", "scrypt$x$8$1$AAAA$AAAA", "scrypt$16384$8$1$!!$AAAA", "z" * 64]:
        assert not registry.verify_secret(malformed, secret)


def test_a_legacy_sha256_secret_still_verifies_and_is_upgraded(client: redis.Redis) -> None:
    _, secret = registry.submit(client, "old", ["ninjan"], builtin="greedy")
    legacy = hashlib.sha256(secret.encode()).hexdigest()
    client.hdel(keys.bot("old"), "secret_hash")
    client.hset(keys.bot("old"), "secret_sha256", legacy)
    with pytest.raises(SubmissionError, match="wrong owner secret"):
        registry.submit(client, "old", ["ninjan"], builtin="random", secret="guess")
    assert client.hget(keys.bot("old"), "secret_sha256") == legacy  # a failed check changes nothing
    registry.submit(client, "old", ["ninjan"], builtin="random", secret=secret)
    fields = client.hgetall(keys.bot("old"))
    assert "secret_sha256" not in fields and fields["secret_hash"].startswith("scrypt$")
    assert registry.verify_secret(fields["secret_hash"], secret)
    client.hdel(keys.bot("old"), "secret_hash")
    client.hset(keys.bot("old"), "secret_sha256", legacy)
    assert registry.remove(client, "old", secret) == 2


# -- names and history: a name registered again starts fresh ------------------------------------------


def record_match(
    client: redis.Redis, match_id: str, winner: str, loser: str, versions: dict[str, str]
) -> None:
    """Records a two-seat ninjan match through the queue's recording script, as a worker does."""
    bots = (winner, loser)
    players = tuple(PlayerResult(seat, bot, 0, seat + 1, False, 0) for seat, bot in enumerate(bots))
    record = MatchRecord(match_id, "ninjan", 1, players, Termination.NORMAL, 10)
    job = MatchJob(match_id, "ninjan", 1, bots, versions=tuple(versions[b] for b in bots))
    assert store.record(client, job, record, "{}\n", "0-1")


def test_a_name_removed_and_registered_again_starts_fresh(client: redis.Redis) -> None:
    _, secret = registry.submit(client, "tr", ["ninjan"], builtin="greedy")
    versions = {b: registry.resolve(client, "ninjan", b) for b in ("tr", "random")}
    for i in range(4):
        record_match(client, f"old{i}", "tr", "random", versions)
    before = data.leaderboard(client, "ninjan")
    assert {r["bot"]: r["games"] for r in before["rows"]} == {"tr": 4, "random": 4}
    assert data.bot_page(client, "ninjan", "tr")["row"]["version"] == versions["tr"]

    registry.remove(client, "tr", secret)
    assert [r["bot"] for r in data.leaderboard(client, "ninjan")["rows"]] == ["random"]
    assert data.bot_page(client, "ninjan", "tr") is None
    assert data.bot_page(client, "ninjan", "random")["head_to_head"] == []

    registry.submit(client, "tr", ["ninjan"], builtin="greedy")  # the same code, registered again
    fresh = {**versions, "tr": registry.resolve(client, "ninjan", "tr")}
    assert fresh["tr"] != versions["tr"]  # a new registration's nonce: a new player
    record_match(client, "new0", "random", "tr", fresh)
    rows = {r["bot"]: r for r in data.leaderboard(client, "ninjan")["rows"]}
    assert rows["tr"]["version"] == fresh["tr"] and rows["tr"]["games"] == 1
    page = data.bot_page(client, "ninjan", "tr")
    assert [v["version"] for v in page["versions"]] == [fresh["tr"]]
    assert [(h["opponent"], h["games"], h["behind"]) for h in page["head_to_head"]] == [("random", 1, 1)]
    assert [m["match_id"] for m in page["recent"]] == ["new0"]
    assert rows["tr"]["elo"] < rows["random"]["elo"]  # one loss, none of the old wins inherited
