"""Ninjan rules, as docs/rules/ninjan.md states them: scenario tests and seeded random playouts."""

from __future__ import annotations

import pytest

from arena.bots.common import RandomBot
from arena.games.base import IllegalActionError
from arena.games.ninjan.bots import GreedyBot
from arena.games.ninjan.engine import (
    FULL_DECK,
    GAME,
    ROUNDS,
    CardPlaced,
    CardsRevealed,
    NinjanState,
    Phase,
    PileTaken,
    PlacePile,
    Play,
    PlayCard,
    Suit,
    TakePile,
    resolution_order,
)
from arena.games.ninjan.engine import Card as C
from tests.conftest import play_bots

R, P, S = Suit.ROCK, Suit.PAPER, Suit.SCISSORS


def table(hands, piles, collected=None) -> NinjanState:
    """Returns a mid-game table with the given hands and piles (each a list of cards, bottom first)."""
    hands = tuple(tuple(sorted(h)) for h in hands)
    collected = collected or ((),) * len(hands)
    used = {c for h in hands for c in h} | {c for p in piles for c in p} | {c for x in collected for c in x}
    rest = tuple(c for c in FULL_DECK if c not in used)
    return NinjanState(
        seed=0, hands=hands, piles=tuple(map(tuple, piles)), collected=collected, set_aside=rest
    )


def commit(state: NinjanState, *cards: C) -> NinjanState:
    return GAME.apply(state, {seat: PlayCard(card) for seat, card in enumerate(cards)})


def test_the_deck_has_48_distinct_cards() -> None:
    assert len(FULL_DECK) == len(set(FULL_DECK)) == 48
    for suit in Suit:
        assert sorted(c.value for c in FULL_DECK if c.suit == suit) == [*range(-6, 0), *range(1, 11)]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_three_piles_nine_cards_each_rest_set_aside(players: int) -> None:
    state = GAME.initial_state(players, seed=11)
    assert [len(p) for p in state.piles] == [1, 1, 1]
    assert [len(h) for h in state.hands] == [9] * players
    assert len(state.set_aside) == 48 - 3 - 9 * players
    assert GAME.to_move(state) == tuple(range(players))  # everybody commits at once


def test_rock_beats_scissors_beats_paper_beats_rock() -> None:
    assert C(R, 1).beats(C(S, 10)) and C(S, 1).beats(C(P, 10)) and C(P, 1).beats(C(R, 10))
    assert not C(S, 10).beats(C(R, 1)) and not C(R, 5).beats(C(R, 4))


def test_resolution_order_descending_value() -> None:
    plays = [Play(0, C(R, -2)), Play(1, C(P, 9)), Play(2, C(S, 3))]
    assert [p.seat for p in resolution_order(plays)] == [1, 2, 0]


@pytest.mark.parametrize(
    ("first", "second"),
    [(R, S), (S, P), (P, R)],
    ids=["rock-before-scissors", "scissors-before-paper", "paper-before-rock"],
)
def test_equal_values_the_beating_suit_goes_first(first: Suit, second: Suit) -> None:
    for plays in (
        [Play(0, C(first, 4)), Play(1, C(second, 4))],
        [Play(0, C(second, 4)), Play(1, C(first, 4))],
    ):
        assert [p.card.suit for p in resolution_order(plays)] == [first, second]


def test_three_equal_values_go_rock_scissors_paper() -> None:
    plays = [Play(0, C(P, 7)), Play(1, C(S, 7)), Play(2, C(R, 7))]
    assert [p.card.suit for p in resolution_order(plays)] == [R, S, P]


def test_beating_exactly_one_pile_takes_it_without_a_decision() -> None:
    state = table([[C(R, 5)], [C(P, -1)]], [[C(S, 3), C(S, 9)], [C(R, 2)], [C(R, 1)]])
    state = commit(state, C(R, 5), C(P, -1))
    # Rock 5 resolves first and beats only pile 0 (top: Scissors 9): the whole pile is taken.
    assert state.collected[0] == (C(S, 3), C(S, 9))
    assert state.piles[0] == (C(R, 5),)  # the played card starts a new pile in its place
    # Paper -1 then sees the changed piles: it beats all three rock tops and must choose.
    assert GAME.phase(state) is Phase.TAKE and GAME.to_move(state) == (1,)
    assert GAME.legal_actions(state, 1) == (TakePile(0), TakePile(1), TakePile(2))
    state = GAME.apply(state, {1: TakePile(0)})
    assert state.collected[1] == (C(R, 5),)
    assert GAME.scores(state) == (12, 5)
    assert isinstance(GAME.events(state)[0], PileTaken)


def test_beating_several_piles_the_owner_chooses() -> None:
    state = table([[C(P, 8)], [C(S, 2)]], [[C(R, 3)], [C(R, -4)], [C(P, 6)]])
    state = commit(state, C(P, 8), C(S, 2))
    assert GAME.to_move(state) == (0,)
    assert GAME.legal_actions(state, 0) == (TakePile(0), TakePile(1))
    with pytest.raises(IllegalActionError):
        GAME.apply(state, {0: TakePile(2)})  # paper does not beat paper
    state = GAME.apply(state, {0: TakePile(0)})
    assert state.collected[0] == (C(R, 3),)
    # Scissors 2 beats paper 8 (now on pile 0) and paper 6 (pile 2): its owner chooses.
    assert GAME.legal_actions(state, 1) == (TakePile(0), TakePile(2))


def test_beating_no_pile_the_owner_places_the_card_on_any_pile() -> None:
    state = table([[C(R, 4)], [C(P, 1)]], [[C(R, 9)], [C(P, 2)], [C(R, -3)]])
    state = commit(state, C(R, 4), C(P, 1))
    assert GAME.phase(state) is Phase.PLACE and GAME.to_move(state) == (0,)
    assert GAME.legal_actions(state, 0) == (PlacePile(0), PlacePile(1), PlacePile(2))
    state = GAME.apply(state, {0: PlacePile(1)})
    assert state.piles[1] == (C(P, 2), C(R, 4))  # the values below stay visible
    assert GAME.events(state) == (CardPlaced(0, 1, C(R, 4)),)
    # Paper 1 now beats rock 9, rock 4 (top of pile 1) and rock -3: a choice of three.
    assert GAME.legal_actions(state, 1) == (TakePile(0), TakePile(1), TakePile(2))
    state = GAME.apply(state, {1: TakePile(1)})
    assert state.collected[1] == (C(P, 2), C(R, 4))
    assert GAME.scores(state) == (0, 6)


def test_reveal_event_lists_every_card_in_resolution_order() -> None:
    state = table([[C(S, 1)], [C(R, 1)]], [[C(P, 5)], [C(P, 6)], [C(P, 7)]])
    state = commit(state, C(S, 1), C(R, 1))
    revealed = GAME.events(state)[0]
    assert revealed == CardsRevealed(1, (Play(1, C(R, 1)), Play(0, C(S, 1))))


def test_negative_cards_count_and_equal_scores_share_the_rank() -> None:
    state = table(
        [[], [], []],
        [[C(R, 1)], [C(R, 2)], [C(R, 3)]],
        collected=((C(P, -6), C(P, 10)), (C(S, 4),), (C(R, -1), C(R, -2))),
    )
    assert GAME.scores(state) == (4, 4, -3)
    assert GAME.ranks(state) == (1, 1, 3)


def test_committing_a_card_not_in_hand_is_illegal() -> None:
    state = table([[C(R, 5)], [C(P, 1)]], [[C(R, 9)], [C(P, 2)], [C(R, -3)]])
    with pytest.raises(IllegalActionError):
        commit(state, C(S, 10), C(P, 1))


def test_the_game_ends_after_nine_rounds_with_empty_hands() -> None:
    state = play_bots(GAME, [RandomBot(), RandomBot(), RandomBot()], seed=4)
    assert GAME.is_terminal(state) and len(state.history) == 9
    assert all(not hand for hand in state.hands)
    assert GAME.observe(state, 0).phase is Phase.OVER


def cards_in_play(state: NinjanState) -> list[C]:
    unresolved = state.revealed[state.resolving :] if state.resolving is not None else ()
    return [
        *(c for h in state.hands for c in h),
        *(c for p in state.piles for c in p),
        *(c for x in state.collected for c in x),
        *state.set_aside,
        *(p.card for p in unresolved),
    ]


def check_step(before: NinjanState | None, state: NinjanState) -> None:
    """Ninjan's invariants, checked by the conformance suite at every step of its seeded playouts:
    every card is in exactly one place, and the scores a seat sees are the sums of the cards taken."""
    assert sorted(cards_in_play(state)) == sorted(FULL_DECK), "a card was lost or duplicated"
    obs = GAME.observe(state, 0)
    assert [p.score for p in obs.players] == [sum(c.value for c in x) for x in state.collected]


def check_end(state: NinjanState) -> None:
    """A finished game has played its nine rounds and emptied every hand."""
    assert len(state.history) == ROUNDS and not any(state.hands)


def test_greedy_beats_random_clearly() -> None:
    wins = 0
    for game in range(100):
        seats = [GreedyBot(), RandomBot()] if game % 2 == 0 else [RandomBot(), GreedyBot()]
        state = play_bots(GAME, seats, seed=game)
        greedy = game % 2
        ranks = GAME.ranks(state)
        wins += ranks[greedy] == 1 and ranks[1 - greedy] == 2
    assert wins >= 80, f"greedy won only {wins} of 100"
