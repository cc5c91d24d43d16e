"""Where a command bot starts, and what its seat is called (issue 39, items 1 and 2).

A command bot sees its own folder and, run from there, starts where the same entry starts when
submitted: one wrapper script (``sh bin/wrap.sh``) plays under ``arena match`` in the real sandbox and
as a submitted bot on a real worker. Seats are named by the person (``NAME:BOT``), else by the bot's
``Join``, cleaned and never taking another seat's name, else by the file's stem or folder; the same
name in the result lines, ``--json``, the replay and the log's file name; never the Join in a rated
(anonymous) match.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from arena.queue import keys
from arena.referee.leases import LeaseRegistry
from arena.referee.processes import BotSpec, BotSpecError, resolve_bot
from arena.referee.runner import BotEntry, name_by_joins
from arena.referee.seat_names import table_names
from arena.submissions import registry, smoke
from tests.conftest import REPO, game_lines, json_lines, run_arena
from tests.test_forfeits import sandbox_works
from tests.test_smoke import play_smoke

# Fails (exit 3, a forfeit) unless started in its own folder; then becomes a bot that joins as "wrapped".
WRAP = """\
#!/bin/sh
test -f bin/wrap.sh && test -f data/greeting || { echo "wrap.sh: not in my folder but in $(pwd)"; exit 3; }
echo "wrap.sh: started in $(pwd): $(cat data/greeting)"
exec python bot.py
"""
NAMED_BOT = """\
from arena.bots.common import RandomBot


class Named(RandomBot):
    name = {name!r}


Named().run()
"""


def wrapper_bot(parent: Path, join_name: str = "wrapped") -> Path:
    """Writes a bot folder whose entry is ``sh bin/wrap.sh``; returns it."""
    folder = parent / "wrapbot"
    (folder / "bin").mkdir(parents=True)
    (folder / "data").mkdir()
    (folder / "bin" / "wrap.sh").write_text(WRAP)
    (folder / "data" / "greeting").write_text("hello")
    (folder / "bot.py").write_text(NAMED_BOT.format(name=join_name))
    return folder


def arena_in(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Runs the arena CLI from ``folder``, as its author would."""
    python_path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        timeout=240,
        cwd=folder,
        env={**os.environ, "PYTHONPATH": python_path},
    )


# -- item 1: where a command bot starts -------------------------------------------------------------


def test_a_command_bots_own_folder_is_its_files_or_above_a_bin_folder(tmp_path: Path, monkeypatch) -> None:
    folder = wrapper_bot(tmp_path)
    monkeypatch.chdir(folder)
    wrapped = resolve_bot("ninjan", "sh bin/wrap.sh")
    assert (wrapped.code, wrapped.cwd) == ((folder,), folder)  # bin/ says nothing: the folder above
    assert resolve_bot("ninjan", "sh -c 'test -f bot.py && exec bin/wrap.sh'").code == (folder,)
    monkeypatch.chdir(REPO)
    node = resolve_bot("ninjan", "node bots/node/bot.js")
    assert (node.code, node.cwd) == ((REPO / "bots" / "node",), REPO)


@pytest.mark.skipif(not sandbox_works(), reason="needs a working bubblewrap sandbox")
def test_a_wrapper_script_starts_in_its_folder_under_arena_match(tmp_path: Path) -> None:
    folder = wrapper_bot(tmp_path)
    replays = tmp_path / "replays"
    proc = arena_in(
        folder, "match", "ninjan", "sh bin/wrap.sh", "random", "--json", "--replay-dir", str(replays)
    )
    assert proc.returncode == 0, proc.stderr
    (result,) = json_lines(proc.stdout)
    assert {p["bot"] for p in result["players"]} == {"wrapped", "random"}
    assert not any(p["forfeit"] for p in result["players"])
    seat = next(p["seat"] for p in result["players"] if p["bot"] == "wrapped")
    log = Path(result["logs"][seat])
    assert log.name == f"{seat}-wrapped.log"
    assert log.read_text().startswith(f"wrap.sh: started in {folder}: hello")


@pytest.mark.skipif(not sandbox_works(), reason="needs a working bubblewrap sandbox")
def test_the_same_wrapper_script_starts_in_its_folder_when_submitted(
    client: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    folder = wrapper_bot(tmp_path)
    submitted, _ = registry.submit(
        client, "wrapper", ["ninjan"], directory=folder, entry="sh bin/wrap.sh", activate=False
    )
    version = str(client.hget(keys.bot("wrapper"), "candidate") or submitted.version)
    status = play_smoke(client, redis_url, tmp_path / "cache", "wrapper", version)
    assert status["status"] == smoke.SmokeStatus.PASSED, status


# -- item 2: what a seat is called ------------------------------------------------------------------


def test_a_seat_is_named_by_the_person_else_by_its_file(tmp_path: Path, monkeypatch) -> None:
    first = str(REPO / "bots" / "python" / "first_bot.py")
    assert resolve_bot("ninjan", first).name == "first_bot"
    named = resolve_bot("ninjan", f"me:{first}")
    assert (named.name, named.join_named, named.argv) == ("me", False, resolve_bot("ninjan", first).argv)
    assert (resolve_bot("ninjan", "rival:random").name, resolve_bot("ninjan", "random").join_named) == (
        "rival",
        False,
    )
    assert resolve_bot("ninjan", f"node {REPO / 'bots' / 'node' / 'bot.js'}").name == "node"
    assert resolve_bot("ninjan", "DEPTH=3 no-such-program --fast").name == "no-such-program"
    assert resolve_bot("ninjan", "@wait:me").name == "me" and resolve_bot("ninjan", "@wait").join_named
    folder = wrapper_bot(tmp_path)
    monkeypatch.chdir(folder)
    assert resolve_bot("ninjan", "sh bin/wrap.sh").name == "wrapbot"  # wrap, bin: the folder
    assert resolve_bot("ninjan", "./bot.py").name == "wrapbot"
    with pytest.raises(BotSpecError, match="@wait:NAME"):
        resolve_bot("ninjan", "@wait:two words")


def test_a_join_name_never_takes_another_seats_name() -> None:
    assert table_names(["random", "random"]) == ["random", "random#2"]
    # a bot that joins as the built-in beside it, or as the name the person gave another seat
    assert table_names(["mine", "random"], ["random", ""]) == ["random#2", "random"]
    assert table_names(["alpha", "beta"], ["x", "alpha"]) == ["x", "alpha#2"]
    assert table_names(["node", "first_bot"], ["node", "first"]) == ["node", "first"]


def entries_joined(sent: list[str], specs: list[BotSpec]) -> list[BotEntry]:
    registry = LeaseRegistry()
    entries = []
    for index, (spec, name) in enumerate(zip(specs, sent, strict=True)):
        lease = registry.create(spec.name)
        registry.claim(lease.token, bot_name=name)
        entries.append(BotEntry(spec, spec.name, index, lease=lease))
    return entries


def test_a_join_name_is_cleaned_and_never_read_in_a_rated_match() -> None:
    file_bot = BotSpec("first_bot", ("python", "first_bot.py"), "file", join_named=True)
    named = BotSpec("me", ("python", "first_bot.py"), "file")
    sent = ["\x1b[2J\u202eroot " + "x" * 80, "bot", "shown"]
    entries = entries_joined(sent, [file_bot, file_bot, named])
    name_by_joins(entries, anonymous=False)
    assert [e.name for e in entries] == ["2J-root-" + "x" * 32, "first_bot", "me"]
    assert entries[0].lease is not None and entries[0].lease.name == entries[0].name
    rated = entries_joined(["impostor", "impostor"], [file_bot, file_bot])
    name_by_joins(rated, anonymous=True)
    assert [e.name for e in rated] == ["first_bot", "first_bot"]


@pytest.mark.skipif(not sandbox_works(), reason="needs a working bubblewrap sandbox")
def test_join_names_are_shown_everywhere_the_same(tmp_path: Path) -> None:
    impostor = tmp_path / "code" / "impostor.py"
    impostor.parent.mkdir()
    impostor.write_text(NAMED_BOT.format(name="random"))
    first = "bots/python/first_bot.py"
    proc = run_arena(
        "match", "ninjan", str(impostor), "random", first, f"me:{first}", "--games", "2", "--json",
        "--replay-dir", str(tmp_path / "replays"),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    games = game_lines(proc.stdout)
    for game in games:
        names = {p["seat"]: p["bot"] for p in game["players"]}
        assert sorted(names.values()) == ["first", "me", "random", "random#2"]
        header = json.loads(Path(game["replay"]).read_text().splitlines()[0])
        assert {p["seat"]: p["bot"] for p in header["players"]} == names
        match_log = Path(game["match_log"]).read_text()
        assert all(name in match_log for name in names.values())
    # the impostor started as seat 0 of game 1: its log is named after the seat
    assert Path(games[0]["logs"][0]).name == "0-random.log"
    assert next(p for p in games[0]["players"] if p["seat"] == 0)["bot"] == "random#2"
    text = run_arena(
        "match", "ninjan", str(impostor), "random", "--seed", "5", "--replay-dir", str(tmp_path / "r2")
    ).stdout
    assert "random#2" in text and "winner:" in text


@pytest.mark.skipif(not sandbox_works(), reason="needs a working bubblewrap sandbox")
def test_the_sprt_names_its_bots_as_the_results_do(tmp_path: Path) -> None:
    proc = run_arena(
        "match", "ninjan", "bots/python/first_bot.py", "random", "--sprt", "elo0=0,elo1=200", "--games", "2",
        "--replay-dir", str(tmp_path),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "SPRT first vs random " in proc.stdout and "after 2 games" in proc.stdout


def test_match_help_says_where_a_command_starts_and_how_seats_are_named() -> None:
    text = " ".join(run_arena("match", "--help", env={"COLUMNS": "200"}).stdout.split())
    for words in ("NAME:BOT names the seat", "sends in Join", "starts in the current folder", "(in /bot)"):
        assert words in text, words
