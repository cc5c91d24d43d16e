"""The gRPC Referee service (grpc.aio): a thin servicer over the lease registry.

Matches are driven elsewhere (arena/referee/match.py); the servicer only authenticates a stream by its
Join token, streams the lease's outbound messages to the bot and puts the bot's answers on the lease's
inbound queue. It also serves the standard health service and server reflection, so ``grpcurl`` and
container health checks work against it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from arena.referee.leases import Lease, LeaseError, LeaseRegistry
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc

log = logging.getLogger(__name__)

SERVICE_NAME = pb.DESCRIPTOR.services_by_name["Referee"].full_name
MAX_MESSAGE_BYTES = 1 << 20  # largest message a bot may send; real answers are a few bytes


class RefereeServicer(arena_pb2_grpc.RefereeServicer):
    def __init__(self, registry: LeaseRegistry) -> None:
        self.registry = registry

    async def Play(
        self, request_iterator: AsyncIterator[pb.BotMessage], context: grpc.aio.ServicerContext
    ) -> AsyncIterator[pb.RefereeMessage]:
        """Authenticates the stream with its Join, then relays the lease's messages both ways."""
        first = await anext(aiter(request_iterator), None)
        if first is None:
            return
        if first.WhichOneof("kind") != "join":
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "the first message of a stream must be Join(token)"
            )
        try:
            lease = self.registry.claim(first.join.token, first.join.client)
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


async def _read_answers(request_iterator: AsyncIterator[pb.BotMessage], lease: Lease) -> None:
    """Puts the bot's answers on the lease; a stray Join gets an error; stream end disconnects."""
    try:
        async for message in request_iterator:
            if message.WhichOneof("kind") == "answer":
                lease.inbound.put_nowait(message.answer)
            else:
                lease.send(
                    pb.RefereeMessage(
                        error=pb.Error(
                            code=pb.ERROR_CODE_UNEXPECTED_MESSAGE,
                            message="only the first message of a stream may be Join; send Answers now",
                        )
                    )
                )
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the transport failed: treat it as a disconnect
        log.debug("stream of %s ended: %s", lease.name, exc)
    finally:
        lease.mark_disconnected()


async def start_server(registry: LeaseRegistry, address: str = "127.0.0.1:0") -> tuple[grpc.aio.Server, int]:
    """Starts a referee server on ``address``; returns it and the port it listens on."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.so_reuseport", 0),
        ]
    )
    arena_pb2_grpc.add_RefereeServicer_to_server(RefereeServicer(registry), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    await health_servicer.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    await health_servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
        server,
    )
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}: the address is in use or invalid")
    await server.start()
    return server, port
