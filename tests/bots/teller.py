"""An SDK bot for tests/test_no_shared_tables.py: plays the first legal action and says on its stdout
(kept in its log) every name the referee tells it: ``TOLD {json}`` at each match's start (the
``MatchStart`` players and its seat) and end (the names in the ``MatchResult``).

usage: teller.py   (ARENA_ADDRESS, ARENA_TOKEN from the environment)
"""

from __future__ import annotations

import json

from arena.sdk import Bot


class Teller(Bot):
    name = "teller"

    def say(self, entry: dict) -> None:
        print("TOLD " + json.dumps(entry), flush=True)

    def on_match_start(self, match) -> None:
        self.say(
            {"at": "start", "match_id": match.match_id, "seat": match.seat, "players": list(match.players)}
        )

    def choose(self, observation, legal_actions, deadline):
        return 0

    def on_result(self, result) -> None:
        self.say({"at": "result", "match_id": result.match_id, "players": [p.bot for p in result.players]})


if __name__ == "__main__":
    Teller().run()
