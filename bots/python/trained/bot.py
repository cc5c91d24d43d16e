"""The trained Ninjan bot: plays the policy ``train.py`` learned by self-play, from ``weights.json``.

    arena match ninjan bots/python/trained/bot.py random
    arena bots submit --dir bots/python/trained --entry "python bot.py" ...

It reads its weights from its own folder (next to this file: ``/bot`` once submitted) and needs
nothing but arena's SDK: the policy is pure Python (``ninjan_policy.py``, the module ``train.py``
trains with), so it runs on a worker's Python, which has no numpy. At each decision it plays the
action of highest logit, breaking exact ties at random (seeded by the match id, so a game replays).
"""

from __future__ import annotations

import random
from pathlib import Path

import ninjan_policy as policy  # beside this file (the script's folder): the encoder training used

from arena.sdk import Bot

WEIGHTS = Path(__file__).resolve().parent / "weights.json"


class TrainedBot(Bot):
    name = "trained"

    def __init__(self, weights: policy.Weights | None = None) -> None:
        """Plays ``weights``, or those saved in ``weights.json`` beside this file."""
        self.weights = weights if weights is not None else policy.load(WEIGHTS)
        self.rng = random.Random(0)

    def on_match_start(self, match):
        self.rng = random.Random(f"{match.match_id}/{match.seat}")

    def choose(self, observation, legal_actions, deadline):
        kind, rows = policy.features(observation, legal_actions)
        return policy.best(policy.logits(self.weights, kind, rows), self.rng)


if __name__ == "__main__":
    TrainedBot().run()
