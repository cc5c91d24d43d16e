"""An SDK bot for tests/test_sdk.py: plays the first legal action and writes what the SDK hands it.

usage: recorder.py   (ARENA_ADDRESS, ARENA_TOKEN from the environment; RECORDER_LOG: a file where each
match start, event (as in replays) and result is appended as one JSON line)
"""

from __future__ import annotations

import json
import os

from arena import codec
from arena.games import get_game
from arena.sdk import Bot


class Recorder(Bot):
    name = "recorder"

    def __init__(self, path: str) -> None:
        self.log = open(path, "a", encoding="utf-8")  # noqa: SIM115

    def write(self, entry: dict) -> None:
        self.log.write(json.dumps(entry) + "\n")
        self.log.flush()

    def on_match_start(self, match) -> None:
        self.game = get_game(match.game)
        self.write({"type": "start", "match_id": match.match_id, "seat": match.seat})

    def choose(self, observation, legal_actions, deadline):
        self.write({"type": "decision"})
        return legal_actions[0]

    def on_event(self, event) -> None:
        self.write({"type": "event", "event": codec.to_json(event, self.game.event_type)})

    def on_result(self, result) -> None:
        self.write({"type": "result", "match_id": result.match_id})


if __name__ == "__main__":
    Recorder(os.environ["RECORDER_LOG"]).run()
