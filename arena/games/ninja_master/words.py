"""Ninja Master in words: each action and public event as the sentence ``arena match -v``, ``arena
replay`` and the replay viewer's step panel show (``Game.describe_action`` / ``describe_event`` find
this module beside the engine).

A round reads as a few lines: the roll (the ninjas counted per colour, the smoke, swords and
shurikens), one line per tick (who got what, who called what), and the tally (why the round ended,
then each seat's score before and after, with what moved it). Seats by their names; ninja tokens by
their colour, as the board draws them. Every event is public (choices are sealed only until their
tick resolves), and only what the event carries is said.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.ninja_master.engine import (
    COLOURS,
    Action,
    Call,
    Colour,
    Component,
    DiceRolled,
    Event,
    Face,
    Grab,
    GrabResult,
    RoundEnd,
    RoundTallied,
    Symbol,
    TallyLine,
    TickResolved,
)

ENDED = {
    RoundEnd.CALL: "ends with a call",
    RoundEnd.NO_GRAB: "ends with nothing left to grab",
    RoundEnd.TICK_LIMIT: "ends after its last tick without a call",
}
SCORE_PARTS = (("sword", "sword"), ("ninjas", "ninjas"), ("shuriken", "shurikens"), ("call", "call"))


def name(names: Sequence[str], seat: int) -> str:
    """Returns a seat's name ("seat N" past the names given)."""
    return names[seat] if 0 <= seat < len(names) else f"seat {seat}"


def component(c: Component) -> str:
    """Returns a component as the board shows it: "the pink ninja", "the sword"."""
    return "the sword" if c is Component.SWORD else f"the {c.name.lower().removesuffix('_ninja')} ninja"


def action_words(action: Action, names: Sequence[str]) -> str:
    """Returns what a seat chose this tick: "grabs the pink ninja", "calls 15", "waits"."""
    if isinstance(action, Grab):
        return f"grabs {component(action.component)}"
    if isinstance(action, Call):
        return f"calls {action.number}"
    return "waits"


def event_words(event: Event, names: Sequence[str]) -> str:
    """Returns a public event as a line (the tally as three)."""
    if isinstance(event, DiceRolled):
        return f"Round {event.round}: {name(names, event.roller)} rolls {roll(event.dice)}."
    if isinstance(event, TickResolved):
        return tick(event, names)
    assert isinstance(event, RoundTallied)
    return tally(event, names)


def roll(dice: Sequence[Face]) -> str:
    """Returns a roll counted as a player reads it: ninjas per colour, smoke, swords, shurikens."""
    ninjas = {c: sum(f.ninjas for f in dice if f.symbol is Symbol.NINJA and f.colour is c) for c in COLOURS}
    smokes = [f.colour for f in dice if f.symbol is Symbol.SMOKE and f.colour is not None]
    swords = sum(f.symbol is Symbol.SWORD for f in dice)
    shurikens = sum(f.symbol is Symbol.SHURIKEN for f in dice)
    shown = ", ".join(f"{colour(c)} {n}" for c, n in ninjas.items() if n)
    parts = [f"{sum(ninjas.values())} ninjas" + (f" ({shown})" if shown else "")]
    if smokes:
        parts.append("smoke " + listed([colour(c) for c in sorted(smokes)]))
    parts.append(f"{swords} sword{'s' * (swords != 1)}")
    parts.append(f"{shurikens} shuriken{'s' * (shurikens != 1)}")
    return ", ".join(parts)


def listed(items: Sequence[str]) -> str:
    """Returns items as a list in words: "a", "a and b", "a, b and c"."""
    return " and ".join([", ".join(items[:-1]), items[-1]] if len(items) > 2 else items)


def colour(c: Colour) -> str:
    """Returns a colour's name in lower case."""
    return c.name.lower()


def tick(event: TickResolved, names: Sequence[str]) -> str:
    """Returns a tick in one line: the grabs won (and from whom), the calls (right or wrong), the waits."""
    parts = [grab(g, names) for g in event.grabs]
    for call in event.calls:
        verdict = "right" + (", +1" if event.call_winner == call.seat else "") if call.correct else "wrong"
        parts.append(f"{name(names, call.seat)} calls {call.number} ({verdict})")
    waiting = [name(names, c.seat) for c in event.choices if not isinstance(c.action, Grab | Call)]
    if waiting:
        parts.append(f"{listed(waiting)} wait{'s' * (len(waiting) == 1)}")
    return f"Tick {event.tick}: " + ("; ".join(parts) or "nothing happens") + "."


def grab(result: GrabResult, names: Sequence[str]) -> str:
    """Returns a grab: who got the component, and from whom when several grabbed it at once."""
    losers = [name(names, s) for s in result.grabbers if s != result.winner]
    against = f" (won the draw against {listed(losers)})" if losers else ""
    return f"{name(names, result.winner)} takes {component(result.component)}{against}"


def tally(event: RoundTallied, names: Sequence[str]) -> str:
    """Returns the tally in three lines: why the round ended, each seat's score, what comes next."""
    head = (
        f"Round {event.round} {ENDED.get(event.ended_by, 'ends')}: {event.ninja_total} ninjas shown, "
        f"{event.swords} sword{'s' * (event.swords != 1)} against {event.shurikens} "
        f"shuriken{'s' * (event.shurikens != 1)}"
    )
    if event.thief is not None:
        head += f"; {name(names, event.thief)} steals with the sword"
    scores = "; ".join(score_line(line, names) for line in event.lines)
    return f"{head}.\n{scores}.\n{next_round(event, names)}"


def next_round(event: RoundTallied, names: Sequence[str]) -> str:
    """Returns what the tally leaves: the game over, or who rolls next and holds the sword, and a
    tie play-off's players."""
    if event.game_over:
        return "The game is over."
    sword = name(names, event.sword_holder)
    if event.sword_draw:
        sword += " (drawn among " + listed([name(names, s) for s in event.sword_draw]) + ")"
    playoff = ""
    if 0 < len(event.contenders) < len(names):
        playoff = "; a tie play-off among " + listed([name(names, s) for s in event.contenders])
    return f"Next round: {name(names, event.shuriken_holder)} rolls, {sword} holds the sword{playoff}."


def score_line(line: TallyLine, names: Sequence[str]) -> str:
    """Returns one seat's tally: "alice 3 → 6 (ninjas +3, call -3)"."""
    moves = [f"{label} {getattr(line, field):+d}" for field, label in SCORE_PARTS if getattr(line, field)]
    return f"{name(names, line.seat)} {line.before} → {line.after}" + (
        f" ({', '.join(moves)})" if moves else ""
    )
