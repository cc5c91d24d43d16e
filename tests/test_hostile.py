"""Hostile bots (issue 8): the ways a bot process can misbehave, against the real referee.

Each case plays one Ninjan match between a hostile bot (tests/bots/hostile.py, or hostile.js through
the Node.js client; real processes) and the built-in random bot, and at the same time, on the same
referee, a normal series between two random bots. It checks what the platform owes everyone: the
hostile bot is told what it did wrong (it reports every message it got on its stdout, which the
referee keeps in its log), its match ends with an honest result that is recorded and replays byte for
byte, and the other match finishes untouched. Hostile bots run in the sandbox, as every bot does by
default; one case that needs a file of the host's runs unconfined, and says why.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import shutil
import sys
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path

import psutil
import pytest

from arena.games import get_game
from arena.referee.leases import LeaseRegistry
from arena.referee.match import MatchConfig
from arena.referee.processes import DEFAULT_LIMITS, BotLimits, BotSpec, resolve_bot
from arena.referee.replay import first_difference, read_lines, reproduce
from arena.referee.runner import GameResult, SeriesConfig, SharedReferee, run_series
from arena.referee.server import MAX_MESSAGE_BYTES, start_referee, start_server
from arena.results import PlayerResult
from tests.conftest import GATED_BOT, REPO, Gate, processes_named, reports_in_logs

pytestmark = pytest.mark.e2e
NINJAN = get_game("ninjan")
HOSTILE_PY = REPO / "tests" / "bots" / "hostile.py"
HOSTILE_JS = REPO / "tests" / "bots" / "hostile.js"
NODE_MODULES = REPO / "bots" / "node" / "node_modules" / "@grpc" / "grpc-js"


@dataclasses.dataclass
class Run:
    """What one hostile case produced."""

    result: GameResult  # the hostile bot's match
    log: list[dict]  # every message the hostile bot received, and its notes (its HOSTILE reports)
    normal: list[GameResult]  # the series played alongside on the same referee
    logs: Path  # the bot process logs of the hostile match

    @property
    def hostile(self) -> PlayerResult:
        (player,) = [p for p in self.result.record.players if p.bot.startswith("hostile")]
        return player

    @property
    def errors(self) -> list[dict]:
        return [m["error"] for m in self.log if "error" in m]

    def notes(self, key: str) -> list[dict]:
        return [m for m in self.log if m.get("note") == key]


def hostile(mode: str, *arguments: str, language: str = "python") -> BotSpec:
    """Returns the spec of a hostile bot in ``mode``, configured by its command line only, with the
    code it reads bound into its sandbox: its folder, and for Node.js the gRPC client and the protos."""
    if language == "python":
        argv, code = (sys.executable, str(HOSTILE_PY), mode, *arguments), (HOSTILE_PY.parent,)
    else:
        argv = ("node", str(HOSTILE_JS), mode, *arguments)
        code = (HOSTILE_JS.parent, REPO / "bots" / "node" / "node_modules", REPO / "proto")
    return BotSpec(f"hostile-{mode}", argv, "command", code=code)


async def play_alongside(
    tmp_path: Path,
    spec: BotSpec,
    deadline_ms: int = 2000,
    limits: BotLimits = DEFAULT_LIMITS,
    join_timeout: float = 10.0,
    meanwhile: Callable[[LeaseRegistry], Awaitable[None]] | None = None,
    victim: BotSpec | None = None,
) -> Run:
    """Plays the hostile match and a normal series of two games concurrently on one referee.

    The normal series is random against random, or against ``victim``: a gated bot (tests/bots/gated.py)
    that the test holds at its gate, so it runs unconfined (to see the gate) with a deadline it never
    reaches while held.
    """
    registry = LeaseRegistry()
    hostile_config = SeriesConfig(
        seed=5,
        match=MatchConfig(deadline=timedelta(milliseconds=deadline_ms)),
        replay_dir=tmp_path / "replays",
        log_dir=tmp_path / "logs",
        join_timeout=timedelta(seconds=join_timeout),
        bot_limits=limits,
    )
    normal_config = SeriesConfig(games=2, seed=50, replay_dir=tmp_path / "normal", log_dir=tmp_path / "nlogs")
    if victim is not None:
        held = MatchConfig(deadline=timedelta(minutes=10))
        normal_config = dataclasses.replace(normal_config, match=held, bot_limits=BotLimits(sandbox=False))
    random = resolve_bot("ninjan", "random")
    async with start_referee(registry) as endpoint:
        referee = SharedReferee(registry, endpoint)
        hostile_results, normal, *_ = await asyncio.wait_for(
            asyncio.gather(
                run_series(NINJAN, [spec, random], hostile_config, referee=referee),
                run_series(NINJAN, [random, victim or random], normal_config, referee=referee),
                *([meanwhile(registry)] if meanwhile else []),
            ),
            timeout=120,  # a hang guard only
        )
    (result,) = hostile_results
    logs = tmp_path / "logs"
    return Run(result, reports_in_logs(logs, "HOSTILE"), normal, logs)


def play(tmp_path: Path, mode: str, *arguments: str, **kwargs) -> Run:
    """Plays a Python hostile bot in ``mode`` (with its command line's ``arguments``); checks what every
    case must hold; returns the run."""
    run = asyncio.run(play_alongside(tmp_path, hostile(mode, *arguments), **kwargs))
    check_common(run)
    return run


def check_common(run: Run) -> None:
    """The other match is untouched, the hostile match replays, and the result says who erred."""
    for game in run.normal:
        assert game.notes == []
        assert game.record.termination == "normal"
        assert all(p.strikes == 0 and not p.forfeit for p in game.record.players)
    path = run.result.replay
    assert path is not None
    lines = read_lines(path)
    assert first_difference(path.read_text(), reproduce(lines).text) is None
    (result_line,) = [x for x in lines if x["type"] == "result"]
    recorded = {p["seat"]: (p["strikes"], p["forfeit"]) for p in result_line["players"]}
    assert recorded == {p.seat: (p.strikes, p.forfeit) for p in run.result.record.players}
    others = [p for p in run.result.record.players if not p.bot.startswith("hostile")]
    faults = [x for x in lines if x["type"] in ("strike", "forfeit")]
    assert all(p.strikes == 0 and not p.forfeit for p in others), (others, faults, run.result.notes)


def forfeit_reason(run: Run) -> str:
    lines = read_lines(run.result.replay)
    (line,) = [x for x in lines if x["type"] == "forfeit" and x["seat"] == run.hostile.seat]
    return line["reason"]


# -- bad answers ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "code", "text"),
    [
        ("illegal", "ERROR_CODE_ILLEGAL_ACTION", "illegal action {'place_pile': {'pile': 7}}"),
        ("bad-index", "ERROR_CODE_BAD_INDEX", "is out of range: there are"),
        ("other-game", "ERROR_CODE_MALFORMED", "expected a ninjan action, got a ninja_master action"),
        ("garbage", "ERROR_CODE_MALFORMED", "that are not a valid arena.v1.BotMessage"),
        ("truncated", "ERROR_CODE_MALFORMED", "that are not a valid arena.v1.BotMessage"),
    ],
)
def test_a_bad_answer_costs_one_strike(tmp_path: Path, mode: str, code: str, text: str) -> None:
    run = play(tmp_path, mode)
    (error,) = run.errors
    assert error["code"] == code
    assert text in error["message"] and "strike 1 of 3" in error["message"]
    assert (run.hostile.strikes, run.hostile.forfeit) == (1, False)
    strikes = [x for x in read_lines(run.result.replay) if x["type"] == "strike"]
    assert [x["code"] for x in strikes] == [code]


def test_a_message_over_the_size_limit_ends_the_stream(tmp_path: Path) -> None:
    run = play(tmp_path, "oversize")
    assert run.log[-1]["status"] == "RESOURCE_EXHAUSTED"
    assert f"vs. {MAX_MESSAGE_BYTES}" in run.log[-1]["details"]  # "message larger than max (N vs. 65536)"
    assert run.hostile.forfeit and forfeit_reason(run) == "disconnected"
    assert any("disconnected during the game" in note for note in run.result.notes)


def test_a_flood_of_answers_is_dropped_with_one_error_per_request(tmp_path: Path) -> None:
    run = play(tmp_path, "flood")
    codes = {e["code"] for e in run.errors}
    assert codes <= {"ERROR_CODE_UNEXPECTED_MESSAGE", "ERROR_CODE_STALE_ANSWER"}
    # 2,000 answers sent; the referee reports at most one stale answer and one flood per request
    decisions = sum("decision" in m for m in run.log)
    assert 0 < len(run.errors) <= 2 * decisions + 1 < 100
    assert (run.hostile.strikes, run.hostile.forfeit) == (0, False)  # the first answer was a good one


def test_the_inbound_queue_is_bounded_and_the_excess_gets_one_error() -> None:
    import grpc

    from arena.referee.leases import INBOUND_LIMIT
    from arena.v1 import arena_pb2 as pb
    from arena.v1 import arena_pb2_grpc

    async def scenario() -> tuple[int, list]:
        registry = LeaseRegistry()
        server, port = await start_server(registry)
        lease = registry.create("flooder")  # no match reads its answers
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = arena_pb2_grpc.RefereeStub(channel).Play()
            await call.write(pb.BotMessage(join=pb.Join(token=lease.token)))
            for _ in range(500):
                await call.write(pb.BotMessage(answer=pb.Answer(request_id=1, index=0)))
            first = await asyncio.wait_for(call.read(), 30)
            await call.done_writing()
            registry.forget(lease)
            rest = []
            while (message := await asyncio.wait_for(call.read(), 30)) is not grpc.aio.EOF:
                rest.append(message)
        await server.stop(None)
        return lease.inbound.qsize(), [first, *rest]

    waiting, received = asyncio.run(scenario())
    assert waiting == INBOUND_LIMIT
    (message,) = received
    assert message.error.code == pb.ERROR_CODE_UNEXPECTED_MESSAGE
    assert f"too many messages: {INBOUND_LIMIT} answers are already waiting" in message.error.message


# -- joining --------------------------------------------------------------------------------------


def test_a_wrong_token_is_refused(tmp_path: Path) -> None:
    run = play(tmp_path, "wrong-token", join_timeout=3)
    assert run.log[-1] == {
        "status": "UNAUTHENTICATED",
        "details": "unknown seat token: use the ARENA_TOKEN the referee gave this bot process",
    }
    assert run.hostile.forfeit and forfeit_reason(run) == "never connected"


def test_a_token_is_dead_once_its_stream_ended(tmp_path: Path) -> None:
    run = play(tmp_path, "reuse-token", join_timeout=5)
    (first,) = run.notes("first")
    assert first["first"] == "match_start" or first["status"] == "OK"
    assert run.log[-1]["status"] == "UNAUTHENTICATED"
    assert "this seat token has expired" in run.log[-1]["details"]
    assert run.hostile.forfeit


def test_another_seats_token_is_refused_while_that_seat_plays(tmp_path: Path) -> None:
    steal = tmp_path / "stolen-token"
    # The victim plays the normal series and is held at its gate, connected, until the thief is answered.
    gate = Gate(tmp_path / "gate")
    victim = BotSpec("victim", (sys.executable, str(GATED_BOT)), "command", env=(("GATE", str(gate.folder)),))

    async def leak_a_connected_token(registry: LeaseRegistry) -> None:
        """Gives the thief the token of the connected victim (as /proc/PID/environ would), and lets the
        victim play on once the thief has reported how its join ended."""
        while not (held := [x for x in registry.leases() if x.connected and x.name == "victim"]):
            await asyncio.sleep(0.02)
        steal.write_text(held[0].token)
        while not reports_in_logs(tmp_path / "logs", "HOSTILE"):
            await asyncio.sleep(0.02)
        gate.open()

    spec = hostile("steal-token", str(steal))
    # Unconfined on purpose: this case checks the referee's leases (the second line of defence: a
    # token that leaked anyway is refused while its seat plays), and simulates the leak with a file
    # the test writes while the thief waits; a sandboxed bot cannot read a file of the host's (that
    # first line of defence is tests/test_fair_play.py's).
    unconfined = BotLimits(sandbox=False)
    run = asyncio.run(
        play_alongside(
            tmp_path,
            spec,
            limits=unconfined,
            join_timeout=20,
            meanwhile=leak_a_connected_token,
            victim=victim,
        )
    )
    check_common(run)
    assert run.log[-1] == {
        "status": "ALREADY_EXISTS",
        "details": "this seat is already connected on another stream",
    }
    assert run.hostile.forfeit and forfeit_reason(run) == "never connected"


def test_a_second_stream_for_a_taken_seat_is_refused_and_the_first_plays_on(tmp_path: Path) -> None:
    run = play(tmp_path, "second-stream")
    (second,) = run.notes("second")
    assert second == {
        "note": "second",
        "status": "ALREADY_EXISTS",
        "details": "this seat is already connected on another stream",
    }
    assert (run.hostile.strikes, run.hostile.forfeit) == (0, False)
    assert any("result" in m for m in run.log)


# -- time and connection --------------------------------------------------------------------------


def test_a_bot_that_never_answers_forfeits_after_three_timeouts(tmp_path: Path) -> None:
    run = play(tmp_path, "silent", deadline_ms=300)
    assert [e["code"] for e in run.errors] == ["ERROR_CODE_TIMEOUT"] * 3
    assert all("no answer within 300 ms" in e["message"] for e in run.errors)
    assert "the seat forfeits" in run.errors[-1]["message"]
    assert (run.hostile.strikes, run.hostile.forfeit) == (3, True)
    assert forfeit_reason(run) == "3 strikes"


def test_a_late_answer_is_a_timeout_and_then_stale(tmp_path: Path) -> None:
    run = play(tmp_path, "late", deadline_ms=300, **{})
    codes = [e["code"] for e in run.errors]
    assert codes[0] == "ERROR_CODE_TIMEOUT" and "ERROR_CODE_STALE_ANSWER" in codes
    stale = next(e for e in run.errors if e["code"] == "ERROR_CODE_STALE_ANSWER")
    assert "ignored: request" in stale["message"]
    assert run.hostile.strikes == codes.count("ERROR_CODE_TIMEOUT") >= 1


def test_a_bot_that_hangs_up_mid_turn_forfeits(tmp_path: Path) -> None:
    run = play(tmp_path, "hangup")
    assert run.notes("hung up")
    assert run.hostile.forfeit and forfeit_reason(run) == "disconnected"
    decisions = [
        x for x in read_lines(run.result.replay) if x["type"] == "decision" and x["seat"] == run.hostile.seat
    ]
    assert decisions and all(x["by"] == "fallback" for x in decisions)


def test_a_bot_that_crashes_at_start_forfeits(tmp_path: Path) -> None:
    run = play(tmp_path, "crash-start")
    assert run.hostile.forfeit and forfeit_reason(run) == "never connected"
    (note,) = run.result.notes
    assert "exited with code 3 before joining" in note and "crashing on purpose" in note


# -- the process ----------------------------------------------------------------------------------


def test_garbage_on_stdout_and_stderr_is_capped_in_the_log(tmp_path: Path) -> None:
    limits = BotLimits(log_bytes=256 * 1024)
    run = play(tmp_path, "noisy", limits=limits)
    assert (run.hostile.strikes, run.hostile.forfeit) == (0, False)
    (log,) = run.logs.glob("0-hostile*.log")
    data = log.read_bytes()
    assert len(data) < limits.log_bytes + 200  # the bot wrote 4 MiB
    assert data.endswith(b"[arena: log cut at 262144 bytes; the rest of the output is dropped]\n")


def test_children_of_a_bot_do_not_survive_the_match(tmp_path: Path) -> None:
    tag = secrets.token_hex(8)
    run = play(tmp_path, "fork", tag)
    (children,) = run.notes("children")
    assert len(children["pids"]) == 2  # pids in the bot's PID namespace: the host knows them by the tag
    survivors = [pid for pid in processes_named(f"hostile-child-{tag}") if _alive(pid)]
    assert not survivors, f"children {survivors} of the bot survived the match"
    assert run.hostile.forfeit


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_a_bot_that_allocates_without_bound_is_stopped_by_its_address_space_limit(tmp_path: Path) -> None:
    run = play(tmp_path, "memory", limits=BotLimits(memory_mb=256))
    assert run.notes("allocating")
    assert run.hostile.forfeit and forfeit_reason(run) == "disconnected"
    (note,) = run.result.notes
    assert "disconnected during the game" in note and "MemoryError" in note


def test_a_bot_that_spins_the_cpu_is_killed_by_its_cpu_limit(tmp_path: Path) -> None:
    run = play(tmp_path, "spin", deadline_ms=30_000, limits=BotLimits(cpu_seconds=2))
    assert run.notes("spinning")
    assert run.hostile.forfeit and forfeit_reason(run) == "disconnected"
    (note,) = run.result.notes
    assert "killed by SIGXCPU (the CPU time limit" in note


def test_the_limits_are_set_on_the_bot_process(tmp_path: Path) -> None:
    """RLIMIT_NPROC is set too, but counts per user and does not bind root (see docs/security.md)."""
    limits = BotLimits(memory_mb=300, cpu_seconds=40, open_files=64, processes=100)
    script = tmp_path / "limits.sh"
    script.write_text("cat /proc/self/limits\n")  # into the bot's log: it can write no file of ours
    spec = BotSpec("limits", ("/bin/sh", str(script)), "command", code=(script,))
    from arena.referee.processes import BotProcess

    process = BotProcess(spec, {}, tmp_path / "limits.log", limits)
    process.stop(grace=10)
    lines = (tmp_path / "limits.log").read_text().splitlines()
    table = {line[:26].strip(): line[26:].split() for line in lines if line.startswith("Max ")}
    assert table["Max data size"][:2] == [str(300 << 20)] * 2
    assert table["Max cpu time"][:2] == ["40", "41"]
    assert table["Max open files"][:2] == ["64", "64"]
    assert table["Max processes"][:2] == ["100", "100"]


# -- through the Node.js client -------------------------------------------------------------------

needs_node = pytest.mark.skipif(
    shutil.which("node") is None or not NODE_MODULES.is_dir(),
    reason="needs node and bots/node/node_modules (npm install --prefix bots/node)",
)


@needs_node
@pytest.mark.parametrize(
    ("mode", "text"),
    [
        ("other-game", "expected a ninjan action, got a ninja_master action"),
        ("garbage", "that are not a valid arena.v1.BotMessage"),
    ],
)
def test_a_node_bot_sending_a_bad_answer_gets_a_strike(tmp_path: Path, mode: str, text: str) -> None:
    run = asyncio.run(play_alongside(tmp_path, hostile(mode, language="node")))
    check_common(run)
    (error,) = run.errors
    assert error["code"] == "ERROR_CODE_MALFORMED" and text in error["message"]
    assert (run.hostile.strikes, run.hostile.forfeit) == (1, False)
