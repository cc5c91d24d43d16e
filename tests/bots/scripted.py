"""A misbehaving bot for the referee tests, speaking raw gRPC (no SDK) so it can send anything.

usage: scripted.py MODE   (ARENA_ADDRESS, ARENA_TOKEN from the environment). Every message the bot
receives is reported on its stdout as one line ``SCRIPTED {json}``, flushed: the referee keeps the
bot's output in its log (a sandboxed bot can write no file of the test's).

Modes: illegal, always-illegal, bad-index, malformed, wrong-game, slow, silent (never answers),
crash-start, crash-mid, wrong-token, good.
The misbehaviour happens on the first decision; later decisions are answered with index 0. slow
answers its first decision only once the next DecisionRequest has come (so after its deadline).
"""

from __future__ import annotations

import json
import os
import queue
import sys

import grpc
from google.protobuf import json_format

from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc


def report(item: dict) -> None:
    """Prints one report line on stdout (into the bot's log)."""
    print("SCRIPTED " + json.dumps(item), flush=True)


def main(mode: str) -> int:
    if mode == "crash-start":
        print("scripted bot: crashing on purpose before joining", file=sys.stderr)
        return 3
    token = "not-a-real-token" if mode == "wrong-token" else os.environ["ARENA_TOKEN"]
    outbox: queue.Queue = queue.Queue()
    outbox.put(pb.BotMessage(join=pb.Join(token=token, bot_name=f"scripted-{mode}")))

    def requests():
        while (message := outbox.get()) is not None:
            yield message

    decisions = 0
    held: pb.Answer | None = None  # slow: the first answer, held back past its deadline
    channel = grpc.insecure_channel(os.environ["ARENA_ADDRESS"])
    try:
        for message in arena_pb2_grpc.RefereeStub(channel).Play(requests()):
            report(json_format.MessageToDict(message))
            if message.WhichOneof("kind") != "decision":
                continue
            request = message.decision
            decisions += 1
            first = decisions == 1
            if first and mode == "crash-mid":
                os._exit(4)
            if mode == "silent":
                continue
            answer = pb.Answer(request_id=request.request_id, index=0)
            if (first and mode == "illegal") or mode == "always-illegal":
                # a well-formed Ninjan action that is not legal: a card nobody can hold twice
                answer = pb.Answer(request_id=request.request_id)
                answer.action.ninjan.place_pile.pile = 7
            elif first and mode == "bad-index":
                answer = pb.Answer(request_id=request.request_id, index=len(request.legal_actions) + 5)
            elif first and mode == "malformed":
                answer = pb.Answer(request_id=request.request_id)  # neither index nor action
            elif first and mode == "wrong-game":
                answer = pb.Answer(request_id=request.request_id, action=pb.Action())
            elif first and mode == "slow":
                held = answer  # sent once the next request shows this one's deadline passed
                continue
            if held is not None:
                outbox.put(pb.BotMessage(answer=held))
                held = None
            outbox.put(pb.BotMessage(answer=answer))
    except grpc.RpcError as exc:
        report({"status": exc.code().name, "details": exc.details()})
        return 1
    finally:
        outbox.put(None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
