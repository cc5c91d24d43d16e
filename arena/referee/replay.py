"""Replays: one JSON Lines file per match, from which the whole game can be re-run and checked.

Lines, in order::

    {"type": "header", "format": 1, "game": ..., "seed": ..., "players": [...], "versions": {...}, ...}
    {"type": "strike"|"forfeit", "step": n, "seat": s, ...}   # what the referee decided, per step
    {"type": "decision", "step": n, "seat": s, "action": {...}, "by": "bot"|"fallback"}
    {"type": "event", "step": n, "event": {...}}             # public events the engine produced
    {"type": "result", "players": [...], "termination": ...}

Nothing in a replay depends on timing or the machine: the same seed and the same decisions give the
same bytes. ``reproduce`` re-runs the engine from the header and the decisions alone, regenerates
every line, and reports the first difference, if any.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import arena
from arena import codec
from arena.games import get_game
from arena.games.base import GameError

if TYPE_CHECKING:
    from arena.referee.match import MatchRecord

FORMAT = 1
PROTOCOL = "arena.v1"


_dumps = codec.compact_json


class ReplayError(ValueError):
    """A replay file that cannot be read or does not reproduce."""


class ReplayWriter:
    """Collects a match's replay lines. Strikes and forfeits of one step are written sorted by seat,
    so simultaneous seats that fail at slightly different moments still give the same bytes."""

    def __init__(self, header: dict[str, Any]) -> None:
        self.lines: list[str] = [_dumps({"type": "header", **header})]
        self._pending: list[tuple[int, int, dict]] = []

    @staticmethod
    def header(
        match_id: str, game: str, seed: int, bots: list[str], deadline_ms: int, max_strikes: int
    ) -> dict[str, Any]:
        """Returns the header fields of a replay."""
        return {
            "format": FORMAT,
            "match_id": match_id,
            "game": game,
            "seed": seed,
            "players": [{"seat": seat, "bot": bot} for seat, bot in enumerate(bots)],
            "deadline_ms": deadline_ms,
            "max_strikes": max_strikes,
            "versions": {"arena": arena.__version__, "protocol": PROTOCOL},
        }

    def strike(self, step: int, seat: int, code: str, message: str, strikes: int) -> None:
        entry = {
            "type": "strike",
            "step": step,
            "seat": seat,
            "code": code,
            "message": message,
            "strikes": strikes,
        }
        self._pending.append((seat, len(self._pending), entry))

    def forfeit(self, step: int, seat: int, reason: str) -> None:
        self._pending.append(
            (seat, len(self._pending), {"type": "forfeit", "step": step, "seat": seat, "reason": reason})
        )

    def decision(self, step: int, seat: int, action_json: str, by: str) -> None:
        """Adds a decision; ``action_json`` is the action as compact JSON text (codec.json_text)."""
        self._flush()
        self.lines.append(
            f'{{"type":"decision","step":{step},"seat":{seat},"action":{action_json},"by":{_dumps(by)}}}'
        )

    def event(self, step: int, event_json: str) -> None:
        """Adds a public event, given as compact JSON text (codec.json_text)."""
        self._flush()
        self.lines.append(f'{{"type":"event","step":{step},"event":{event_json}}}')

    def result(self, record: MatchRecord) -> None:
        self._flush()
        players = [dataclasses.asdict(p) for p in record.players]
        self.lines.append(
            _dumps(
                {
                    "type": "result",
                    "players": players,
                    "termination": record.termination,
                    "steps": record.steps,
                }
            )
        )

    def _flush(self) -> None:
        for _, _, entry in sorted(self._pending, key=lambda item: (item[0], item[1])):
            self.lines.append(_dumps(entry))
        self._pending.clear()

    def text(self) -> str:
        """Returns the replay as JSON Lines."""
        return "".join(line + "\n" for line in self.lines)

    def write(self, path: Path) -> Path:
        """Writes the replay to ``path`` (creating its folder) and returns the path."""
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text(), encoding="utf-8")
        return path


def read_lines(path: Path) -> list[dict[str, Any]]:
    """Returns the parsed lines of a replay file; raises ReplayError for a file that is not one."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror}") from None
    try:
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise ReplayError(f"{path} is not JSON Lines (line {exc.lineno}): {exc.msg}") from None
    if not lines or lines[0].get("type") != "header":
        raise ReplayError(f"{path} does not start with a replay header line")
    return lines


@dataclasses.dataclass
class Reproduction:
    text: str  # the regenerated replay
    record: MatchRecord
    steps: int


def reproduce(
    lines: list[dict[str, Any]], on_step: Callable[[Any, list, tuple], None] | None = None
) -> Reproduction:
    """Re-runs a replay's game from its header and decisions; returns the regenerated replay.

    Raises ReplayError when a recorded decision is not legal where it was recorded.
    """
    from arena.referee.match import final_record

    header = {k: v for k, v in lines[0].items() if k != "type"}
    try:
        game = get_game(header["game"])
        bots = [p["bot"] for p in header["players"]]
        state = game.initial_state(len(bots), int(header["seed"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise ReplayError(f"bad replay header: {exc}") from None
    writer = ReplayWriter(header)
    referee_lines: Iterator[dict] = iter(
        [x for x in lines[1:] if x.get("type") in ("strike", "forfeit", "decision")]
    )
    pending = next(referee_lines, None)
    forfeits = [False] * len(bots)
    strikes = [0] * len(bots)
    step = 0
    while not game.is_terminal(state):
        acting = game.to_move(state)
        actions: dict[int, Any] = {}
        decisions = []
        while acting and pending is not None and pending.get("step") == step:
            kind, seat = pending["type"], pending["seat"]
            if kind == "strike":
                strikes[seat] = pending["strikes"]
                writer.strike(step, seat, pending["code"], pending["message"], pending["strikes"])
            elif kind == "forfeit":
                forfeits[seat] = True
                writer.forfeit(step, seat, pending["reason"])
            else:
                action = codec.from_json(pending["action"], game.action_type)
                actions[seat] = action
                decisions.append((seat, action, pending["by"]))
                writer.decision(step, seat, _dumps(pending["action"]), pending["by"])
            pending = next(referee_lines, None)
        try:
            state = game.apply(state, actions)
        except GameError as exc:
            raise ReplayError(f"step {step}: the recorded decisions do not apply: {exc}") from None
        for event in game.events(state):
            writer.event(step, codec.json_text(event, game.event_type))
        if on_step:
            on_step(state, decisions, game.events(state))
        if acting:
            step += 1
    record = final_record(
        game, state, header.get("match_id", ""), int(header["seed"]), bots, forfeits, strikes, step
    )
    writer.result(record)
    return Reproduction(writer.text(), record, step)


def first_difference(expected: str, actual: str) -> str | None:
    """Returns a description of the first line where two replays differ, or None if identical."""
    if expected == actual:
        return None
    a, b = expected.splitlines(), actual.splitlines()
    for number, (x, y) in enumerate(zip(a, b, strict=False), 1):
        if x != y:
            return f"line {number} differs:\n  recorded:   {x}\n  reproduced: {y}"
    return f"the recorded replay has {len(a)} lines, the reproduction {len(b)}"
