"""Built-in Ninja Master bots: ``random``, ``master`` and ``planner`` (also ``best``)."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from datetime import timedelta

from arena.bots.common import RandomBot
from arena.games.ninja_master.engine import (
    CALL_BONUS,
    COMPONENTS,
    CUT_PENALTY,
    HANDS,
    MAX_TICKS,
    NO_HOLDERS,
    WIN_VP,
    Action,
    Call,
    CallResult,
    Component,
    Grab,
    NinjaMasterState,
    Observation,
    RollSummary,
    Wait,
    summarize,
    tally,
)
from arena.sdk import Bot, MatchInfo


class MasterBot(Bot):
    """Values every free component from the dice, predicts who else goes for it, and calls the
    (always correct) ninja count when no grab is worth more than the call.

    * A ninja token is worth its score: the ninjas of its colour, negated by exactly one smoke.
    * The sword, when swords outnumber shurikens, is worth half the holder's VP to a thief and the
      same to the holder defending it; since the VP move from one player to another, the swing is
      weighted by ``SWING``. When swords do not outnumber shurikens it is a cut (-3): never grabbed.
    * Contention: every opponent with a free hand is assumed to grab the component that is worth
      most to it; a grab contested by k others is won with probability 1 / (1 + k), so the bot picks
      the best expected value, not just the best value. Opponents with nothing worth grabbing, or
      with both hands full, are assumed to call.
    * Calling: a correct call is +1, shared by lottery among the other likely callers, and it ends
      the round, which denies opponents the positive components still free. Calling needs no free
      hand, so a bot with both hands full, or with nothing worth grabbing, calls. Otherwise, with
      two free hands the bot grabs unless what the call denies is worth more than the grab; with its
      last free hand it calls unless a grab is expected to be worth more than the call (it could
      call after that grab, but another seat may call first and take the point).
    """

    name = "master"
    revision = 1  # of its moves: bump it when they change (tests/test_builtin_versions.py)
    SWING = 1.5  # weight of a VP that moves from the holder to the thief (both sides of the swing)
    DENIAL = 0.5  # share of the opponents' remaining positive components a call is credited with

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], deadline: timedelta
    ) -> Action:
        obs = observation
        me = obs.seat
        roll = summarize(obs.dice)
        scores = {p.seat: p.score for p in obs.players}
        holders = {h.component: h.holder for h in obs.components}
        free = [c for c, h in holders.items() if h is None]
        held = sum(1 for h in holders.values() if h == me)
        free_hands = HANDS - held
        call = Call(roll.ninja_total)
        can_call = call in legal_actions
        if free_hands <= 0:  # calling is voice, not hands: the only choice left is to call or wait
            return call if can_call else Wait()

        opponents = [p.seat for p in obs.players if p.contending and p.seat != me]
        wanted: dict[Component, int] = {}
        free_handed = idle_opponents = 0
        for seat in opponents:
            best = None
            if self._hands(holders, seat) > 0:
                free_handed += 1
                best = self._best_for(seat, free, roll, obs.sword_holder, scores)
            if best is None:  # nothing worth grabbing, or both hands full: a likely caller
                idle_opponents += 1
            else:
                wanted[best] = wanted.get(best, 0) + 1

        options = []
        for component in free:
            value = self.value(component, me, roll, obs.sword_holder, scores)
            if value > 0 and Grab(component) in legal_actions:
                options.append((value / (1 + wanted.get(component, 0)), -component.value, component))
        best_grab = max(options) if options else None

        if can_call:
            # Positive components the opponents could still take after this tick, if the round went on.
            left = sorted(
                (self.value(c, -me - 1, roll, obs.sword_holder, scores) for c in free if c not in wanted),
                reverse=True,
            )
            denial = self.DENIAL * sum(v for v in left[:free_handed] if v > 0)
            call_value = CALL_BONUS / (1 + idle_opponents) + denial
            if best_grab is None or (free_hands == 1 and best_grab[0] < call_value):
                return call
            if free_hands == HANDS and best_grab[0] < call_value - CALL_BONUS:
                return call
        if best_grab is not None:
            return Grab(best_grab[2])
        return Wait()

    @staticmethod
    def _hands(holders: dict[Component, int | None], seat: int) -> int:
        return HANDS - sum(1 for h in holders.values() if h == seat)

    def _best_for(
        self, seat: int, free: list[Component], roll: RollSummary, sword_holder: int, scores: dict[int, int]
    ) -> Component | None:
        """Returns the free component worth most to ``seat``, None if none is worth anything."""
        best, best_value = None, 0.0
        for component in free:
            value = self.value(component, seat, roll, sword_holder, scores)
            if value > best_value:
                best, best_value = component, value
        return best

    def value(
        self, component: Component, seat: int, roll: RollSummary, sword_holder: int, scores: dict[int, int]
    ) -> float:
        """Returns what grabbing ``component`` is worth to ``seat`` (``-me - 1``: any opponent of ``me``)."""
        if component.colour is not None:
            return roll.token_value(component.colour)
        if not roll.sword_wins:
            return -CUT_PENALTY
        if seat < 0 and sword_holder != -seat - 1:
            return 0.0  # an opponent stealing from another opponent does not hurt this bot much
        return self.SWING * (scores[sword_holder] // 2)


# The planner ------------------------------------------------------------------------------------

Holders = tuple[int | None, ...]  # who holds each component, in COMPONENTS order
Move = Grab | Call | Wait
WAIT = Wait()


@dataclasses.dataclass(frozen=True)
class Model:
    """How the planner expects another seat to choose, as probabilities. With a free hand and a
    positive component free: the component worth most to it (the rest of the probability), the one
    with the best value discounted by contention (``aware``: a component that k other seats want most
    is won with probability 1 / (1 + k)), its second best, the call. Otherwise: the call (once calls
    are legal) or waiting. The probability of a choice that is not there goes to the best grab."""

    aware: float = 0.35
    second: float = 0.1
    call: float = 0.1
    idle_call: float = 0.97  # the call when nothing is worth grabbing (or both hands are full)


class Round:
    """Expectimax over the ticks of one round, seen from ``me``: at each tick this seat chooses the
    best of its sealed choices against the other seats' choices drawn from a ``Model``; grab
    lotteries and the call lottery are averaged exactly; a round that ends is scored with the engine's
    own ``tally``. Positions are remembered by (holders, tick), so a round is searched once."""

    def __init__(self, obs: Observation, models: dict[tuple[int, int], Model], win_bonus: float) -> None:
        self.me = obs.seat
        self.models = models
        self.win_bonus = win_bonus
        self.roll = summarize(obs.dice)
        scores = tuple(p.score for p in obs.players)
        self.contenders = tuple(p.seat for p in obs.players if p.contending)
        self.others = tuple(s for s in self.contenders if s != self.me)
        self.playoff = obs.playoff
        self.table = NinjaMasterState(
            seed=0,
            scores=scores,
            sword_holder=obs.sword_holder,
            shuriken_holder=obs.shuriken_holder,
            contenders=self.contenders,
            depth=(0,) * len(scores),
            round=obs.round,
            dice=obs.dice,
        )
        self.call = Call(self.roll.ninja_total)
        self.worth = {seat: self._worth(seat, scores) for seat in (*self.contenders, self.me)}
        self.depth = DEPTH[len(self.contenders)]  # ticks searched exactly
        self.horizon = 0
        self.memo: dict[tuple[Holders, int, bool], tuple[float, Move]] = {}
        self.ends: dict[tuple[Holders, int | None], float] = {}

    def _worth(self, seat: int, scores: tuple[int, ...]) -> dict[Component, float]:
        """Returns what each component is worth to ``seat`` by itself (the sword: half the holder's
        VP, to a thief or to the holder defending it, when swords outnumber shurikens, else a cut)."""
        roll, holder = self.roll, self.table.sword_holder
        worth = {c: float(roll.token_value(c.colour)) for c in COMPONENTS if c.colour is not None}
        worth[Component.SWORD] = float(scores[holder] // 2) if roll.sword_wins else -float(CUT_PENALTY)
        return worth

    def choose(self, holders: Holders, tick: int) -> Move:
        """Returns this seat's best choice at (holders, tick)."""
        self.horizon = tick + self.depth
        return self.value(holders, tick)[1]

    def value(self, holders: Holders, tick: int) -> tuple[float, Move]:
        """Returns (expected utility, best choice) at the start of a tick. Beyond the horizon every
        seat, this one too, makes its model's likeliest choice (only the lotteries branch)."""
        exact = tick < self.horizon
        key = (holders, tick, exact)
        if key not in self.memo:
            if exact:
                moves, outcomes = self.moves(self.me, holders), self.joint(holders)
            else:
                moves = [self.likeliest(self.me, holders)]
                outcomes = [(1.0, {seat: self.likeliest(seat, holders) for seat in self.others})]
            best: tuple[float, Move] = (float("-inf"), WAIT)
            for move in moves:
                total = sum(
                    p * self.resolve(holders, tick, {**others, self.me: move}) for p, others in outcomes
                )
                if total > best[0] + 1e-9:
                    best = (total, move)
            self.memo[key] = best
        return self.memo[key]

    def likeliest(self, seat: int, holders: Holders) -> Move:
        """Returns the model's likeliest choice of ``seat`` at ``holders``."""
        return max(self.predict(seat, holders), key=lambda pm: pm[0])[1]

    def moves(self, seat: int, holders: Holders) -> list[Move]:
        """Returns the sensible choices of ``seat``: wait, grab a free component worth something to
        it (with a free hand), call the right number (once a component is held). A wrong call, or a
        grab that costs its grabber, is never sensible: tokens are worth the same to every seat, so
        taking a bad one denies nobody anything."""
        moves: list[Move] = [WAIT]
        if holders.count(seat) < HANDS:
            worth = self.worth[seat]
            free = (c for c, h in zip(COMPONENTS, holders, strict=True) if h is None)
            moves += [GRABS[c] for c in free if worth[c] > 0]
        if holders != NO_HOLDERS:
            moves.append(self.call)
        return moves

    def predict(self, seat: int, holders: Holders) -> list[tuple[float, Move]]:
        """Returns the model's distribution of ``seat``'s choice at ``holders``."""
        model, can_call = self.models[seat, HANDS - holders.count(seat)], holders != NO_HOLDERS
        options = self.options(seat, holders)
        if not options:
            return [(model.idle_call, self.call), (1 - model.idle_call, WAIT)] if can_call else [(1.0, WAIT)]
        aware = self.aware(seat, holders)
        dist: list[tuple[float, Move]] = [(model.aware, GRABS[aware])] if aware != options[0] else []
        if len(options) > 1 and options[1] != aware:
            dist.append((model.second, GRABS[options[1]]))
        if can_call:
            dist.append((model.call, self.call))
        return [(1 - sum(p for p, _ in dist), GRABS[options[0]]), *dist]

    def options(self, seat: int, holders: Holders) -> list[Component]:
        """Returns the free components worth something to ``seat``, best first (none if its hands are
        full)."""
        if holders.count(seat) >= HANDS:
            return []
        worth = self.worth[seat]
        free = (c for c, h in zip(COMPONENTS, holders, strict=True) if h is None)
        return sorted((c for c in free if worth[c] > 0), key=lambda c: (-worth[c], c))

    def aware(self, seat: int, holders: Holders) -> Component:
        """Returns the component ``seat`` expects most from when the others grab what is worth most to
        them (it has a component worth something)."""
        wanted: dict[Component, int] = {}
        for other in self.contenders:
            if other != seat and (best := self.options(other, holders)):
                wanted[best[0]] = wanted.get(best[0], 0) + 1
        worth = self.worth[seat]
        return max(self.options(seat, holders), key=lambda c: worth[c] / (1 + wanted.get(c, 0)))

    def joint(self, holders: Holders) -> list[tuple[float, dict[int, Move]]]:
        """Returns the distribution of the other seats' choices together (independent seats)."""
        per_seat = [self.predict(seat, holders) for seat in self.others]
        joint = []
        for combo in itertools.product(*per_seat):
            p = 1.0
            for q, _ in combo:
                p *= q
            if p > PRUNE:
                joint.append((p, {seat: move for seat, (_, move) in zip(self.others, combo, strict=True)}))
        norm = sum(p for p, _ in joint)
        return [(p / norm, choices) for p, choices in joint]

    def resolve(self, holders: Holders, tick: int, choices: dict[int, Move]) -> float:
        """Returns the expected utility after one tick's choices: lotteries averaged, then the round
        goes on or ends (a call, or the tick guard)."""
        grabbers: dict[int, list[int]] = {}
        callers = []
        for seat, move in choices.items():
            if isinstance(move, Grab):
                grabbers.setdefault(COMPONENTS.index(move.component), []).append(seat)
            elif isinstance(move, Call):
                callers.append(seat)
        lotteries = [[(i, s) for s in seats] for i, seats in grabbers.items()]
        weight = 1.0
        for seats in grabbers.values():
            weight /= len(seats)
        total = 0.0
        for wins in itertools.product(*lotteries):
            after = list(holders)
            for i, seat in wins:
                after[i] = seat
            new = tuple(after)
            if callers:
                total += sum(self.end(new, c) for c in callers) / len(callers)
            elif tick + 1 >= MAX_TICKS:
                total += self.end(new, None)
            else:
                total += self.value(new, tick + 1)[0]
        return total * weight

    def end(self, holders: Holders, call_winner: int | None) -> float:
        """Returns this seat's utility of the round ending with ``holders`` (calls are right)."""
        key = (holders, call_winner)
        if key not in self.ends:
            state = dataclasses.replace(self.table, holders=holders)
            calls = (CallResult(call_winner, self.call.number, True),) if call_winner is not None else ()
            _, _, scores = tally(state, calls, call_winner, self.roll)
            self.ends[key] = self.utility(scores)
        return self.ends[key]

    def utility(self, scores: tuple[int, ...]) -> float:
        """Returns how good the scores after a tally are for this seat: its VP against the others'
        (the best other and their mean, halved each), plus or minus ``win_bonus`` when the game ends
        there with one leader. (Counting the leader's exposure to the sword next round made it weaker.)"""
        others = [scores[s] for s in self.others]
        mine = scores[self.me]
        value = mine - (max(others) + sum(others) / len(others)) / 2
        top = max(mine, *others)
        if (self.playoff or top >= WIN_VP) and [mine, *others].count(top) == 1:
            value += self.win_bonus if mine == top else -self.win_bonus
        return value


GRABS: dict[Component, Grab] = {c: Grab(c) for c in COMPONENTS}
DEPTH = {1: MAX_TICKS, 2: MAX_TICKS, 3: 2, 4: 1, 5: 1}  # ticks searched exactly, by contenders
PRUNE = 0.01  # joint choices of the other seats less likely than this are left out (4, 5 players)


class PlannerBot(Bot):
    """Plans each round's ticks by expectimax (``Round``) against a model of each other seat's grabs
    and calls, fitted to what that seat did so far: how often it grabbed the component worth most to
    it, another one, or called while it could still grab something worth having (what a seat did is
    read from the holders seen at the next tick; a call from the round's end, with one opponent).
    It needs no randomness: the dice are public and the search is exact over the model."""

    name = "planner"
    revision = 1  # of its moves: bump it when they change (tests/test_builtin_versions.py)
    PRIOR = (1.0, 2.0, 0.3, 0.3)  # pseudo-counts: best grab, contention-aware grab, another grab, call
    WIN_BONUS = 40.0  # VP a win is worth on top of the VP margin

    def __init__(self) -> None:
        self.on_match_start(None)

    def on_match_start(self, match: MatchInfo | None) -> None:
        self.counts: dict[tuple[int, int], list[float]] = {}  # (seat, free hands) -> PRIOR's counts
        self.round: Round | None = None
        self.round_key: tuple[object, ...] = ()
        self.last: tuple[Holders, int, Move] | None = None

    def choose(self, observation: Observation, legal_actions: Sequence[Action], deadline: timedelta) -> int:
        obs = observation
        key = (obs.round, obs.dice, obs.players, obs.sword_holder, obs.playoff)
        holders = tuple(h.holder for h in obs.components)
        if self.round is not None and self.last is not None:
            self._learn(key == self.round_key, holders, obs.tick)
        if self.round is None or key != self.round_key:
            seats = range(len(obs.players))
            models = {(seat, hands): self.model(seat, hands) for seat in seats for hands in range(HANDS + 1)}
            self.round, self.round_key = Round(obs, models, self.WIN_BONUS), key
        move = self.round.choose(holders, obs.tick)
        self.last = (holders, obs.tick, move)
        return legal_actions.index(move)

    def model(self, seat: int, hands: int) -> Model:
        """Returns the model of ``seat`` with ``hands`` free hands, fitted to its choices so far: how
        it grabs is pooled over its free hands (a seat shows it in a few grabs a game, too few to
        split three ways), how often it calls is not (calling depends on the hands left)."""
        own = self.counts.get((seat, hands), self.PRIOR)
        seen = [self.counts.get((seat, h), self.PRIOR) for h in range(HANDS + 1)]
        grabs = [prior + sum(c[i] - prior for c in seen) for i, prior in enumerate(self.PRIOR[:3])]
        call = own[3] / sum(own)
        share = (1 - call) / sum(grabs)
        return Model(aware=grabs[1] * share, second=grabs[2] * share, call=call)

    def _learn(self, same_round: bool, holders: Holders, tick: int) -> None:
        """Counts what each other seat did since this seat's last decision, where it had a component
        worth grabbing."""
        assert self.round is not None and self.last is not None
        before, last_tick, mine = self.last
        for seat in self.round.others:
            expected = self.round.predict(seat, before)[0][1]
            if not isinstance(expected, Grab):
                continue  # nothing worth grabbing: its choice says nothing about the model
            counts = self.counts.setdefault((seat, HANDS - before.count(seat)), list(self.PRIOR))
            if same_round and tick == last_tick + 1:
                gained = [
                    c for c, b, a in zip(COMPONENTS, before, holders, strict=True) if b is None and a == seat
                ]
                aware = self.round.aware(seat, before)
                if gained:
                    self._count(counts, gained[0], expected.component, aware)
                elif lost := self._lost(seat, before, holders, (expected.component, aware)):
                    self._count(counts, lost, expected.component, aware)
            elif not same_round and len(self.round.others) == 1 and mine != self.round.call:
                counts[3] += last_tick + 1 < MAX_TICKS  # the round ended by a call, not this seat's

    @staticmethod
    def _lost(
        seat: int, before: Holders, after: Holders, wanted: tuple[Component, Component]
    ) -> Component | None:
        """Returns the component ``seat`` most likely grabbed and lost to another grabber when it
        gained nothing in a tick that went on: one of ``wanted`` (its best grab, then its
        contention-aware one) that someone else took, None if neither was. Counting only the grabs
        a seat won would hide every contested grab it lost, and so make a seat that goes for the
        contested best component look like one that avoids it."""
        taken = [
            c
            for c, b, a in zip(COMPONENTS, before, after, strict=True)
            if b is None and a not in (None, seat)
        ]
        return next((c for c in wanted if c in taken), None)

    @staticmethod
    def _count(counts: list[float], grabbed: Component, best: Component, aware: Component) -> None:
        """Counts one grab: the best, the contention-aware one, or another (where the best and the
        aware choice are the same component, shared by the current odds of the two)."""
        if grabbed == best == aware:
            share = counts[0] / (counts[0] + counts[1])
            counts[0] += share
            counts[1] += 1 - share
        else:
            counts[0 if grabbed == best else 1 if grabbed == aware else 2] += 1


BOTS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "master": MasterBot,
    "planner": PlannerBot,
    "best": PlannerBot,  # the strongest built-in bot of the game, whatever its name
}
