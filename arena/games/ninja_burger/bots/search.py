"""Ninja Burger's search bot (``search``, also ``best``): ``SharpNinja``, with determinized Monte Carlo
over its fortune cards.

``SharpNinja`` is ``ninja`` holding its fortune cards at about half the value: ``ninja`` ends a game
with some five cards unplayed, half of all it drew, and a card kept to the end is worth nothing.
It decides the ninja to keep, the staff meeting, the Errand trade and a check's skill as ``ninja``
does (searching them lost: a two-round playout judges a ninja card or a meeting by noise).

The fortune windows and the rerolls are searched: it deals the cards its seat has not seen
consistently with its observation (``determinize``: the other hands by their public sizes, the
unrevealed missions, the decks by their public sizes, and a fresh seed for the dice and shuffles to
come), and plays each legal choice out in that deal with the engine, its own seat then playing
``SharpNinja`` and every other seat ``ninja``. Every choice meets the same deals and the same dice
(common random numbers: the dice are labelled by round, seat and attempt), so the comparison sees the
choice's effect, not the luck of the sample. A playout stops at the game's end (a win is worth 1, a
shared first place 1/2) or after ``HORIZON`` more rounds, where ``estimate`` turns the lead into a
chance.

This module also holds the game's registry of built-in bots, ``BOTS``: the search bot builds on
``ninja`` (its opponents' model in the playouts and the base of its own policy), so the module that
names all of them is the one that imports the others.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import ClassVar

from arena.bots.search import Budget, deal_by_seat, seat_draw, seat_key
from arena.games.ninja_burger.bots.ninja import HONOR_AT_PAR, MONEY_PER_HONOR, NinjaBot
from arena.games.ninja_burger.bots.standing import StandingTable, situation_after, stored_table
from arena.games.ninja_burger.engine import (
    GAME,
    NINJAS_DEALT,
    Ability,
    Action,
    Effect,
    FortuneCard,
    MissionCard,
    NinjaBurgerState,
    NinjaCard,
    Observation,
    Phase,
    fortune_cards,
    mission_cards,
    ninja_cards,
)
from arena.games.rng import Draw
from arena.sdk import Bot


class SharpNinja(NinjaBot):
    """``ninja`` that plays its fortune cards more readily and, at 2 players, weighs them by the
    standing table (see the module docstring).

    Design Detail: the hold values are ``ninja``'s halved, Interesting Times' cut to 0.3; in 2,000
    2-player games against ``ninja`` (seeds 10000-10999, both seats) that alone scored 52.9% (963:845,
    192 draws), where halving them all gave 52.5% and no hold at all 47.5%. At 2 players its
    standing after a mission is ``ninja_burger_standing``'s table instead of ``ninja``'s curve, and the
    hold values count 1.5 times (``TABLE_HOLD``: the table's stakes are steeper near the end); over
    12,000 games against ``ninja`` (seeds 400000-405999, both seats) that scored 55.7% where the curve
    scores 53.6% (holds at 1x: 54.9%, 2.2x: 54.6%).
    """

    name = "sharp-ninja"
    HOLD: ClassVar[Mapping[Effect, float]] = {
        Effect.BONUS: 0.12,
        Effect.REROLL: 0.5,
        Effect.ITEM: 0.02,
        Effect.PENALTY: 0.3,
        Effect.EXTRA_CHECK: 0.3,
        Effect.FINE: 0.05,
    }
    TABLE_HOLD = 1.5  # the hold values' scale where the standing table weighs the stakes

    def __init__(self, table: StandingTable | None = None) -> None:
        self._table = table  # None: the stored table, read on first use

    def standing_after(self, obs: Observation, active: int, honor: Sequence[int]) -> float:
        if len(honor) != 2:
            return super().standing_after(obs, active, honor)
        table = self._table or stored_table()
        me = obs.seat
        chance = table.chance(honor[me], honor[1 - me], situation_after(obs.order, active, me))
        return chance / HONOR_AT_PAR

    def hold(self, obs: Observation, effect: Effect) -> float:
        scale = self.TABLE_HOLD if len(obs.players) == 2 else 1.0
        return scale * self.HOLD[effect]


_POLICY = NinjaBot()  # stateless: one instance plays every simulated seat but the searcher's
_SHARP = SharpNinja()  # the searcher's own policy, in its playouts and outside its searches
_SEARCHED = (Phase.WINDOW, Phase.REROLL)
_DEADLINE = timedelta(seconds=1)


def _unseen_fortune(obs: Observation) -> list[FortuneCard]:
    """Returns the fortune cards ``obs``'s seat cannot place: not in its hand, in play or on the check."""
    seen = {c.id for c in obs.hand}
    seen.update(i for p in obs.players for i in p.items)
    seen.update(p.card.id for p in obs.plays)
    return [c for c in fortune_cards() if c.id not in seen]


def _unseen_missions(obs: Observation) -> list[MissionCard]:
    """Returns the mission cards that are neither the seat's own nor revealed this round."""
    seen = {p.mission.id for p in obs.players if p.mission is not None}
    if obs.mission is not None:
        seen.add(obs.mission.id)
    return [m for m in mission_cards() if m.id not in seen]


def determinize(obs: Observation, draw: Draw) -> NinjaBurgerState:
    """Returns a whole table consistent with ``obs``, its hidden cards dealt at random by ``draw``.

    Design Detail: the discard piles get what the decks and hands do not (their contents are not in
    the observation); they only matter when a deck runs out, and then as a random reshuffle anyway.
    """
    me, n = obs.seat, len(obs.players)
    fortune = _unseen_fortune(obs)
    draw.shuffle(fortune)
    hands = deal_by_seat([p.hand_size for p in obs.players], me, obs.hand, fortune)
    missions = _unseen_missions(obs)
    draw.shuffle(missions)
    held: list[MissionCard | None] = []
    for p in obs.players:
        if obs.phase is Phase.CHOOSE_NINJA:
            held.append(None)
        elif p.seat == me or p.mission is not None:
            held.append(obs.mission if p.seat == me else p.mission)
        else:
            held.append(missions.pop())
    by_id = {c.id: c for c in ninja_cards()}
    fortune_by_id = {c.id: c for c in fortune_cards()}
    options, ninja_deck = _ninja_deal(obs, draw)
    return NinjaBurgerState(
        seed=draw.next64(),
        phase=obs.phase,
        round=obs.round,
        ninja_deck=ninja_deck,
        ninja_options=options,
        ninja_discard=(),
        ninjas=tuple(None if p.ninja is None else by_id[p.ninja] for p in obs.players),
        honor=tuple(p.honor for p in obs.players),
        money=tuple(p.money for p in obs.players),
        hands=hands,
        items=tuple(tuple(fortune_by_id[i] for i in p.items) for p in obs.players),
        fortune_deck=tuple(fortune[: obs.fortune_deck]),
        fortune_discard=tuple(fortune[obs.fortune_deck :]),
        missions=tuple(held),
        mission_deck=tuple(missions[: obs.mission_deck]),
        mission_discard=tuple(missions[obs.mission_deck :]),
        attended=tuple(p.attended for p in obs.players),
        revealed=tuple(p.mission is not None for p in obs.players),
        order=obs.order,
        trade_index=obs.order.index(me) if obs.phase is Phase.TRADE else 0,
        mission_index=obs.order.index(obs.active) if obs.active is not None else 0,
        checks=obs.checks,
        check_index=obs.check_index or 0,
        plan=obs.plan,
        queue=_window_queue(obs, n),
        plays=obs.plays,
        ability_reroll_used=_reroll_spent(obs),
    )


def _ninja_deal(
    obs: Observation, draw: Draw
) -> tuple[tuple[tuple[NinjaCard, ...], ...], tuple[NinjaCard, ...]]:
    """Returns the dealt ninja options by seat and the ninja deck: while choosing, the other seats get
    three of the cards the seat was not dealt; afterwards both are empty."""
    n = len(obs.players)
    if obs.phase is not Phase.CHOOSE_NINJA:
        return ((),) * n, ()
    mine = {c.id for c in obs.ninja_options}
    rest = [c for c in ninja_cards() if c.id not in mine]
    draw.shuffle(rest)
    options = deal_by_seat([NINJAS_DEALT] * n, obs.seat, obs.ninja_options, rest)
    return options, tuple(rest)


def _window_queue(obs: Observation, n: int) -> tuple[int, ...]:
    """Returns the seats still to be asked in the current fortune window, this seat first."""
    if obs.phase is not Phase.WINDOW or obs.active is None:
        return ()
    queue = [(obs.active + k) % n for k in range(1, n)] + [obs.active]
    return tuple(queue[queue.index(obs.seat) :])


def _reroll_spent(obs: Observation) -> bool:
    """Returns whether the active ninja's reroll ability is known to be spent: the seat is asked to
    reroll a failed check in the ability's own skill, which the ability would have rerolled first."""
    if obs.phase is not Phase.REROLL or obs.check_index is None:
        return False
    ninja = NinjaBot.ninja(obs, obs.seat)
    return ninja.ability == Ability.REROLL and ninja.ability_skill == obs.plan[obs.check_index]


def policy_actions(state: NinjaBurgerState, seats: Sequence[int], me: int) -> dict[int, Action]:
    """Returns what each of ``seats`` would do: ``SharpNinja`` in ``me``, ``ninja`` in the others (at
    once when a seat has one choice)."""
    actions = {}
    for seat in seats:
        legal = GAME.legal_actions(state, seat)
        if len(legal) == 1:
            actions[seat] = legal[0]
        else:
            policy = _SHARP if seat == me else _POLICY
            actions[seat] = policy.choose(GAME.observe(state, seat), legal, _DEADLINE)
    return actions


def playout(state: NinjaBurgerState, last_round: int, me: int) -> NinjaBurgerState:
    """Returns ``state`` played on (``me`` by ``SharpNinja``, the others by ``ninja``) until the game
    ends or ``last_round`` is over."""
    while not GAME.is_terminal(state) and state.round <= last_round:
        state = GAME.apply_legal(state, policy_actions(state, GAME.to_move(state), me))
    return state


def play_each(state: NinjaBurgerState, choices: Sequence[Action], me: int, last_round: int) -> list[float]:
    """Returns ``me``'s ``estimate`` after playing each of ``choices`` in ``state`` and playing on
    until ``last_round`` (the other seats act as ``ninja`` would, the same for every choice)."""
    others = policy_actions(state, [s for s in GAME.to_move(state) if s != me], me)
    starts = [GAME.apply_legal(state, {**others, me: choice}) for choice in choices]
    return [estimate(playout(start, last_round, me), me) for start in starts]


def estimate(state: NinjaBurgerState, seat: int) -> float:
    """Returns ``seat``'s chance of finishing first alone: exact at the end, else a logistic curve in
    its lead over the best rival, money (items at their price) and fortune cards counted in honor."""
    honor = state.honor
    if GAME.is_terminal(state):
        top = max(honor)
        if honor[seat] < top:
            return 0.0
        return 1.0 if honor.count(top) == 1 else 0.5

    def worth(s: int) -> float:
        money = state.money[s] + sum(c.price for c in state.items[s])  # an item counts what it cost
        return honor[s] + money / MONEY_PER_HONOR + CARD_HONOR * len(state.hands[s])

    lead = worth(seat) - max(worth(s) for s in range(state.num_players) if s != seat)
    return 1 / (1 + math.exp(-LEAD_SLOPE * lead))


CARD_HONOR = 0.35  # honor a fortune card in hand is worth at the horizon
LEAD_SLOPE = 0.5  # logit of winning per honor point of lead, at the horizon


class SearchBot(Bot):
    """``SharpNinja`` with a determinized Monte Carlo search of its fortune windows and rerolls (see
    the module docstring).

    The budget is ``iterations`` deals per decision (each choice is played out in every deal), with
    a wall-time guard.
    """

    name = "search"
    revision = 1  # of its moves: bump it when they change (tests/test_builtin_versions.py)
    BUDGET = Budget(iterations=12)
    HORIZON = 1  # rounds played after the current one before the lead is estimated
    TRUST = 0.05  # how much better (in chance of winning) a choice must look to overrule the usual one

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget or self.BUDGET

    def deal(self, observation: Observation, draw: Draw) -> NinjaBurgerState:
        """Returns one table to search: a ``determinize``d one (bench/ninja_burger_h2h.py's oracle
        gives the true one instead, to bound what better deals could gain)."""
        return determinize(observation, draw)

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], deadline: timedelta
    ) -> Action:
        usual = _SHARP.choose(observation, legal_actions, deadline)
        if len(legal_actions) == 1 or observation.phase not in _SEARCHED:
            return usual
        clock = self.budget.clock(deadline)
        draw = seat_draw(seat_key(self.match), observation)
        me = observation.seat
        last_round = max(observation.round, 1) + self.HORIZON
        totals = [0.0] * len(legal_actions)
        done = 0
        while done < self.budget.iterations and not (done and clock.expired()):
            results = play_each(self.deal(observation, draw), legal_actions, me, last_round)
            totals = [t + r for t, r in zip(totals, results, strict=True)]
            done += 1
        return max(
            legal_actions, key=lambda a: totals[legal_actions.index(a)] / done + self.TRUST * (a == usual)
        )
