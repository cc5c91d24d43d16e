"""Built-in Ninja Burger bots: ``random`` and ``ninja``.

The ninja bot reasons with the exact distribution of 3d6: a check passes when the three dice total at
most the ninja's skill plus the check's modifier plus the bonuses, so its chance is ``cdf(target)``
below. Every decision compares expected honor, computed from the card lists (the decks' contents are
public; their order is not).
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from datetime import timedelta

from arena.bots.common import RandomBot
from arena.games.ninja_burger import (
    Ability,
    Action,
    Attend,
    Check,
    ChooseNinja,
    ChooseSkills,
    Decline,
    Effect,
    ForceTrade,
    FortuneCard,
    MissionCard,
    NinjaCard,
    Observation,
    Phase,
    PlayFortune,
    Skill,
    fortune_cards,
    mission_cards,
    ninja_cards,
)
from arena.sdk import Bot


@functools.cache
def _cdf_table() -> tuple[float, ...]:
    counts = [0] * 19
    for dice in itertools.product(range(1, 7), repeat=3):
        counts[sum(dice)] += 1
    table, acc = [], 0
    for total in range(19):
        acc += counts[total]
        table.append(acc / 216)
    return tuple(table)


def cdf(target: int) -> float:
    """Returns P(3d6 <= target), exactly.

    >>> cdf(10), cdf(3), cdf(18)
    (0.5, 0.004629629629629629, 1.0)
    """
    if target < 3:
        return 0.0
    return _cdf_table()[min(target, 18)]


def item_bonus(items: Sequence[FortuneCard], skill: Skill) -> int:
    """Returns the bonus the items in play give to a check in ``skill``."""
    return sum(c.value for c in items if c.skill == skill)


def skill_chance(ninja: NinjaCard, skill: Skill, modifier: int, bonus: int) -> float:
    """Returns the chance that ``ninja`` passes one check in ``skill`` (its reroll ability included)."""
    if ninja.ability == Ability.NEVER_FAILS and ninja.ability_skill == skill:
        return 1.0
    p = cdf(ninja.skill(skill) + modifier + bonus)
    if ninja.ability == Ability.REROLL and ninja.ability_skill == skill:
        p = 1 - (1 - p) ** 2
    return p


def check_chance(ninja: NinjaCard, check: Check, items: Sequence[FortuneCard] = ()) -> float:
    """Returns the chance of passing ``check`` with the best of its skills."""
    return max(skill_chance(ninja, s, check.modifier, item_bonus(items, s)) for s in check.skills)


def mission_chance(ninja: NinjaCard, checks: Sequence[Check], items: Sequence[FortuneCard] = ()) -> float:
    """Returns the chance of passing every check in ``checks``."""
    p = 1.0
    for check in checks:
        p *= check_chance(ninja, check, items)
    return p


MONEY_PER_HONOR = 300  # how many dollars the bot trades for one honor point


def mission_value(ninja: NinjaCard, mission: MissionCard, items: Sequence[FortuneCard] = ()) -> float:
    """Returns the expected honor (money converted) of attempting ``mission``."""
    p = mission_chance(ninja, mission.checks, items)
    win = mission.reward_honor + mission.reward_money / MONEY_PER_HONOR
    lose = mission.penalty_honor + mission.penalty_money / MONEY_PER_HONOR
    return p * win - (1 - p) * lose


@functools.cache
def average_values(ninja: NinjaCard) -> tuple[float, float]:
    """Returns the average value of a (non-Errand) mission and of an Errand for ``ninja``, no items."""
    missions = [mission_value(ninja, m) for m in mission_cards() if not m.errand]
    errands = [mission_value(ninja, m) for m in mission_cards() if m.errand]
    return sum(missions) / len(missions), sum(errands) / len(errands)


@functools.cache
def _ninjas_by_id() -> dict[int, NinjaCard]:
    return {card.id: card for card in ninja_cards()}


@functools.cache
def _fortune_by_id() -> dict[int, FortuneCard]:
    return {card.id: card for card in fortune_cards()}


def items_of(obs: Observation, seat: int) -> tuple[FortuneCard, ...]:
    """Returns the Ninja Stuff ``seat`` has in play (observations name them by id)."""
    cards = _fortune_by_id()
    return tuple(cards[i] for i in obs.players[seat].items)


class NinjaBot(Bot):
    """Plays for expected honor: the ninja that fits the mission deck best, the meeting when the card
    is worth the risk of an Errand, Errands forced on the strongest eligible rival, bonuses where they
    raise a check's chance most, rerolls always, and Interesting Times only against the leader."""

    name = "ninja"
    CARD_VALUE = 0.35  # honor a fortune card in hand is worth, for the meeting decision
    ERRAND_RATE = 12 / 56
    ATTEND_RATE = 0.5  # assumed chance that another player attends

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], deadline: timedelta
    ) -> Action:
        obs = observation
        if obs.phase is Phase.CHOOSE_NINJA:
            by_id = {n.id: n for n in obs.ninja_options}
            return max(legal_actions, key=lambda a: (average_values(by_id[a.ninja])[0], -a.ninja))
        if obs.phase is Phase.MEETING:
            return Attend(self.attend(obs))
        if obs.phase is Phase.TRADE:
            return self.trade(obs, legal_actions)
        if obs.phase is Phase.CHOOSE_SKILL:
            ninja = self.ninja(obs, obs.seat)
            items = items_of(obs, obs.seat)
            choices = [check for check in obs.checks if len(check.skills) > 1]
            return max(
                legal_actions,
                key=lambda a: math.prod(
                    skill_chance(ninja, s, c.modifier, item_bonus(items, s))
                    for c, s in zip(choices, a.skills, strict=True)
                ),
            )
        if obs.phase is Phase.REROLL:
            return legal_actions[0]
        if obs.active == obs.seat:
            return self.help_myself(obs, legal_actions)
        return self.hinder(obs, legal_actions)

    @staticmethod
    def ninja(obs: Observation, seat: int) -> NinjaCard:
        """Returns the ninja card ``seat`` plays (the cards are public: arena/games/data)."""
        ninja_id = obs.players[seat].ninja
        assert ninja_id is not None
        return _ninjas_by_id()[ninja_id]

    def attend(self, obs: Observation) -> bool:
        """Returns whether the fortune card is worth the risk of being handed an Errand."""
        me = obs.players[obs.seat]
        mission = obs.mission
        if mission is None or mission.errand:
            return True
        ninja = self.ninja(obs, obs.seat)
        higher = sum(p.honor > me.honor for p in obs.players if p.seat != obs.seat)
        forced = 1 - (1 - self.ATTEND_RATE * self.ERRAND_RATE) ** higher
        loss = mission_value(ninja, mission, items_of(obs, obs.seat)) - average_values(ninja)[1]
        return forced * loss < self.CARD_VALUE

    def trade(self, obs: Observation, legal_actions: Sequence[Action]) -> Action:
        """Forces the Errand on the eligible rival with the most honor, when a mission is worth more."""
        ninja = self.ninja(obs, obs.seat)
        assert obs.mission is not None
        keep = mission_value(ninja, obs.mission, items_of(obs, obs.seat))
        if average_values(ninja)[0] <= keep:
            return Decline()
        targets = [a for a in legal_actions if isinstance(a, ForceTrade)]
        return max(targets, key=lambda a: (obs.players[a.target].honor, -a.target))

    def help_myself(self, obs: Observation, legal_actions: Sequence[Action]) -> Action:
        """Plays the bonus or buys the item that adds the most expected honor, if it adds enough."""
        me = obs.players[obs.seat]
        ninja = self.ninja(obs, obs.seat)
        mission = me.mission
        assert mission is not None and obs.check_index is not None
        skill = obs.plan[obs.check_index]
        check = obs.checks[obs.check_index]
        items = items_of(obs, obs.seat)
        rest = mission_chance(ninja, obs.checks[obs.check_index + 1 :], items)
        stake = (
            mission.reward_honor
            + mission.penalty_honor
            + (mission.reward_money + mission.penalty_money) / 300
        )
        bonus = item_bonus(items, skill) + sum(
            p.card.value if p.card.effect == Effect.BONUS else -p.card.value
            for p in obs.plays
            if p.card.effect in (Effect.BONUS, Effect.PENALTY)
        )
        base = skill_chance(ninja, skill, check.modifier, bonus)
        hand = {c.id: c for c in obs.hand}
        best, best_value = Decline(), 0.06
        for action in legal_actions:
            if not isinstance(action, PlayFortune):
                continue
            card = hand[action.card]
            extra = card.value if card.effect == Effect.BONUS or card.skill == skill else 0
            gain = (skill_chance(ninja, skill, check.modifier, bonus + extra) - base) * rest * stake
            if card.effect == Effect.ITEM and not card.single_use:
                gain += 0.12 * card.value  # it keeps helping in later missions
            if not card.immediate:
                gain += 0.03  # it can only be played before a first check: use it or wait
            if gain > best_value:
                best, best_value = action, gain
        return best

    def hinder(self, obs: Observation, legal_actions: Sequence[Action]) -> Action:
        """Plays the Interesting Times card that hurts the active player most, if that player leads."""
        assert obs.active is not None and obs.check_index is not None
        victim = obs.players[obs.active]
        leader = max(p.honor for p in obs.players if p.seat != obs.seat)
        if victim.honor < leader or victim.mission is None:
            return Decline()
        ninja, mission = self.ninja(obs, obs.active), victim.mission
        skill = obs.plan[obs.check_index]
        check = obs.checks[obs.check_index]
        rest = obs.checks[obs.check_index + 1 :]
        items = items_of(obs, obs.active)
        bonus = item_bonus(items, skill) + sum(
            p.card.value if p.card.effect == Effect.BONUS else -p.card.value
            for p in obs.plays
            if p.card.effect in (Effect.BONUS, Effect.PENALTY)
        )
        now = skill_chance(ninja, skill, check.modifier, bonus)
        after = mission_chance(ninja, rest, items)
        stake = mission.reward_honor + mission.penalty_honor
        hand = {c.id: c for c in obs.hand}
        best, best_value = Decline(), 0.05
        for action in legal_actions:
            if not isinstance(action, PlayFortune):
                continue
            card = hand[action.card]
            if card.effect == Effect.PENALTY:
                harm = (now - skill_chance(ninja, skill, check.modifier, bonus - card.value)) * after * stake
            elif card.effect == Effect.EXTRA_CHECK:
                assert card.skill is not None
                extra = check_chance(ninja, Check((card.skill,), card.value), items)
                harm = now * after * (1 - extra) * stake
            else:
                harm = min(card.value, victim.money) / MONEY_PER_HONOR
            if not card.immediate:
                harm += 0.03
            if harm > best_value:
                best, best_value = action, harm
        return best


BOTS: dict[str, type[Bot]] = {"random": RandomBot, "ninja": NinjaBot}

__all__ = ["BOTS", "ChooseNinja", "ChooseSkills", "NinjaBot", "RandomBot", "cdf"]
