"""High Card rules (arena/games/high_card/engine.py): scenario tests, and the invariants the conformance
suite checks at every step of its playouts (``check_step``, ``check_end``).

Installed by install.py as tests/test_high_card.py in a project copy: tests/test_conformance.py finds
each game's invariants in ``tests.test_<package>``. Here, under another name, pytest does not collect it
(the game is not part of the project).
"""

from __future__ import annotations

import pytest

from arena.games.base import IllegalActionError
from arena.games.high_card.bots import BestBot, StayBot
from arena.games.high_card.engine import DECK, GAME, HighCardState, Revealed, Stay, Swap, Swapped
from arena.games.high_card.engine import Card as C
from arena.testing import play_bots


def table(seat0: int, seat1: int, deck: tuple[int, ...] = (6, 5, 4, 3)) -> HighCardState:
    """Returns a dealt table: seat 0's and seat 1's cards, and the deck, top first."""
    return HighCardState(seed=0, cards=(C(seat0), C(seat1)), deck=tuple(map(C, deck)))


@pytest.mark.parametrize(
    ("seat0", "seat1", "moves", "cards", "scores"),
    [
        (2, 1, (Stay(), Stay()), (2, 1), (1, 0)),  # nobody swaps: the dealt cards decide
        (1, 2, (Swap(), Stay()), (6, 2), (1, 0)),  # seat 0 swaps its 1 for the deck's top 6
        (1, 2, (Swap(), Swap()), (6, 5), (1, 0)),  # seat 1 gets the next card, a 5
        (4, 1, (Stay(), Swap()), (4, 6), (0, 1)),  # the second seat can take the top card too
    ],
)
def test_a_game_record(
    seat0: int, seat1: int, moves: tuple, cards: tuple[int, int], scores: tuple[int, int]
) -> None:
    state = table(seat0, seat1)
    for seat, move in enumerate(moves):
        assert GAME.to_move(state) == (seat,)
        state = GAME.apply(state, {seat: move})
    assert GAME.is_terminal(state) and GAME.to_move(state) == ()
    assert state.cards == tuple(map(C, cards))
    assert GAME.scores(state) == scores and sorted(GAME.ranks(state)) == [1, 2]
    assert GAME.events(state)[-1] == Revealed(tuple(map(C, cards)))


def test_a_swap_is_announced_without_its_cards() -> None:
    state = GAME.apply(table(1, 2), {0: Swap()})
    assert GAME.events(state) == (Swapped(0),)
    assert GAME.observe(state, 1).revealed == () and GAME.observe(state, 1).card == C(2)
    assert GAME.observe(state, 0).card == C(6)


def test_each_seat_chooses_once_in_turn() -> None:
    state = table(3, 4)
    with pytest.raises(IllegalActionError):
        GAME.apply(state, {1: Stay()})
    state = GAME.apply(state, {0: Stay()})
    with pytest.raises(IllegalActionError):
        GAME.apply(state, {0: Swap()})


def test_best_beats_stay() -> None:
    wins = 0
    for seed in range(100):
        seats = [BestBot(), StayBot()] if seed % 2 == 0 else [StayBot(), BestBot()]
        wins += GAME.ranks(play_bots(GAME, seats, seed=seed))[seed % 2] == 1
    assert wins > 50, f"best won only {wins} of 100 against stay"


def check_step(before: HighCardState | None, state: HighCardState) -> None:
    """High Card's invariants, checked at every step: every card is in one place, and each swap moved
    the deck's top card to the seat that swapped."""
    assert sorted((*state.cards, *state.deck, *state.discards)) == sorted(DECK), "a card was lost"
    assert len(state.discards) == sum(state.swapped), "a discard without a swap, or a swap without one"
    if before is not None and state.swapped[-1]:
        seat = len(before.swapped)
        assert state.cards[seat] == before.deck[0], "a swap did not take the deck's top card"


def check_end(state: HighCardState) -> None:
    """A finished game has both seats' choices and its cards revealed."""
    assert len(state.swapped) == 2 and GAME.events(state)[-1] == Revealed(state.cards)
