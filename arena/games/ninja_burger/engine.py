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
cards                  18 ninjas, 56 missions (12 Errands), 72 fortune cards: the JSON files here
=====================  =========================================================

Design Detail: every step that needs no decision (salary, deals, draws, reveals, 3d6 rolls, rewards
and penalties) is resolved inside the ``apply`` that leads to it, from the seeded RNG. Who is asked
depends on public facts only, so that the shape of the conversation (which seats are asked, how many
steps) tells no seat anything about a hidden card: a fortune window asks the seats whose hand is not
empty (opponents not on an Errand), a failed roll asks the active player if its hand is not empty,
and the Errand trades ask every attendee who has a lower-honor attendee, with ``Decline`` always
among the legal actions. That keeps a game at a few hundred decisions.

Modules: this one holds what a seat sees and may do (observations, actions, the legal-action queries)
and the Game interface. The cards, constants and dice are in ``cards``; the state, the events
and the rules that move the state (``_Table``) in ``table``. Every public name of those two is
re-exported here (``__all__``), so bots and tests import the whole game from this module.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from arena.games.base import Game, GameSpec, IllegalActionError, Termination, card_ids
from arena.games.ninja_burger.cards import (
    DATA,
    END_HIGH,
    END_LOW,
    LEADER_BONUS,
    NINJAS_DEALT,
    ROUND_CAP,
    SALARY,
    SALARY_ABILITY_BONUS,
    START_FORTUNE,
    START_HONOR,
    Ability,
    Check,
    Effect,
    FortuneCard,
    FortuneKind,
    MissionCard,
    NinjaCard,
    Skill,
    check_passes,
    check_total,
    fortune_cards,
    honor_ends_game,
    mission_cards,
    ninja_cards,
    roll_3d6,
)
from arena.games.ninja_burger.table import (
    CheckRolled,
    Event,
    FortunePlayed,
    MeetingHeld,
    MissionEnded,
    MissionRevealed,
    MissionsTraded,
    NinjaBurgerState,
    NinjasChosen,
    Phase,
    Play,
    RoundStarted,
    _bonus,
    _playable,
    _rerolls,
    _Table,
    _targets,
)
from arena.games.rng import derive

__all__ = [
    "DATA",
    "END_HIGH",
    "END_LOW",
    "GAME",
    "LEADER_BONUS",
    "NINJAS_DEALT",
    "ROUND_CAP",
    "SALARY",
    "SALARY_ABILITY_BONUS",
    "START_FORTUNE",
    "START_HONOR",
    "Ability",
    "Action",
    "Attend",
    "Check",
    "CheckRolled",
    "ChooseNinja",
    "ChooseSkill",
    "ChooseSkills",
    "Decline",
    "Effect",
    "Event",
    "ForceTrade",
    "FortuneCard",
    "FortuneKind",
    "FortunePlayed",
    "MeetingHeld",
    "MissionCard",
    "MissionEnded",
    "MissionRevealed",
    "MissionsTraded",
    "NinjaBurger",
    "NinjaBurgerState",
    "NinjaCard",
    "NinjasChosen",
    "Observation",
    "Phase",
    "Play",
    "PlayFortune",
    "PlayerView",
    "PublicView",
    "RoundStarted",
    "Skill",
    "check_bonus",
    "check_passes",
    "check_total",
    "fortune_cards",
    "honor_ends_game",
    "mission_cards",
    "ninja_cards",
    "playable_in_window",
    "rerolls_in_hand",
    "roll_3d6",
    "trade_targets",
]


# Observation -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class PlayerView:
    seat: int
    # the ninja card's id; None while ninjas are being chosen
    ninja: int | None = dataclasses.field(metadata=card_ids("ninjas"))
    honor: int
    money: int
    hand_size: int
    items: tuple[int, ...] = dataclasses.field(metadata=card_ids("fortune"))  # ids of the Ninja Stuff in play
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


@dataclasses.dataclass(frozen=True)
class PublicView:
    """What a spectator sees: an observation without a seat, its hand, its unrevealed mission and the
    ninja cards dealt to it (a revealed mission shows in ``players``; ninjas and items by id, see
    ``NinjaBurger.catalogue``)."""

    round: int
    phase: Phase
    players: tuple[PlayerView, ...]
    order: tuple[int, ...]
    active: int | None
    checks: tuple[Check, ...]
    plan: tuple[Skill, ...]
    check_index: int | None
    plays: tuple[Play, ...]
    mission_deck: int
    fortune_deck: int


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


# Legal actions ---------------------------------------------------------------------------------


def playable_in_window(state: NinjaBurgerState, seat: int) -> tuple[FortuneCard, ...]:
    """Returns the cards ``seat`` may play in the current fortune window, sorted by id."""
    active = state.active
    if state.phase is not Phase.WINDOW or active is None:
        return ()
    mission = state.missions[active]
    assert mission is not None
    return _playable(state.hands[seat], seat, active, mission, state.check_index == 0, state.money[seat])


def rerolls_in_hand(state: NinjaBurgerState, seat: int) -> tuple[FortuneCard, ...]:
    """Returns the reroll cards ``seat`` holds, sorted by id."""
    return _rerolls(state.hands[seat])


def trade_targets(state: NinjaBurgerState, seat: int) -> tuple[int, ...]:
    """Returns the seats an attending Errand holder may force to trade: attendees with less honor."""
    return _targets(state.attended, state.missions, state.honor, seat)


def check_bonus(state: NinjaBurgerState, seat: int, skill: Skill) -> int:
    """Returns the current check's bonus: items in ``skill``, plus Good Fortune, minus Interesting Times."""
    return _bonus(state.items[seat], state.plays, skill)


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
        rules=2,  # 2: 18 ninja cards (3 to every seat at 6 players), 22 of 72 fortune cards immediate
    )
    observation_type = Observation
    public_view_type = PublicView
    action_type = Action
    event_type = Event

    def initial_state(self, num_players: int, seed: int) -> NinjaBurgerState:
        """Returns the table after Step 1's deal: 3 ninja cards to choose from, 3 fortune cards, 6 honor.

        The 18 ninja cards give 3 to each seat of the largest table (6 x 3).
        """
        self.check_players(num_players)
        ninjas = list(ninja_cards())
        derive(seed, "ninjas").shuffle(ninjas)
        dealt = NINJAS_DEALT
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

    def apply_legal(self, state: NinjaBurgerState, actions: Mapping[int, Action]) -> NinjaBurgerState:
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

    def termination(self, state: NinjaBurgerState) -> Termination:
        return Termination.ROUND_CAP if state.capped else Termination.NORMAL

    def observe(self, state: NinjaBurgerState, seat: int) -> Observation:
        return Observation(
            seat=seat,
            hand=state.hands[seat],
            mission=state.missions[seat],
            ninja_options=state.ninja_options[seat],
            **self._shared(state),
        )

    def public_view(self, state: NinjaBurgerState) -> PublicView:
        return PublicView(**self._shared(state))

    def _shared(self, state: NinjaBurgerState) -> dict[str, Any]:
        """Returns the fields every seat's observation and the public view have alike."""
        players = tuple(
            PlayerView(
                seat=s,
                ninja=None if (ninja := state.ninjas[s]) is None else ninja.id,
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
        return {
            "round": state.round,
            "phase": state.phase,
            "players": players,
            "order": state.order,
            "active": active,
            "checks": state.checks if active is not None else (),
            "plan": state.plan if active is not None else (),
            "check_index": state.check_index if active is not None else None,
            "plays": state.plays,
            "mission_deck": len(state.mission_deck),
            "fortune_deck": len(state.fortune_deck),
        }

    def catalogue(self) -> Mapping[str, tuple[NinjaCard | FortuneCard, ...]]:
        """Returns every ninja card and fortune card: the views name them by id."""
        return {"ninjas": ninja_cards(), "fortune": fortune_cards()}

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

    def legend(self) -> str:
        return "each seat: honor and money; active: the seat whose turn it is"

    def render(self, state: NinjaBurgerState) -> str:
        players = "  ".join(
            f"seat{s}: {state.honor[s]} honor ${state.money[s]}" for s in range(state.num_players)
        )
        active = "" if state.active is None else f"  active seat{state.active}"
        return f"round {state.round} {state.phase.name.lower()}{active}  {players}"


GAME = NinjaBurger()
