"""Ninja Burger: the cards, the game's constants and the 3d6 check arithmetic (pure data, no state).

The three decks are read from ninjas.json, missions.json and fortune.json beside this module. The
rules (``table``) and the engine (``engine``) build on this; bots and tests use it, through the
engine's re-exports, to read the decks and to work out a check's odds.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from enum import IntEnum
from pathlib import Path

from arena.games.rng import derive

DATA = Path(__file__).resolve().parent  # the decks sit beside the engine
START_HONOR = 6
START_FORTUNE = 3
NINJAS_DEALT = 3
SALARY = 100
LEADER_BONUS = 50  # to the one player with the most honor; nobody gets it on a tie
SALARY_ABILITY_BONUS = 50
ROUND_CAP = 60
END_HIGH = 10  # the game ends when total honor >= END_HIGH * players ...
END_LOW = 4  # ... or <= END_LOW * players


def honor_ends_game(honor: Sequence[int]) -> bool:
    """Returns whether a table at ``honor`` (by seat) is over (Step 9): the total at ``END_HIGH``
    times the players or more, or ``END_LOW`` times or less. The engine and the bots' reasoning ask
    this one rule."""
    total, n = sum(honor), len(honor)
    return total >= END_HIGH * n or total <= END_LOW * n


class Skill(IntEnum):
    STEALTH = 1
    CLIMBING = 2
    SWIMMING = 3
    DRIVING = 4
    COMPUTERS = 5
    ANIMALS = 6
    CUSTOMER_SERVICE = 7
    OTHER_STUFF = 8


class Ability(IntEnum):
    NEVER_FAILS = 1  # checks in the ability's skill pass without a roll
    PLUS_TWO = 2  # +2 to the ability's skill
    REROLL = 3  # one free reroll per mission of a failed roll in the ability's skill
    SALARY = 4  # +$50 salary every round


class FortuneKind(IntEnum):
    NINJA_STUFF = 1  # an item, bought with money, kept in play
    INTERESTING_TIMES = 2  # played on an opponent's mission (never on an Errand)
    GOOD_FORTUNE = 3  # played on one's own mission


class Effect(IntEnum):
    ITEM = 1  # Ninja Stuff: +value to checks in ``skill`` (a single-use item is spent on the first)
    PENALTY = 2  # Interesting Times: -value to the current check
    EXTRA_CHECK = 3  # Interesting Times: adds a check in ``skill`` with modifier ``value``
    FINE = 4  # Interesting Times: the active player pays $value (money never goes below 0)
    REROLL = 5  # Good Fortune: reroll a failed check
    BONUS = 6  # Good Fortune: +value to the current check


# Cards -----------------------------------------------------------------------------------------


def _hash_by_id(card: NinjaCard | MissionCard | FortuneCard) -> int:
    """Design Detail: card ids are unique within a deck, so hashing by (deck, id) agrees with ``==``
    and keeps set operations on cards (secrecy checks, conservation tests) cheap."""
    return hash((type(card).__name__, card.id))


@dataclasses.dataclass(frozen=True)
class NinjaCard:
    id: int
    name: str
    skills: tuple[Skill, ...]  # the listed skills ...
    values: tuple[int, ...]  # ... and their values, in the same order
    other_stuff: int  # the value of every skill not listed
    ability: Ability | None
    ability_skill: Skill | None

    __hash__ = _hash_by_id

    def skill(self, skill: Skill) -> int:
        """Returns the ninja's value in ``skill`` (Other Stuff when unlisted, +2 from PLUS_TWO)."""
        value = self.values[self.skills.index(skill)] if skill in self.skills else self.other_stuff
        if self.ability == Ability.PLUS_TWO and self.ability_skill == skill:
            value += 2
        return value


@dataclasses.dataclass(frozen=True)
class Check:
    skills: tuple[Skill, ...]  # one skill, or a choice of skills
    modifier: int  # added to the skill: negative makes the check harder


@dataclasses.dataclass(frozen=True)
class MissionCard:
    id: int
    name: str
    errand: bool
    checks: tuple[Check, ...]
    reward_honor: int
    reward_money: int
    penalty_honor: int  # honor lost on failure
    penalty_money: int  # dollars lost on failure

    __hash__ = _hash_by_id


@dataclasses.dataclass(frozen=True)
class FortuneCard:
    id: int
    name: str
    kind: FortuneKind
    effect: Effect
    skill: Skill | None
    value: int
    price: int  # dollars, for Ninja Stuff
    single_use: bool
    immediate: bool  # may be played in any window; otherwise only before a mission's first check

    __hash__ = _hash_by_id


def _skill(name: str) -> Skill:
    return Skill[name.upper()]


def _read_ninja_cards() -> tuple[NinjaCard, ...]:
    """Returns the 18 ninja cards of data/ninja_burger_ninjas.json: 3 for each of 6 players."""
    cards = json.loads((DATA / "ninjas.json").read_text())["cards"]
    return tuple(
        NinjaCard(
            id=c["id"],
            name=c["name"],
            skills=tuple(map(_skill, c["skills"])),
            values=tuple(c["skills"].values()),
            other_stuff=c["other_stuff"],
            ability=Ability[c["ability"]["kind"].upper()] if c["ability"] else None,
            ability_skill=_skill(c["ability"]["skill"]) if c["ability"] and "skill" in c["ability"] else None,
        )
        for c in cards
    )


def _read_mission_cards() -> tuple[MissionCard, ...]:
    """Returns the 56 mission cards (44 missions, 12 Errands) of data/ninja_burger_missions.json."""
    cards = json.loads((DATA / "missions.json").read_text())["cards"]
    return tuple(
        MissionCard(
            id=c["id"],
            name=c["name"],
            errand=c["errand"],
            checks=tuple(Check(tuple(map(_skill, ch["skills"])), ch["modifier"]) for ch in c["checks"]),
            reward_honor=c["reward"]["honor"],
            reward_money=c["reward"]["money"],
            penalty_honor=c["penalty"]["honor"],
            penalty_money=c["penalty"]["money"],
        )
        for c in cards
    )


def _read_fortune_cards() -> tuple[FortuneCard, ...]:
    """Returns the 72 fortune cards of data/ninja_burger_fortune.json (22 immediate, the rerolls too)."""
    cards = json.loads((DATA / "fortune.json").read_text())["cards"]
    return tuple(
        FortuneCard(
            id=c["id"],
            name=c["name"],
            kind=FortuneKind[c["kind"].upper()],
            effect=Effect[c["effect"].upper()],
            skill=_skill(c["skill"]) if c["skill"] else None,
            value=c["value"],
            price=c["price"],
            single_use=c["single_use"],
            immediate=c["immediate"],
        )
        for c in cards
    )


# Design detail: the card tables are read once, when the module is imported, into immutable tuples:
# module constants, not a cache filled on first use, so the engine keeps no mutable state anywhere.
NINJA_CARDS = _read_ninja_cards()
MISSION_CARDS = _read_mission_cards()
FORTUNE_CARDS = _read_fortune_cards()


def ninja_cards() -> tuple[NinjaCard, ...]:
    """Returns the 18 ninja cards (``NINJA_CARDS``)."""
    return NINJA_CARDS


def mission_cards() -> tuple[MissionCard, ...]:
    """Returns the 56 mission cards (``MISSION_CARDS``)."""
    return MISSION_CARDS


def fortune_cards() -> tuple[FortuneCard, ...]:
    """Returns the 72 fortune cards (``FORTUNE_CARDS``)."""
    return FORTUNE_CARDS


# Dice ------------------------------------------------------------------------------------------


def roll_3d6(seed: int, round_: int, seat: int, attempt: int) -> tuple[int, int, int]:
    """Returns the three dice of one skill-check roll, derived from the match seed."""
    rng = derive(seed, "roll", round_, seat, attempt)
    return (rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 6))


def check_total(dice: tuple[int, ...], modifier: int, bonus: int) -> int:
    """Returns the total compared with the skill: the dice minus the check's modifier and bonuses.

    >>> check_total((3, 4, 5), -2, 3)   # 12, a -2 check (harder) with a +3 bonus
    11
    """
    return sum(dice) - modifier - bonus


def check_passes(dice: tuple[int, ...], modifier: int, bonus: int, skill: int) -> bool:
    """Returns whether a roll passes: a total greater than the skill fails, anything else passes."""
    return check_total(dice, modifier, bonus) <= skill
