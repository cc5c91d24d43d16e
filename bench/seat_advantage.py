"""Which games give a seat an advantage: built-in bots played with their seats recorded, and fitted.

    nice python bench/seat_advantage.py                    # every game, 2 and 3 seats (minutes)
    nice python bench/seat_advantage.py --games 40 ninjan  # a small version

The stored ladders (``arena/games/*/ladder.json``) keep pair tables without seats, so this plays the
built-in bots again (``bench/builtin_ladder.py``'s ``schedule`` and ``one_game``: seeded, in-process,
each deal played from every seat), leaving out the game's ``best`` bot (up to ~100 ms a decision),
records every match with its seats (``PairTable.add_match(..., seats=True)``) and fits the table
with a seat advantage (``arena.ratings.fit.fit``). It prints each seat's advantage over seat 0 in
Elo with its 95% interval; docs/ratings.md calls an advantage *measurable* when that interval leaves
out 0, and ``arena.ratings.seating.SEAT_ADVANTAGE`` turns the advantage on for those games.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from builtin_ladder import one_game, schedule

from arena.bots.ladder import aliases, ladder_bots
from arena.games import GAMES, get_game
from arena.ratings.elo import Placement
from arena.ratings.fit import Z95, fit
from arena.ratings.pairs import PairTable


def self_play(game: str, bot: str, copies: tuple[str, ...], seed: int) -> list[Placement]:
    """Returns the placements of one seeded game of ``bot`` against itself, ``copies[s]`` naming
    the copy in seat ``s`` (copies are one bot: any difference between them is the seats')."""
    ranks = [rank for _, rank in one_game(game, (bot,) * len(copies), seed)]
    return [Placement(copy, rank) for copy, rank in zip(copies, ranks, strict=True)]


def measure(game: str, players: int, games: int, jobs: int) -> list[dict]:
    """Returns, per built-in bot but ``best``, the fitted seat advantages of ``games`` games of the
    bot against itself at ``players`` seats, each copy in every seat in turn."""
    best = aliases(game).get("best", "")
    out = []
    for bot in sorted(b for b in ladder_bots(game) if b != best):
        copies = [f"{bot}~{k}" for k in range(players)]
        tasks = schedule(copies, "", players, games, games, 0, {})
        table = PairTable()
        with ProcessPoolExecutor(jobs) as pool:
            args = [(game, bot, seating, seed) for seating, seed in tasks]
            for placements in pool.map(self_play, *zip(*args, strict=True)):
                table.add_match(placements, seats=True)
        fitted = fit(table)
        advantage = {
            tag: {"elo": round(elo, 1), "low": round(elo - Z95 * sd, 1), "high": round(elo + Z95 * sd, 1)}
            for tag, (elo, sd) in fitted.seat_advantage.items()
        }
        draws = round(fitted.draw_ratio or 0.0, 3)
        out.append(
            {"game": game, "players": players, "bot": bot, "matches": len(tasks), "draw_ratio": draws}
            | {"advantage": advantage}
        )
    return out


def main(argv: list[str]) -> int:
    """Prints one JSON line per game and table size."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games_", nargs="*", metavar="GAME", help="games (default: all)")
    parser.add_argument("--games", type=int, default=200, help="games per pair or group (default 200)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3])
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    for game in [get_game(g).spec.name for g in args.games_] or list(GAMES):
        for players in args.players:
            for figures in measure(game, players, args.games, args.jobs):
                print(json.dumps(figures), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
