"""Ninja Burger: secret ninjas deliver fast food; missions are 3d6 skill checks, honor wins.

Rules as implemented: docs/rules/ninja-burger.md. In short: each player keeps one of the ninja cards
dealt to them (a simultaneous choice) and holds fortune cards. Every round pays a salary, deals each
player a mission card and asks everyone at once whether they go to the staff meeting; attendees draw a
fortune card, and an attendee holding an Errand may force a lower-honor attendee to swap missions.
Then, from the most honorable ninja down, each player attempts their mission: every skill check is a
3d6 roll that must not exceed the ninja's skill after the card's modifier and the bonuses of the
fortune cards played on it. Success gives the mission's reward, failure its penalty. The game ends
when the total honor reaches 10 times the number of players, or falls to 4 times; the most honor wins.

=====================  =========================================================
players                2 to 6
decisions              simultaneous (ninja choice, staff meeting), then sequential
                       (Errand trades, fortune windows, skill choices, rerolls)
chance                 seeded shuffles of three decks, seeded roll-off, 3d6 rolls
information            imperfect: fortune hands, unrevealed missions and decks are hidden
length                 until the honor total leaves (4n, 10n), at most 60 rounds
cards                  16 ninjas, 56 missions (12 Errands), 72 fortune cards: arena/games/data
=====================  =========================================================

Design Detail: every step that needs no decision (salary, deals, draws, reveals, 3d6 rolls, rewards
and penalties) is resolved inside the ``apply`` that leads to it, from the seeded RNG; a fortune
window or reroll window only asks the seats that hold a card they could play there. That keeps a game
at a few hundred decisions.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping, Sequence
from enum import IntEnum
from pathlib import Path

from arena.games.base import Game, GameSpec, IllegalActionError
from arena.games.rng import derive

DATA = Path(__file__).resolve().parent / "data"
START_HONOR = 6
START_FORTUNE = 3
NINJAS_DEALT = 3
SALARY = 100
LEADER_BONUS = 50  # to the one player with the most honor; nobody gets it on a tie
SALARY_ABILITY_BONUS = 50
ROUND_CAP = 60
END_HIGH = 10  # the game ends when total honor >= END_HIGH * players ...
END_LOW = 4  # ... or <= END_LOW * players


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


class Phase(IntEnum):
    CHOOSE_NINJA = 1  # every seat keeps one of its dealt ninja cards, at the same time
    MEETING = 2  # every seat decides at the same time whether to attend the staff meeting
    TRADE = 3  # an Errand holder may force a lower-honor attendee to trade missions
    CHOOSE_SKILL = 4  # the active player picks the skill of a check that offers a choice, before its roll
    WINDOW = 5  # fortune window before a check: one seat may play a card or decline
    REROLL = 6  # the active player failed a roll and may play a reroll card
    OVER = 7


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


@functools.cache
def ninja_cards() -> tuple[NinjaCard, ...]:
    """Returns the 16 ninja cards of data/ninja_burger_ninjas.json."""
    cards = json.loads((DATA / "ninja_burger_ninjas.json").read_text())["cards"]
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


@functools.cache
def mission_cards() -> tuple[MissionCard, ...]:
    """Returns the 56 mission cards (44 missions, 12 Errands) of data/ninja_burger_missions.json."""
    cards = json.loads((DATA / "ninja_burger_missions.json").read_text())["cards"]
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


@functools.cache
def fortune_cards() -> tuple[FortuneCard, ...]:
    """Returns the 72 fortune cards of data/ninja_burger_fortune.json."""
    cards = json.loads((DATA / "ninja_burger_fortune.json").read_text())["cards"]
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


# Observation -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Play:
    seat: int
    card: FortuneCard


@dataclasses.dataclass(frozen=True)
class PlayerView:
    seat: int
    ninja: int | None  # id of the ninja card (see ninja_cards()); None while ninjas are being chosen
    honor: int
    money: int
    hand_size: int
    items: tuple[int, ...]  # ids of the Ninja Stuff in play (see fortune_cards())
    attended: bool  # went to this round's staff meeting
    mission: MissionCard | None  # this round's mission, once revealed


@dataclasses.dataclass(frozen=True)
class Observation:
    seat: int
    round: int  # 0 while choosing ninjas, then 1..60
    phase: Phase
    players: tuple[PlayerView, ...]
    hand: tuple[FortuneCard, ...]  # this seat's fortune cards
    mission: MissionCard | None  # this seat's mission this round
    ninja_options: tuple[NinjaCard, ...]  # the ninja cards dealt to this seat, while choosing
    order: tuple[int, ...]  # this round's mission order (most honor first), once set
    active: int | None  # the seat whose mission is being attempted
    checks: tuple[Check, ...]  # the active mission's checks, extra checks included
    plan: tuple[Skill, ...]  # the skill of each check so far, the current one once it is set
    check_index: int | None  # the check being attempted
    plays: tuple[Play, ...]  # fortune cards played on this check so far
    mission_deck: int  # cards left in the mission deck
    fortune_deck: int  # cards left in the fortune deck


# Actions ---------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ChooseNinja:
    ninja: int  # id of one of the dealt ninja cards


@dataclasses.dataclass(frozen=True)
class Attend:
    attend: bool


@dataclasses.dataclass(frozen=True)
class ForceTrade:
    target: int  # seat that must trade missions with the Errand holder


@dataclasses.dataclass(frozen=True)
class ChooseSkill:
    skill: Skill  # one of the current check's skills, for its roll


@dataclasses.dataclass(frozen=True)
class ChooseSkills:
    """Retired: never legal (skills are now chosen check by check with ``ChooseSkill``).

    Design Detail: it stays in the action union, as its message stays in the proto, so that a bot
    written against the old contract gets an illegal-action error rather than a malformed message.
    """

    skills: tuple[Skill, ...]


@dataclasses.dataclass(frozen=True)
class PlayFortune:
    card: int  # id of a fortune card in the hand


@dataclasses.dataclass(frozen=True)
class Decline:
    """Pass: no trade, no card in this window, no reroll."""


Action = ChooseNinja | Attend | ForceTrade | ChooseSkill | PlayFortune | Decline | ChooseSkills

# Events ----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class NinjasChosen:
    ninjas: tuple[NinjaCard, ...]  # by seat


@dataclasses.dataclass(frozen=True)
class RoundStarted:
    round: int
    leader: int | None  # the seat paid the $50 bonus; None on a tie for the most honor
    salaries: tuple[int, ...]  # dollars paid to each seat


@dataclasses.dataclass(frozen=True)
class MeetingHeld:
    attendees: tuple[int, ...]
    order: tuple[int, ...]  # the round's mission order (honor, then the seeded roll-off)


@dataclasses.dataclass(frozen=True)
class MissionsTraded:
    seat: int  # the Errand holder
    target: int


@dataclasses.dataclass(frozen=True)
class MissionRevealed:
    seat: int
    mission: int  # card id (the card itself is in every observation this round)


@dataclasses.dataclass(frozen=True)
class FortunePlayed:
    seat: int
    card: int  # card id
    on: int  # the active seat


@dataclasses.dataclass(frozen=True)
class CheckRolled:
    seat: int
    check: int  # index into the mission's checks
    skill: Skill
    dice: tuple[int, ...]  # the three dice; empty when the ninja never fails this skill
    total: int  # dice - modifier - bonuses
    target: int  # the ninja's skill
    passed: bool


@dataclasses.dataclass(frozen=True)
class MissionEnded:
    seat: int
    mission: int  # card id
    success: bool
    honor: int  # honor change actually applied
    money: int  # money change actually applied


Event = (
    NinjasChosen
    | RoundStarted
    | MeetingHeld
    | MissionsTraded
    | MissionRevealed
    | FortunePlayed
    | CheckRolled
    | MissionEnded
)


# State -----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class NinjaBurgerState:
    """The whole table, decks in draw order (the last card is drawn first)."""

    seed: int
    phase: Phase
    round: int
    ninja_deck: tuple[NinjaCard, ...]
    ninja_options: tuple[tuple[NinjaCard, ...], ...]
    ninja_discard: tuple[NinjaCard, ...]
    ninjas: tuple[NinjaCard | None, ...]
    honor: tuple[int, ...]
    money: tuple[int, ...]
    hands: tuple[tuple[FortuneCard, ...], ...]
    items: tuple[tuple[FortuneCard, ...], ...]
    fortune_deck: tuple[FortuneCard, ...]
    fortune_discard: tuple[FortuneCard, ...]
    missions: tuple[MissionCard | None, ...]
    mission_deck: tuple[MissionCard, ...]
    mission_discard: tuple[MissionCard, ...]
    attended: tuple[bool, ...]
    revealed: tuple[bool, ...]
    order: tuple[int, ...] = ()
    trade_index: int = 0
    mission_index: int = 0
    checks: tuple[Check, ...] = ()
    check_index: int = 0
    plan: tuple[Skill, ...] = ()  # the skill of each check so far, the current one once it is set
    queue: tuple[int, ...] = ()  # seats still to act in the fortune window
    plays: tuple[Play, ...] = ()
    attempt: int = 0  # rolls made in this mission (labels the seeded dice)
    ability_reroll_used: bool = False
    fortune_shuffles: int = 0
    mission_shuffles: int = 0
    capped: bool = False
    last_events: tuple[Event, ...] = ()

    @property
    def num_players(self) -> int:
        return len(self.honor)

    @property
    def active(self) -> int | None:
        """Returns the seat attempting its mission, if any."""
        if self.phase in (Phase.CHOOSE_SKILL, Phase.WINDOW, Phase.REROLL):
            return self.order[self.mission_index]
        return None


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


def playable_in_window(state: NinjaBurgerState, seat: int) -> tuple[FortuneCard, ...]:
    """Returns the cards ``seat`` may play in the current fortune window, sorted by id."""
    active = state.active
    if state.phase is not Phase.WINDOW or active is None:
        return ()
    mission = state.missions[active]
    assert mission is not None
    return _playable(state.hands[seat], seat, active, mission, state.check_index == 0, state.money[seat])


def _playable(
    hand: Sequence[FortuneCard], seat: int, active: int, mission: MissionCard, opening: bool, money: int
) -> tuple[FortuneCard, ...]:
    cards = []
    for card in hand:
        if not (card.immediate or opening):
            continue
        if seat != active:
            if card.kind == FortuneKind.INTERESTING_TIMES and not mission.errand:
                cards.append(card)
        elif card.effect == Effect.BONUS or (card.effect == Effect.ITEM and card.price <= money):
            cards.append(card)
    return tuple(sorted(cards, key=lambda c: c.id))


def rerolls_in_hand(state: NinjaBurgerState, seat: int) -> tuple[FortuneCard, ...]:
    """Returns the reroll cards ``seat`` holds, sorted by id."""
    return _rerolls(state.hands[seat])


def _rerolls(hand: Sequence[FortuneCard]) -> tuple[FortuneCard, ...]:
    return tuple(sorted((c for c in hand if c.effect == Effect.REROLL), key=lambda c: c.id))


def trade_targets(state: NinjaBurgerState, seat: int) -> tuple[int, ...]:
    """Returns the seats an attending Errand holder may force to trade: attendees with less honor."""
    return _targets(state.attended, state.missions, state.honor, seat)


def _targets(
    attended: Sequence[bool], missions: Sequence[MissionCard | None], honor: Sequence[int], seat: int
) -> tuple[int, ...]:
    mission = missions[seat]
    if not attended[seat] or mission is None or not mission.errand:
        return ()
    return tuple(t for t in range(len(honor)) if t != seat and attended[t] and honor[t] < honor[seat])


def check_bonus(state: NinjaBurgerState, seat: int, skill: Skill) -> int:
    """Returns the current check's bonus: items in ``skill``, plus Good Fortune, minus Interesting Times."""
    return _bonus(state.items[seat], state.plays, skill)


def _bonus(items: Sequence[FortuneCard], plays: Sequence[Play], skill: Skill) -> int:
    bonus = sum(c.value for c in items if c.skill == skill)
    for play in plays:
        if play.card.effect == Effect.BONUS:
            bonus += play.card.value
        elif play.card.effect == Effect.PENALTY:
            bonus -= play.card.value
    return bonus


class _Table:
    """A mutable working copy of a state, used inside one ``apply`` and then frozen again.

    Design Detail: the rules read most naturally as a sequence of in-place steps; doing them on a
    private copy keeps ``apply`` pure (the caller's state is never touched).
    """

    def __init__(self, s: NinjaBurgerState) -> None:
        self.s = s
        self.n = s.num_players
        self.phase = s.phase
        self.round = s.round
        self.ninja_deck = list(s.ninja_deck)
        self.ninja_options = [list(o) for o in s.ninja_options]
        self.ninja_discard = list(s.ninja_discard)
        self.ninjas = list(s.ninjas)
        self.honor = list(s.honor)
        self.money = list(s.money)
        self.hands = [list(h) for h in s.hands]
        self.items = [list(i) for i in s.items]
        self.fortune_deck = list(s.fortune_deck)
        self.fortune_discard = list(s.fortune_discard)
        self.missions = list(s.missions)
        self.mission_deck = list(s.mission_deck)
        self.mission_discard = list(s.mission_discard)
        self.attended = list(s.attended)
        self.revealed = list(s.revealed)
        self.order = s.order
        self.trade_index = s.trade_index
        self.mission_index = s.mission_index
        self.checks = list(s.checks)
        self.check_index = s.check_index
        self.plan = list(s.plan)
        self.queue = list(s.queue)
        self.plays = list(s.plays)
        self.attempt = s.attempt
        self.ability_reroll_used = s.ability_reroll_used
        self.fortune_shuffles = s.fortune_shuffles
        self.mission_shuffles = s.mission_shuffles
        self.capped = s.capped
        self.events: list[Event] = []

    def freeze(self) -> NinjaBurgerState:
        return NinjaBurgerState(
            seed=self.s.seed,
            phase=self.phase,
            round=self.round,
            ninja_deck=tuple(self.ninja_deck),
            ninja_options=tuple(map(tuple, self.ninja_options)),
            ninja_discard=tuple(self.ninja_discard),
            ninjas=tuple(self.ninjas),
            honor=tuple(self.honor),
            money=tuple(self.money),
            hands=tuple(map(tuple, self.hands)),
            items=tuple(map(tuple, self.items)),
            fortune_deck=tuple(self.fortune_deck),
            fortune_discard=tuple(self.fortune_discard),
            missions=tuple(self.missions),
            mission_deck=tuple(self.mission_deck),
            mission_discard=tuple(self.mission_discard),
            attended=tuple(self.attended),
            revealed=tuple(self.revealed),
            order=self.order,
            trade_index=self.trade_index,
            mission_index=self.mission_index,
            checks=tuple(self.checks),
            check_index=self.check_index,
            plan=tuple(self.plan),
            queue=tuple(self.queue),
            plays=tuple(self.plays),
            attempt=self.attempt,
            ability_reroll_used=self.ability_reroll_used,
            fortune_shuffles=self.fortune_shuffles,
            mission_shuffles=self.mission_shuffles,
            capped=self.capped,
            last_events=tuple(self.events),
        )

    # decks ------------------------------------------------------------------------------------

    def draw_fortune(self, seat: int) -> None:
        if not self.fortune_deck and self.fortune_discard:
            self.fortune_shuffles += 1
            self.fortune_deck = self.fortune_discard
            self.fortune_discard = []
            derive(self.s.seed, "fortune", self.fortune_shuffles).shuffle(self.fortune_deck)
        if self.fortune_deck:
            self.hands[seat].append(self.fortune_deck.pop())

    def draw_mission(self) -> MissionCard:
        if not self.mission_deck:
            self.mission_shuffles += 1
            self.mission_deck = self.mission_discard
            self.mission_discard = []
            derive(self.s.seed, "missions", self.mission_shuffles).shuffle(self.mission_deck)
        return self.mission_deck.pop()

    # the round --------------------------------------------------------------------------------

    def start_round(self) -> None:
        """Step 2 and 3: salary (and the leader's $50 unless tied), a mission each, the meeting call."""
        if self.round >= ROUND_CAP:
            self.capped = True
            self.phase = Phase.OVER
            return
        self.round += 1
        top = max(self.honor)
        leaders = [s for s in range(self.n) if self.honor[s] == top]
        leader = leaders[0] if len(leaders) == 1 else None
        salaries = []
        for seat in range(self.n):
            pay = SALARY + (LEADER_BONUS if seat == leader else 0)
            ninja = self.ninjas[seat]
            if ninja is not None and ninja.ability == Ability.SALARY:
                pay += SALARY_ABILITY_BONUS
            self.money[seat] += pay
            salaries.append(pay)
        self.events.append(RoundStarted(self.round, leader, tuple(salaries)))
        self.missions = [self.draw_mission() for _ in range(self.n)]
        self.attended = [False] * self.n
        self.revealed = [False] * self.n
        self.order = ()
        self.phase = Phase.MEETING

    def hold_meeting(self, attend: Mapping[int, bool]) -> None:
        """Step 4: attendees draw a fortune card; the round's order is set; Errand trades begin."""
        self.attended = [bool(attend[s]) for s in range(self.n)]
        for seat in range(self.n):
            if self.attended[seat]:
                self.draw_fortune(seat)
        rolloff = list(range(self.n))
        derive(self.s.seed, "rolloff", self.round).shuffle(rolloff)
        self.order = tuple(sorted(range(self.n), key=lambda s: (-self.honor[s], rolloff.index(s))))
        attendees = tuple(s for s in range(self.n) if self.attended[s])
        self.events.append(MeetingHeld(attendees, self.order))
        self.trade_index = 0
        self.next_trade()

    def next_trade(self) -> None:
        while self.trade_index < self.n:
            if _targets(self.attended, self.missions, self.honor, self.order[self.trade_index]):
                self.phase = Phase.TRADE
                return
            self.trade_index += 1
        self.mission_index = 0
        self.start_mission()

    def trade(self, target: int) -> None:
        seat = self.order[self.trade_index]
        self.missions[seat], self.missions[target] = self.missions[target], self.missions[seat]
        self.events.append(MissionsTraded(seat, target))

    # missions ---------------------------------------------------------------------------------

    @property
    def active(self) -> int:
        return self.order[self.mission_index]

    @property
    def skill(self) -> Skill:
        return self.plan[self.check_index]

    def start_mission(self) -> None:
        """Step 5: the next ninja in honor order reveals the mission and attempts its checks."""
        if self.mission_index == self.n:
            self.end_round()
            return
        seat = self.active
        mission = self.missions[seat]
        assert mission is not None
        self.revealed[seat] = True
        self.events.append(MissionRevealed(seat, mission.id))
        self.checks = list(mission.checks)
        self.check_index = 0
        self.attempt = 0
        self.ability_reroll_used = False
        self.plan = []
        self.start_check()

    def start_check(self) -> None:
        """A check's skill is set now if it names one; a choice waits until after the window."""
        if self.check_index == len(self.checks):
            self.end_mission(success=True)
            return
        skills = self.checks[self.check_index].skills
        if len(skills) == 1:
            self.plan.append(skills[0])
        self.plays = []
        self.open_window()

    def close_window(self) -> None:
        """The window is over: the active player picks the skill of a choice check, then the roll."""
        if len(self.plan) == self.check_index:
            self.queue = []
            self.phase = Phase.CHOOSE_SKILL
            return
        self.roll()

    def choose_skill(self, skill: Skill) -> None:
        self.plan.append(skill)
        self.roll()

    def open_window(self) -> None:
        """Step 6: opponents in seat order after the active player, then the active player."""
        active = self.active
        self.queue = [(active + k) % self.n for k in range(1, self.n)] + [active]
        self.phase = Phase.WINDOW
        self.next_window()

    def next_window(self) -> None:
        while self.queue:
            seat = self.queue[0]
            mission = self.missions[self.active]
            assert mission is not None
            opening = self.check_index == 0
            if _playable(self.hands[seat], seat, self.active, mission, opening, self.money[seat]):
                self.phase = Phase.WINDOW
                return
            self.queue.pop(0)
        self.close_window()

    def play(self, seat: int, card_id: int) -> None:
        """Plays a fortune card from ``seat``'s hand on the current check."""
        card = next(c for c in self.hands[seat] if c.id == card_id)
        self.hands[seat].remove(card)
        active = self.active
        if card.effect == Effect.ITEM:
            self.money[seat] -= card.price
            self.items[seat].append(card)
        else:
            self.fortune_discard.append(card)
        if card.effect == Effect.FINE:
            self.money[active] = max(0, self.money[active] - card.value)
        elif card.effect == Effect.EXTRA_CHECK:
            assert card.skill is not None
            self.checks.append(Check((card.skill,), card.value))
        self.plays.append(Play(seat, card))
        self.events.append(FortunePlayed(seat, card.id, active))

    def roll(self) -> None:
        """A 3d6 roll against the current check from the seeded RNG (or an automatic pass)."""
        seat = self.active
        ninja = self.ninjas[seat]
        skill = self.skill
        assert ninja is not None
        check = self.checks[self.check_index]
        target = ninja.skill(skill)
        if ninja.ability == Ability.NEVER_FAILS and ninja.ability_skill == skill:
            dice: tuple[int, ...] = ()
            total, passed = 0, True
        else:
            dice = roll_3d6(self.s.seed, self.round, seat, self.attempt)
            self.attempt += 1
            bonus = _bonus(self.items[seat], self.plays, skill)
            total = check_total(dice, check.modifier, bonus)
            passed = total <= target
        self.events.append(CheckRolled(seat, self.check_index, skill, dice, total, target, passed))
        if passed:
            self.end_check()
            self.check_index += 1
            self.start_check()
        else:
            self.after_fail()

    def after_fail(self) -> None:
        seat = self.active
        ninja = self.ninjas[seat]
        assert ninja is not None
        if (
            ninja.ability == Ability.REROLL
            and ninja.ability_skill == self.skill
            and not self.ability_reroll_used
        ):
            self.ability_reroll_used = True
            self.roll()
        elif _rerolls(self.hands[seat]):
            self.phase = Phase.REROLL
        else:
            self.end_check()
            self.end_mission(success=False)

    def end_check(self) -> None:
        """Spends the single-use items that applied to the check."""
        seat = self.active
        spent = [c for c in self.items[seat] if c.single_use and c.skill == self.skill]
        for card in spent:
            self.items[seat].remove(card)
            self.fortune_discard.append(card)
        self.plays = []
        self.queue = []

    def end_mission(self, success: bool) -> None:
        """Step 7: the reward or the penalty; then the end test, then the next ninja's mission."""
        seat = self.active
        mission = self.missions[seat]
        assert mission is not None
        if success:
            honor, money = mission.reward_honor, mission.reward_money
        else:
            honor = -min(mission.penalty_honor, self.honor[seat])
            money = -min(mission.penalty_money, self.money[seat])
        self.honor[seat] += honor
        self.money[seat] += money
        self.events.append(MissionEnded(seat, mission.id, success, honor, money))
        self.checks, self.check_index, self.plan, self.plays, self.queue = [], 0, [], [], []
        total = sum(self.honor)
        if total >= END_HIGH * self.n or total <= END_LOW * self.n:
            self.phase = Phase.OVER
            return
        self.mission_index += 1
        self.start_mission()

    def end_round(self) -> None:
        """Step 8: missions go to the discard pile and the next round starts."""
        self.mission_discard.extend(m for m in self.missions if m is not None)
        self.missions = [None] * self.n
        self.revealed = [False] * self.n
        self.start_round()


class NinjaBurger(Game[NinjaBurgerState, Action]):
    spec = GameSpec(
        name="ninja-burger",
        wire_name="ninja_burger",
        title="Ninja Burger",
        min_players=2,
        max_players=6,
        simultaneous=True,
        chance=True,
        perfect_information=False,
        max_steps=1 + ROUND_CAP * 400,
        description="Ninjas on fast-food missions: 3d6 skill checks, fortune cards, the most honor wins.",
    )
    observation_type = Observation
    action_type = Action
    event_type = Event

    def initial_state(self, num_players: int, seed: int) -> NinjaBurgerState:
        """Returns the table after Step 1's deal: ninja cards to choose from, 3 fortune cards, 6 honor.

        With 6 players the 16 ninja cards allow only 2 each (16 // 6); otherwise 3 each.
        """
        self.check_players(num_players)
        ninjas = list(ninja_cards())
        derive(seed, "ninjas").shuffle(ninjas)
        dealt = min(NINJAS_DEALT, len(ninjas) // num_players)
        options = tuple(tuple(ninjas[i * dealt : (i + 1) * dealt]) for i in range(num_players))
        fortune = list(fortune_cards())
        derive(seed, "fortune", 0).shuffle(fortune)
        hands = tuple(tuple(fortune[-START_FORTUNE * (i + 1) :][:START_FORTUNE]) for i in range(num_players))
        fortune = fortune[: len(fortune) - START_FORTUNE * num_players]
        missions = list(mission_cards())
        derive(seed, "missions", 0).shuffle(missions)
        return NinjaBurgerState(
            seed=seed,
            phase=Phase.CHOOSE_NINJA,
            round=0,
            ninja_deck=tuple(ninjas[dealt * num_players :]),
            ninja_options=options,
            ninja_discard=(),
            ninjas=(None,) * num_players,
            honor=(START_HONOR,) * num_players,
            money=(0,) * num_players,
            hands=hands,
            items=((),) * num_players,
            fortune_deck=tuple(fortune),
            fortune_discard=(),
            missions=(None,) * num_players,
            mission_deck=tuple(missions),
            mission_discard=(),
            attended=(False,) * num_players,
            revealed=(False,) * num_players,
        )

    def to_move(self, state: NinjaBurgerState) -> tuple[int, ...]:
        phase = state.phase
        if phase in (Phase.CHOOSE_NINJA, Phase.MEETING):
            return tuple(range(state.num_players))
        if phase is Phase.TRADE:
            return (state.order[state.trade_index],)
        if phase is Phase.WINDOW:
            return (state.queue[0],)
        if phase in (Phase.CHOOSE_SKILL, Phase.REROLL):
            assert state.active is not None
            return (state.active,)
        return ()

    def legal_actions(self, state: NinjaBurgerState, seat: int) -> tuple[Action, ...]:
        if seat not in self.to_move(state):
            return ()
        phase = state.phase
        if phase is Phase.CHOOSE_NINJA:
            return tuple(ChooseNinja(c.id) for c in sorted(state.ninja_options[seat], key=lambda c: c.id))
        if phase is Phase.MEETING:
            return (Attend(False), Attend(True))
        if phase is Phase.TRADE:
            return (*(ForceTrade(t) for t in trade_targets(state, seat)), Decline())
        if phase is Phase.CHOOSE_SKILL:
            return tuple(ChooseSkill(s) for s in sorted(state.checks[state.check_index].skills))
        if phase is Phase.WINDOW:
            return (*(PlayFortune(c.id) for c in playable_in_window(state, seat)), Decline())
        return (*(PlayFortune(c.id) for c in rerolls_in_hand(state, seat)), Decline())

    def _apply_unchecked(self, state: NinjaBurgerState, actions: Mapping[int, Action]) -> NinjaBurgerState:
        table = _Table(state)
        phase = state.phase
        if phase is Phase.CHOOSE_NINJA:
            for seat in range(table.n):
                action = actions[seat]
                if not isinstance(action, ChooseNinja):
                    raise IllegalActionError(f"seat {seat} must choose a ninja, not {action!r}")
                for card in table.ninja_options[seat]:
                    if card.id == action.ninja:
                        table.ninjas[seat] = card
                    else:
                        table.ninja_discard.append(card)
                table.ninja_options[seat] = []
            table.events.append(NinjasChosen(tuple(c for c in table.ninjas if c is not None)))
            table.start_round()
        elif phase is Phase.MEETING:
            attend = {}
            for seat, action in actions.items():
                if not isinstance(action, Attend):
                    raise IllegalActionError(f"seat {seat} must decide on the meeting, not {action!r}")
                attend[seat] = action.attend
            table.hold_meeting(attend)
        else:
            ((seat, action),) = actions.items()
            self._sequential(table, phase, seat, action)
        return table.freeze()

    def _sequential(self, table: _Table, phase: Phase, seat: int, action: Action) -> None:
        if phase is Phase.TRADE:
            if isinstance(action, ForceTrade):
                table.trade(action.target)
            table.trade_index += 1
            table.next_trade()
        elif phase is Phase.CHOOSE_SKILL:
            if not isinstance(action, ChooseSkill):
                raise IllegalActionError(f"seat {seat} must choose a skill, not {action!r}")
            table.choose_skill(action.skill)
        elif phase is Phase.WINDOW:
            table.queue.pop(0)
            if isinstance(action, PlayFortune):
                table.play(seat, action.card)
            table.next_window()
        elif phase is Phase.REROLL:
            if isinstance(action, PlayFortune):
                table.play(seat, action.card)
                table.roll()
            else:
                table.end_check()
                table.end_mission(success=False)
        else:
            raise IllegalActionError("the game is over")

    def is_terminal(self, state: NinjaBurgerState) -> bool:
        return state.phase is Phase.OVER

    def scores(self, state: NinjaBurgerState) -> tuple[int, ...]:
        """Returns each seat's honor."""
        return state.honor

    def termination(self, state: NinjaBurgerState) -> str:
        return "round_cap" if state.capped else "normal"

    def observe(self, state: NinjaBurgerState, seat: int) -> Observation:
        players = tuple(
            PlayerView(
                seat=s,
                ninja=None if state.ninjas[s] is None else state.ninjas[s].id,
                honor=state.honor[s],
                money=state.money[s],
                hand_size=len(state.hands[s]),
                items=tuple(c.id for c in state.items[s]),
                attended=state.attended[s],
                mission=state.missions[s] if state.revealed[s] else None,
            )
            for s in range(state.num_players)
        )
        active = state.active
        return Observation(
            seat=seat,
            round=state.round,
            phase=state.phase,
            players=players,
            hand=state.hands[seat],
            mission=state.missions[seat],
            ninja_options=state.ninja_options[seat],
            order=state.order,
            active=active,
            checks=state.checks if active is not None else (),
            plan=state.plan if active is not None else (),
            check_index=state.check_index if active is not None else None,
            plays=state.plays,
            mission_deck=len(state.mission_deck),
            fortune_deck=len(state.fortune_deck),
        )

    def events(self, state: NinjaBurgerState) -> tuple[Event, ...]:
        return state.last_events

    def hidden_from(self, state: NinjaBurgerState, seat: int) -> frozenset[object]:
        """Returns the other hands, unrevealed missions and ninja options, the decks and the ninja discard."""
        hidden: list[object] = [
            *state.fortune_deck,
            *state.mission_deck,
            *state.ninja_deck,
            *state.ninja_discard,
        ]
        for other in range(state.num_players):
            if other == seat:
                continue
            hidden.extend(state.hands[other])
            hidden.extend(state.ninja_options[other])
            mission = state.missions[other]
            if mission is not None and not state.revealed[other]:
                hidden.append(mission)
        return frozenset(hidden)

    def render(self, state: NinjaBurgerState) -> str:
        players = "  ".join(
            f"seat{s}: {state.honor[s]} honor ${state.money[s]}" for s in range(state.num_players)
        )
        active = "" if state.active is None else f"  active seat{state.active}"
        return f"round {state.round} {state.phase.name.lower()}{active}  {players}"


GAME = NinjaBurger()
