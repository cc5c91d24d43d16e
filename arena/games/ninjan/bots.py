"""Built-in Ninjan bots: ``random``, ``greedy`` and ``search`` (also ``best``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import cast

from arena.bots.common import RandomBot
from arena.bots.search import Budget, seat_draw, seat_key
from arena.games.ninjan.engine import (
    BEATS,
    FULL_DECK,
    GAME,
    NUM_PILES,
    VALUES,
    Action,
    Card,
    NinjanState,
    Observation,
    PlacePile,
    PlayCard,
    Suit,
    TakePile,
    beaten_piles,
)
from arena.games.rng import Draw
from arena.sdk import Bot


def pile_value(cards: Sequence[Card]) -> int:
    """Returns the points a pile is worth to whoever takes it."""
    return sum(card.value for card in cards)


class GreedyBot(Bot):
    """Takes the richest pile it can, commits the card with the best immediate trade-off
    (``commit_score``), and never leaves a rich pile behind when it has to place a card."""

    name = "greedy"
    revision = 1  # of its moves: bump it when they change (tests/test_builtin_versions.py)

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], deadline: timedelta
    ) -> Action:
        piles = tuple(pile.cards for pile in observation.piles)
        first = legal_actions[0]
        # A decision's legal actions are all of one kind, the first's.
        if isinstance(first, TakePile):
            takes = cast(Sequence[TakePile], legal_actions)
            return max(takes, key=lambda a: (pile_value(piles[a.pile]), -a.pile))
        if isinstance(first, PlacePile):
            card = observation.revealed[observation.resolving or 0].card
            places = cast(Sequence[PlacePile], legal_actions)
            return min(places, key=lambda a: (pile_value(piles[a.pile]) + card.value, a.pile))
        gains = suit_gains(piles)
        plays = cast(Sequence[PlayCard], legal_actions)
        return max(plays, key=lambda a: commit_score(a.card, gains))


def suit_gains(piles: Sequence[Sequence[Card]]) -> dict[Suit, int]:
    """Returns, per suit, the value of the richest pile a card of that suit beats now (0 if none)."""
    gains = dict.fromkeys(Suit, 0)
    seen: set[Suit] = set()
    for pile in piles:
        suit = ATTACKER[pile[-1].suit]
        value = pile_value(pile)
        gains[suit] = value if suit not in seen else max(gains[suit], value)
        seen.add(suit)
    return gains


def commit_score(card: Card, gains: dict[Suit, int]) -> float:
    """Returns ``greedy``'s expected net points of committing ``card`` this round: the best pile it
    beats now (``gains`` of its suit), discounted by how likely that pile is still there when the card
    resolves (high cards resolve first), minus the share of its value it hands to the table (a played
    card is never collected by its owner directly)."""
    gain = gains[card.suit]
    return gain * SURVIVE[card.value] - GIVEAWAY * card.value if gain > 0 else gain - GIVEAWAY * card.value


ATTACKER = {beaten: suit for suit, beaten in BEATS.items()}  # the suit that beats each suit
GIVEAWAY = 0.5  # share of a played card's value that an opponent is expected to collect later
SURVIVE = {value: 0.35 + 0.65 * (value + 6) / 16 for value in VALUES}  # -6 .. 10: low to high


# Search ----------------------------------------------------------------------------------------


def table_state(obs: Observation, hands: tuple[tuple[Card, ...], ...]) -> NinjanState:
    """Returns the engine state that ``obs`` shows, with ``hands`` for the hands (the set-aside
    cards are left out: nothing reads them during play)."""
    return NinjanState(
        seed=0,
        hands=hands,
        piles=tuple(pile.cards for pile in obs.piles),
        collected=tuple(player.collected for player in obs.players),
        set_aside=(),
        round=obs.round,
        revealed=obs.revealed,
        resolving=obs.resolving,
        history=obs.history,
    )


def unseen(obs: Observation) -> list[Card]:
    """Returns the cards ``obs``'s seat has never seen: the other hands and the set-aside cards."""
    seen = set(obs.hand)
    seen.update(card for pile in obs.piles for card in pile.cards)
    seen.update(card for player in obs.players for card in player.collected)
    seen.update(play.card for play in obs.revealed)
    seen.update(play.card for past in obs.history for play in past.plays)
    return [card for card in FULL_DECK if card not in seen]


def determinize(obs: Observation, hidden: Sequence[Card], draw: Draw) -> NinjanState:
    """Returns a state consistent with ``obs``: the unseen cards dealt at random to the other hands
    (each of its known size), the rest set aside. Uses nothing but the observation."""
    cards = list(hidden)
    draw.shuffle(cards)
    hands = []
    for player in obs.players:
        if player.seat == obs.seat:
            hands.append(obs.hand)
        else:
            hands.append(tuple(cards[: player.hand_size]))
            del cards[: player.hand_size]
    return table_state(obs, tuple(hands))


def rollout_commits(state: NinjanState, seats: Sequence[int], draw: Draw, noise: float) -> dict[int, Action]:
    """Returns the cards ``seats`` commit in a simulation: ``greedy``'s choice, or with probability
    ``noise`` a random card (opponents are not perfectly predictable)."""
    gains = suit_gains(state.piles)
    commits: dict[int, Action] = {}
    for seat in seats:
        hand = state.hands[seat]
        if noise and draw.next64() < noise * 2**64:
            commits[seat] = PlayCard(draw.choice(hand))
        else:
            commits[seat] = PlayCard(max(hand, key=lambda card: commit_score(card, gains)))
    return commits


def rollout_choice(state: NinjanState) -> Action:
    """Returns the pile choice of the resolving card in a simulation: take the richest beaten pile,
    or place on the poorest."""
    card = state.revealed[state.resolving or 0].card
    beaten = beaten_piles(card, state.piles)
    if beaten:
        return TakePile(max(beaten, key=lambda p: (pile_value(state.piles[p]), -p)))
    return PlacePile(min(range(NUM_PILES), key=lambda p: (pile_value(state.piles[p]) + card.value, p)))


def playout(state: NinjanState, draw: Draw, noise: float) -> NinjanState:
    """Returns the end of the game from ``state``, every seat playing the rollout policy."""
    while not GAME.is_terminal(state):
        if state.resolving is None:
            state = GAME.apply_legal(state, rollout_commits(state, range(state.num_players), draw, noise))
        else:
            state = GAME.apply_legal(state, {state.revealed[state.resolving].seat: rollout_choice(state)})
    return state


def utility(state: NinjanState, seat: int) -> float:
    """Returns how good a finished game is for ``seat``: its score minus the best other score, plus a
    bonus for finishing first alone (what a match counts)."""
    scores = GAME.scores(state)
    best_other = max(score for s, score in enumerate(scores) if s != seat)
    margin = scores[seat] - best_other
    return margin + (WIN_BONUS if margin > 0 else -WIN_BONUS if margin < 0 else 0.0)


WIN_BONUS = 10.0  # points a win is worth on top of the margin: search for wins, not for big scores


class SearchBot(Bot):
    """Determinized Monte Carlo search (perfect-information sampling).

    For a decision it deals the cards it has not seen to the other hands at random, consistently with
    what its seat has seen (hand sizes, every played card), and plays each legal choice out to the
    end of the game in that deal with the engine: the other seats commit like ``greedy`` (with some
    random commits), every pile choice takes the richest or places on the poorest pile. Every choice
    is tried on the same deals (common random numbers), and the one with the best mean utility (score
    margin over the best other seat, plus a bonus for a win) is played.

    The budget is ``iterations`` playouts per decision (reproducible), with a wall-time guard.
    """

    name = "search"
    revision = 1  # of its moves: bump it when they change (tests/test_builtin_versions.py)
    BUDGET = Budget(iterations=160)
    NOISE = 0.2  # share of random commits among the simulated seats

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget or self.BUDGET

    def choose(self, observation: Observation, legal_actions: Sequence[Action], deadline: timedelta) -> int:
        if len(legal_actions) == 1:
            return 0
        clock = self.budget.clock(deadline)
        draw = seat_draw(seat_key(self.match), observation)
        hidden = unseen(observation)
        me = observation.seat
        totals = [0.0] * len(legal_actions)
        done = 0
        while done < self.budget.iterations and not (done and clock.expired()):
            state = determinize(observation, hidden, draw)
            if state.resolving is None:  # the others' commits this round, the same for every choice
                seats = [s for s in range(state.num_players) if s != me]
                others = rollout_commits(state, seats, draw, self.NOISE)
            else:
                others = {}
            seed = draw.next64()
            for i, action in enumerate(legal_actions):
                after = GAME.apply_legal(state, {**others, me: action})
                totals[i] += utility(playout(after, Draw(seed), self.NOISE), me)
            done += len(legal_actions)
        return max(range(len(legal_actions)), key=lambda i: (totals[i], -i))


BOTS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "search": SearchBot,
    "best": SearchBot,  # the strongest built-in bot of the game, whatever its name
}
