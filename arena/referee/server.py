"""The gRPC Referee service (grpc.aio): a thin servicer over the lease registry.

Matches are driven elsewhere (arena/referee/match.py); the servicer only authenticates a stream by its
Join token, gives the lease a ``StreamOutlet`` that writes its messages to the stream as the match sends
them, and puts the bot's answers on the lease's inbound queue. On its TCP port it also serves the
standard health service and server reflection, so ``grpcurl`` and container health checks work against
it.

Design Detail: Play is registered with a raw-bytes request deserializer and parses each BotMessage
itself. Bytes that are not a BotMessage then get an Error (or, as the first message, a status) that
says so, instead of gRPC's generic "Exception deserializing request" that ends the stream. Messages
over ``MAX_MESSAGE_BYTES`` are refused by gRPC itself with RESOURCE_EXHAUSTED before they are read.

Design Detail: anyone who can reach the port can open Play streams, and each costs the referee ~14 KiB
before it has said who it is. So a stream must send its Join within ``JOIN_WINDOW`` or it is closed with
DEADLINE_EXCEEDED, and at most ``MAX_UNJOINED`` streams may be waiting for their first message at once:
one more is refused at once with RESOURCE_EXHAUSTED. A stream stops counting when its first message
arrives (whatever it is) or it ends in any way (abort, cancellation, the client hanging up), so streams
that joined never count and a silent stream holds its place for one window at most. The cap bounds the
memory, not who gets in: a client that keeps reopening silent streams keeps the cap full, and while it
is full a new stream is refused, a real bot's included (a stream already open may still join). That
shared cap guards only the TCP port, which unsandboxed bots (trusted ones) and ``@wait`` seats use.

Design Detail: no socket is shared by seats. Every sandboxed bot reaches the referee through a socket
of its own seat (a ``SeatDoor``: a Unix socket and a gRPC server of its own, bound into that bot's
sandbox alone), so nothing one seat opens counts against another, and whoever floods is known. A
seat's socket serves only ``Play`` (no health service, no reflection), takes only its own seat's
token, and bounds what a bot could take there: ``SEAT_CONNECTIONS`` (4) connections at once (gRPC
closes the excess as it accepts it: file descriptors), ``SEAT_STREAMS_PER_CONNECTION`` (8) open
streams on each (HTTP/2 MAX_CONCURRENT_STREAMS: the transport refuses the excess before the servicer
sees it), per stream 64 KiB of unread data (its flow-control window, which never grows: BDP probing
is off), 8 KiB of metadata and one 64 KiB message, and ``SEAT_STREAMS`` (16) streams of any method
over the socket's life, where a bot needs one. The next stream is a flood: the seat's lease is cut, so
the seat forfeits (disconnected, or never connected if it had not joined; its Play stream ends with
RESOURCE_EXHAUSTED saying why), and its socket closes, which ends every stream and connection on it.
The socket also closes when its lease is released (the bot is stopped or replaced).

So whatever a bot opens, its seat holds at most 4 connections (~18 KiB each, measured) and 32 streams
(~23 KiB each while idle, plus at most 64 KiB unread and a 64 KiB message): under 6 MiB, and
``SEAT_MEMORY_BOUND`` states 8 MiB. The referee's memory beyond its own is at most that per seat,
plus each lease's bounded queues (arena/referee/leases.py). Measured by tests/test_join_flood.py: a
bot that opens 8,000 idle streams to its socket raises the referee's peak RSS by 0.3 to 2.3 MiB over
the whole game (the same 8,000 streams on the socket all seats used to share: 46 MiB). There is no
thread per seat or stream: grpc.aio runs every server on one event loop and gRPC's shared pollers.
What seats still share is the referee's CPU: connections over a seat's cap are accepted and closed
by gRPC's pollers, at about the cost of opening them, which the bot's own CPU quota bounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import logging
import shutil
import tempfile
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2

from arena.referee.leases import INBOUND_LIMIT, Lease, LeaseError, LeaseRegistry, Malformed, StreamOutlet
from arena.referee.processes import RefereeEndpoint
from arena.v1 import arena_pb2 as pb

log = logging.getLogger(__name__)

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["Referee"].full_name
# The largest message a bot may send (grpc.max_receive_message_length): 64 KiB. A real answer is a few
# bytes, and the largest legal Action of any game is under 100 bytes.
MAX_MESSAGE_BYTES = 64 * 1024
# How long a new stream may take to send its first message (Join); a bot's SDK sends it at once.
JOIN_WINDOW = timedelta(seconds=5)
# How many streams may be open without having sent their first message; a referee runs a few dozen bots.
# Only on the TCP port: a sandboxed seat's own socket has the limits below.
MAX_UNJOINED = 64
PLAY_METHOD = f"/{SERVICE_NAME}/Play"
# One seat's own socket (a SeatDoor): connections at once, streams per connection, streams in its life.
SEAT_CONNECTIONS = 4
SEAT_STREAMS_PER_CONNECTION = 8
SEAT_STREAMS = 16
SEAT_METADATA_BYTES = 8 * 1024  # a stream's headers; a bot's are a few hundred bytes
# What one seat can make the referee hold, at most (module docstring; tests/test_join_flood.py).
SEAT_MEMORY_BOUND = 8 << 20
# How long a closing seat socket lets its streams end with their status before they are cancelled.
DOOR_GRACE = timedelta(seconds=1)


def parse_bot_message(data: bytes) -> tuple[pb.BotMessage | None, str]:
    """Returns (the message, "") or (None, what is wrong with the bytes)."""
    try:
        message = pb.BotMessage.FromString(data)
    except DecodeError as exc:
        return None, f"{len(data)} bytes that are not a valid arena.v1.BotMessage ({exc})"
    if message.WhichOneof("kind") is None:
        return None, f"a BotMessage of {len(data)} bytes with neither join nor answer set"
    return message, ""


def _error(code: pb.ErrorCode, text: str) -> pb.RefereeMessage:
    return pb.RefereeMessage(error=pb.Error(code=code, message=text))


class RefereeServicer:
    """The Referee service; ``Play`` receives raw bytes and guards its first message (see the module's
    Design Details)."""

    def __init__(
        self,
        registry: LeaseRegistry,
        join_window: timedelta = JOIN_WINDOW,
        max_unjoined: int = MAX_UNJOINED,
        seat: Lease | None = None,
    ) -> None:
        self.registry = registry
        self.join_window = join_window
        self.max_unjoined = max_unjoined
        self.seat = seat  # a seat's own socket: only this lease's token is accepted
        self.unjoined = 0  # streams open now that have not sent their first message

    async def _first_message(
        self, request_iterator: AsyncIterator[bytes], context: grpc.aio.ServicerContext
    ) -> bytes | None:
        """Returns the stream's first message (None if the client closed it first); aborts a stream over
        the cap of unjoined streams, or one whose first message misses the join window."""
        if self.unjoined >= self.max_unjoined:
            await context.abort(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"too many streams waiting to join: at most {self.max_unjoined} may be open without having "
                "sent Join(token); try again later",
            )
        self.unjoined += 1
        try:
            async with asyncio.timeout(self.join_window.total_seconds()):
                return await anext(aiter(request_iterator), None)
        except TimeoutError:
            pass
        finally:
            self.unjoined -= 1
        await context.abort(
            grpc.StatusCode.DEADLINE_EXCEEDED,
            f"the first message of a stream must be Join(token), sent within "
            f"{self.join_window.total_seconds():g} s of opening it; none came",
        )
        return None  # not reached: abort raises

    async def Play(
        self, request_iterator: AsyncIterator[bytes], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.RefereeMessage]:
        """Authenticates the stream with its Join, then relays the lease's messages both ways.

        Design detail: the messages reach the stream through the lease's ``StreamOutlet``
        (``context.write``), not by being yielded; Play stays an async generator, the shape gRPC and
        whoever wraps the servicer (tests/test_fuzz.py) know it by, and yields nothing."""
        data = await self._first_message(request_iterator, context)
        if data is None:
            return
        first, problem = parse_bot_message(data)
        if first is None or first.WhichOneof("kind") != "join":
            got = problem or "an Answer"
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"the first message of a stream must be Join(token), got {got}",
            )
        try:
            join = first.join
            lease = self.registry.claim(
                join.token, join.client, join.events_in_requests, only=self.seat, bot_name=join.bot_name
            )
        except LeaseError as exc:
            await context.abort(getattr(grpc.StatusCode, exc.code), str(exc))
        outlet = lease.outlet = StreamOutlet(context.write, lease.mark_disconnected)
        reader = asyncio.create_task(_read_answers(request_iterator, lease))
        try:
            while (message := await lease.outbound.get()) is not None:  # None: released, cut or gone
                outlet.push(message)
            await outlet.flushed()  # what was sent before the end (a MatchResult) still goes out
        finally:
            outlet.close()
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            lease.mark_disconnected()
        if lease.problem:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, lease.problem)
        return
        yield  # not reached: makes Play an async generator (see its docstring)


async def _read_answers(request_iterator: AsyncIterator[bytes], lease: Lease) -> None:
    """Puts the bot's answers on the lease (bounded: the excess is dropped, one Error per request);
    a stray Join gets an error; unparsable bytes go to the match as Malformed; stream end disconnects."""
    try:
        async for data in request_iterator:
            message, problem = parse_bot_message(data)
            if message is not None and message.WhichOneof("kind") == "join":
                lease.send(
                    _error(
                        pb.ERROR_CODE_UNEXPECTED_MESSAGE,
                        "only the first message of a stream may be Join; send Answers now",
                    )
                )
                continue
            accepted = lease.offer(message.answer if message is not None else Malformed(problem))
            if not accepted and not lease.flood_reported:
                lease.flood_reported = True
                lease.send(_error(pb.ERROR_CODE_UNEXPECTED_MESSAGE, _flood_text()))
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the transport failed: treat it as a disconnect
        log.debug("stream of %s ended: %s", lease.name, exc)
    finally:
        lease.mark_disconnected()


def _flood_text() -> str:
    return (
        f"too many messages: {INBOUND_LIMIT} answers are already waiting to be read, so this one and "
        "the rest until the next DecisionRequest are dropped; send one Answer per DecisionRequest"
    )


def _referee_handler(servicer: RefereeServicer) -> grpc.GenericRpcHandler:
    """Returns the handler of arena.v1.Referee with Play taking raw request bytes."""
    play: grpc.RpcMethodHandler[bytes, pb.RefereeMessage] = grpc.stream_stream_rpc_method_handler(
        servicer.Play,
        request_deserializer=None,
        response_serializer=pb.RefereeMessage.SerializeToString,
    )
    return grpc.method_handlers_generic_handler(SERVICE_NAME, {"Play": play})


REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"


def _reflection_v1_handler(services: tuple[str, ...]) -> grpc.GenericRpcHandler:
    """Returns server reflection under its v1 name, which grpcurl and other tools ask for first.

    Design detail: grpcio-reflection ships only v1alpha; v1's messages are the same on the wire
    (only the package was renamed), so v1alpha's servicer answers both.
    """
    servicer = reflection.aio.ReflectionServicer(services)
    method = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    return grpc.method_handlers_generic_handler(REFLECTION_V1, {"ServerReflectionInfo": method})


async def start_server(
    registry: LeaseRegistry,
    address: str = "127.0.0.1:0",
    join_window: timedelta = JOIN_WINDOW,
    max_unjoined: int = MAX_UNJOINED,
    socket: Path | None = None,
) -> tuple[grpc.aio.Server, int]:
    """Starts a referee server on ``address`` (and the Unix ``socket``, when given); returns it and
    the port it listens on.

    A Play stream must send Join within ``join_window``, and at most ``max_unjoined`` streams may be
    waiting to do so at once (see the module's Design Detail).
    """
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.so_reuseport", 0),
        ]
    )
    servicer = RefereeServicer(registry, join_window, max_unjoined)
    server.add_generic_rpc_handlers((_referee_handler(servicer),))
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    services = (
        SERVICE_NAME,
        health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
        reflection.SERVICE_NAME,
        REFLECTION_V1,
    )
    reflection.enable_server_reflection(services, server)
    server.add_generic_rpc_handlers((_reflection_v1_handler(services),))
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}: the address is in use or invalid")
    if socket is not None and server.add_insecure_port(f"unix:{socket}") == 0:
        raise OSError(f"cannot listen on the Unix socket {socket}")
    await server.start()
    return server, port


class SeatDoor:
    """One seat's own way in: a Unix socket and a gRPC server that serves only that seat's ``Play``
    (see the module's Design Detail). ``start`` it; it closes by itself once its lease is released,
    or as soon as the seat floods it."""

    def __init__(self, lease: Lease, registry: LeaseRegistry, path: Path, join_window: timedelta) -> None:
        self.lease = lease
        self.path = path
        self.streams = 0  # streams (of any method) opened on this socket in its life
        self.servicer = RefereeServicer(registry, join_window, SEAT_STREAMS, seat=lease)
        self.server: grpc.aio.Server | None = None
        self.flooded = asyncio.Event()
        self._closing: asyncio.Task | None = None

    def flood_text(self) -> str:
        return (
            f"this bot opened more than {SEAT_STREAMS} streams to the referee, and a bot needs one "
            "(Play): flooding the referee, its seat forfeits and its socket is closed"
        )

    def admit(self) -> bool:
        """Counts a new stream; returns False for one over the seat's budget, and cuts the seat."""
        self.streams += 1
        if self.streams <= SEAT_STREAMS:
            return True
        if not self.flooded.is_set():
            log.info("seat %s flooded its socket: cut", self.lease.name)
            self.lease.cut(self.flood_text())
            self.flooded.set()
        return False

    async def start(self) -> None:
        server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                ("grpc.max_allowed_incoming_connections", SEAT_CONNECTIONS),
                ("grpc.max_concurrent_streams", SEAT_STREAMS_PER_CONNECTION),
                ("grpc.http2.bdp_probe", 0),
                ("grpc.max_metadata_size", SEAT_METADATA_BYTES),
                ("grpc.absolute_max_metadata_size", SEAT_METADATA_BYTES),
            ]
        )
        server.add_generic_rpc_handlers((_DoorHandler(self),))
        if server.add_insecure_port(f"unix:{self.path}") == 0:
            await server.stop(None)
            raise OSError(f"cannot listen on the Unix socket {self.path}")
        await server.start()
        self.server = server
        self._closing = asyncio.create_task(self._close_when_over())

    async def _close_when_over(self) -> None:
        """Closes the socket once the lease is released or the seat flooded it (not when the bot's
        stream merely ended: the status that ended it is still on its way)."""
        waits = [asyncio.ensure_future(event.wait()) for event in (self.lease.over, self.flooded)]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
        await self._stop()

    async def _stop(self) -> None:
        if self.server is not None:
            await self.server.stop(DOOR_GRACE.total_seconds())
        with contextlib.suppress(OSError):
            self.path.unlink()

    @property
    def closed(self) -> bool:
        return self._closing is not None and self._closing.done()

    async def close(self) -> None:
        """Closes the socket now, or waits until it has closed if it was closing (the referee is
        stopping)."""
        if self._closing is None:
            return
        if self.lease.over.is_set() or self.flooded.is_set():
            await self._closing
            return
        self._closing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._closing
        await self._stop()


class _DoorHandler(grpc.GenericRpcHandler):
    """Counts every stream opened on a seat's socket and hands ``Play`` to the seat's servicer;
    other methods are unimplemented there, and a stream over the budget is refused."""

    def __init__(self, door: SeatDoor) -> None:
        self.door = door
        self.play: grpc.RpcMethodHandler[bytes, pb.RefereeMessage] = grpc.stream_stream_rpc_method_handler(
            door.servicer.Play,
            request_deserializer=None,
            response_serializer=pb.RefereeMessage.SerializeToString,
        )
        self.refused: grpc.RpcMethodHandler[bytes, pb.RefereeMessage] = grpc.stream_stream_rpc_method_handler(
            self._refuse
        )

    async def _refuse(self, requests: AsyncIterator[bytes], context: grpc.aio.ServicerContext) -> None:
        await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, self.door.flood_text())

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        if not self.door.admit():
            return self.refused
        return self.play if handler_call_details.method == PLAY_METHOD else None


class SeatDoors:
    """The seat sockets of one referee, in its private folder (0700)."""

    def __init__(self, registry: LeaseRegistry, folder: Path, join_window: timedelta = JOIN_WINDOW) -> None:
        self.registry = registry
        self.folder = folder
        self.join_window = join_window
        self.doors: list[SeatDoor] = []
        self._numbers = itertools.count(1)

    async def open(self, lease: Lease) -> Path:
        """Opens ``lease``'s own socket; returns its path. It closes once the lease is released."""
        self.doors = [door for door in self.doors if not door.closed]
        path = self.folder / f"seat-{next(self._numbers)}.sock"
        door = SeatDoor(lease, self.registry, path, self.join_window)
        await door.start()
        self.doors.append(door)
        return door.path

    async def close(self) -> None:
        await asyncio.gather(*(door.close() for door in self.doors))
        self.doors.clear()


@dataclasses.dataclass(frozen=True)
class Referee(RefereeEndpoint):
    """Where bots reach a running referee: its TCP port (``tcp``; unsandboxed and ``@wait`` bots) and
    the seat sockets it opens for sandboxed bots (``seat_endpoint``). ``socket`` is None: no socket
    is shared by seats."""

    doors: SeatDoors | None = dataclasses.field(default=None, compare=False, repr=False)


async def seat_endpoint(endpoint: RefereeEndpoint, lease: Lease) -> RefereeEndpoint:
    """Returns where the sandboxed bot of ``lease`` reaches the referee: a socket of its own seat when
    ``endpoint`` is a running referee's, else ``endpoint`` itself (a socket given by hand)."""
    doors = endpoint.doors if isinstance(endpoint, Referee) else None
    if doors is None:
        return endpoint
    return RefereeEndpoint(endpoint.tcp, await doors.open(lease))


@contextlib.asynccontextmanager
async def start_referee(registry: LeaseRegistry) -> AsyncIterator[Referee]:
    """Runs a referee server for bot processes while the context lasts; yields where bots reach it:
    127.0.0.1 for unconfined and ``@wait`` bots, and for each sandboxed bot a Unix socket of its own
    seat (``seat_endpoint``) in a private folder (0700), bound into that bot's sandbox alone (a
    sandboxed bot has no network)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-referee-"))
    doors = SeatDoors(registry, folder)
    try:
        server, port = await start_server(registry)
        try:
            yield Referee(f"127.0.0.1:{port}", None, doors)
        finally:
            await doors.close()
            await server.stop(grace=0.5)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
