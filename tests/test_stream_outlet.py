"""A lease's messages go to its stream as they are sent (``arena.referee.leases.StreamOutlet``): the
write starts inside ``Lease.send``, one write at a time and in order, a backlog over the limit cuts the
bot, and a broken stream disconnects the lease. The streams here are fakes whose writes finish only when
the test opens their gate; real streams are covered by test_referee, test_hostile and the rest."""

from __future__ import annotations

import asyncio

import pytest

from arena.referee.leases import DISCONNECTED, OUTBOUND_LIMIT, Lease, StreamOutlet
from arena.v1 import arena_pb2 as pb


class GatedStream:
    """A stream whose every write waits for its own gate; ``wrote`` gets each message as its write
    starts."""

    def __init__(self, fail: bool = False) -> None:
        self.fail = fail
        self.wrote: asyncio.Queue[pb.RefereeMessage] = asyncio.Queue()
        self.gates: list[asyncio.Future[None]] = []

    async def write(self, message: pb.RefereeMessage) -> None:
        if self.fail:
            raise RuntimeError("the stream is gone")
        self.wrote.put_nowait(message)
        gate = asyncio.get_running_loop().create_future()
        self.gates.append(gate)
        await gate


def _message(number: int) -> pb.RefereeMessage:
    return pb.RefereeMessage(decision=pb.DecisionRequest(request_id=number))


def _attached(stream: GatedStream) -> tuple[Lease, StreamOutlet]:
    lease = Lease("bot")
    lease.claimed = True
    outlet = lease.outlet = StreamOutlet(stream.write, lease.mark_disconnected)
    return lease, outlet


def test_a_message_is_handed_to_the_stream_inside_send_and_the_next_after_it() -> None:
    async def run() -> None:
        stream = GatedStream()
        lease, outlet = _attached(stream)
        lease.send(_message(1))
        assert stream.wrote.qsize() == 1  # written before the sender gave the loop a turn
        lease.send(_message(2))
        lease.send(_message(3))
        assert stream.wrote.qsize() == 1 and outlet.waiting() == 2  # one write at a time
        got = [stream.wrote.get_nowait()]
        for _ in range(2):
            stream.gates[-1].set_result(None)
            got.append(await stream.wrote.get())
        assert [m.decision.request_id for m in got] == [1, 2, 3]
        flushed = asyncio.ensure_future(outlet.flushed())
        stream.gates[-1].set_result(None)
        await flushed
        assert outlet.waiting() == 0 and lease.connected

    asyncio.run(run())


def test_a_bot_that_lets_messages_pile_up_unwritten_is_cut() -> None:
    async def run() -> None:
        stream = GatedStream()  # no gate is opened: the bot does not read
        lease, outlet = _attached(stream)
        for number in range(OUTBOUND_LIMIT + 1):
            lease.send(_message(number))
        assert lease.connected and outlet.waiting() == OUTBOUND_LIMIT
        lease.send(_message(OUTBOUND_LIMIT + 1))
        assert not lease.connected and "waiting unread" in lease.problem
        assert outlet.waiting() == 0  # dropped; the write under way is the stream's to end
        assert lease.inbound.get_nowait() is DISCONNECTED

    asyncio.run(run())


def test_a_broken_stream_disconnects_the_lease() -> None:
    async def run() -> None:
        lease, outlet = _attached(GatedStream(fail=True))
        lease.send(_message(1))
        assert lease.disconnected and lease.inbound.get_nowait() is DISCONNECTED
        lease.send(_message(2))  # dropped: the stream is gone
        with pytest.raises(RuntimeError, match="the stream is gone"):
            await outlet.flushed()

    asyncio.run(run())


def test_a_closed_outlet_writes_nothing_more() -> None:
    async def run() -> None:
        stream = GatedStream()
        _, outlet = _attached(stream)
        outlet.push(_message(1))
        outlet.push(_message(2))
        outlet.close()  # the stream ended while a write waited
        outlet.push(_message(3))
        stream.gates[0].set_result(None)
        await asyncio.sleep(0)  # the gate's callback runs: the abandoned write must not go on
        assert stream.wrote.qsize() == 1 and outlet.waiting() == 0

    asyncio.run(run())
