"""Replays: one JSON Lines file per match, from which the whole game can be re-run and checked.

Lines, in order::

    {"type": "header", "format": 2, "game": ..., "seed": ..., "players": [...], "versions": {...}, ...}
    {"type": "strike"|"forfeit", "step": n, "seat": s, ...}   # what the referee decided, per step
    {"type": "decision", "step": n, "seat": s, "index": i, "action": {...}, "by": "bot"|"fallback"}
    {"type": "event", "step": n, "event": {...}}             # public events the engine produced
    {"type": "result", "players": [...], "termination": ...}

Nothing in a replay depends on timing or the machine: the same seed and the same decisions give the
same bytes. ``reproduce`` re-runs the engine from the header and the decisions alone (each one the
``index``-th legal action, as the driver played it), regenerates every line, and reports the first
difference, if any. The header's ``versions`` name the rules and the random generator the game was
played with; a replay of other ones is refused in one line rather than failing somewhere in the game.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import arena
from arena import codec
from arena.games import get_game, rng
from arena.games.base import Game, GameError
from arena.games.play import Driver, Step, Turn
from arena.referee.record import MatchRecord, final_record

FORMAT = 2  # 2: decisions carry their index; versions name the rules and the generator
PROTOCOL = "arena.v1"


_dumps = codec.compact_json


class ReplayError(ValueError):
    """A replay file that cannot be read or does not reproduce."""


class OtherVersion(ReplayError):
    """A replay made with other rules, another generator or format than this arena's: the arena
    version that made it reproduces it."""


# The fields each kind of line must have, with their JSON types; every integer is a non-negative one
# (seeds are 64-bit, steps, seats and indexes count from 0), ``object`` is any JSON value.
LINE_FIELDS: dict[str, dict[str, type]] = {
    "header": {"game": str, "seed": int, "players": list},
    "strike": {"step": int, "seat": int, "code": str, "message": str, "strikes": int},
    "forfeit": {"step": int, "seat": int, "reason": str},
    "decision": {"step": int, "seat": int, "index": int, "action": object, "by": str},
    "event": {"step": int, "event": object},
    "result": {"players": list, "termination": str, "steps": int},
}
_TYPE_NAMES = {str: "a string", int: "a non-negative integer", list: "a list", object: "a value"}


class ReplayWriter:
    """Collects a match's replay lines. Strikes and forfeits of one step are written sorted by seat,
    so simultaneous seats that fail at slightly different moments still give the same bytes."""

    def __init__(self, header: dict[str, Any]) -> None:
        self.header_fields = header
        self.lines: list[str] = [_dumps({"type": "header", **header})]
        self._pending: list[tuple[int, int, dict]] = []

    @staticmethod
    def header(
        match_id: str,
        game: str,
        seed: int,
        bots: list[str],
        deadline_ms: int,
        max_strikes: int,
        origin: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Returns the header fields of a replay; ``origin``: where a branched game started from
        (``Branch.origin``)."""
        return {
            "format": FORMAT,
            "match_id": match_id,
            "game": game,
            "seed": seed,
            "players": [{"seat": seat, "bot": bot} for seat, bot in enumerate(bots)],
            "deadline_ms": deadline_ms,
            "max_strikes": max_strikes,
            "versions": {
                "arena": arena.__version__,
                "protocol": PROTOCOL,
                "rules": get_game(game).spec.rules,
                "rng": rng.VERSION,
            },
        } | ({"from": origin} if origin else {})

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

    def step(self, game: Game, step: Step) -> None:
        """Adds a played step: its decisions, then its public events."""
        for decision in step.decisions:
            action = codec.json_text(decision.action, game.action_type)
            self.decision(step.number, decision.seat, decision.index, action, decision.by)
        for event in step.events:
            self.event(step.number, codec.json_text(event, game.event_type))

    def decision(self, step: int, seat: int, index: int, action_json: str, by: str) -> None:
        """Adds a decision; ``action_json`` is the action as compact JSON text (codec.json_text)."""
        self._flush()
        self.lines.append(
            f'{{"type":"decision","step":{step},"seat":{seat},"index":{index},'
            f'"action":{action_json},"by":{_dumps(by)}}}'
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
        """Writes the replay to a new file: ``path``, else the first free ``-2``, ``-3``... name beside
        it (``claim``); returns the path written. An existing replay is never overwritten."""
        written = claim(path)
        written.write_text(self.text(), encoding="utf-8")
        return written


def claim(path: Path) -> Path:
    """Creates a new empty file at ``path`` (and its folder), or at ``NAME-2.EXT``, ``NAME-3.EXT``...
    when that is taken; returns it. Never opens an existing file.

    Design detail: the file is created with O_EXCL, so two runs writing the same seed at the same
    moment still get two names.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    for number in itertools.count(1):
        candidate = path if number == 1 else path.with_name(f"{path.stem}-{number}{path.suffix}")
        try:
            with open(candidate, "x", encoding="utf-8"):
                return candidate
        except FileExistsError:
            continue
    raise AssertionError("unreachable")


def read_lines(path: Path) -> list[dict[str, Any]]:
    """Returns the parsed lines of a replay file; raises ReplayError for a file that is not one."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ReplayError(f"{path} is not a replay: byte {exc.start} is not UTF-8 text") from None
    try:
        return parse_lines(text)
    except ReplayError as exc:
        raise ReplayError(f"{path}: {exc}") from None


def parse_lines(text: str) -> list[dict[str, Any]]:
    """Returns the parsed lines of a replay's text, checked by ``check_lines``; raises ReplayError
    naming the first line that is not a replay line (counted from 1, blank lines skipped)."""
    lines: list[Any] = []
    for number, line in enumerate((x for x in text.splitlines() if x.strip()), 1):
        try:
            lines.append(json.loads(line))
        except ValueError as exc:  # JSONDecodeError, or an integer too long to convert
            raise ReplayError(f"line {number} is not JSON: {getattr(exc, 'msg', exc)}") from None
        except RecursionError:  # arrays or objects nested deeper than the parser goes
            raise ReplayError(f"line {number} is nested too deep to be a replay line") from None
    if not lines:
        raise ReplayError("empty: a replay starts with a header line")
    check_lines(lines)
    return lines


def check_lines(lines: list[Any]) -> None:
    """Raises ReplayError naming the first line (counted from 1, blank lines skipped) that is not a
    replay line: not an object, of an unknown type, missing a field of ``LINE_FIELDS`` or holding the
    wrong type, or naming a seat the header does not have."""
    for number, line in enumerate(lines, 1):
        _check_line(line, number, number == 1)
    players = lines[0]["players"] if lines else []
    for number, player in enumerate(players):
        if not isinstance(player, dict) or not isinstance(player.get("bot"), str):
            raise ReplayError(f"line 1: player {number} of the header is not an object with a 'bot' name")
    for number, line in enumerate(lines, 1):
        if "seat" in line and line["seat"] >= len(players):
            raise ReplayError(
                f"line {number}: seat {line['seat']}, but the header has {len(players)} players"
            )


def _check_line(line: Any, number: int, first: bool) -> None:
    if not isinstance(line, dict):
        raise ReplayError(f"line {number} is a JSON {type(line).__name__}, not an object")
    kind = line.get("type")
    if first != (kind == "header"):
        raise ReplayError(f"line {number}: " + ("not a replay header" if first else "a second header"))
    fields = LINE_FIELDS.get(kind) if isinstance(kind, str) else None
    if fields is None:
        raise ReplayError(
            f"line {number}: unknown line type {_shown(kind)} (known: {', '.join(LINE_FIELDS)})"
        )
    for name, expected in fields.items():
        if name not in line:
            raise ReplayError(f"line {number}: a {kind} line without {name!r}")
        if not _is(line[name], expected):
            raise ReplayError(
                f"line {number}: a {kind} line's {name!r} must be {_TYPE_NAMES[expected]}, "
                f"not {_shown(line[name])}"
            )


def _is(value: Any, expected: type) -> bool:
    if expected is int:
        return type(value) is int and value >= 0
    return isinstance(value, expected)


def _shown(value: Any) -> str:
    """Returns a JSON value as short, escaped text for a message (json.dumps escapes control characters)."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclasses.dataclass
class Reproduction:
    text: str  # the regenerated replay
    record: MatchRecord
    steps: int


def reproduce(
    lines: list[dict[str, Any]], on_step: Callable[[Step], None] | None = None, check_actions: bool = True
) -> Reproduction:
    """Re-runs a replay's game from its header and decisions; returns the regenerated replay.

    Raises ReplayError when a line is malformed (``check_lines``), the replay was made with other
    rules or another generator, or a recorded decision is not the legal action it names (unless
    ``check_actions`` is False: decisions kept without their actions, ``arena.referee.compact``).
    """
    header, game = opening(lines)
    bots, seed = [p["bot"] for p in header["players"]], header["seed"]
    writer = ReplayWriter(header)
    forfeits, strikes = [False] * len(bots), [0] * len(bots)

    def on_referee(step: int, line: dict[str, Any]) -> None:
        seat = line["seat"]
        if line["type"] == "strike":
            strikes[seat] = line["strikes"]
            writer.strike(step, seat, line["code"], line["message"], line["strikes"])
        else:
            forfeits[seat] = True
            writer.forfeit(step, seat, line["reason"])

    driver = Driver(game, game.initial_state(len(bots), seed))
    for step in recorded_steps(game, driver, lines, on_referee, check_actions):
        writer.step(game, step)
        if on_step:
            on_step(step)
    record = final_record(
        game, driver.state, header.get("match_id", ""), seed, bots, forfeits, strikes, driver.step
    )
    writer.result(record)
    return Reproduction(writer.text(), record, driver.step)


def opening(lines: list[dict[str, Any]]) -> tuple[dict[str, Any], Game]:
    """Returns a replay's header fields (without its type) and its game, the lines checked
    (``check_lines``) and the versions too (``check_versions``); raises ReplayError."""
    if not lines:
        raise ReplayError("empty: a replay starts with a header line")
    check_lines(lines)
    header = {k: v for k, v in lines[0].items() if k != "type"}
    try:
        game = get_game(header["game"])
        game.check_players(len(header["players"]))
    except GameError as exc:
        raise ReplayError(f"bad replay header: {exc}") from None
    check_versions(header, game)
    return header, game


def recorded_steps(
    game: Game,
    driver: Driver,
    lines: list[dict[str, Any]],
    on_referee: Callable[[int, dict[str, Any]], None] | None = None,
    check_actions: bool = True,
) -> Iterator[Step]:
    """Yields each step of a recorded game (checked ``lines``) re-run through the engine by ``driver``,
    every decision the recorded index checked against the action the line names; ``on_referee`` gets
    each strike and forfeit line with its step. Raises ReplayError where the record and the game part
    (``check_actions`` False: only the indexes are checked, each against the number of legal actions).
    """
    recorded = iter([x for x in lines[1:] if x.get("type") in ("strike", "forfeit", "decision")])
    pending = next(recorded, None)
    while (turn := driver.turn()) is not None:
        choices: dict[int, tuple[int, str]] = {}
        while turn.legal and pending is not None and pending.get("step") == turn.step:
            if pending["type"] == "decision":
                index = _recorded_index(game, turn, pending, check_actions)
                choices[pending["seat"]] = (index, pending["by"])
            elif on_referee is not None:
                on_referee(turn.step, pending)
            pending = next(recorded, None)
        if set(choices) != set(turn.legal):
            raise ReplayError(
                f"step {turn.step}: decisions recorded for seats {sorted(choices)}, "
                f"but seats {sorted(turn.legal)} act"
            )
        yield driver.advance(turn, choices)


def check_versions(header: dict[str, Any], game: Game) -> None:
    """Raises ReplayError (one line) unless the replay was made with this arena's rules and generator."""
    versions = header.get("versions") or {}
    made = (header.get("format"), versions.get("rules"), versions.get("rng"))
    here = (FORMAT, game.spec.rules, rng.VERSION)
    if made != here:
        raise OtherVersion(
            f"this replay was made by arena {versions.get('arena', '?')} (format {made[0]}, "
            f"{game.spec.name} rules {made[1]}, generator {made[2]}); this arena plays format {here[0]}, "
            f"rules {here[1]}, generator {here[2]}: reproduce it with the arena version that made it"
        )


def _recorded_index(game: Game, turn: Turn, line: dict[str, Any], check_action: bool = True) -> int:
    """Returns the index of a recorded decision, checked against the action the line names."""
    seat, index = line["seat"], line.get("index")
    legal = turn.legal.get(seat)
    if legal is None or not isinstance(index, int) or not 0 <= index < len(legal):
        raise ReplayError(f"step {turn.step}: seat {seat}'s decision (index {index}) is not a legal choice")
    if check_action and codec.to_json(legal[index], game.action_type) != line["action"]:
        raise ReplayError(
            f"step {turn.step}: seat {seat}'s legal action {index} is not the recorded "
            f"{_shown(line['action'])}"
        )
    return index


def first_difference(expected: str, actual: str) -> str | None:
    """Returns a description of the first line where two replays differ, or None if identical."""
    if expected == actual:
        return None
    a, b = expected.splitlines(), actual.splitlines()
    for number, (x, y) in enumerate(zip(a, b, strict=False), 1):
        if x != y:
            return f"line {number} differs:\n  recorded:   {x}\n  reproduced: {y}"
    return f"the recorded replay has {len(a)} lines, the reproduction {len(b)}"
