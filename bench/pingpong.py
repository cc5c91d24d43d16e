"""The transport floor: a bare grpcio bidirectional-streaming ping-pong between two processes.

    pingpong.py serve BYTES [unix]  # prints its address (host:port, or unix:PATH on a Unix socket),
                                    # answers every message with BYTES bytes
    pingpong.py client ADDRESS N    # N round trips; prints microseconds per round trip
    pingpong.py aio-client ADDRESS N  # the same with a grpc.aio client

Same shape as a match: the server (grpc.aio, like the referee) sends the large message, the client
(sync grpc with a queue-fed request iterator, like the SDK) answers with a few bytes. The asyncio
client is measured beside it, to show what the transport would cost a bot built on grpc.aio. Over
``unix`` it is the transport sandboxed bots use: their only way out is the referee's Unix socket.
"""

from __future__ import annotations

import asyncio
import queue
import sys
import tempfile
import time

import grpc

METHOD = "/bench.PingPong/Play"


def _identity(data: bytes) -> bytes:
    return data


async def serve(payload: int, unix: bool) -> None:
    reply = b"x" * payload

    async def play(requests, context):
        async for _ in requests:
            yield reply

    handler = grpc.method_handlers_generic_handler(
        "bench.PingPong",
        {"Play": grpc.stream_stream_rpc_method_handler(play, _identity, _identity)},
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    if unix:
        with tempfile.TemporaryDirectory(prefix="arena-pingpong-") as folder:
            address = f"unix:{folder}/pingpong.sock"
            server.add_insecure_port(address)
            await server.start()
            print(address, flush=True)
            await server.wait_for_termination()
    else:
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        print(f"127.0.0.1:{port}", flush=True)
        await server.wait_for_termination()


def client(address: str, rounds: int) -> float:
    outbox: queue.Queue[bytes | None] = queue.Queue()

    def requests():
        while (item := outbox.get()) is not None:
            yield item

    with grpc.insecure_channel(address) as channel:
        grpc.channel_ready_future(channel).result(timeout=30)
        call = channel.stream_stream(METHOD, request_serializer=_identity, response_deserializer=_identity)
        responses = call(requests())
        for _ in range(50):  # warm up
            outbox.put(b"ok")
            next(responses)
        start = time.perf_counter()
        for _ in range(rounds):
            outbox.put(b"ok")
            next(responses)
        elapsed = time.perf_counter() - start
        outbox.put(None)
    return 1e6 * elapsed / rounds


async def aio_client(address: str, rounds: int) -> float:
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(METHOD, request_serializer=_identity, response_deserializer=_identity)()
        for _ in range(50):  # warm up
            await call.write(b"ok")
            await call.read()
        start = time.perf_counter()
        for _ in range(rounds):
            await call.write(b"ok")
            await call.read()
        elapsed = time.perf_counter() - start
        await call.done_writing()
    return 1e6 * elapsed / rounds


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        asyncio.run(serve(int(sys.argv[2]), sys.argv[3:] == ["unix"]))
    elif sys.argv[1] == "aio-client":
        print(f"{asyncio.run(aio_client(sys.argv[2], int(sys.argv[3]))):.2f}")
    else:
        print(f"{client(sys.argv[2], int(sys.argv[3])):.2f}")
