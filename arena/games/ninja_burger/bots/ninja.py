"""Built-in Ninja Burger bots: ``random``, ``ninja`` and ``search`` (also ``best``; ninja_burger_search).

The ninja bot reasons with the exact distribution of 3d6: a check passes when the three dice total at
most the ninja's skill plus the check's modifier plus the bonuses, so its chance is ``cdf(target)``
below. Decisions about the mission at hand (cards, rerolls, Interesting Times) weigh the change in
the chance of passing by what the mission decides for the bot: its ``standing`` (the chance of
finishing first alone) after a success minus after a failure, where a mission that ends the game is
won or lost outright. The rest compares expected honor (money converted at ``MONEY_PER_HONOR``),
from the card lists (the decks' contents are public; their order is not):

- the ninja: the dealt card with the best average mission value (the salary ability's money added);
- the meeting: the fortune card is worth more than the expected loss of being handed an Errand;
- the Errand trade: the unseen mission is worth more than the Errand, and the target is the rival
  with the most honor;
- its own windows: the card (a Good Fortune bonus, a Ninja Stuff item) whose gain beats what the
  card is worth kept in hand (an item counts its help in later missions and its price); a check's
  skill, when it offers a choice, is the one with the best chance after the window; a reroll when
  the mission's stake is worth more than the card;
- opponents' windows: Interesting Times only where a rival's failure raises the bot's standing
  enough, which saves them for the leader.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import ClassVar, cast

from arena.bots.common import RandomBot
from arena.games.ninja_burger.engine import (
    Ability,
    Action,
    Attend,
    Check,
    ChooseNinja,
    ChooseSkill,
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
    honor_ends_game,
    mission_cards,
    ninja_cards,
)
from arena.sdk import Bot

MONEY_PER_HONOR = 300  # how many dollars the bot trades for one honor point
LEAD_BIAS, LEAD_SLOPE = 0.9, 0.4  # logit of winning ~ bias + slope * (own honor - best rival's honor)
HONOR_AT_PAR = 0.09  # how much one honor point moves that chance near a level game


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


def check_chance(ninja: NinjaCard, check: Check, items: Sequence[FortuneCard] = (), bonus: int = 0) -> float:
    """Returns the chance of passing ``check`` with the best of its skills, ``bonus`` added."""
    return max(skill_chance(ninja, s, check.modifier, item_bonus(items, s) + bonus) for s in check.skills)


def mission_chance(ninja: NinjaCard, checks: Sequence[Check], items: Sequence[FortuneCard] = ()) -> float:
    """Returns the chance of passing every check in ``checks``."""
    p = 1.0
    for check in checks:
        p *= check_chance(ninja, check, items)
    return p


def win_value(mission: MissionCard) -> float:
    """Returns the reward of ``mission`` in honor (money converted)."""
    return mission.reward_honor + mission.reward_money / MONEY_PER_HONOR


def lose_value(mission: MissionCard) -> float:
    """Returns the penalty of ``mission`` in honor (money converted), as a positive number."""
    return mission.penalty_honor + mission.penalty_money / MONEY_PER_HONOR


def mission_value(ninja: NinjaCard, mission: MissionCard, items: Sequence[FortuneCard] = ()) -> float:
    """Returns the expected honor (money converted) of attempting ``mission``."""
    p = mission_chance(ninja, mission.checks, items)
    return p * win_value(mission) - (1 - p) * lose_value(mission)


@functools.cache
def average_values(ninja: NinjaCard, items: tuple[FortuneCard, ...] = ()) -> tuple[float, float]:
    """Returns the average value of a (non-Errand) mission and of an Errand for ``ninja``."""
    missions = [mission_value(ninja, m, items) for m in mission_cards() if not m.errand]
    errands = [mission_value(ninja, m, items) for m in mission_cards() if m.errand]
    return sum(missions) / len(missions), sum(errands) / len(errands)


def unseen_value(ninja: NinjaCard, items: tuple[FortuneCard, ...] = ()) -> float:
    """Returns the value of a mission card drawn blind from the full mission deck."""
    missions, errands = average_values(ninja, items)
    return (44 * missions + 12 * errands) / 56


def ninja_value(ninja: NinjaCard) -> float:
    """Returns the value of playing ``ninja``: its average mission plus the salary ability's money."""
    salary = 50 / MONEY_PER_HONOR if ninja.ability == Ability.SALARY else 0.0
    return average_values(ninja)[0] + salary


def standing(seat: int, honor: Sequence[int]) -> float:
    """Returns the chance that ``seat`` finishes first alone from ``honor`` (by seat), in honor points.

    Design Detail: a position that ends the game (total honor at 10x the players or 4x) is won or lost
    outright; any other is a logistic curve in the lead over the best rival, fitted to games of this
    bot against random ones. Dividing by ``HONOR_AT_PAR`` keeps it in the units of every other value
    here, so one scale serves the mission stakes, the card values and the thresholds.
    """
    lead = honor[seat] - max(h for s, h in enumerate(honor) if s != seat)
    if honor_ends_game(honor):
        return (1.0 if lead > 0 else 0.0) / HONOR_AT_PAR
    return 1 / (1 + math.exp(-(LEAD_BIAS + LEAD_SLOPE * lead))) / HONOR_AT_PAR


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


def played_bonus(obs: Observation) -> int:
    """Returns the Good Fortune bonuses minus the Interesting Times penalties played on this check."""
    return sum(
        p.card.value if p.card.effect == Effect.BONUS else -p.card.value
        for p in obs.plays
        if p.card.effect in (Effect.BONUS, Effect.PENALTY)
    )


def current_skills(obs: Observation) -> tuple[Skill, ...]:
    """Returns the skills the current check may still be rolled in: the chosen one, or its choices."""
    assert obs.check_index is not None
    if len(obs.plan) > obs.check_index:
        return (obs.plan[obs.check_index],)
    return obs.checks[obs.check_index].skills


def current_chance(obs: Observation, ninja: NinjaCard, items: Sequence[FortuneCard], extra: int = 0) -> float:
    """Returns the active ninja's chance on the current check with the best skill it may still pick."""
    assert obs.check_index is not None
    check = obs.checks[obs.check_index]
    bonus = played_bonus(obs) + extra
    return max(
        skill_chance(ninja, s, check.modifier, item_bonus(items, s) + bonus) for s in current_skills(obs)
    )


@functools.cache
def item_future_value(ninja: NinjaCard, items: tuple[FortuneCard, ...], card: FortuneCard) -> float:
    """Returns the honor a permanent item adds to one average future mission."""
    with_item = tuple(sorted((*items, card), key=lambda c: c.id))
    return unseen_value(ninja, with_item) - unseen_value(ninja, items)


class NinjaBot(Bot):
    """Plays for expected honor, with the exact 3d6 odds (see the module docstring)."""

    name = "ninja"
    revision = 1  # of its moves: bump it when they change (tests/test_builtin_versions.py)
    HOLD: ClassVar[Mapping[Effect, float]] = {  # honor a card kept in hand is worth, by effect
        Effect.BONUS: 0.25,
        Effect.REROLL: 1.0,
        Effect.ITEM: 0.05,
        Effect.PENALTY: 1.0,
        Effect.EXTRA_CHECK: 1.0,
        Effect.FINE: 0.1,
    }
    CARD_VALUE = 0.35  # honor a fortune card drawn at the meeting is worth
    ERRAND_RATE = 12 / 56
    ATTEND_RATE = 0.5  # assumed chance that another player attends
    MISSIONS_LEFT = 12  # future missions a permanent item is assumed to help

    def choose(
        self, observation: Observation, legal_actions: Sequence[Action], deadline: timedelta
    ) -> Action:
        obs = observation
        if obs.phase is Phase.CHOOSE_NINJA:
            by_id = {n.id: n for n in obs.ninja_options}
            choices = cast(Sequence[ChooseNinja], legal_actions)  # the only actions of this phase
            return max(choices, key=lambda a: (ninja_value(by_id[a.ninja]), -a.ninja))
        if obs.phase is Phase.MEETING:
            return Attend(self.attend(obs))
        if obs.phase is Phase.TRADE:
            return self.trade(obs, legal_actions)
        if obs.phase is Phase.CHOOSE_SKILL:
            return self.choose_skill(obs, legal_actions)
        if obs.phase is Phase.REROLL:
            return self.reroll(obs, legal_actions)
        if obs.active == obs.seat:
            return self.help_myself(obs, legal_actions)
        return self.hinder(obs, legal_actions)

    @staticmethod
    def ninja(obs: Observation, seat: int) -> NinjaCard:
        """Returns the ninja card ``seat`` plays (the decks are public: the JSON files of the game)."""
        ninja_id = obs.players[seat].ninja
        assert ninja_id is not None
        return _ninjas_by_id()[ninja_id]

    # -- the meeting and the Errand trade ----------------------------------------------------------

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
        targets = [a for a in legal_actions if isinstance(a, ForceTrade)]
        if not targets:  # asked without an Errand (who is asked is public): nothing to do
            return Decline()
        ninja = self.ninja(obs, obs.seat)
        assert obs.mission is not None
        items = items_of(obs, obs.seat)
        keep = mission_value(ninja, obs.mission, items)
        if unseen_value(ninja, tuple(sorted(items, key=lambda c: c.id))) <= keep:
            return Decline()
        return max(targets, key=lambda a: (obs.players[a.target].honor, -a.target))

    # -- its own mission ---------------------------------------------------------------------------

    def stake(self, obs: Observation, seat: int) -> float:
        """Returns what the current check of ``seat``'s mission is worth to the bot: its standing after
        the mission succeeds minus after it fails, times the chance of passing the checks after it.

        Positive on its own mission; on a rival's usually negative (what hindering it is worth).
        """
        mission = obs.players[seat].mission
        assert mission is not None and obs.check_index is not None
        honor = [p.honor for p in obs.players]
        won, lost = list(honor), list(honor)
        won[seat] += mission.reward_honor
        lost[seat] -= min(mission.penalty_honor, honor[seat])
        swing = self.standing_after(obs, seat, won) - self.standing_after(obs, seat, lost)
        if seat == obs.seat:
            swing += (mission.reward_money + mission.penalty_money) / MONEY_PER_HONOR
        rest = mission_chance(self.ninja(obs, seat), obs.checks[obs.check_index + 1 :], items_of(obs, seat))
        return swing * rest

    def standing_after(self, obs: Observation, active: int, honor: Sequence[int]) -> float:
        """Returns the bot's ``standing`` once ``active``'s mission has left the table at ``honor``."""
        return standing(obs.seat, honor)

    def hold(self, obs: Observation, effect: Effect) -> float:
        """Returns what a card of ``effect`` is worth kept in hand (``HOLD``), in the stakes' units."""
        return self.HOLD[effect]

    def choose_skill(self, obs: Observation, legal_actions: Sequence[Action]) -> Action:
        """Returns the skill with the best chance on this check (items and played cards included)."""
        ninja, items = self.ninja(obs, obs.seat), items_of(obs, obs.seat)
        assert obs.check_index is not None
        check, bonus = obs.checks[obs.check_index], played_bonus(obs)

        def chance(action: Action) -> tuple[float, bool]:
            assert isinstance(action, ChooseSkill)
            p = skill_chance(ninja, action.skill, check.modifier, item_bonus(items, action.skill) + bonus)
            spends = any(c.single_use and c.skill == action.skill for c in items)
            return p, not spends

        return max(legal_actions, key=chance)

    def reroll(self, obs: Observation, legal_actions: Sequence[Action]) -> Action:
        """Plays a reroll card when the mission it saves is worth more than keeping the card."""
        assert obs.check_index is not None
        p = current_chance(obs, self.ninja(obs, obs.seat), items_of(obs, obs.seat))
        if p * self.stake(obs, obs.seat) > self.hold(obs, Effect.REROLL):
            return legal_actions[0]
        return Decline()

    def help_myself(self, obs: Observation, legal_actions: Sequence[Action]) -> Action:
        """Plays the bonus or buys the item that adds the most expected honor beyond its hold value."""
        ninja, items = self.ninja(obs, obs.seat), items_of(obs, obs.seat)
        base = current_chance(obs, ninja, items)
        stake = self.stake(obs, obs.seat)
        hand = {c.id: c for c in obs.hand}
        best: Decline | PlayFortune
        best, best_value = Decline(), 0.0
        for action in legal_actions:
            if not isinstance(action, PlayFortune):
                continue
            card = hand[action.card]
            if card.effect == Effect.BONUS:
                gain = (current_chance(obs, ninja, items, card.value) - base) * stake
            else:
                gain = (current_chance(obs, ninja, (*items, card)) - base) * stake
                if not card.single_use:
                    key = tuple(sorted(items, key=lambda c: c.id))
                    gain += self.MISSIONS_LEFT * item_future_value(ninja, key, card)
                gain -= card.price / MONEY_PER_HONOR
            gain -= self.hold(obs, card.effect)
            if gain > best_value:
                best, best_value = action, gain
        return best

    # -- opponents' missions -----------------------------------------------------------------------

    def hinder(self, obs: Observation, legal_actions: Sequence[Action]) -> Action:
        """Plays the Interesting Times card whose harm to the bot's standing beats its hold value.

        Design Detail: the harm is measured on the bot's standing, not on the victim's honor, so the
        cards are saved for the leader (a rival far behind changes nothing) and are not played where a
        failure would end the game with the bot behind.
        """
        assert obs.active is not None and obs.check_index is not None
        victim = obs.players[obs.active]
        if victim.mission is None:
            return Decline()
        ninja, items = self.ninja(obs, obs.active), items_of(obs, obs.active)
        now = current_chance(obs, ninja, items)
        stake = -self.stake(obs, obs.active)
        top = max(p.honor for p in obs.players if p.seat != obs.seat)
        hand = {c.id: c for c in obs.hand}
        best: Decline | PlayFortune
        best, best_value = Decline(), 0.0
        for action in legal_actions:
            if not isinstance(action, PlayFortune):
                continue
            card = hand[action.card]
            if card.effect == Effect.PENALTY:
                harm = (now - current_chance(obs, ninja, items, -card.value)) * stake
            elif card.effect == Effect.EXTRA_CHECK:
                assert card.skill is not None
                extra = check_chance(ninja, Check((card.skill,), card.value), items)
                harm = now * (1 - extra) * stake
            else:
                harm = min(card.value, victim.money) / MONEY_PER_HONOR * (victim.honor == top)
            harm -= self.hold(obs, card.effect)
            if harm > best_value:
                best, best_value = action, harm
        return best


__all__ = ["ChooseNinja", "ChooseSkill", "NinjaBot", "RandomBot", "cdf"]
