"""End to end: the real referee, real bot processes over gRPC, and what each bad answer costs.

Every case runs ``arena match`` as a user would, with one scripted misbehaving bot (tests/bots/
scripted.py, raw gRPC) against the built-in random bot, and checks both sides: the error the bot
received (every message it got, reported on its stdout into its log) and the result recorded (--json
and the replay).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from arena.seeds import series_seed
from tests.conftest import REPO, json_lines, reports_in_logs, run_arena

pytestmark = pytest.mark.e2e
SCRIPTED = f"{sys.executable} {REPO / 'tests' / 'bots' / 'scripted.py'}"


def play_scripted(
    tmp_path: Path, mode: str, *extra: str, exit_code: int = 0
) -> tuple[dict, list[dict], list]:
    """Plays one game: scripted bot in seat 0, random in seat 1; returns (result, every message the
    scripted bot received, replay lines). ``exit_code``: 1 where the bot never joins or crashes."""
    proc = run_arena(
        "match",
        "ninjan",
        f"{SCRIPTED} {mode}",
        "random",
        "--json",
        "--seed",
        "5",
        "--replay-dir",
        str(tmp_path / "replays"),
        "--join-timeout",
        "10",
        *extra,
    )
    assert proc.returncode == exit_code, proc.stderr
    (result,) = json_lines(proc.stdout)
    replay = json_lines(Path(result["replay"]).read_text())
    return result, reports_in_logs(tmp_path / "replays" / "logs", "SCRIPTED"), replay


def errors_seen(log: list[dict]) -> list[dict]:
    return [m["error"] for m in log if "error" in m]


def seat0(result: dict) -> dict:
    (player,) = [p for p in result["players"] if p["seat"] == 0]
    return player


def test_illegal_action_gets_a_strike_and_the_fallback_moves(tmp_path: Path) -> None:
    result, log, replay = play_scripted(tmp_path, "illegal")
    (error,) = errors_seen(log)
    assert error["code"] == "ERROR_CODE_ILLEGAL_ACTION"
    assert "illegal action" in error["message"] and "strike 1 of 3" in error["message"]
    assert seat0(result)["strikes"] == 1 and not seat0(result)["forfeit"]
    fallbacks = [x for x in replay if x["type"] == "decision" and x["by"] == "fallback"]
    assert [(x["step"], x["seat"]) for x in fallbacks] == [(0, 0)]
    assert [x["code"] for x in replay if x["type"] == "strike"] == ["ERROR_CODE_ILLEGAL_ACTION"]


def test_out_of_range_index(tmp_path: Path) -> None:
    result, log, _ = play_scripted(tmp_path, "bad-index")
    (error,) = errors_seen(log)
    assert error["code"] == "ERROR_CODE_BAD_INDEX"
    assert "out of range" in error["message"]
    assert seat0(result)["strikes"] == 1


@pytest.mark.parametrize("mode", ["malformed", "wrong-game"])
def test_malformed_answer(tmp_path: Path, mode: str) -> None:
    result, log, _ = play_scripted(tmp_path, mode)
    (error,) = errors_seen(log)
    assert error["code"] == "ERROR_CODE_MALFORMED"
    assert seat0(result)["strikes"] == 1


def test_timeout_then_the_late_answer_is_ignored(tmp_path: Path) -> None:
    result, log, replay = play_scripted(tmp_path, "slow", "--deadline-ms", "250")
    errors = errors_seen(log)
    assert errors[0]["code"] == "ERROR_CODE_TIMEOUT"
    assert "no answer within 250 ms" in errors[0]["message"]
    assert "ERROR_CODE_STALE_ANSWER" in [e["code"] for e in errors]  # the answer that came too late
    timeouts = sum(e["code"] == "ERROR_CODE_TIMEOUT" for e in errors)
    assert seat0(result)["strikes"] == timeouts >= 1  # one strike per missed deadline, none for the stale one
    assert [x["code"] for x in replay if x["type"] == "strike"] == ["ERROR_CODE_TIMEOUT"] * timeouts


def test_three_strikes_forfeit(tmp_path: Path) -> None:
    result, log, replay = play_scripted(tmp_path, "always-illegal")
    player = seat0(result)
    assert player["forfeit"] and player["strikes"] == 3 and player["rank"] == 2
    assert result["winner"] == "random"
    errors = errors_seen(log)
    assert [e["strikes"] for e in errors] == [1, 2, 3]
    assert [e.get("forfeited", False) for e in errors] == [False, False, True]
    assert "the seat forfeits" in errors[-1]["message"]
    assert [x["type"] for x in replay if x["type"] in ("strike", "forfeit")] == ["strike"] * 3 + ["forfeit"]
    # After forfeiting the bot is never asked again: it saw exactly three decision requests.
    assert sum("decision" in m for m in log) == 3


def test_wrong_token_is_refused(tmp_path: Path) -> None:
    result, log, _ = play_scripted(tmp_path, "wrong-token", "--join-timeout", "2", exit_code=1)
    assert log[-1]["status"] == "UNAUTHENTICATED"
    assert "unknown seat token" in log[-1]["details"]
    assert seat0(result)["forfeit"] and seat0(result)["rank"] == 2


def test_bot_that_crashes_at_start(tmp_path: Path) -> None:
    proc = run_arena(
        "match",
        "ninjan",
        f"{SCRIPTED} crash-start",
        "random",
        "--json",
        "--replay-dir",
        str(tmp_path),
    )
    assert proc.returncode == 1, proc.stderr
    (result,) = json_lines(proc.stdout)
    assert seat0(result)["forfeit"] and result["winner"] == "random"
    assert "exited with code 3 before joining" in proc.stderr
    assert "crashing on purpose" in proc.stderr  # the bot's own last words are shown


def test_bot_that_crashes_mid_game(tmp_path: Path) -> None:
    result, _, replay = play_scripted(tmp_path, "crash-mid", exit_code=1)
    assert seat0(result)["forfeit"]
    assert {"type": "forfeit", "step": 0, "seat": 0, "reason": "disconnected"} in replay
    decisions = [x for x in replay if x["type"] == "decision" and x["seat"] == 0]
    assert decisions and all(x["by"] == "fallback" for x in decisions)  # the game went on


def test_replay_of_a_game_with_strikes_reproduces(tmp_path: Path) -> None:
    result, _, _ = play_scripted(tmp_path, "illegal")
    proc = run_arena("replay", result["replay"], "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "reproduce byte for byte" in proc.stdout


def test_a_second_stream_for_a_taken_seat_is_refused() -> None:
    import asyncio

    import grpc

    from arena.referee.leases import LeaseRegistry
    from arena.referee.server import start_server
    from arena.v1 import arena_pb2 as pb
    from arena.v1 import arena_pb2_grpc

    async def scenario() -> tuple[str, str]:
        registry = LeaseRegistry()
        server, port = await start_server(registry)
        lease = registry.create("bot")
        join = pb.BotMessage(join=pb.Join(token=lease.token))
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = arena_pb2_grpc.RefereeStub(channel)
            first = stub.Play()
            await first.write(join)
            await lease.joined.wait()
            second = stub.Play()
            await second.write(join)
            try:
                await second.read()
            except grpc.aio.AioRpcError as exc:
                status = (exc.code().name, exc.details())
            first.cancel()
        await server.stop(None)
        return status

    code, details = asyncio.run(scenario())
    assert code == "ALREADY_EXISTS"
    assert "already connected" in details
    json.dumps(details)


def test_no_message_to_a_bot_reveals_the_seed(tmp_path: Path) -> None:
    """Every hidden card and future roll is drawn from the seed: no bot may learn it from the referee."""
    seed = "987654321987"
    proc = run_arena(
        "match",
        "ninjan",
        f"{SCRIPTED} good",
        "random",
        "--json",
        "--seed",
        seed,
        "--replay-dir",
        str(tmp_path / "replays"),
    )
    assert proc.returncode == 0, proc.stderr
    received = "\n".join(json.dumps(m) for m in reports_in_logs(tmp_path / "replays" / "logs", "SCRIPTED"))
    assert '"matchStart"' in received and '"decision"' in received
    (result,) = json_lines(proc.stdout)
    assert result["seed"] == series_seed(int(seed), 0)
    assert seed not in received and str(result["seed"]) not in received  # neither --seed nor the game's
