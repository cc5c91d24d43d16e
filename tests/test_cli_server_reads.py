"""The participant's side follows the server (issue 36, item 5): with ``--server URL`` or
``$ARENA_SERVER``, ``arena leaderboard``, ``results``, ``logs``, ``bots list/show`` and ``tournament
standings`` read the server's API and print what it answers exactly as the local record is printed,
without starting a Redis of their own; an owner reads their own bot's output and is refused
another's; ``arena bots submit`` without a server says the bot stays on this machine, and on a server
prints the version it stored; every hint printed runs as printed.

A real ``arena server`` process over a private redis-server (``tests.hosted``, no workers: the
matches are recorded by the queue's own functions, as a worker records them), and the CLI as real
processes.
"""

from __future__ import annotations

import http.server
import json
import re
import shlex
import shutil
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.cli.bots import describe, format_list, format_show, from_json
from arena.cli.leaderboard import RESULTS_PAGE, _result_line
from arena.cli.tables import format_leaderboard, format_standings
from arena.client import ServerClient
from arena.queue import jobs, store
from arena.referee import botlog
from arena.referee.botlog import Line
from tests.conftest import REPO, free_port, replay_of_random_game, run_arena
from tests.hosted import ORGANISER_TOKEN, HostedPlatform, hosted
from tests.test_api_contract import match_log
from tests.test_history_reads import record_many

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")

PAGED_GAME = "ninja-master"  # a game with more recorded matches than one page of results


class Hosted:
    """The server, what was stored on it, and a participant's way of running ``arena``."""

    def __init__(self, platform: HostedPlatform, home: Path) -> None:
        self.platform = platform
        self.url = platform.url
        self.home = home  # the participant's XDG_STATE_HOME: no Redis may ever start in it
        self.secrets: dict[str, str] = {}
        self.tournament = ""
        self.matches: list[dict[str, Any]] = []  # each recorded match's result, as the API shows it

    def api(self, path: str, secret: str | None = None) -> Any:
        """Returns the server's JSON answer to ``GET path``."""
        return ServerClient(self.url).call("GET", path, token=secret)

    def arena(self, *args: str, env: dict[str, str] | None = None, via_env: bool = False) -> Any:
        """Runs ``arena ARGS`` as a participant: no Redis URL anywhere, the server given as
        ``--server URL`` (``via_env``: as ``$ARENA_SERVER``); asserts that no traceback was printed
        and that no Redis was started for the participant."""
        base = {"XDG_STATE_HOME": str(self.home), "ARENA_REDIS_URL": "", "ARENA_BOT_SECRET": ""}
        base |= {"ARENA_SERVER": self.url} if via_env else {"ARENA_SERVER": ""}
        proc = run_arena(*args, *([] if via_env else ["--server", self.url]), env={**base, **(env or {})})
        assert "Traceback" not in proc.stderr, proc.stderr
        assert not (self.home / "arena" / "redis").exists(), "a read command started a Redis of its own"
        return proc


def one_line_error(proc: Any) -> str:
    """Returns the single error line of a failed command (asserting there is exactly one)."""
    assert proc.returncode != 0, proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: "), proc.stderr
    return lines[0]


def hinted(text: str) -> list[str]:
    """Returns the argv of the ``'arena ...'`` command a hint quotes (without ``arena``)."""
    found = re.search(r"'(arena [^']*)'", text)
    assert found, text
    return shlex.split(found.group(1))[1:]


def record_tournament(state: Hosted) -> None:
    """Plays the queued tournament as a worker would: each match recorded with a stored match log in
    which every seat wrote two lines (one of them naming its bot)."""
    client = state.platform.redis_client()
    jobs.ensure_group(client)
    while (taken := jobs.take_job(client, "test")) is not None:
        job = taken.job
        assert job is not None
        text, record = replay_of_random_game(job.game, job.seed, list(job.bots), job.match_id)
        lines = {
            seat: [Line(None, f"{bot} warming up"), Line(1, f"{bot}'s secret plan")]
            for seat, bot in enumerate(job.bots)
        }
        extras = {botlog.STORE_KIND: botlog.for_store(match_log(text, lines))}
        new, _ = store.record_and_take(client, job, record, text, taken.entry_id, extras=extras)
        assert new
        state.matches.append(state.api(f"/api/v1/matches/{job.match_id}"))
    record_many(client, PAGED_GAME, RESULTS_PAGE + 3)


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hosted]:
    folder = tmp_path_factory.mktemp("server-reads")
    with hosted(folder / "platform", workers=0) as platform:
        st = Hosted(platform, folder / "participant")
        # alice through the CLI (it prints the version the server stored), bob through the API
        made = st.arena("bots", "submit", "alice", "--games", "ninjan", "--builtin", "greedy", "--json")
        assert made.returncode == 0, made.stderr
        st.secrets["alice"] = json.loads(made.stdout)["secret"]
        answer = ServerClient(st.url).call(
            "POST", "/api/v1/bots/bob", query={"games": "ninjan", "builtin": "random"}
        )
        st.secrets["bob"] = answer["secret"]
        spec = {"game": "ninjan", "bots": ["alice", "bob", "random"], "seed": 5}
        st.tournament = ServerClient(st.url).json("POST", "/api/v1/tournaments", spec, token=ORGANISER_TOKEN)[
            "id"
        ]
        record_tournament(st)
        yield st


@pytest.mark.parametrize("via_env", [False, True], ids=["--server", "ARENA_SERVER"])
def test_leaderboard_and_results_print_what_the_api_answers(state: Hosted, via_env: bool) -> None:
    board = state.api("/api/v1/games/ninjan/leaderboard")
    assert board["rows"] and board["matches"] == len(state.matches)
    shown = state.arena("leaderboard", "ninjan", via_env=via_env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == format_leaderboard("ninjan", board) + "\n"  # the local command's own format
    as_json = state.arena("leaderboard", "ninjan", "--json", via_env=via_env)
    assert json.loads(as_json.stdout) == board["rows"]
    pairs = state.arena("leaderboard", "ninjan", "--pairs", via_env=via_env)
    assert pairs.stdout == format_leaderboard("ninjan", board, pairs=True) + "\n"
    los = state.arena("leaderboard", "ninjan", "--los", "--json", via_env=via_env)
    assert los.returncode == 0, los.stderr
    assert json.loads(los.stdout) == board["los"] and set(board["los"]) == {r["bot"] for r in board["rows"]}

    results = state.api("/api/v1/games/ninjan/results")["results"]
    assert [r["match_id"] for r in results] == [m["match_id"] for m in state.matches]  # oldest first
    text = state.arena("results", "ninjan", via_env=via_env)
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines() == [_result_line(r) for r in results]
    lines = state.arena("results", "ninjan", "--json", via_env=via_env)
    assert [json.loads(line) for line in lines.stdout.splitlines()] == results


def test_results_read_every_page_in_order(state: Hosted) -> None:
    first = state.api(f"/api/v1/games/{PAGED_GAME}/results?limit=500")
    rest = state.api(f"/api/v1/games/{PAGED_GAME}/results?limit=500&after={first['next']}")
    assert rest["next"] is None and len(first["results"]) + len(rest["results"]) == RESULTS_PAGE + 3
    proc = state.arena("results", PAGED_GAME, "--json")
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line) for line in proc.stdout.splitlines()] == first["results"] + rest["results"]


@pytest.mark.parametrize("via_env", [False, True], ids=["--server", "ARENA_SERVER"])
def test_bots_and_standings_print_what_the_api_answers(state: Hosted, via_env: bool) -> None:
    listed = state.api("/api/v1/bots")["bots"]
    proc = state.arena("bots", "list", via_env=via_env)
    assert proc.stdout == format_list([from_json(b) for b in listed], state.url) + "\n"
    assert json.loads(state.arena("bots", "list", "--json", via_env=via_env).stdout) == listed
    alice = state.api("/api/v1/bots/alice")
    shown = state.arena("bots", "show", "alice", via_env=via_env)
    assert shown.stdout == format_show(from_json(alice)) + "\n"
    assert json.loads(state.arena("bots", "show", "alice", "--json", via_env=via_env).stdout) == alice

    tournament = state.api(f"/api/v1/tournaments/{state.tournament}")
    proc = state.arena("tournament", "standings", state.tournament, via_env=via_env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == format_standings(tournament["standings"]) + "\n"
    as_json = state.arena("tournament", "standings", state.tournament, "--json", via_env=via_env)
    assert json.loads(as_json.stdout) == tournament["standings"]


def test_what_is_missing_on_the_server_is_one_line_whose_hint_runs(state: Hosted) -> None:
    for args in (("bots", "show", "nobody"), ("tournament", "standings", "no-such-tournament")):
        error = one_line_error(state.arena(*args))
        assert state.url in error, error
        hint = hinted(error)
        assert hint[-2:] == ["--server", state.url], error
        ran = run_arena(*hint, env={"ARENA_REDIS_URL": "", "XDG_STATE_HOME": str(state.home)})
        assert ran.returncode == 0, ran.stderr
    unknown = one_line_error(state.arena("logs", "ninjan-no-such-match", "--bot", "alice"))
    assert "no match 'ninjan-no-such-match' is recorded on " + state.url in unknown


def seats_of(match: dict[str, Any], bot: str) -> list[int]:
    return [p["seat"] for p in match["players"] if p["bot"] == bot]


def test_an_owner_reads_their_own_bots_output_and_only_theirs(state: Hosted, tmp_path: Path) -> None:
    match = next(m for m in state.matches if seats_of(m, "alice") and seats_of(m, "bob"))
    mid, (seat,) = match["match_id"], seats_of(match, "alice")
    owner = {"ARENA_BOT_SECRET": state.secrets["alice"]}
    api = state.api(f"/api/v1/matches/{mid}/log/{seat}", state.secrets["alice"])
    assert [x["text"] for x in api["lines"]] == ["alice warming up", "alice's secret plan"]

    proc = state.arena("logs", mid, "--bot", "alice", env=owner)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        f"step start  seat {seat} alice  | alice warming up",
        f"step     1  seat {seat} alice  | alice's secret plan",
    ]
    rows = [
        json.loads(line)
        for line in state.arena("logs", mid, "--bot", "alice", "--json", env=owner).stdout.splitlines()
    ]
    assert rows == [{"seat": seat, "bot": "alice", **x} for x in api["lines"]]
    secret_file = tmp_path / "alice.secret"
    secret_file.write_text(state.secrets["alice"] + "\n")
    from_file = state.arena("logs", mid, "--seat", str(seat), "--secret-file", str(secret_file), "--think")
    assert from_file.returncode == 0, from_file.stderr
    assert "bob" not in from_file.stdout and "alice's secret plan" in from_file.stdout
    think = [line for line in from_file.stdout.splitlines() if line.startswith("think:")]
    assert (
        len(think) == 1
        and think[0].startswith(f"think: seat {seat} alice: ")
        and "deadline 2000 ms" in think[0]
    )

    theirs = one_line_error(state.arena("logs", mid, "--bot", "bob", env=owner))
    assert "bob" in theirs and "owner" in theirs and "HTTP 403" in theirs, theirs
    other = next(m for m in state.matches if seats_of(m, "random") and seats_of(m, "alice"))
    builtin = one_line_error(state.arena("logs", other["match_id"], "--bot", "random", env=owner))
    assert "owned by no one" in builtin and "HTTP 403" in builtin, builtin
    no_secret = one_line_error(state.arena("logs", mid, "--bot", "alice"))
    assert "$ARENA_BOT_SECRET" in no_secret and "--secret-file" in no_secret, no_secret
    not_played = one_line_error(state.arena("logs", other["match_id"], "--bot", "bob", env=owner))
    assert "bob did not play this match" in not_played, not_played

    # named neither bot nor seat: the hint names seat 0's bot, and runs as printed for its owner
    unnamed = one_line_error(state.arena("logs", mid, env=owner))
    hint = hinted(unnamed)
    first = match["players"][0]["bot"]
    assert hint == ["logs", mid, "--bot", first, "--server", state.url], unnamed
    ran = run_arena(*hint, env={"ARENA_BOT_SECRET": state.secrets[first], "ARENA_REDIS_URL": ""})
    assert ran.returncode == 0 and f"{first}'s secret plan" in ran.stdout, ran.stderr


def test_a_local_submission_says_it_stays_here(redis_url: str) -> None:
    env = {"ARENA_SERVER": "", "ARENA_BOT_SECRET": ""}
    proc = run_arena(
        "bots", "submit", "homebot", "--games", "ninjan", "--builtin", "random", "--redis", redis_url, env=env
    )
    assert proc.returncode == 0, proc.stderr
    notice = proc.stderr.strip().splitlines()
    assert len(notice) == 1 and notice[0].startswith("arena: homebot stays on this machine"), proc.stderr
    assert "--server" in notice[0] and "ARENA_SERVER" in notice[0]
    assert proc.stdout.startswith("submitted homebot version ")


def test_a_submission_on_a_server_prints_the_version_it_stored(state: Hosted, tmp_path: Path) -> None:
    folder = tmp_path / "carol"
    shutil.copytree(REPO / "tests" / "bots" / "submitted" / "random", folder)
    args = ["bots", "submit", "carol", "--games", "ninjan", "--dir", str(folder), "--entry", "python bot.py"]
    first = state.arena(*args)
    assert first.returncode == 0, first.stderr
    assert "stays on this machine" not in first.stderr
    stored = from_json(state.api("/api/v1/bots/carol"))
    assert stored.candidate and not stored.version  # no worker here: its smoke match waits
    assert first.stdout.splitlines()[0] == f"submitted {describe(stored)}"
    assert f"version {stored.candidate} " in first.stdout
    hint = hinted(first.stdout.splitlines()[1])
    assert hint == ["bots", "show", "carol", "--server", state.url]
    assert run_arena(*hint, env={"ARENA_REDIS_URL": ""}).returncode == 0

    secret = re.search(r"owner secret .*: (\S+)$", first.stdout, re.M).group(1)  # type: ignore[union-attr]
    (folder / "notes.txt").write_text("version 2\n")
    second = state.arena(*args, env={"ARENA_BOT_SECRET": secret})
    assert second.returncode == 0, second.stderr
    updated = from_json(state.api("/api/v1/bots/carol"))
    assert updated.candidate != stored.candidate
    assert second.stdout.splitlines()[0] == f"updated {describe(updated)}"
    assert f"version {updated.candidate} " in second.stdout


def test_the_ladder_stop_hint_runs_as_printed(state: Hosted) -> None:
    token = ["--organiser-token-file", str(state.platform.token_file)]
    started = state.arena("ladder", "ninjan", "--bots", "alice,bob", *token)
    assert started.returncode == 0, started.stderr
    hint = hinted(started.stderr)
    assert hint[:2] == ["ladder", "stop"] and "--organiser-token-file" in hint and state.url in hint
    stopped = run_arena(*hint, env={"ARENA_REDIS_URL": "", "ARENA_SERVER": ""})
    assert stopped.returncode == 0, stopped.stderr
    assert f"ladder {hint[2]} stopped" in stopped.stderr


class Failing(http.server.BaseHTTPRequestHandler):
    """An HTTP server whose every answer is a JSON 500 (a server failing on its own code)."""

    def do_GET(self) -> None:
        body = json.dumps({"error": "the server failed on its own code; its log has the traceback"}).encode()
        self.send_response(500)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


COMMANDS = [
    ("leaderboard", "ninjan"),
    ("results", "ninjan"),
    ("logs", "ninjan-m1", "--bot", "alice"),
    ("bots", "list"),
    ("bots", "show", "alice"),
    ("tournament", "standings", "t1"),
]


def test_a_server_down_or_failing_is_one_line_for_every_read(tmp_path: Path) -> None:
    down = f"http://127.0.0.1:{free_port()}"
    failing = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Failing)
    threading.Thread(target=failing.serve_forever, daemon=True).start()
    broken = f"http://127.0.0.1:{failing.server_address[1]}"
    env = {"XDG_STATE_HOME": str(tmp_path), "ARENA_REDIS_URL": "", "ARENA_BOT_SECRET": "s" * 43}
    try:
        for args in COMMANDS:
            error = one_line_error(run_arena(*args, "--server", down, env=env))
            assert f"cannot reach the arena server at {down}" in error and "is it running?" in error, error
            error = one_line_error(run_arena(*args, env={**env, "ARENA_SERVER": broken}))
            assert "HTTP 500" in error and "its log has the traceback" in error, error
    finally:
        failing.shutdown()
    assert not (tmp_path / "arena" / "redis").exists()


def test_server_and_redis_together_are_refused(state: Hosted) -> None:
    error = one_line_error(state.arena("leaderboard", "ninjan", "--redis", "redis://127.0.0.1:1/0"))
    assert "leave out --redis" in error


def test_the_results_page_refuses_a_position_it_never_handed_out(state: Hosted) -> None:
    request = urllib.request.Request(f"{state.url}/api/v1/games/ninjan/results?after=-1")
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 400
    assert "malformed page position" in json.loads(refused.value.read())["error"]
