"""Honest exits and no lost work: what ``arena`` says, and with which exit status, when the input is
wrong, a bot fails, the user presses Ctrl-C or a seed repeats; and that its help and hints are true.

Bad input ends in one line on stderr and exit status 2, never a traceback; a bot that never connected
or crashed makes ``arena match`` exit 1 after the results, naming the seat; Ctrl-C prints the summary
of the games played and exits 130; replays and bot logs are never overwritten.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import typer

import arena
from arena.cli import main as cli
from arena.queue import connection
from arena.referee.replay import claim
from arena.schedule.plan import MAX_MATCHES, TournamentSpec, plan
from arena.seeds import series_seed
from arena.submissions.registry import SubmissionError, check_entry
from arena.wire_limits import DEADLINE_MS_MAX, MAX_STRIKES_MAX
from tests.conftest import REPO, default_ctrl_c, json_lines, replay_of_random_game, run_arena

NOWHERE = "redis://127.0.0.1:1/0"  # a Redis URL nothing answers: these commands must fail before using it

CRASHING_BOT = """
import os

from arena.sdk import Bot


class Crash(Bot):
    name = "crash"

    def choose(self, observation, legal_actions, deadline):
        os._exit(3)  # dies on its first decision, mid-game


if __name__ == "__main__":
    Crash().run()
"""


def one_line_error(proc: subprocess.CompletedProcess, *parts: str) -> str:
    """Asserts exit status 2 and a single ``arena: error:`` line holding every part; returns it."""
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("arena: error: "), lines[0]
    for part in parts:
        assert part in lines[0], lines[0]
    return lines[0]


# -- values the protocol cannot carry, and other bad options: one line, exit 2 -------------------------


def test_the_limits_are_the_proto_field_types() -> None:
    proto = (REPO / "proto" / "arena" / "v1" / "arena.proto").read_text()
    assert "uint32 deadline_ms" in proto and "uint32 max_strikes" in proto
    assert DEADLINE_MS_MAX == MAX_STRIKES_MAX == 2**32 - 1


@pytest.mark.parametrize(
    ("options", "parts"),
    [
        (["--deadline-ms", "5000000000"], ["--deadline-ms", str(DEADLINE_MS_MAX)]),
        (["--deadline-ms", str(DEADLINE_MS_MAX + 1)], ["--deadline-ms"]),
        (["--max-strikes", "5000000000"], ["--max-strikes", str(MAX_STRIKES_MAX)]),
        (["--join-timeout", "inf"], ["--join-timeout"]),
        (["--join-timeout", "nan"], ["--join-timeout"]),
        (["--join-timeout", "1e300"], ["--join-timeout"]),
        (["--bot-memory-mb", "100000000000000000000"], ["--bot-memory-mb", "1048576"]),
        (["--bot-cpu-seconds", "100000000000000000000"], ["--bot-cpu-seconds"]),
        (["--bot-cpus", "1e300"], ["--bot-cpus", "1024"]),
        (["--replay-dir", "/dev/null"], ["--replay-dir /dev/null is not a folder"]),
        (["--replay-dir", "/dev/null/replays"], ["--replay-dir /dev/null/replays: cannot create"]),
    ],
)
def test_match_options_out_of_range(options: list[str], parts: list[str]) -> None:
    one_line_error(run_arena("match", "ninjan", "random", "random", *options), *parts)


def test_an_unclosed_quote_in_a_bot_command() -> None:
    proc = run_arena("match", "ninjan", "random", "python 'my bot.py")
    one_line_error(proc, 'cannot read the bot command "python \'my bot.py"', "No closing quotation")


@pytest.mark.parametrize(
    ("options", "parts"),
    [
        (["--rounds", "100000000"], ["200,000,000 matches", f"at most {MAX_MATCHES:,}", "--rounds"]),
        (["--deadline-ms", "5000000000"], ["--deadline-ms must be from 1 to 4294967295"]),
    ],
)
def test_tournament_refuses_before_queueing_anything(options: list[str], parts: list[str]) -> None:
    proc = run_arena("tournament", "ninjan", "--bots", "random,greedy", *options, "--redis", NOWHERE)
    one_line_error(proc, *parts)


def test_a_plan_is_counted_without_being_built() -> None:
    for format_ in ("round-robin", "gauntlet"):
        for players in (2, 3, 4):
            spec = TournamentSpec("ninjan", ("a", "b", "c", "d", "e"), format_, players, rounds=3)
            assert spec.matches == len(plan(spec, b"key"))
    with pytest.raises(ValueError, match="at most 100,000"):
        TournamentSpec("ninjan", ("a", "b"), rounds=MAX_MATCHES // 2 + 1)
    assert TournamentSpec("ninjan", ("a", "b"), rounds=MAX_MATCHES // 2).matches == MAX_MATCHES


# -- malformed replay files: one line naming the line, exit 2 -----------------------------------------


def malformed(lines: list[str], case: str) -> list[str]:
    """Returns a replay's lines broken as ``case`` says."""
    header = json.loads(lines[0])
    first = next(i for i, line in enumerate(lines) if json.loads(line)["type"] == "decision")
    decision = json.loads(lines[first])
    if case == "list-line":
        return [lines[0], "[1, 2, 3]", *lines[1:]]
    if case == "huge-seed":
        return [json.dumps(header).replace(json.dumps(header["seed"]), "1e400", 1), *lines[1:]]
    if case == "unknown-type":
        return [lines[0], '{"type": "teleport", "step": 0}', *lines[1:]]
    if case == "no-seat":
        del decision["seat"]
    elif case == "unknown-action":
        decision["action"] = {"teleport": 1}
    elif case == "seat-99":
        decision["seat"] = 99
    return [*lines[:first], json.dumps(decision), *lines[first + 1 :]]


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("list-line", "line 2 is a JSON list, not an object"),
        ("huge-seed", "line 1: a header line's 'seed' must be a non-negative integer, not Infinity"),
        ("unknown-type", 'line 2: unknown line type "teleport"'),
        ("no-seat", "a decision line without 'seat'"),
        ("unknown-action", 'is not the recorded {"teleport": 1}'),
        ("seat-99", "seat 99, but the header has 2 players"),
    ],
)
def test_a_malformed_replay_is_one_line(tmp_path: Path, case: str, message: str) -> None:
    text, _ = replay_of_random_game("ninjan", 7, ["a", "b"], "m")
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(malformed(text.splitlines(), case)) + "\n")
    one_line_error(run_arena("replay", "-q", str(path)), message)


def test_a_binary_file_is_not_a_replay(tmp_path: Path) -> None:
    path = tmp_path / "binary.jsonl"
    path.write_bytes(bytes(range(256)) * 4)
    one_line_error(run_arena("replay", str(path)), f"{path} is not a replay: byte 128 is not UTF-8 text")


# -- arena bots submit: the entry must exist in --dir and be able to run --------------------------------


def bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "bot"
    (folder / "dist").mkdir(parents=True)
    (folder / "bot.py").write_text("print('hello')\n")
    (folder / "dist" / "bot.js").write_text("\n")
    (folder / "bot").write_text("#!/bin/sh\n")  # a 'binary' without its execute bit
    return folder


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("python 'bot.py", 'cannot read --entry "python \'bot.py": No closing quotation'),
        ("python nope.py", "--entry's script nope.py is not in --dir"),
        ("python ../bot.py", "--entry's script ../bot.py is not in --dir"),
        ("node dist/nope.js", "--entry's script dist/nope.js is not in --dir"),
        ("./nope", "--entry's program ./nope is not in --dir"),
        ("./bot", "--entry's program ./bot is not executable: run 'chmod +x"),
        ("./dist", "--entry's program ./dist is a folder"),
        ("bot", "--entry 'bot' names a file of --dir: write it as ./bot"),
        ("DEPTH=3", "--entry holds only variables"),
    ],
)
def test_submit_refuses_an_entry_that_cannot_run(tmp_path: Path, entry: str, message: str) -> None:
    folder = bot_folder(tmp_path)
    proc = run_arena(
        "bots",
        "submit",
        "mine",
        "--games",
        "ninjan",
        "--dir",
        str(folder),
        "--entry",
        entry,
        "--redis",
        NOWHERE,
    )
    one_line_error(proc, message)


@pytest.mark.parametrize(
    "entry",
    [
        "python bot.py",
        "python -u bot.py --depth 3",
        "DEPTH=3 node dist/bot.js",
        "./bot",
        "python -m bot",
        "java -cp lib Main",
    ],
)
def test_an_entry_that_can_run_passes(tmp_path: Path, entry: str) -> None:
    folder = bot_folder(tmp_path)
    (folder / "bot").chmod(0o755)
    check_entry(folder, entry.split())


def test_the_check_runs_before_anything_is_stored(tmp_path: Path) -> None:
    from arena.submissions import registry

    with pytest.raises(SubmissionError, match="not in --dir"):
        registry.version_record(("ninjan",), bot_folder(tmp_path), "python missing.py", None)


# -- a bot that never connected or crashed: results first, then exit 1 naming the seat -------------


def test_a_mistyped_bot_is_named_and_the_exit_status_is_1(tmp_path: Path) -> None:
    proc = run_arena("match", "ninjan", "random", "no-such-command --fast", "--replay-dir", str(tmp_path))
    assert proc.returncode == 1, proc.stderr
    assert "winner: random" in proc.stdout  # the results are printed as for any game
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("arena: bot no-such-command (seat 1) never connected: forfeited 1 of 1 games")
    assert f"its log: {tmp_path / 'logs' / '1-no-such-command.log'}" in last
    assert "not found" in proc.stderr  # and why: the shell's own words, from the bot's log


def test_a_bot_that_crashes_mid_game_is_named_in_every_game(tmp_path: Path) -> None:
    bot = tmp_path / "code" / "crash.py"
    bot.parent.mkdir()
    bot.write_text(CRASHING_BOT)
    replays = tmp_path / "replays"
    proc = run_arena("match", "ninjan", "random", str(bot), "--games", "2", "--replay-dir", str(replays))
    assert proc.returncode == 1, proc.stderr
    assert "2 games of ninjan" in proc.stdout
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(
        "arena: bot crash (seats 0, 1) crashed or disconnected during the game: forfeited 2 of 2 games"
    )


def test_bots_that_play_to_the_end_exit_0(tmp_path: Path) -> None:
    proc = run_arena("match", "ninjan", "random", "random", "--games", "2", "--replay-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "forfeited" not in proc.stderr


def test_the_exit_statuses_are_documented() -> None:
    proc = run_arena("match", "--help")
    assert proc.returncode == 0
    lines = [" ".join(line.split()) for line in proc.stdout.splitlines()]
    assert (
        "1 a bot never connected or crashed: its seat forfeited, the results are printed, and a last" in lines
    )
    assert "130 interrupted (Ctrl-C): the summary of the games played so far is printed first" in lines


# -- no lost work: repeated seeds get new names; Ctrl-C keeps the summary ---------------------------


def test_a_repeated_seed_gets_new_replay_and_log_names(tmp_path: Path) -> None:
    outputs = []
    for _ in range(2):
        proc = run_arena("match", "ninjan", "random", "greedy", "--seed", "4", "--replay-dir", str(tmp_path))
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout)
    first = tmp_path / f"ninjan-{series_seed(4, 0)}.jsonl"
    second = tmp_path / f"ninjan-{series_seed(4, 0)}-2.jsonl"
    assert sorted(tmp_path.glob("*.jsonl")) == [second, first]
    assert first.read_bytes() == second.read_bytes()  # same seed, same game: both kept
    assert f"replay: {first}" in outputs[0] and f"replay: {second}" in outputs[1]
    logs = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert logs == ["0-random-2.log", "0-random.log", "1-greedy-2.log", "1-greedy.log"]
    assert f"logs:   {tmp_path / 'logs' / '0-random-2.log'}, " in outputs[1]


def test_claim_never_opens_a_taken_name(tmp_path: Path) -> None:
    taken = tmp_path / "deep" / "game-1.jsonl"
    assert claim(taken) == taken
    taken.write_text("first\n")
    assert claim(taken) == tmp_path / "deep" / "game-1-2.jsonl"
    assert claim(taken) == tmp_path / "deep" / "game-1-3.jsonl"
    assert taken.read_text() == "first\n"


def test_ctrl_c_prints_the_summary_of_the_games_played_and_exits_130(tmp_path: Path) -> None:
    argv = [sys.executable, "-m", "arena.cli", "match", "ninjan", "random", "greedy", "--games", "100000"]
    argv += ["--json", "--replay-dir", str(tmp_path)]
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        preexec_fn=default_ctrl_c,  # Ctrl-C must reach it even from a suite run in the background
    )
    try:
        seen = [proc.stdout.readline() for _ in range(2)]  # two games are over
        proc.send_signal(signal.SIGINT)
        rest, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    games = json_lines("".join(seen) + rest)
    assert proc.returncode == 130, err
    assert len(games) >= 2
    assert f"{len(games)} games of ninjan" in err  # the summary (on stderr with --json)
    assert f"replays: {len(games)} files in {tmp_path}" in err
    assert err.strip().splitlines()[-1] == f"arena: interrupted after {len(games)} of 100000 games"
    assert len(list(tmp_path.glob("*.jsonl"))) == len(games)


# -- help, version and hints -----------------------------------------------------------------------


def run_main(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, *args: str
) -> tuple[int, str, str]:
    """Runs ``arena ARGS`` in this process; returns (exit status, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["arena", *args])
    with pytest.raises(SystemExit) as exit_:
        cli.main()
    out, err = capsys.readouterr()
    return exit_.value.code or 0, out, err


def command_paths() -> list[tuple[str, ...]]:
    """Returns every command of ``arena`` as the words that name it, groups included."""
    found: list[tuple[str, ...]] = []

    def walk(command: object, path: tuple[str, ...]) -> None:
        found.append(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, (*path, name))

    walk(typer.main.get_command(cli.app), ())
    return found


def every_command() -> list[tuple[tuple[str, ...], Any]]:
    """Returns (command path, command) for every command of ``arena``, groups included."""
    root = typer.main.get_command(cli.app)
    found = []
    for path in command_paths():
        command = root
        for word in path:
            command = command.commands[word]
        found.append((path, command))
    return found


def every_option() -> list[tuple[tuple[str, ...], Any, Any]]:
    """Returns (command path, command, option) for every option of every command."""
    found = []
    for path, command in every_command():
        found += [(path, command, p) for p in command.params if p.param_type_name == "option"]
    return [x for x in found if x[2].name != "help" and not x[2].hidden]  # hidden: a refusal


@pytest.mark.parametrize(
    ("path", "command", "option"),
    [
        pytest.param(
            path,
            command,
            option,
            id=" ".join([*path, option.opts[-1]]),
        )
        for path, command, option in every_option()
    ],
)
def test_every_option_shows_its_default(path: tuple[str, ...], command: Any, option: Any) -> None:
    """A flag, a required option, or a help text with its default: no '[default: ...]' is eaten."""
    context = command.context_class(command, info_name=" ".join(["arena", *path]))
    _, text = option.get_help_record(context)
    assert option.is_flag or option.required or "default:" in text.lower(), text


def test_the_redis_option_keeps_its_default_in_the_help(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    code, out, _ = run_main(monkeypatch, capsys, "worker", "--help")
    assert code == 0
    assert "RedisURL[default:$ARENA_REDIS_URL,elseaprivateredis-server" in "".join(out.split())


def test_version(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    code, out, _ = run_main(monkeypatch, capsys, "--version")
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert (code, out) == (0, f"arena {arena.__version__}\n")
    assert arena.__version__ == pyproject["project"]["version"]


@pytest.mark.parametrize("path", [p for p in command_paths() if p], ids=" ".join)
def test_a_usage_error_names_a_command_that_exists(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, path: tuple[str, ...]
) -> None:
    code, _, err = run_main(monkeypatch, capsys, *path, "--no-such-option")
    assert code == 2
    assert err.rstrip().endswith(f"(see 'arena {' '.join(path)} --help')"), err
    code, out, _ = run_main(monkeypatch, capsys, *path, "--help")
    assert code == 0 and out.startswith(f"Usage: arena {' '.join(path)} ")


# -- with no Redis named, never a Redis found on the default port ----------------------------------


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_with_no_redis_named_a_redis_on_the_default_port_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listener = socket.create_server(("127.0.0.1", 0))  # stands where a stranger's Redis would be
    monkeypatch.setattr(connection, "LOCAL_PORT", listener.getsockname()[1])
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    monkeypatch.delenv("ARENA_REDIS_URL", raising=False)
    said: list[str] = []
    folder = tmp_path / "arena" / "redis"
    try:
        url = connection.resolve_url(None, said.append)
        assert url == f"unix://{folder / 'redis.sock'}"
        assert f"is used only when named: --redis redis://127.0.0.1:{connection.LOCAL_PORT}/0" in said[0]
    finally:
        listener.close()
        pid = folder / "redis.pid"
        if pid.exists():
            os.kill(int(pid.read_text()), signal.SIGKILL)


# -- a busy port, an unreachable Redis: one line, exit 2 --------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ("web", "--redis", "redis://127.0.0.1:1/0"),
        ("server", "--redis-url-file", "REDIS_FILE"),
        ("view", "REPLAY", "--no-browser"),
    ],
)
def test_a_busy_port_is_one_line_naming_it_before_any_address_is_announced(
    command: tuple[str, ...], tmp_path: Path
) -> None:
    taken = socket.create_server(("127.0.0.1", 0))  # another program holds the port
    port = str(taken.getsockname()[1])
    (tmp_path / "redis-url").write_text("redis://127.0.0.1:1/0\n")
    replay = tmp_path / "m.jsonl"
    replay.write_text(replay_of_random_game("ninjan", 3, ["a", "b"], "m")[0])
    named = {"REDIS_FILE": str(tmp_path / "redis-url"), "REPLAY": str(replay)}
    try:
        args = [named.get(word, word) for word in command]
        result = run_arena(*args, "--port", port, env={"ARENA_SEED_KEY": "ab" * 32}, timeout=60)
    finally:
        taken.close()
    assert result.returncode == 2, result
    assert (
        result.stderr == f"arena: error: cannot listen on 127.0.0.1:{port}: Address already in use; "
        "choose another with --port N\n"
    ), result.stderr
    assert "http://" not in result.stdout + result.stderr  # no address announced that is not served


def test_a_command_that_reads_an_unreachable_redis_once_says_so_in_one_line() -> None:
    result = run_arena("results", "ninjan", "--redis", "redis://127.0.0.1:1/0", timeout=60)
    assert result.returncode == 2, result
    assert result.stderr.startswith("arena: error: Redis is unreachable (") and result.stderr.count("\n") == 1
    assert "start it, or name one with --redis URL" in result.stderr


def test_a_replay_nested_too_deep_and_an_endless_idle_timeout_are_one_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    one_line_error(run_arena("replay", str(deep)), "line 1 is nested too deep to be a replay line")
    endless = run_arena(
        "tournament", "ninjan", "--bots", "random,greedy", "--idle-timeout", "inf", "--workers", "0"
    )
    one_line_error(endless, "--idle-timeout", "86400")


def test_a_read_of_an_unreachable_redis_gives_up_after_a_few_tries_and_says_so() -> None:
    """``arena tournament status`` only reads: it retries for a few seconds, each try in one line,
    then ends in one error line (it used to retry every 15 s for ever)."""
    result = run_arena("tournament", "status", "--redis", "unix:///nonexistent.sock", timeout=60)
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 5 and all("retrying in" in line for line in lines[:4]), lines
    assert lines[-1].startswith("arena: error: Redis is unreachable ("), lines


SECRET_URL = "redis://:hunter2@127.0.0.1:1/0"  # a password on the command line, where `ps` shows it
FILLERS = {"file": "x.jsonl", "game": "ninjan", "match": "m", "folder": ".", "name": "b", "match_id": "m"}


def redis_commands() -> list[list[str]]:
    """Returns, for every command with a ``--redis`` option, its words with its required arguments
    filled in (``tournament status`` and ``standings`` too: they are words of ``tournament``)."""
    found = []
    for path, command in every_command():
        if not any("--redis" in p.opts for p in command.params):
            continue
        words = [*path]
        for param in command.params:
            if param.required and param.param_type_name == "argument":
                words.append(FILLERS[param.name])
            elif param.required:
                words += [param.opts[0], "ninjan"]
        found.append(words)
    return [*found, ["tournament", "status"], ["tournament", "standings", "t1"]]


@pytest.mark.parametrize("words", redis_commands(), ids=" ".join)
def test_no_command_takes_a_redis_password_on_its_command_line(
    words: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    code, _, err = run_main(monkeypatch, capsys, *words, "--redis", SECRET_URL)
    assert code == 2, err
    assert err.startswith("arena: error: --redis holds a password") and err.count("\n") == 1, err
    assert "hunter2" not in err


def test_an_owner_secret_on_the_command_line_is_refused_with_the_way_to_give_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    for words in (
        ["bots", "submit", "b", "--games", "ninjan", "--builtin", "random"],
        ["bots", "remove", "b"],
    ):
        code, _, err = run_main(monkeypatch, capsys, *words, "--secret", "hunter2", "--redis", NOWHERE)
        assert code == 2, err
        assert err == (
            "arena: error: --secret puts the owner secret where every user of this machine can read it: "
            "put it in $ARENA_BOT_SECRET or in a file given to --secret-file\n"
        )
