"""The SDK's share of a round trip: a real Python SDK bot process against a fake referee.

    sdk_pingpong.py ROUNDS         # prints microseconds per round trip
    sdk_pingpong.py ROUNDS echo    # the referee's echo floor: raw bytes over a Unix socket

The fake referee (grpc.aio, like the real one) sends one fixed Ninjan DecisionRequest over and over and
waits for each Answer: no engine, no match loop. Against the bare ping-pong (pingpong.py) this shows
what protobuf messages and the SDK's decoding add to the transport; against a real match, what the
referee's match loop adds.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import grpc

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arena import codec  # noqa: E402
from arena.games import GAMES  # noqa: E402
from arena.referee.server import SERVICE_NAME  # noqa: E402
from arena.v1 import arena_pb2 as pb  # noqa: E402

WARM_UP = 100


def fixed_messages() -> tuple[pb.RefereeMessage, pb.RefereeMessage]:
    """Returns the MatchStart and the DecisionRequest (seat 0 of a fresh 2-player Ninjan game) sent."""
    game = GAMES["ninjan"]
    state = game.initial_state(2, 3)
    start = pb.MatchStart(
        match_id="sdk-pingpong", game="ninjan", seat=0, num_players=2, players=["a", "b"], deadline_ms=10_000
    )
    request = pb.DecisionRequest(
        request_id=1,
        observation=codec.observation_to_proto(game, game.observe(state, 0)),
        legal_actions=codec.legal_actions_to_proto(game, game.legal_actions(state, 0)),
        deadline_ms=10_000,
    )
    return pb.RefereeMessage(match_start=start), pb.RefereeMessage(decision=request)


async def round_trip_us(rounds: int, bot: str, echo: bool = False) -> float:
    """Returns µs per DecisionRequest/Answer round trip with the bot program ``bot``.

    ``echo``: the echo floor of the referee (bench/run.py's ``referee_echo_ratio``): the server does
    nothing but answer each bot message with the request's bytes, serialized once, over a Unix
    socket, the transport of the referee's sandboxed bots (the bot itself runs unconfined).
    """
    start, request = fixed_messages()
    finished: asyncio.Future[float] = asyncio.get_running_loop().create_future()
    sent = request.SerializeToString() if echo else request

    async def play(requests, context):
        answers = aiter(requests)
        await anext(answers)  # Join
        yield start.SerializeToString() if echo else start
        for number in range(WARM_UP + rounds):
            if number == WARM_UP:
                began = time.perf_counter()
            yield sent
            await anext(answers)
        finished.set_result(1e6 * (time.perf_counter() - began) / rounds)

    serialize = _identity if echo else pb.RefereeMessage.SerializeToString
    handler = grpc.method_handlers_generic_handler(
        SERVICE_NAME, {"Play": grpc.stream_stream_rpc_method_handler(play, None, serialize)}
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    with tempfile.TemporaryDirectory(prefix="arena-echo-") as folder:
        if echo:
            address = f"unix:{folder}/echo.sock"
            server.add_insecure_port(address)
        else:
            address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
        await server.start()
        env = {**os.environ, "ARENA_ADDRESS": address, "ARENA_TOKEN": "sdk-pingpong"}
        process = subprocess.Popen([sys.executable, bot], env=env)
        try:
            return await asyncio.wait_for(finished, 600)
        finally:
            await server.stop(None)
            process.wait(timeout=30)


def _identity(data: bytes) -> bytes:
    return data


if __name__ == "__main__":
    first_bot = str(REPO / "bots" / "python" / "first_bot.py")
    print(f"{asyncio.run(round_trip_us(int(sys.argv[1]), first_bot, sys.argv[2:] == ['echo'])):.2f}")
