"""A replay re-run into frames a viewer can draw: per step, the public table and every seat's view.

A replay stores only the header and the decisions (``arena.referee.replay``); ``reproduce`` re-runs the
engine from them and calls back after every step. Each callback becomes one frame: the decisions and
public events of that step, the *public table* and each seat's own observation, so the page can show
the game as a spectator sees it, from any seat, or with everything revealed. Frame 0 is the position
before the first step.

Nothing here knows any game: the public table is the engine's ``public_view(state)`` and the seats'
views its ``observe(state, seat)``, both in their JSON form (``arena.codec.to_json``), so what is secret
is decided by the game alone. Cards that a game's views name by id come once per replay, in the
engine's ``catalogue()``. Each game's drawing is one file in its folder,
``arena/games/<game>/viewer.js``, and its sentences another, ``words.py`` beside it: each decision and
event of a frame carries its sentence, made from the decision or the public event alone (what the
frame already shows), so the words tell a viewer nothing the frame does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena import codec
from arena.games import get_game
from arena.games.base import Game
from arena.games.play import Decision, Step
from arena.referee.botlog import MatchLog
from arena.referee.replay import parse_lines, reproduce


def public_table(game: Game, state: Any) -> dict[str, Any]:
    """Returns what anyone watching may see of ``state``: the engine's public view, as JSON."""
    view = game.public_view(state)
    return codec.to_json(view, type(view))


def catalogue(game: Game) -> dict[str, list[Any]]:
    """Returns the cards the game's views name by id, per kind, as JSON (empty for most games)."""
    cards = game.catalogue()
    return {kind: [codec.to_json(card, type(card)) for card in cards[kind]] for kind in cards}


def frame(
    game: Game,
    state: Any,
    step: int,
    decisions: tuple[Decision, ...],
    events: tuple,
    names: Sequence[str] = (),
) -> dict[str, Any]:
    """Returns one frame: the step's decisions and events, each with its sentence (``words``, the
    game's ``describe_action`` / ``describe_event`` with the seats' ``names``: what ``arena match -v``
    prints), the public table and every seat's view."""
    seats = range(len(game.scores(state)))
    return {
        "step": step,
        "decisions": [
            {
                "seat": d.seat,
                "action": codec.to_json(d.action, game.action_type),
                "by": d.by,
                "words": game.describe_action(d.action, names),
            }
            for d in decisions
        ],
        "events": [codec.to_json(e, game.event_type) for e in events],
        "event_words": [game.describe_event(e, names) for e in events],
        "public": public_table(game, state),
        "observations": [codec.to_json(game.observe(state, s), game.observation_type) for s in seats],
        "scores": list(game.scores(state)),
    }


def frames(text: str) -> dict[str, Any]:
    """Returns a replay re-run into frames, with its header, result and the game's card catalogue;
    raises ReplayError for text that is not a replay (``arena.referee.replay.parse_lines``)."""
    lines = parse_lines(text)
    header = lines[0]
    game = get_game(str(header.get("game", "")))
    state = game.initial_state(len(header["players"]), int(header["seed"]))
    names = [
        str(p.get("bot", f"seat {seat}")) if isinstance(p, dict) else f"seat {seat}"
        for seat, p in enumerate(header["players"])
    ]
    out = [frame(game, state, 0, (), (), names)]

    def on_step(step: Step) -> None:
        out.append(frame(game, step.state, step.number, step.decisions, step.events, names))

    reproduction = reproduce(lines, on_step)
    result = next((line for line in reversed(lines) if line.get("type") == "result"), None)
    return {
        "game": game.spec.name,
        "header": header,
        "result": result,
        "reproduces": reproduction.text == text,
        "catalogue": catalogue(game),
        "frames": out,
    }


def with_match_log(replay: dict[str, Any], log: MatchLog) -> dict[str, Any]:
    """Returns ``frames(...)``'s replay with a match log (``arena.referee.botlog``) attached: per
    frame the bots' output lines written during its step (``logs``; the start frame: before a seat's
    first decision) and its decisions' think times (``think``), in all ``think`` and ``deadline_ms``.
    What ``static/view.js`` draws, for ``arena view`` and for a tournament's stored log."""
    by_step: dict[int | None, list[dict[str, Any]]] = {}
    for seat, line in log.lines:
        by_step.setdefault(line.step, []).append({"seat": seat, "text": line.text})
    think: dict[int, list[dict[str, Any]]] = {}
    for t in log.think:
        think.setdefault(t.step, []).append({"seat": t.seat, "ms": t.ms, "answered": t.answered})
    for index, frame in enumerate(replay["frames"]):
        step = None if index == 0 else frame["step"] if frame["decisions"] else -1
        frame["logs"] = by_step.get(step, [])
        frame["think"] = think.get(step, []) if step is not None else []
    replay["think"] = [
        {"step": t.step, "seat": t.seat, "ms": t.ms, "answered": t.answered} for t in log.think
    ]
    replay["deadline_ms"] = log.header.get("deadline_ms")
    return replay
