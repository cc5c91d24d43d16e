"""A deterministic bot that sometimes answers wrongly: it picks the legal action a hash of its match
id, step and observation names, and every seventh hash answers an index past the end (a strike).

For tests that compare two ways of playing the same match (tests/test_in_process.py): its play
depends on nothing but what the referee tells it, so both ways must give the same replay, strikes,
fallbacks and forfeits included.
"""

import hashlib

from arena.sdk import Bot


class HashedBot(Bot):
    name = "hashed"

    def on_match_start(self, match):
        self.key = f"{match.match_id}/{match.seat}"
        self.asked = 0

    def choose(self, observation, legal_actions, deadline):
        self.asked += 1
        digest = hashlib.sha256(f"{self.key}/{self.asked}/{observation!r}".encode()).digest()
        number = int.from_bytes(digest[:8], "big")
        if number % 7 == 0:
            return len(legal_actions)  # out of range: the referee strikes it
        return legal_actions[number % len(legal_actions)]


if __name__ == "__main__":
    HashedBot().run()
