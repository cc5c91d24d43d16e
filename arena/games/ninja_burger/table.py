"""Ninja Burger: the state of a game, the events its steps emit, and the rules that move the state.

``_Table`` is a mutable working copy of a ``NinjaBurgerState``: one ``apply`` runs on it every step that
needs no decision (salary, deals, draws, reveals, 3d6 rolls, rewards and penalties) up to the next
decision, then freezes it again. The engine (``engine``) holds what a seat sees and may do
(observations, actions, the legal-action queries, which share the card rules here with ``_Table``) and
the Game interface that hands each decision to a ``_Table``; it re-exports this module's public names.

Why it is long: every step that needs no decision (salary, deals, draws, reveals, rolls, rewards and
penalties) changes the same working copy, and they read in the order of a round.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from enum import IntEnum

from arena.games.ninja_burger.cards import (
    LEADER_BONUS,
    ROUND_CAP,
    SALARY,
    SALARY_ABILITY_BONUS,
    Ability,
    Check,
    Effect,
    FortuneCard,
    FortuneKind,
    MissionCard,
    NinjaCard,
    Skill,
    check_total,
    honor_ends_game,
    roll_3d6,
)
from arena.games.rng import derive


class Phase(IntEnum):
    CHOOSE_NINJA = 1  # every seat keeps one of its dealt ninja cards, at the same time
    MEETING = 2  # every seat decides at the same time whether to attend the staff meeting
    TRADE = 3  # an Errand holder may force a lower-honor attendee to trade missions
    CHOOSE_SKILL = 4  # the active player picks the skill of a check that offers a choice, before its roll
    WINDOW = 5  # fortune window before a check: one seat may play a card or decline
    REROLL = 6  # the active player failed a roll and may play a reroll card (asked if its hand is not empty)
    OVER = 7


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
class Play:
    seat: int
    card: FortuneCard


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


# Card rules, shared by _Table and the engine's legal-action queries ----------------------------


def _playable(
    hand: Sequence[FortuneCard], seat: int, active: int, mission: MissionCard, opening: bool, money: int
) -> tuple[FortuneCard, ...]:
    """Returns the cards of ``hand`` that ``seat`` may play on ``active``'s check, sorted by id."""
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


def _rerolls(hand: Sequence[FortuneCard]) -> tuple[FortuneCard, ...]:
    """Returns the reroll cards of ``hand``, sorted by id."""
    return tuple(sorted((c for c in hand if c.effect == Effect.REROLL), key=lambda c: c.id))


def _targets(
    attended: Sequence[bool], missions: Sequence[MissionCard | None], honor: Sequence[int], seat: int
) -> tuple[int, ...]:
    """Returns the seats ``seat`` may force to trade missions (none unless it attended with an Errand)."""
    mission = missions[seat]
    if not attended[seat] or mission is None or not mission.errand:
        return ()
    return tuple(t for t in range(len(honor)) if t != seat and attended[t] and honor[t] < honor[seat])


def _asked_in_window(hand_size: int, seat: int, active: int, mission: MissionCard) -> bool:
    """Returns whether ``seat`` is asked in a fortune window on ``active``'s (revealed) ``mission``.

    Design Detail: who is asked, and so how many steps a window takes, depends on public facts only:
    the hand's size, whose mission it is and whether it is an Errand. Asking only the seats that hold
    a card they could play there told every seat, by the step numbers and the wait, who holds one.
    Every kind of card comes in an immediate version, so any non-empty hand could hold a playable
    card: the active player's (a Good Fortune bonus needs no money), and an opponent's unless the
    mission is an Errand (no Interesting Times on an Errand).
    """
    return hand_size > 0 and (seat == active or not mission.errand)


def _asked_to_trade(attended: Sequence[bool], honor: Sequence[int], seat: int) -> bool:
    """Returns whether ``seat`` is asked in the Errand trades: it attended, and so did someone with less
    honor. Whether it holds an Errand (hidden) decides only its legal actions, never whether it is asked."""
    return attended[seat] and any(
        attended[t] and honor[t] < honor[seat] for t in range(len(honor)) if t != seat
    )


def _bonus(items: Sequence[FortuneCard], plays: Sequence[Play], skill: Skill) -> int:
    """Returns a check's bonus in ``skill`` from the active seat's items and the cards played on it."""
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
            if _asked_to_trade(self.attended, self.honor, self.order[self.trade_index]):
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
        """Step 6: opponents in seat order after the active player, then the active player (each only
        if ``_asked_in_window``: public facts decide who is asked, never the cards in a hand)."""
        active = self.active
        self.queue = [(active + k) % self.n for k in range(1, self.n)] + [active]
        self.phase = Phase.WINDOW
        self.next_window()

    def next_window(self) -> None:
        mission = self.missions[self.active]
        assert mission is not None
        while self.queue:
            if _asked_in_window(len(self.hands[self.queue[0]]), self.queue[0], self.active, mission):
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
        elif self.hands[seat]:  # any hand could hold a reroll card: its size is public, its cards are not
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
        if honor_ends_game(self.honor):
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
