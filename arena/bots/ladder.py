"""The ladder of a game's built-in bots: a stored round robin among them, fitted like any other table.

``bench/builtin_ladder.py GAME`` plays the round robin in-process (seeded, the seats rotating) and
writes ``arena/games/<game>/ladder.json``: the pair table's counters (``PairTable.to_fields``), the
games played and the command line that regenerates the file. This module reads that file and fits it
with ``arena.ratings`` (Bradley-Terry with two virtual draws against 1500: the one rating method),
so ``arena bots builtin GAME`` shows the same kind of rows as ``arena leaderboard``, with intervals and
LOS over the next row.

A bot registered under two names (``best`` is the strongest bot's second name) is one player: the
table holds it under its own name, and ``aliases`` names the other ones.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

from arena.bots import builtin_bots
from arena.games import folder_of, get_game
from arena.ratings.fit import Fit, Standing, fit, standings
from arena.ratings.pairs import PairTable
from arena.sdk import Bot

BENCH = "bench/builtin_ladder.py"


class LadderError(ValueError):
    """A game has no stored ladder, or its file cannot be read: the message says what to run."""


def ladder_bots(game: str) -> dict[str, type[Bot]]:
    """Returns the game's built-in bots by name, one name per bot: a class registered under several
    names keeps the first (``best`` is a second name, never the first)."""
    seen: dict[type[Bot], str] = {}
    for name, cls in builtin_bots(game).items():
        seen.setdefault(cls, name)
    return {name: cls for cls, name in seen.items()}


def aliases(game: str) -> dict[str, str]:
    """Returns ``{alias: name}`` for each second name of a built-in bot (``{"best": "search"}``)."""
    canonical = {cls: name for name, cls in ladder_bots(game).items()}
    return {name: canonical[cls] for name, cls in builtin_bots(game).items() if canonical[cls] != name}


def summary(cls: type) -> str:
    """Returns what a bot class is, in one line: the first sentence of its docstring (a docstring's
    first sentence may wrap over several source lines, so its first line alone can stop mid-phrase)."""
    paragraph = (cls.__doc__ or "").strip().split("\n\n")[0]
    return re.split(r"(?<=\.)\s", " ".join(paragraph.replace("``", "").split()))[0]


def ladder_path(game: str) -> Path:
    """Returns where the game's stored ladder lives: ``ladder.json`` in the game's folder."""
    return folder_of(game) / "ladder.json"


def shown(path: Path) -> str:
    """Returns ``path`` as a reader finds it: from the package root (``arena/games/ninjan/ladder.json``)."""
    parts = path.parts
    return "/".join(parts[parts.index("arena") :]) if "arena" in parts else str(path)


def bench_command(game: str) -> str:
    """Returns the command that plays a game's round robin with the bench's defaults."""
    return f"python {BENCH} {get_game(game).spec.name}"


@dataclasses.dataclass(frozen=True)
class Ladder:
    """A stored round robin: the game, its pair table, how many games were played and how."""

    game: str
    players: int  # seats per game of this table
    table: PairTable
    games: int  # matches played
    pair_games: dict[str, int]  # "a:b" -> matches that pair played (every seat of a game counted)
    command: str  # the command line that wrote the file
    first_seed: int
    held: tuple[int, ...]  # the player counts the file holds a table for

    def fit(self) -> Fit:
        """Returns the fit of the stored table (``arena.ratings.fit.fit``)."""
        return fit(self.table)

    def standings(self) -> list[Standing]:
        """Returns the ladder's rows, strongest first, each with its LOS over the next row."""
        return standings(self.fit())


def load(game: str, players: int = 2) -> Ladder:
    """Returns the stored ladder of ``game`` at ``players`` seats; raises LadderError, naming the bench
    command, when the file is missing, unreadable or holds no table for that many players."""
    path = ladder_path(game)
    name = get_game(game).spec.name
    if not path.is_file():
        raise LadderError(f"no stored ladder for {name}: run '{bench_command(name)}' to play it")
    try:
        data = json.loads(path.read_text())
        tables = {int(t["players"]): t for t in data["tables"]}
        if players in tables:
            return _ladder(name, data, tables[players], tuple(sorted(tables)))
    except (OSError, KeyError, TypeError, ValueError) as exc:
        raise LadderError(f"{path} cannot be read ({exc}): run '{bench_command(name)}' again") from None
    held = ", ".join(map(str, sorted(tables)))
    raise LadderError(f"{shown(path)} holds no {players}-player table: it has {held} (--players N)")


def _ladder(game: str, data: dict[str, Any], entry: dict[str, Any], held: tuple[int, ...]) -> Ladder:
    """Returns the Ladder of one table entry of a stored file."""
    return Ladder(
        game,
        int(entry["players"]),
        PairTable.from_fields(entry["fields"]),
        int(entry["games"]),
        {str(k): int(v) for k, v in entry["pair_games"].items()},
        str(data["command"]),
        int(data["first_seed"]),
        held,
    )


def missing(ladder: Ladder) -> list[str]:
    """Returns the built-in bots of the ladder's game that its table lacks (added since it was played)."""
    stored = set(ladder.table.players())
    return [name for name in ladder_bots(ladder.game) if name not in stored]


def rows(ladder: Ladder) -> list[dict[str, Any]]:
    """Returns the rows ``arena bots builtin GAME --json`` prints: each bot's standing
    (``Standing.to_json``), its other names and what it is (its docstring's first sentence)."""
    bots = ladder_bots(ladder.game)
    other_names = aliases(ladder.game)
    out = []
    for row in ladder.standings():
        cls = bots.get(row.bot)
        out.append(
            {
                **row.to_json(),
                "aliases": sorted(a for a, n in other_names.items() if n == row.bot),
                "about": summary(cls) if cls else "(no longer a built-in bot)",
            }
        )
    return out
