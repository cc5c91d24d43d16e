"""A hostile bot for tests/test_hostile.py: raw gRPC with identity serializers, so it can send any bytes.

usage: hostile.py MODE [ARGUMENT]   (ARENA_ADDRESS, ARENA_TOKEN from the environment). Every message
the bot receives, and its own notes as {"note": ...}, are reported on its stdout as one line
``HOSTILE {json}`` each, flushed: the referee keeps the bot's output in its log (a sandboxed bot can
write no file of the test's, and gets no variable but the documented ones).

The misbehaviour happens on the first decision of every match (or at start); later decisions get
index 0.

Answers: illegal (a well-formed Ninjan action that is not legal), bad-index, other-game (a populated
Ninja Master action during Ninjan), garbage (bytes that are no BotMessage), truncated (a real Answer
cut short), oversize (128 KiB, over the referee's 64 KiB limit), flood (2,000 answers at once).
Joining: wrong-token, reuse-token (join, hang up, join again with the same token), steal-token (join
with another seat's token, read from the file named by ARGUMENT), second-stream (a second stream
for its own seat while the first plays on).
Time and connection: silent (reads but never answers), late (answers its first decision only once the
next DecisionRequest has come, so after that decision's deadline, then answers the new one at once),
hangup (cancels its stream mid-turn and stays alive), crash-start (exits 3 before joining).
Process: noisy (4 MiB of garbage on stdout and stderr, then plays well: its reports are lost past the
log's cap), fork (forks two sleeping children, one in a new session, whose command lines carry the tag
ARGUMENT so the host can find them, and exits), memory (allocates without bound), spin (burns CPU).
good: plays index 0 every time.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
from google.protobuf import json_format

from arena.v1 import arena_pb2 as pb

PLAY = "/arena.v1.Referee/Play"


class Log:
    """Reports what the bot sees on stdout (into its log), one ``HOSTILE {json}`` line each."""

    def write(self, item: dict) -> None:
        sys.stdout.write("HOSTILE " + json.dumps(item) + "\n")
        sys.stdout.flush()


def join_bytes(token: str, mode: str) -> bytes:
    return pb.BotMessage(join=pb.Join(token=token, bot_name=f"hostile-{mode}")).SerializeToString()


def answer_bytes(answer: pb.Answer) -> bytes:
    return pb.BotMessage(answer=answer).SerializeToString()


def bad_answer(mode: str, request: pb.DecisionRequest) -> list[bytes]:
    """Returns the raw messages the bot sends instead of a good answer to its first decision."""
    rid = request.request_id
    if mode == "illegal":
        answer = pb.Answer(request_id=rid)
        answer.action.ninjan.place_pile.pile = 7  # there are never 8 piles
        return [answer_bytes(answer)]
    if mode == "bad-index":
        return [answer_bytes(pb.Answer(request_id=rid, index=len(request.legal_actions) + 5))]
    if mode == "other-game":
        answer = pb.Answer(request_id=rid)
        answer.action.ninja_master.call.number = 12
        return [answer_bytes(answer)]
    if mode == "garbage":
        return [b"\xff\xfe garbage \x00\x01" * 4]
    if mode == "truncated":
        answer = pb.Answer(request_id=rid, action=request.legal_actions[0])
        return [answer_bytes(answer)[:-2]]
    if mode == "oversize":
        answer = pb.Answer(request_id=rid, action=request.legal_actions[0])
        return [answer_bytes(answer) + b"x" * (128 * 1024)]  # gRPC refuses it by size, unread
    if mode == "flood":
        return [answer_bytes(pb.Answer(request_id=rid, index=0))] * 2000
    raise ValueError(mode)


BAD_ANSWERS = {"illegal", "bad-index", "other-game", "garbage", "truncated", "oversize", "flood"}


class Stream:
    """One Play stream: raw bytes out (a queue), parsed RefereeMessages in."""

    def __init__(self, channel: grpc.Channel, first: bytes) -> None:
        self.outbox: queue.Queue[bytes | None] = queue.Queue()
        self.outbox.put(first)
        play = channel.stream_stream(PLAY, request_serializer=None, response_deserializer=None)
        self.call = play(self._requests())

    def _requests(self) -> Iterator[bytes]:
        while (data := self.outbox.get()) is not None:
            yield data

    def messages(self) -> Iterator[pb.RefereeMessage]:
        for data in self.call:
            yield pb.RefereeMessage.FromString(data)

    def close(self) -> None:
        self.outbox.put(None)


def status_of(exc: grpc.RpcError) -> dict:
    return {"status": exc.code().name, "details": exc.details()}


def first_status(channel: grpc.Channel, token: str, mode: str) -> dict:
    """Opens a stream with ``token`` and returns how it ended (or the first message it got)."""
    stream = Stream(channel, join_bytes(token, mode))
    try:
        for message in stream.messages():
            return {"first": message.WhichOneof("kind")}
        return {"status": "OK"}
    except grpc.RpcError as exc:
        return status_of(exc)
    finally:
        stream.close()
        stream.call.cancel()


def fork_children(log: Log, tag: str) -> None:
    """Leaves two sleeping children behind: one in the bot's process group, one in its own session.

    Each is ``sleep`` run under the name ``hostile-child-TAG``: pids seen inside a sandbox are those of
    its PID namespace, so the host finds the children by the tag in their command line instead."""
    sleep = shutil.which("sleep")
    plain = subprocess.Popen([f"hostile-child-{tag}", "600"], executable=sleep)
    escaped = subprocess.Popen([f"hostile-child-{tag}", "600"], executable=sleep, start_new_session=True)
    log.write({"note": "children", "pids": [plain.pid, escaped.pid]})


def allocate_forever(log: Log) -> None:
    blocks = []
    log.write({"note": "allocating"})
    while True:
        blocks.append(bytearray(32 << 20))


def spin_forever(log: Log) -> None:
    log.write({"note": "spinning"})
    while True:
        pass


def spew() -> None:
    """Writes 2 MiB of binary garbage to stdout and 2 MiB of text to stderr."""
    garbage = bytes(range(256)) * 4096
    for _ in range(2):
        sys.stdout.buffer.write(garbage)
        sys.stderr.write("noise " * 174762 + "\n")
    sys.stdout.flush()
    sys.stderr.flush()


def wait_for_file(path: Path, timeout: float = 30.0) -> str:
    until = time.monotonic() + timeout
    while not path.exists() or not path.read_text().strip():
        if time.monotonic() > until:
            raise SystemExit(f"hostile bot: {path} never appeared")
        time.sleep(0.02)
    return path.read_text().strip()


def main(mode: str, argument: str = "") -> int:
    if mode == "crash-start":
        print("hostile bot: crashing on purpose before joining", file=sys.stderr)
        return 3
    if mode == "noisy":
        spew()
    log = Log()
    channel = grpc.insecure_channel(os.environ["ARENA_ADDRESS"])
    token = os.environ["ARENA_TOKEN"]
    if mode == "wrong-token":
        token = "not-a-real-token"
    elif mode == "reuse-token":
        log.write({"note": "first", **first_status(channel, token, mode)})
    elif mode == "steal-token":
        token = wait_for_file(Path(argument))
    stream = Stream(channel, join_bytes(token, mode))
    decisions = 0
    held: int | None = None  # late: the request id whose answer is held back
    try:
        for message in stream.messages():
            log.write(json_format.MessageToDict(message))
            kind = message.WhichOneof("kind")
            if kind == "match_start" and mode == "second-stream" and decisions == 0:
                log.write({"note": "second", **first_status(channel, token, mode)})
            if kind == "match_start":
                decisions = 0  # misbehave again in every match of a series (bench/soak.py)
            if kind != "decision":
                continue
            request = message.decision
            decisions += 1
            first = decisions == 1
            if first and mode in BAD_ANSWERS:
                for data in bad_answer(mode, request):
                    stream.outbox.put(data)
                continue
            if mode == "silent":
                continue
            if first and mode == "late":
                held = request.request_id  # answered when the next request shows its deadline passed
                continue
            if held is not None:
                stream.outbox.put(answer_bytes(pb.Answer(request_id=held, index=0)))
                held = None
            if first and mode == "hangup":
                stream.call.cancel()
                log.write({"note": "hung up"})
                time.sleep(60)
                return 0
            elif first and mode == "fork":
                fork_children(log, argument)
                os._exit(0)
            elif first and mode == "memory":
                allocate_forever(log)
            elif first and mode == "spin":
                spin_forever(log)
            stream.outbox.put(answer_bytes(pb.Answer(request_id=request.request_id, index=0)))
    except grpc.RpcError as exc:
        log.write(status_of(exc))
        return 1
    finally:
        stream.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
