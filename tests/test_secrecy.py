"""Secrecy per game (issue 8): what the referee sends a seat never holds another seat's secrets.

The checks are the shipped harness's (``arena.testing.check_secrecy``, whose module docstring lists
them): seeded matches through the real match loop with in-process bots on leases, every message a seat
was sent decoded and searched for what ``hidden_from`` hides from it, for other seats' tokens and for
the match seed; events compared across the two ways of receiving them; the result once, last; and
nothing sent to a seat while its own simultaneous choice is open. Here they run over the registry, and
are shown able to fail.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from arena.games import GAMES, get_game
from arena.games.ninjan.engine import Ninjan
from arena.referee.match import SeatState
from arena.testing import SecrecyError, check_secrecy
from arena.testing.secrecy import SEED, Observed, play_recorded
from arena.testing.secrecy import RecordingLease as RecordingLease  # tests/test_conversation_shape.py
from arena.testing.secrecy import Tracked as Tracked  # ... uses these two
from arena.v1 import arena_pb2 as pb


@pytest.mark.parametrize("name", sorted(GAMES))
def test_no_message_to_a_seat_holds_another_seats_secret(name: str) -> None:
    """At the least and the most players (up to 4), and at 4 (or the most) once more with another
    seed: every message checked, and the events delivered alike both ways."""
    game = get_game(name)
    checked = check_secrecy(game, seeds=(SEED,))
    assert checked or game.spec.perfect_information  # the hidden sets were not all empty
    check_secrecy(game, seeds=(SEED + 7,), players=min(game.spec.max_players, 4))


class PeekingNinjan(Ninjan):
    """Ninjan whose observation shows a seat the next seat's hand as if it were its own."""

    def observe(self, state: Any, seat: int) -> Any:
        obs = super().observe(state, seat)
        return dataclasses.replace(obs, hand=(*obs.hand, *state.hands[(seat + 1) % len(state.hands)]))


def test_a_hand_sent_to_the_wrong_seat_is_caught() -> None:
    where = r"ninjan, 2 players, seed \d+: seat 0's message \d+ \(decision, step 0\)"
    with pytest.raises(SecrecyError, match=where + ": seat 0 was sent hidden"):
        check_secrecy(PeekingNinjan(), players=2)


def test_the_commit_check_catches_an_early_reveal() -> None:
    """The check above can fail: a referee that told seat 1 about seat 0's answer is caught."""

    class Leaky(Observed):
        async def _ask(self, seat: SeatState, state: Any, legal: Any) -> Any:
            action = await super()._ask(seat, state, legal)
            for other in self.seats:
                if other is not seat:
                    self._error(other, pb.ERROR_CODE_UNSPECIFIED, f"seat {seat.seat} chose {action}")
            return action

    with pytest.raises(AssertionError, match="while its choice at step 0 was open"):
        asyncio.run(play_recorded(get_game("ninjan"), 2, 1, Leaky))
