"""A hostile bot for tests/test_join_flood.py: it floods the referee with Play streams that never join.

usage: flooder.py HOW COUNT WHEN   (ARENA_ADDRESS, ARENA_TOKEN from the environment)

HOW is ``raw`` (HTTP/2 written by hand: each connection gets the preface and then COUNT/16 HEADERS
frames of new Play streams at once, whatever MAX_CONCURRENT_STREAMS the referee announced, and is
held open with its SETTINGS and PINGs acknowledged) or ``grpc`` (grpc.aio channels, each its own
connection, with many Play streams each; the client queues what the referee's settings hold back).
Either way COUNT streams are tried and none ever sends a message; a raw connection that cannot be
made counts its streams as refused, and the grpc flood waits until every stream has ended. WHEN is
``first`` (flood before joining, then try to join, as a seat that never joins would), ``midgame``
(join and play until the first decision, then flood before answering it) or ``only`` (flood, report
and exit; ARENA_TOKEN is not needed).

Every report is a ``HOSTILE {json}`` line on stdout, flushed (the referee keeps it in the bot's log):
``{"note": "flooded", "streams": COUNT, "sent": N, "refused": M, "connections": C}`` (raw) or
``{"note": "flooded", "streams": COUNT, "ended": {STATUS: N}, "connections": C}`` (grpc) once the
COUNT streams were tried, then what the Play stream got or how it ended. The raw connections stay
open while the process lives (the referee stops it).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import struct
import sys
import threading
import time

import grpc

from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
PLAY_PATH = b"/arena.v1.Referee/Play"
CONNECTIONS = 16  # the flood is spread over this many connections


def report(item: dict) -> None:
    sys.stdout.write("HOSTILE " + json.dumps(item) + "\n")
    sys.stdout.flush()


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def literal(index: int, value: bytes) -> bytes:
    """An HPACK literal header field without indexing, its name from the static table (index < 15)."""
    return bytes([index, len(value)]) + value


def play_headers() -> bytes:
    """The HPACK block of a gRPC Play request: :method POST, :scheme http, :path, :authority,
    content-type application/grpc, te trailers."""
    content_type = b"\x0f\x10" + bytes([16]) + b"application/grpc"  # name: static index 31
    te = b"\x00\x02te\x08trailers"
    return b"\x83\x86" + literal(4, PLAY_PATH) + literal(1, b"referee") + content_type + te


def connect(address: str) -> socket.socket:
    if address.startswith("unix:"):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(address.removeprefix("unix:").removeprefix("//"))
    else:
        host, port = address.rsplit(":", 1)
        sock = socket.create_connection((host, int(port)))
    return sock


def acknowledge(sock: socket.socket) -> None:
    """Reads the referee's frames for as long as the connection lives; acknowledges SETTINGS and PING."""
    buffer = b""
    try:
        while data := sock.recv(65536):
            buffer += data
            while len(buffer) >= 9:
                length = int.from_bytes(buffer[:3], "big")
                if len(buffer) < 9 + length:
                    break
                kind, flags, payload = buffer[3], buffer[4], buffer[9 : 9 + length]
                buffer = buffer[9 + length :]
                if kind == 4 and not flags & 1:
                    sock.sendall(frame(4, 1, 0))
                elif kind == 6 and not flags & 1:
                    sock.sendall(frame(6, 1, 0, payload))
    except OSError:
        pass


def flood_raw(address: str, count: int) -> dict:
    """Tries ``count`` idle Play streams over raw HTTP/2 connections; returns what happened."""
    headers = play_headers()
    per_connection = -(-count // CONNECTIONS)
    sent = refused = connections = 0
    held = []
    while sent + refused < count:
        n = min(per_connection, count - sent - refused)
        try:
            sock = connect(address)
            sock.sendall(PREFACE + frame(4, 0, 0))
            streams = b"".join(frame(1, 4, 2 * i + 1, headers) for i in range(n))
            sock.sendall(streams)
        except OSError:
            refused += n
            continue
        connections += 1
        sent += n
        held.append(sock)
        threading.Thread(target=acknowledge, args=(sock,), daemon=True).start()
    return {"sent": sent, "refused": refused, "connections": connections}


async def flood_grpc(address: str, count: int) -> tuple[dict, list]:
    """Tries ``count`` idle Play streams over grpc.aio channels (one connection each); returns how
    they ended (each ends once the referee refuses or closes it) and what must stay referenced."""
    per_channel = -(-count // CONNECTIONS)
    channels, calls = [], []
    for _ in range(CONNECTIONS):
        channel = grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
        stub = arena_pb2_grpc.RefereeStub(channel)
        channels.append(channel)
        calls += [stub.Play() for _ in range(min(per_channel, count - len(calls)))]
    codes = await asyncio.wait_for(asyncio.gather(*(call.code() for call in calls)), 120)
    ended: dict[str, int] = {}
    for code in codes:
        ended[code.name] = ended.get(code.name, 0) + 1
    return {"ended": ended, "connections": len(channels)}, [channels, calls]


def flood(how: str, count: int, address: str) -> list:
    """Floods; reports; returns what keeps the streams open."""
    if how == "raw":
        outcome, keep = flood_raw(address, count), []
    else:
        loop = asyncio.new_event_loop()
        outcome, keep = loop.run_until_complete(flood_grpc(address, count))
        keep.append(loop)
    report({"note": "flooded", "streams": count, **outcome})
    return keep


def play(address: str, token: str, how: str, count: int, when: str) -> int:
    """Joins with a blocking stream (the SDK's way), flooding first or at the first decision."""
    import queue

    outbox: queue.Queue[pb.BotMessage | None] = queue.Queue()
    outbox.put(pb.BotMessage(join=pb.Join(token=token, bot_name="flooder")))

    def requests():
        while (message := outbox.get()) is not None:
            yield message

    keep = flood(how, count, address) if when == "first" else []
    channel = grpc.insecure_channel(address)
    try:
        for message in arena_pb2_grpc.RefereeStub(channel).Play(requests()):
            kind = message.WhichOneof("kind")
            report({"note": "got", "kind": kind})
            if kind == "decision":
                if when == "midgame" and not keep:
                    keep = flood(how, count, address)
                outbox.put(pb.BotMessage(answer=pb.Answer(request_id=message.decision.request_id, index=0)))
    except grpc.RpcError as exc:
        report({"status": exc.code().name, "details": exc.details()})
    finally:
        outbox.put(None)
    time.sleep(600)  # hold the idle streams until the referee stops the process
    return 0


if __name__ == "__main__":
    how, count, when = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if when == "only":
        flood(how, count, os.environ["ARENA_ADDRESS"])
        os._exit(0)  # whatever the flood left open
    sys.exit(play(os.environ["ARENA_ADDRESS"], os.environ["ARENA_TOKEN"], how, count, when))
