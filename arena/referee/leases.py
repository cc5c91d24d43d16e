"""Leases: the binding between a secret token and the one stream that plays with it.

A lease is created by whoever runs matches (``arena match``, a worker) before the bot starts; its token
goes to the bot (ARENA_TOKEN). The bot's Play stream claims the lease with Join. From then on the
lease carries messages both ways: the match loop sends RefereeMessages (``send``: written to the
stream at once by its ``StreamOutlet``; a lease with no stream, an in-process bot's, queues them on
``outbound``) and reads Answers from ``inbound`` (the servicer's reader puts them there).
A token can be claimed once: a second stream with it is refused, and a token is dead after its lease
ends, so a leaked token cannot be replayed later.

Both queues are bounded, so a bot cannot grow the referee's memory: at most ``INBOUND_LIMIT`` answers
wait to be read (the servicer drops the excess and tells the bot once per request), and a bot that lets
more than ``OUTBOUND_LIMIT`` messages pile up unwritten (it does not read its stream) is disconnected.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
import secrets
from collections.abc import Callable, Coroutine
from typing import Any

from arena.v1 import arena_pb2 as pb

DISCONNECTED = object()  # put on ``inbound`` when the stream ends
INBOUND_LIMIT = 16  # answers waiting to be read; a bot is asked one question at a time
OUTBOUND_LIMIT = 4096  # messages waiting to be sent; a game's events between two decisions are far fewer


@dataclasses.dataclass(frozen=True)
class Malformed:
    """Put on ``inbound`` in place of an answer that could not be parsed; the match strikes it."""

    problem: str


class StreamOutlet:
    """Writes a lease's messages to its stream as they are sent: in order, one write at a time.

    Design detail: the match loop used to put each message on ``outbound`` for the servicer's task to
    write, so a request reached the bot only once the loop had finished its step (the replay lines,
    the events) and that task had run. Here the write starts inside ``send``: the write coroutine
    (grpc.aio's ``context.write``) is stepped by hand, its first step by the sender (gRPC takes the
    message at once) and each later one by the done callback of the future it waits on, so no task
    sits between the match and the stream. Measured (bench/run.py's referee layer, side by side):
    8-11% less wall time per decision, for a few percent more of the referee's CPU (the answer now
    often comes while the referee is still busy with the step).
    """

    def __init__(
        self, write: Callable[[Any], Coroutine[Any, Any, None]], on_error: Callable[[], None]
    ) -> None:
        self._write = write
        self._on_error = on_error  # the stream is broken: the lease disconnects
        self._pending: collections.deque[Any] = collections.deque()
        self._running: Coroutine[Any, Any, None] | None = None
        self._idle: asyncio.Future[None] | None = None
        self._closed = False
        self.error: BaseException | None = None

    def push(self, message: Any) -> None:
        """Writes ``message`` after those before it (starts now when no write is under way)."""
        if self._closed:
            return
        self._pending.append(message)
        if self._running is None:
            self._next()

    def waiting(self) -> int:
        """Returns how many messages wait for the write under way."""
        return len(self._pending)

    def drop(self) -> None:
        """Drops the messages not yet written (the write under way goes on)."""
        self._pending.clear()

    async def flushed(self) -> None:
        """Returns once every message pushed is written; raises the error that broke the stream."""
        if self._running is not None:
            self._idle = asyncio.get_running_loop().create_future()
            await self._idle
        if self.error is not None:
            raise self.error

    def close(self) -> None:
        """Abandons the write under way and any pending (the stream is over)."""
        self._closed = True
        self._pending.clear()
        running, self._running = self._running, None
        if running is not None:
            running.close()

    def _next(self) -> None:
        while self._pending and not self._closed:
            self._running = self._write(self._pending.popleft())
            if not self._advance():
                return  # waiting: ``_resume`` carries on
        if self._idle is not None and not self._idle.done():
            self._idle.set_result(None)

    def _resume(self, _: object = None) -> None:
        if self._running is not None and self._advance():
            self._next()

    def _advance(self) -> bool:
        """Runs the write under way until it waits (False) or ends (True), as a task would."""
        assert self._running is not None
        try:
            waited = self._running.send(None)
        except StopIteration:
            self._running = None
            return True
        except (Exception, asyncio.CancelledError) as exc:
            self._running, self.error = None, exc
            self._pending.clear()
            self._on_error()
            return True
        if waited is None:  # a bare yield (asyncio.sleep(0))
            asyncio.get_running_loop().call_soon(self._resume)
        else:
            waited._asyncio_future_blocking = False
            waited.add_done_callback(self._resume)
        return False


class LeaseError(Exception):
    """A Join that cannot be accepted; ``code`` names the gRPC status to end the stream with."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclasses.dataclass(eq=False)
class Lease:
    """One bot's seat across one or more matches played over a single stream."""

    name: str
    token: str = dataclasses.field(default_factory=lambda: secrets.token_urlsafe(18))
    inbound: asyncio.Queue = dataclasses.field(default_factory=lambda: asyncio.Queue(INBOUND_LIMIT))
    outbound: asyncio.Queue = dataclasses.field(default_factory=asyncio.Queue)
    joined: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)
    over: asyncio.Event = dataclasses.field(default_factory=asyncio.Event)  # released: its socket may close
    claimed: bool = False
    disconnected: bool = False
    released: bool = False
    client: str = ""
    bot_name: str = ""  # what the bot calls itself in its Join (its own text: clean before showing)
    events_in_requests: bool = False  # the bot reads DecisionRequest.events (Join.events_in_requests)
    problem: str = ""  # why the referee ended the stream, if it did
    flood_reported: bool = False  # the bot was told its excess answers are dropped (until the next request)
    outlet: StreamOutlet | None = None  # the claiming stream's writer; None: messages go on ``outbound``

    @property
    def connected(self) -> bool:
        """Returns whether a stream is attached and still open."""
        return self.claimed and not self.disconnected and not self.released

    def send(self, message: pb.RefereeMessage) -> None:
        """Queues a message for the bot (dropped once the stream is gone); cuts a bot that stopped reading."""
        if not self.connected:
            return
        outlet = self.outlet
        if (outlet.waiting() if outlet else self.outbound.qsize()) >= OUTBOUND_LIMIT:
            self.cut(
                f"{OUTBOUND_LIMIT} messages to this bot are waiting unread: "
                "read the stream while the match runs"
            )
            return
        if outlet is not None:
            outlet.push(message)
        else:
            self.outbound.put_nowait(message)

    def offer(self, answer: pb.Answer | Malformed) -> bool:
        """Queues an answer for the match; returns False (and drops it) when the inbound queue is full."""
        try:
            self.inbound.put_nowait(answer)
        except asyncio.QueueFull:
            return False
        return True

    def cut(self, problem: str) -> None:
        """Ends the stream from the referee's side: unsent messages are dropped, the bot gets ``problem``."""
        self.problem = problem
        while not self.outbound.empty():
            self.outbound.get_nowait()
        if self.outlet is not None:
            self.outlet.drop()
        self.mark_disconnected()

    def mark_disconnected(self) -> None:
        """Records that the stream ended and wakes everyone waiting on it."""
        if not self.disconnected:
            self.disconnected = True
            if self.inbound.full():  # make room: the disconnect matters more than a queued answer
                self.inbound.get_nowait()
            self.inbound.put_nowait(DISCONNECTED)
            self.outbound.put_nowait(None)
            self.joined.set()

    def release(self) -> None:
        """Ends the lease: the servicer closes the stream with status OK."""
        if not self.released:
            self.released = True
            self.outbound.put_nowait(None)
            self.joined.set()
            self.over.set()

    def drain_inbound(self) -> None:
        """Drops answers left over from an earlier request (a new request: a new flood is reported)."""
        self.flood_reported = False
        while not self.inbound.empty():
            item = self.inbound.get_nowait()
            if item is DISCONNECTED:
                self.inbound.put_nowait(item)
                return


class LeaseRegistry:
    """All leases of one referee process, by token."""

    def __init__(self) -> None:
        self._by_token: dict[str, Lease] = {}

    def create(self, name: str) -> Lease:
        """Returns a new lease with a fresh secret token."""
        lease = Lease(name)
        self._by_token[lease.token] = lease
        return lease

    def claim(
        self,
        token: str,
        client: str = "",
        events_in_requests: bool = False,
        only: Lease | None = None,
        bot_name: str = "",
    ) -> Lease:
        """Returns the lease for ``token`` and marks it claimed; raises LeaseError. With ``only`` (a
        seat's own socket), any other lease's token is refused as unknown."""
        lease = self._by_token.get(token)
        if lease is None or (only is not None and lease is not only):
            raise LeaseError(
                "UNAUTHENTICATED",
                "unknown seat token: use the ARENA_TOKEN the referee gave this bot process",
            )
        if lease.released or lease.disconnected:
            raise LeaseError("UNAUTHENTICATED", "this seat token has expired: its stream already ended")
        if lease.claimed:
            raise LeaseError("ALREADY_EXISTS", "this seat is already connected on another stream")
        lease.claimed = True
        lease.client = client[:64]
        lease.bot_name = bot_name[:64]
        lease.events_in_requests = events_in_requests
        lease.joined.set()
        return lease

    def leases(self) -> list[Lease]:
        """Returns the leases not yet forgotten (for tests and monitoring; tokens are secret)."""
        return list(self._by_token.values())

    def forget(self, lease: Lease) -> None:
        """Releases a lease and drops it; its token is not accepted again."""
        lease.release()
        self._by_token.pop(lease.token, None)
