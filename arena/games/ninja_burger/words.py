"""Ninja Burger in words: each action and public event as the sentence ``arena match -v``, ``arena
replay`` and the replay viewer's step panel show (``Game.describe_action`` / ``describe_event`` find
this module beside the engine).

Seats by their names; cards by the names printed on them (the decks are the game's, public: a card's
name says nothing of where it is); checks numbered from 1, as a mission card lists them. Only what
the action or the public event carries is named: a mission is named when it is revealed, never when
two missions are traded, and a fortune card when it is played.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.ninja_burger.cards import Skill, fortune_cards, mission_cards, ninja_cards
from arena.games.ninja_burger.engine import (
    Action,
    Attend,
    ChooseNinja,
    ChooseSkill,
    ChooseSkills,
    ForceTrade,
    PlayFortune,
)
from arena.games.ninja_burger.table import (
    CheckRolled,
    Event,
    FortunePlayed,
    MeetingHeld,
    MissionEnded,
    MissionRevealed,
    MissionsTraded,
    NinjasChosen,
    RoundStarted,
)

NINJAS = {card.id: card.name for card in ninja_cards()}
MISSIONS = {card.id: card.name for card in mission_cards()}
FORTUNE = {card.id: card.name for card in fortune_cards()}


def name(names: Sequence[str], seat: int) -> str:
    """Returns a seat's name ("seat N" past the names given)."""
    return names[seat] if 0 <= seat < len(names) else f"seat {seat}"


def skill(s: Skill) -> str:
    """Returns a skill in words: "customer service"."""
    return s.name.lower().replace("_", " ")


def listed(items: Sequence[str]) -> str:
    """Returns items as a list in words: "a", "a and b", "a, b and c"."""
    return " and ".join([", ".join(items[:-1]), items[-1]] if len(items) > 2 else items)


def signed(value: int, unit: str = "") -> str:
    """Returns a change with its sign: "+2", "-$100"."""
    return f"{'-' if value < 0 else '+'}{unit}{abs(value)}"


def action_words(action: Action, names: Sequence[str]) -> str:
    """Returns what a seat did: "chooses Net Ninja", "plays Bad Directions", "passes"."""
    if isinstance(action, ChooseNinja):
        return f"chooses {NINJAS.get(action.ninja, f'ninja card {action.ninja}')}"
    if isinstance(action, Attend):
        return "goes to the staff meeting" if action.attend else "skips the staff meeting"
    if isinstance(action, ForceTrade):
        return f"makes {name(names, action.target)} trade missions"
    if isinstance(action, ChooseSkill):
        return f"rolls on {skill(action.skill)}"
    if isinstance(action, PlayFortune):
        return f"plays {FORTUNE.get(action.card, f'fortune card {action.card}')}"
    if isinstance(action, ChooseSkills):
        return f"plans {listed([skill(s) for s in action.skills])}"
    return "passes"


def event_words(event: Event, names: Sequence[str]) -> str:
    """Returns a public event as a sentence."""
    if isinstance(event, NinjasChosen):
        chosen = [f"{name(names, seat)} is {ninja.name}" for seat, ninja in enumerate(event.ninjas)]
        return f"The ninjas: {listed(chosen)}."
    if isinstance(event, RoundStarted):
        return round_started(event, names)
    if isinstance(event, MeetingHeld):
        went = listed([name(names, s) for s in event.attendees]) or "nobody"
        order = ", ".join(name(names, s) for s in event.order)
        return f"Staff meeting: {went} attended; the missions go in this order: {order}."
    if isinstance(event, MissionsTraded):
        return f"{name(names, event.seat)} (on an errand) trades missions with {name(names, event.target)}."
    if isinstance(event, MissionRevealed):
        mission = MISSIONS.get(event.mission, f"mission card {event.mission}")
        return f"{name(names, event.seat)} reveals the mission {mission}."
    if isinstance(event, FortunePlayed):
        card = FORTUNE.get(event.card, f"fortune card {event.card}")
        whose = "its own mission" if event.on == event.seat else f"{name(names, event.on)}'s mission"
        return f"{name(names, event.seat)} plays {card} on {whose}."
    if isinstance(event, CheckRolled):
        return check_rolled(event, names)
    assert isinstance(event, MissionEnded)
    mission = MISSIONS.get(event.mission, f"mission card {event.mission}")
    verdict = "completes" if event.success else "fails"
    return (
        f"{name(names, event.seat)} {verdict} {mission}: {signed(event.honor)} honor, "
        f"{signed(event.money, '$')}."
    )


def round_started(event: RoundStarted, names: Sequence[str]) -> str:
    """Returns a round's start: the salaries paid, and who had the most honor."""
    pays = set(event.salaries)
    if len(pays) == 1:
        salaries = f"everyone is paid ${event.salaries[0]}"
    else:
        salaries = "salaries " + ", ".join(f"{name(names, s)} ${pay}" for s, pay in enumerate(event.salaries))
    leader = f"; {name(names, event.leader)} has the most honor" if event.leader is not None else ""
    return f"Round {event.round} starts: {salaries}{leader}."


def check_rolled(event: CheckRolled, names: Sequence[str]) -> str:
    """Returns a check: the dice, the total after modifiers and bonuses against the ninja's skill."""
    who = f"{name(names, event.seat)}'s check {event.check + 1} on {skill(event.skill)}"
    verdict = "passes" if event.passed else "fails"
    if not event.dice:
        return f"{who} {verdict} without a roll (the ninja never fails it)."
    dice = " + ".join(map(str, event.dice))
    return f"{who}: rolls {dice}, {event.total} after modifiers against a skill of {event.target}: {verdict}."
