"""No seat can keep another from joining (issue 33, item 3): a bot that floods the referee with Play
streams that never join only hurts its own seat.

Every sandboxed bot reaches the referee through a socket of its own seat (``SeatDoor``): what it opens
there counts against its seat alone, a flood (more than ``SEAT_STREAMS`` streams) forfeits that seat
and closes its socket, and what a seat can make the referee hold is bounded (``SEAT_MEMORY_BOUND``).
The first test drives two seats' sockets directly; the others play Ninjan with a real flooding bot
(tests/bots/flooder.py) in the real sandbox against an honest opponent that must finish with no strike.
Waits wait on events (a lease's, a report in a bot's log) with hang guards only.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import grpc
import pytest

from arena.games import get_game
from arena.referee.leases import LeaseRegistry
from arena.referee.match import NEVER_CONNECTED, MatchConfig
from arena.referee.processes import BotSpec, resolve_bot
from arena.referee.replay import first_difference, read_lines, reproduce
from arena.referee.runner import GameResult, SeriesConfig, SharedReferee, run_series
from arena.referee.server import (
    SEAT_CONNECTIONS,
    SEAT_MEMORY_BOUND,
    SEAT_STREAMS,
    SEAT_STREAMS_PER_CONNECTION,
    Referee,
    seat_endpoint,
    start_referee,
)
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc
from tests.conftest import REPO, reports_in_logs

pytestmark = pytest.mark.e2e
NINJAN = get_game("ninjan")
FLOODER = REPO / "tests" / "bots" / "flooder.py"
GUARD = 120  # seconds: a hang guard only
MIB = 1 << 20


def flood_text() -> str:
    return (
        f"this bot opened more than {SEAT_STREAMS} streams to the referee, and a bot needs one (Play): "
        "flooding the referee, its seat forfeits and its socket is closed"
    )


async def until(condition: Callable[[], bool], what: str) -> None:
    """Waits until ``condition()`` holds (a hang guard only)."""
    for _ in range(GUARD * 50):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"never happened: {what}")


async def status_of(call: grpc.aio.StreamStreamCall) -> tuple[grpc.StatusCode, str]:
    return await asyncio.wait_for(call.code(), GUARD), await call.details()


def memory() -> dict[str, float]:
    """Returns this process's resident and peak resident memory (VmRSS, VmHWM), in MiB."""
    found = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0]) / 1024
    return found


def reset_peak() -> bool:
    """Resets VmHWM to the current RSS (Linux: /proc/self/clear_refs); returns whether it could."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def test_a_seat_flooding_its_socket_is_cut_while_the_other_seat_joins_on_its_own() -> None:
    """A client (another process) opens 800 idle streams to one seat's socket over 8 connections,
    more than the socket takes in every way; the other seat joins on its own socket and plays."""
    count = 800

    async def scenario() -> dict:
        registry = LeaseRegistry()
        async with start_referee(registry) as referee:
            assert isinstance(referee, Referee) and referee.socket is None  # no socket shared by seats
            flooder, honest = registry.create("flooder"), registry.create("honest")
            flooder_door = (await seat_endpoint(referee, flooder)).socket
            honest_door = (await seat_endpoint(referee, honest)).socket
            assert flooder_door != honest_door
            reset = reset_peak()
            before = memory()
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                str(FLOODER),
                "grpc",
                str(count),
                "only",
                env={**os.environ, "ARENA_ADDRESS": f"unix:{flooder_door}"},
                stdout=asyncio.subprocess.PIPE,
            )
            await asyncio.wait_for(flooder.joined.wait(), GUARD)  # set when the referee cuts the seat
            report, _ = await asyncio.wait_for(process.communicate(), GUARD)
            (door,) = [d for d in referee.doors.doors if d.lease is flooder]
            await until(lambda: door.closed, "the flooder's socket closed")
            after = memory()
            async with grpc.aio.insecure_channel(f"unix:{honest_door}") as channel:
                stub = arena_pb2_grpc.RefereeStub(channel)
                stolen = stub.Play()  # another seat's token on this seat's socket
                await stolen.write(pb.BotMessage(join=pb.Join(token=flooder.token)))
                refused = await status_of(stolen)
                call = stub.Play()
                await call.write(pb.BotMessage(join=pb.Join(token=honest.token, client="honest")))
                await asyncio.wait_for(honest.joined.wait(), GUARD)
                honest.send(pb.RefereeMessage(error=pb.Error(message="your move")))
                received = await asyncio.wait_for(call.read(), GUARD)
                await call.write(pb.BotMessage(answer=pb.Answer(request_id=1, index=0)))
                answer = await asyncio.wait_for(honest.inbound.get(), GUARD)
                registry.forget(honest)
                await call.done_writing()
                played = await status_of(call)
            (honest_door_state,) = [d for d in referee.doors.doors if d.lease is honest]
            peak = after["VmHWM"] if reset else after["VmRSS"]
            return {
                "flooder": (flooder.claimed, flooder.disconnected, flooder.problem),
                "streams": door.streams,
                "report": json.loads(report.decode().removeprefix("HOSTILE ")),
                "growth": peak - before["VmRSS"],
                "socket_left": flooder_door.exists(),
                "refused": refused,
                "received": received.error.message,
                "answer": answer.request_id,
                "played": played,
                "honest_streams": honest_door_state.streams,
            }

    seen = asyncio.run(scenario())
    assert seen["flooder"] == (False, True, flood_text())
    # of the 800 streams, only a few past the seat's budget reached the referee: then its socket closed
    assert SEAT_STREAMS < seen["streams"] <= SEAT_STREAMS + SEAT_CONNECTIONS * SEAT_STREAMS_PER_CONNECTION
    ended = seen["report"]["ended"]
    assert sum(ended.values()) == count
    assert set(ended) <= {
        "RESOURCE_EXHAUSTED",  # a stream over the budget is told why
        "CANCELLED",  # the seat's socket closed under the streams it had let in
        "UNAVAILABLE",  # never let in: connection refused or closed, stream refused
    }
    assert seen["growth"] < SEAT_MEMORY_BOUND / MIB
    assert not seen["socket_left"]
    assert seen["refused"] == (
        grpc.StatusCode.UNAUTHENTICATED,
        "unknown seat token: use the ARENA_TOKEN the referee gave this bot process",
    )
    assert seen["received"] == "your move" and seen["answer"] == 1
    assert seen["played"] == (grpc.StatusCode.OK, "")
    assert seen["honest_streams"] == 2


def flooder(how: str, count: int, when: str) -> BotSpec:
    """A sandboxed bot that floods its socket with ``count`` idle streams (tests/bots/flooder.py)."""
    argv = (sys.executable, str(FLOODER), how, str(count), when)
    return BotSpec("flooder", argv, "command", code=(FLOODER.parent,))


def players(result: GameResult) -> dict[str, tuple[int, int, bool]]:
    """Returns each bot's (rank, strikes, forfeit)."""
    return {p.bot: (p.rank, p.strikes, p.forfeit) for p in result.record.players}


def forfeit_reasons(result: GameResult) -> dict[int, str]:
    assert result.replay is not None
    return {x["seat"]: x["reason"] for x in read_lines(result.replay) if x["type"] == "forfeit"}


def check_replays(result: GameResult) -> None:
    assert result.replay is not None
    assert first_difference(result.replay.read_text(), reproduce(read_lines(result.replay)).text) is None


def test_a_bot_flooding_its_socket_mid_game_forfeits_and_its_sandboxed_opponent_plays_on(
    tmp_path: Path,
) -> None:
    config = SeriesConfig(
        seed=7,
        replay_dir=tmp_path / "replays",
        log_dir=tmp_path / "logs",
        match=MatchConfig(deadline=timedelta(seconds=10)),
    )
    specs = [flooder("grpc", 2000, "midgame"), resolve_bot("ninjan", "random")]
    (result,) = asyncio.run(asyncio.wait_for(run_series(NINJAN, specs, config), GUARD))
    reports = reports_in_logs(tmp_path / "logs", "HOSTILE")
    (flooded,) = [r for r in reports if r.get("note") == "flooded"]
    assert result.record.winner == "random"
    assert players(result) == {"random": (1, 0, False), "flooder": (2, 0, True)}
    assert forfeit_reasons(result) == {0: f"disconnected: {flood_text()}"}
    assert result.failures == {0: "crashed or disconnected during the game"}
    assert any(f"bot flooder disconnected: {flood_text()} during the game" in n for n in result.notes)
    # its own stream was ended with the reason, and its flood never got a stream through
    assert {"status": "RESOURCE_EXHAUSTED", "details": flood_text()} in reports
    assert flooded["streams"] == 2000 and "OK" not in flooded["ended"]
    assert sum(flooded["ended"].values()) == 2000
    check_replays(result)


def test_a_flood_of_8000_idle_streams_before_joining_keeps_no_one_out_and_stays_under_the_memory_bound(
    tmp_path: Path,
) -> None:
    """The flooder opens 8,000 idle raw HTTP/2 streams to its socket before it joins; the opponent, a
    bot attached by hand (``@wait``, over TCP) once the flood is reported, joins and plays. The referee
    runs in this process: its peak RSS over the whole game stays within the documented bound."""
    count = 8000
    logs = tmp_path / "logs"
    attached: list[asyncio.subprocess.Process] = []
    tasks: list[asyncio.Task] = []
    seen: dict = {}

    async def attach(address: str, token: str) -> None:
        """Starts the honest bot by hand once the flooder reports its flood."""
        await until(
            lambda: any(r.get("note") == "flooded" for r in reports_in_logs(logs, "HOSTILE")),
            "the flooder reported its flood",
        )
        seen["at_flood"] = memory()
        env = {**os.environ, "ARENA_ADDRESS": address, "ARENA_TOKEN": token}
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "arena.bots", "ninjan", "random", env=env, cwd=REPO
        )
        attached.append(process)

    def on_wait(name: str, address: str, token: str, seconds: float) -> None:
        tasks.append(asyncio.ensure_future(attach(address, token)))

    config = SeriesConfig(
        seed=11,
        replay_dir=tmp_path / "replays",
        log_dir=logs,
        match=MatchConfig(deadline=timedelta(seconds=10)),
        join_timeout=timedelta(seconds=GUARD),
        on_wait=on_wait,
    )

    async def scenario() -> GameResult:
        registry = LeaseRegistry()
        async with start_referee(registry) as endpoint:
            seen["reset"] = reset_peak()
            seen["before"] = memory()
            specs = [flooder("raw", count, "first"), resolve_bot("ninjan", "@wait:honest")]
            (result,) = await run_series(NINJAN, specs, config, referee=SharedReferee(registry, endpoint))
            seen["after"] = memory()
            assert isinstance(endpoint, Referee) and endpoint.doors is not None
            seen["door_streams"] = [door.streams for door in endpoint.doors.doors]
        await asyncio.gather(*tasks)
        (process,) = attached
        seen["honest_exit"] = await asyncio.wait_for(process.wait(), GUARD)
        return result

    result = asyncio.run(asyncio.wait_for(scenario(), GUARD))
    (flooded,) = [r for r in reports_in_logs(logs, "HOSTILE") if r.get("note") == "flooded"]
    assert flooded["streams"] == count
    # of the 8,000, only a few streams past the seat's budget reached the referee: then its socket closed
    (streams,) = seen["door_streams"]
    assert SEAT_STREAMS < streams <= SEAT_STREAMS + SEAT_CONNECTIONS * SEAT_STREAMS_PER_CONNECTION
    assert result.record.winner == "honest"
    assert players(result) == {"honest": (1, 0, False), "flooder": (2, 0, True)}
    assert forfeit_reasons(result) == {0: NEVER_CONNECTED}
    assert result.notes == [f"bot flooder never joined: {flood_text()}"]
    assert seen["honest_exit"] == 0
    check_replays(result)
    before, at_flood, after = seen["before"], seen["at_flood"], seen["after"]
    peak = after["VmHWM"] if seen["reset"] else max(at_flood["VmRSS"], after["VmRSS"])
    growth = peak - before["VmRSS"]
    print(
        f"referee RSS at {count} idle streams: {at_flood['VmRSS']:.1f} MiB, from {before['VmRSS']:.1f} MiB; "
        f"peak over the game {peak:.1f} MiB (+{growth:.2f} MiB); bound per seat "
        f"{SEAT_MEMORY_BOUND / MIB:g} MiB ({SEAT_CONNECTIONS} connections x "
        f"{SEAT_STREAMS_PER_CONNECTION} streams, {SEAT_STREAMS} streams in a socket's life)"
    )
    assert growth < SEAT_MEMORY_BOUND / MIB
