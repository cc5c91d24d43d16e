"""Games per second of each game played in this process (``arena.referee.inprocess``, ``arena match
--in-process``) against the same games over gRPC with bot processes, side by side.

    in_process.py GAMES    # prints each game's games/s both ways, and the ratio

Both ways play the same series (two built-in ``random`` bots, the same seeds, replays written in
memory); the gRPC way's bots are sandboxed processes, as ``arena match`` starts them. Each rate is
timed from the end of the first game to the end of the last, so starting the bot processes is not
counted against gRPC (nor anything of the first game against either).
"""

from __future__ import annotations

import asyncio
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.games import GAMES
from arena.games.base import Game
from arena.referee.inprocess import from_spec, run_local_series
from arena.referee.match import MatchConfig
from arena.referee.processes import resolve_bot
from arena.referee.runner import GameResult, SeriesConfig, run_series

BOTS = ("random", "random")


def _rate(marks: list[float]) -> float:
    """Returns games per second between the first game's end and the last's."""
    return (len(marks) - 1) / (marks[-1] - marks[0])


async def _series(game: Game, games: int, in_process: bool) -> float:
    specs = [resolve_bot(game.spec.name, bot) for bot in BOTS]
    config = SeriesConfig(games=games, seed=7, match=MatchConfig(deadline=timedelta(seconds=10)))
    marks: list[float] = []

    def mark(_: GameResult) -> None:
        marks.append(time.perf_counter())

    if in_process:
        local = [from_spec(game.spec.name, spec) for spec in specs]
        await run_local_series(game, local, config, on_result=mark)
    else:
        await run_series(game, specs, config, on_result=mark)
    return _rate(marks)


def figures(games: int) -> dict[str, dict[str, float]]:
    """Returns, per game, games/s in-process and over gRPC (``games`` >= 2 games each way)."""
    return {
        name: {
            "grpc_games_per_s": asyncio.run(_series(game, games, in_process=False)),
            "in_process_games_per_s": asyncio.run(_series(game, games, in_process=True)),
        }
        for name, game in GAMES.items()
    }


if __name__ == "__main__":
    for name, fig in figures(int(sys.argv[1]) if len(sys.argv) > 1 else 10).items():
        local, grpc = fig["in_process_games_per_s"], fig["grpc_games_per_s"]
        print(f"{name:<14} in-process {local:9.1f} games/s   gRPC {grpc:7.1f} games/s   x{local / grpc:.1f}")
