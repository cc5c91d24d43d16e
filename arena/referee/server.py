"""The gRPC Referee service (grpc.aio): a thin servicer over the lease registry.

Matches are driven elsewhere (arena/referee/match.py); the servicer only authenticates a stream by its
Join token, streams the lease's outbound messages to the bot and puts the bot's answers on the lease's
inbound queue. It also serves the standard health service and server reflection, so ``grpcurl`` and
container health checks work against it.

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
is full a new stream is refused, a real bot's included (a stream already open may still join).
"""

from __future__ import annotations

import asyncio
import contextlib
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

from arena.referee.leases import INBOUND_LIMIT, Lease, LeaseError, LeaseRegistry, Malformed
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
MAX_UNJOINED = 64


def parse_bot_message(data: bytes) -> tuple[pb.BotMessage | None, str]:
    """Returns (the message, "") or (None, what is wrong with the bytes)."""
    try:
        message = pb.BotMessage.FromString(data)
    except DecodeError as exc:
        return None, f"{len(data)} bytes that are not a valid arena.v1.BotMessage ({exc})"
    if message.WhichOneof("kind") is None:
        return None, f"a BotMessage of {len(data)} bytes with neither join nor answer set"
    return message, ""


def _error(code: int, text: str) -> pb.RefereeMessage:
    return pb.RefereeMessage(error=pb.Error(code=code, message=text))


class RefereeServicer:
    """The Referee service; ``Play`` receives raw bytes and guards its first message (see the module's
    Design Details)."""

    def __init__(
        self,
        registry: LeaseRegistry,
        join_window: timedelta = JOIN_WINDOW,
        max_unjoined: int = MAX_UNJOINED,
    ) -> None:
        self.registry = registry
        self.join_window = join_window
        self.max_unjoined = max_unjoined
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
        """Authenticates the stream with its Join, then relays the lease's messages both ways."""
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
            lease = self.registry.claim(first.join.token, first.join.client, first.join.events_in_requests)
        except LeaseError as exc:
            await context.abort(getattr(grpc.StatusCode, exc.code), str(exc))
        reader = asyncio.create_task(_read_answers(request_iterator, lease))
        try:
            while True:
                message = await lease.outbound.get()
                if message is None:
                    break
                yield message
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
            lease.mark_disconnected()
        if lease.problem:
            await context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, lease.problem)


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
    play = grpc.stream_stream_rpc_method_handler(
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


@contextlib.asynccontextmanager
async def start_referee(registry: LeaseRegistry) -> AsyncIterator[RefereeEndpoint]:
    """Runs a referee server for bot processes while the context lasts; yields where bots reach it:
    127.0.0.1 for unconfined bots, and a Unix socket in a private folder (0700) that is bound into
    every sandbox (a sandboxed bot has no network)."""
    folder = Path(tempfile.mkdtemp(prefix="arena-referee-"))
    path = folder / "referee.sock"
    try:
        server, port = await start_server(registry, socket=path)
        try:
            yield RefereeEndpoint(f"127.0.0.1:{port}", path)
        finally:
            await server.stop(grace=0.5)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
