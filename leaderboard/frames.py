"""A replay re-run into frames a viewer can draw: per step, the public table and every seat's view.

A replay stores only the header and the decisions (``arena.referee.replay``); ``reproduce`` re-runs the
engine from them and calls back after every ``apply``. Each callback becomes one frame: the decisions
and public events of that step, the *public table* (what anyone watching the table sees), and each
seat's own observation (``game.observe``), so the page can show the game from any seat, or with
everything revealed. Frame 0 is the position before the first step.

The public table is a seat's observation without the fields that are that seat's own secrets
(``PRIVATE``), plus what a person at the table would see at a glance but the engine leaves to the
players to work out (the scored regions of Pirates, Ninjas, Robots & Zombies). Ninja Burger's
observations name cards by id, so its frames come with the card catalogue.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from arena import codec
from arena.games import get_game, ninja_burger, pnrz_board
from arena.games.base import Game
from arena.games.play import Decision, Step
from arena.referee.replay import ReplayError, reproduce

# Fields of an observation that belong to its seat alone (the rest is the same for every seat).
PRIVATE: dict[str, tuple[str, ...]] = {
    "ninjan": ("seat", "hand"),
    "ninja-burger": ("seat", "hand", "mission", "ninja_options"),
    "pnrz": ("seat", "factions", "hand", "pending"),
    "ninja-master": ("seat",),
}


def parse(text: str) -> list[dict[str, Any]]:
    """Returns the parsed lines of a replay; raises ReplayError for text that is not one."""
    try:
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise ReplayError(f"not JSON Lines (line {exc.lineno}): {exc.msg}") from None
    if not lines or lines[0].get("type") != "header":
        raise ReplayError("the replay does not start with a header line")
    return lines


def public_table(game: Game, state: Any) -> dict[str, Any]:
    """Returns what anyone watching may see of ``state`` (seat 0's view less its secrets, plus extras)."""
    view = codec.to_json(game.observe(state, 0), game.observation_type)
    for name in PRIVATE[game.spec.name]:
        view.pop(name, None)
    extra = EXTRAS.get(game.spec.name)
    return view | (extra(state) if extra else {})


def pnrz_regions(state: Any) -> dict[str, Any]:
    """Returns each faction's scored region: the picture cells of its best section, and its score."""
    cells = pnrz_board.picture_cells(state.board)
    in_game = sorted({f for fs in state.factions for f in fs})
    regions = []
    for faction in in_game:
        best = next(iter(pnrz_board.sections(cells, faction)), None)
        if best is not None and best.score > 0:
            shown = sorted([x, y] for x, y in best.cells)
            regions.append({"faction": faction.name, "score": best.score, "cells": shown})
    return {"regions": regions}


EXTRAS: dict[str, Callable[[Any], dict[str, Any]]] = {"pnrz": pnrz_regions}


def catalogue(game: Game) -> dict[str, Any]:
    """Returns the cards a game's observations refer to by id (Ninja Burger's ninjas and fortune)."""
    if game.spec.name != "ninja-burger":
        return {}
    ninjas = {c.id: codec.to_json(c, ninja_burger.NinjaCard) for c in ninja_burger.ninja_cards()}
    fortune = {c.id: codec.to_json(c, ninja_burger.FortuneCard) for c in ninja_burger.fortune_cards()}
    return {"ninjas": ninjas, "fortune": fortune}


def frame(
    game: Game, state: Any, step: int, decisions: tuple[Decision, ...], events: tuple
) -> dict[str, Any]:
    """Returns one frame: the step's decisions and events, the public table and every seat's view."""
    seats = range(len(game.scores(state)))
    return {
        "step": step,
        "decisions": [
            {"seat": d.seat, "action": codec.to_json(d.action, game.action_type), "by": d.by}
            for d in decisions
        ],
        "events": [codec.to_json(e, game.event_type) for e in events],
        "public": public_table(game, state),
        "observations": [codec.to_json(game.observe(state, s), game.observation_type) for s in seats],
        "scores": list(game.scores(state)),
    }


def frames(text: str) -> dict[str, Any]:
    """Returns a replay re-run into frames, with its header, result and the game's card catalogue."""
    lines = parse(text)
    header = lines[0]
    game = get_game(str(header.get("game", "")))
    state = game.initial_state(len(header["players"]), int(header["seed"]))
    out = [frame(game, state, 0, (), ())]

    def on_step(step: Step) -> None:
        out.append(frame(game, step.state, step.number, step.decisions, step.events))

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
