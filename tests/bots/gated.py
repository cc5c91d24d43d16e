"""A test bot that holds every match at a gate until the test lets it through, then plays at random.

usage: GATE=FOLDER python gated.py   (ARENA_ADDRESS, ARENA_TOKEN from the environment)

Fault tests need matches still running at the moment they break something; a gate gives them that
whatever the engines' speed. At its first decision of each match the bot writes ``waiting.<pid>`` in
the gate folder (the test counts held matches by these markers) and waits until it claims a permit,
by renaming one ``permit.N`` to ``claimed.N`` (a rename is atomic: each permit lets exactly one match
through), or until the folder holds ``open``. Then it removes its marker and plays on. The test side
is ``tests.conftest.Gate``.

Design detail: the marker is removed before a claim is tried, not after one succeeds, so a test that
sees every permit claimed and N markers knows that N matches are held and none is on its way through.
A bot killed while held leaves its marker; ``Gate.held`` counts only markers of live processes. A bot
whose parent (its worker or referee) dies while it is held exits instead of waiting for ever.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

from arena.bots.common import RandomBot
from arena.sdk import MatchInfo

POLL = 0.02  # seconds between looks at the gate


def pass_gate(gate: Path) -> None:
    """Returns once a permit of ``gate`` is claimed or the gate is open; marks this process waiting."""
    marker = gate / f"waiting.{os.getpid()}"
    marker.touch()
    parent = os.getppid()
    while not (gate / "open").exists():
        if os.getppid() != parent:  # whoever runs the match was killed: no test will let it through
            marker.unlink()
            raise SystemExit("gated bot: the referee died while this match was held")
        for permit in sorted(gate.glob("permit.*")):
            marker.unlink()
            try:
                permit.rename(gate / f"claimed.{permit.suffix[1:]}")
                return
            except FileNotFoundError:  # another bot claimed it first
                marker.touch()
        time.sleep(POLL)
    with contextlib.suppress(FileNotFoundError):
        marker.unlink()


class Gated(RandomBot):
    """The random bot, held at the gate at its first decision of each match."""

    name = "gated"

    def __init__(self, gate: Path) -> None:
        super().__init__()
        self.gate = gate
        self.held = False  # True while the current match has not yet passed the gate

    def on_match_start(self, match: MatchInfo) -> None:
        super().on_match_start(match)
        self.held = True

    def choose(self, observation: Any, legal_actions: Sequence[Any], deadline: timedelta) -> int:
        if self.held:
            pass_gate(self.gate)
            self.held = False
        return super().choose(observation, legal_actions, deadline)


if __name__ == "__main__":
    Gated(Path(os.environ["GATE"])).run()
