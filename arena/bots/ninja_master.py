"""Built-in Ninja Master bots: ``random`` and ``master``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from arena.bots.common import RandomBot
from arena.games.ninja_master import (
    CALL_BONUS,
    CUT_PENALTY,
    HANDS,
    Action,
    Call,
    Component,
    Grab,
    Observation,
    RollSummary,
    Wait,
    summarize,
)
from arena.sdk import Bot


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


BOTS: dict[str, type[Bot]] = {"random": RandomBot, "master": MasterBot}
