"""The referee protects itself from streams that never say who they are (fair play): a Play stream
must send Join within the join window or it is closed with DEADLINE_EXCEEDED, and past the cap of
unjoined streams a new one is refused at once with RESOURCE_EXHAUSTED, while a bot with a valid token
still joins and plays. Against a real grpc.aio server; waits carry generous hang guards, and no test
asserts on timing.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable
from datetime import timedelta

import grpc
import pytest

from arena.referee import server as server_module
from arena.referee.leases import Lease, LeaseRegistry
from arena.referee.server import JOIN_WINDOW, MAX_UNJOINED, RefereeServicer, start_server
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc

GUARD = 30  # seconds: a hang guard only
WINDOW = timedelta(seconds=0.3)


async def status_of(call: grpc.aio.StreamStreamCall) -> tuple[grpc.StatusCode, str]:
    """Returns how the server ended ``call`` (reading until it does)."""
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        while await asyncio.wait_for(call.read(), GUARD) is not grpc.aio.EOF:
            pass
        raise AssertionError(f"the stream ended with {await call.code()}, not an error status")
    return raised.value.code(), raised.value.details()


async def open_silent(stub: arena_pb2_grpc.RefereeStub) -> grpc.aio.StreamStreamCall:
    """Opens a Play stream that sends nothing; returns once its headers are on the way."""
    call = stub.Play()
    await asyncio.wait_for(call.wait_for_connection(), GUARD)
    return call


async def until(condition: Callable[[], bool], what: str) -> None:
    """Waits until ``condition()`` holds (a hang guard only)."""
    for _ in range(GUARD * 100):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


async def open_bot(stub: arena_pb2_grpc.RefereeStub, registry: LeaseRegistry) -> Bot:
    """Opens the stream of a real bot (a fresh lease) that has not sent its Join yet."""
    return Bot(await open_silent(stub), registry.create("real-bot"))


@dataclasses.dataclass
class Bot:
    """A real bot's stream and the lease whose token it holds."""

    call: grpc.aio.StreamStreamCall
    lease: Lease

    async def join_and_play(self, registry: LeaseRegistry) -> str:
        """Joins, receives one message and answers it, then the lease ends; returns what arrived."""
        await self.call.write(pb.BotMessage(join=pb.Join(token=self.lease.token, client="test")))
        await asyncio.wait_for(self.lease.joined.wait(), GUARD)
        assert self.lease.claimed and self.lease.client == "test"
        self.lease.send(pb.RefereeMessage(error=pb.Error(message="your move")))
        received = await asyncio.wait_for(self.call.read(), GUARD)
        await self.call.write(pb.BotMessage(answer=pb.Answer(request_id=1, index=0)))
        answer = await asyncio.wait_for(self.lease.inbound.get(), GUARD)
        assert answer.request_id == 1
        registry.forget(self.lease)
        await self.call.done_writing()
        assert await asyncio.wait_for(self.call.code(), GUARD) == grpc.StatusCode.OK
        return received.error.message


def test_the_defaults_are_a_few_seconds_and_a_few_dozen_streams() -> None:
    servicer = RefereeServicer(LeaseRegistry())
    assert servicer.join_window == JOIN_WINDOW == timedelta(seconds=5)
    assert servicer.max_unjoined == MAX_UNJOINED == 64


def test_a_silent_stream_is_closed_after_the_join_window() -> None:
    async def scenario() -> tuple[tuple[grpc.StatusCode, str], int]:
        registry = LeaseRegistry()
        server, port = await start_server(registry, join_window=WINDOW)
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                call = await open_silent(arena_pb2_grpc.RefereeStub(channel))
                return await status_of(call), len(registry.leases())
        finally:
            await server.stop(None)

    (code, details), leases = asyncio.run(scenario())
    assert code == grpc.StatusCode.DEADLINE_EXCEEDED
    assert details == (
        "the first message of a stream must be Join(token), sent within 0.3 s of opening it; none came"
    )
    assert leases == 0


@pytest.fixture
def servicers(monkeypatch: pytest.MonkeyPatch) -> list[RefereeServicer]:
    """Returns the servicers that start_server makes during the test, to read their unjoined count."""
    made: list[RefereeServicer] = []

    class Recorded(RefereeServicer):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(server_module, "RefereeServicer", Recorded)
    return made


async def heard(stub: arena_pb2_grpc.RefereeStub) -> tuple[grpc.StatusCode, str]:
    """Opens a stream and sends a Join with an unknown token; returns the status it ends with (a stream
    that got past the cap is told about its token)."""
    call = await open_silent(stub)
    with contextlib.suppress(grpc.aio.UsageError, grpc.aio.AioRpcError):  # refused before the write
        await call.write(pb.BotMessage(join=pb.Join(token="no such token")))
    return await status_of(call)


def test_over_the_cap_a_stream_is_refused_while_a_real_bot_joins_and_plays(
    servicers: list[RefereeServicer],
) -> None:
    cap = 4

    async def scenario() -> dict:
        registry = LeaseRegistry()
        # A long window: the silent streams stay open until the test lets them go.
        server, port = await start_server(registry, join_window=timedelta(seconds=GUARD), max_unjoined=cap)
        (servicer,) = servicers
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = arena_pb2_grpc.RefereeStub(channel)
                bot = await open_bot(stub, registry)  # a real bot, about to send its Join
                silent = [await open_silent(stub) for _ in range(cap - 1)]
                await until(lambda: servicer.unjoined == cap, "the open streams counted")
                refused = await status_of(await open_silent(stub))
                played = await bot.join_and_play(registry)  # the bot joins and plays all the same
                # The bot's stream stopped counting when it joined: one more stream gets in.
                heard_after_join = await heard(stub)
                full_again = await open_silent(stub)
                await until(lambda: servicer.unjoined == cap, "the new silent stream counted")
                refused_again = await heard(stub)
                for call in [*silent, full_again]:  # the silent clients hang up: their places come back
                    call.cancel()
                await until(lambda: servicer.unjoined == 0, "the hung-up streams released")
                heard_after_hangup = await heard(stub)
                played_after = await (await open_bot(stub, registry)).join_and_play(registry)
                return {
                    "refused": refused,
                    "refused_again": refused_again,
                    "played": played,
                    "heard_after_join": heard_after_join,
                    "heard_after_hangup": heard_after_hangup,
                    "played_after": played_after,
                    "unjoined": servicer.unjoined,
                }
        finally:
            await server.stop(None)

    seen = asyncio.run(scenario())
    refusal = (
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        f"too many streams waiting to join: at most {cap} may be open without having sent Join(token); "
        "try again later",
    )
    assert seen["refused"] == seen["refused_again"] == refusal
    assert seen["played"] == seen["played_after"] == "your move"
    # A stream that got past the cap is heard: its Join gets the answer about its token.
    unknown = (
        grpc.StatusCode.UNAUTHENTICATED,
        "unknown seat token: use the ARENA_TOKEN the referee gave this bot process",
    )
    assert seen["heard_after_join"] == seen["heard_after_hangup"] == unknown
    assert seen["unjoined"] == 0


def test_once_the_window_closed_the_silent_streams_the_cap_is_free_again(
    servicers: list[RefereeServicer],
) -> None:
    cap = 3

    async def scenario() -> tuple[list, tuple, tuple, str, int]:
        registry = LeaseRegistry()
        server, port = await start_server(registry, join_window=WINDOW, max_unjoined=cap)
        (servicer,) = servicers
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = arena_pb2_grpc.RefereeStub(channel)
                silent = [await open_silent(stub) for _ in range(cap)]
                closed = [await status_of(call) for call in silent]
                count = servicer.unjoined  # released before the status was sent
                late = await heard(stub)  # accepted: past the cap check, told about its token
                silent_late = await status_of(await open_silent(stub))  # accepted: it gets the window
                played = await (await open_bot(stub, registry)).join_and_play(registry)
                return closed, late, silent_late, played, count
        finally:
            await server.stop(None)

    closed, late, silent_late, played, count = asyncio.run(scenario())
    assert {code for code, _ in closed} == {grpc.StatusCode.DEADLINE_EXCEEDED}
    assert count == 0
    assert late[0] == grpc.StatusCode.UNAUTHENTICATED
    assert silent_late[0] == grpc.StatusCode.DEADLINE_EXCEEDED
    assert played == "your move"
