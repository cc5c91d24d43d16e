"""The round robin among a game's built-in bots, stored as the ladder ``arena bots builtin`` shows.

    nice python bench/builtin_ladder.py ninjan                       # 2 players, the defaults
    nice python bench/builtin_ladder.py pnrz --games 200 --best-games 60 --players 2 3 --jobs 2

Every pair of built-in bots (``arena.bots.ladder.ladder_bots``: ``best`` is a second name, not a
player) plays ``--games`` seeded games in-process (``arena.testing.play_bots``: engines and bot
classes, no referee, no processes, no Redis); a pair that includes the game's ``best`` bot plays
``--best-games`` instead, since its decisions cost up to ~100 ms, and ``--pair A:B=N`` gives a close
pair more games. Game ``g`` of a pair deals seed
``first_seed + g // 2`` and puts the pair's first bot in seat ``g % 2``, so each deal is played from
both seats and the luck of the deal cancels. With ``--players 3`` (or more, up to the number of bots)
the bots play together, one seat each: game ``g`` deals seed ``first_seed + g // k!`` and seats them in
the ``g % k!``-th order, ``--best-games`` games in all. Each player count is its own table.

Design detail, reproducible: the search bots' budget counts iterations, and their wall-time guard is
lifted here (``unguarded``), so a loaded machine plays the same games as an idle one; the file records
the command line, and running it again writes the same file.

The results go to ``arena/games/<game>/ladder.json``: per player count, the pair table's counters
(``arena.ratings.pairs.PairTable.to_fields``), the matches played, and each pair's games.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import shlex
import sys
from concurrent.futures import ProcessPoolExecutor
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.bots.ladder import BENCH, aliases, ladder_bots, ladder_path
from arena.bots.search import Budget
from arena.games import get_game
from arena.ratings.elo import Placement
from arena.ratings.fit import fit, standings
from arena.ratings.pairs import PairTable
from arena.testing import play_bots

UNGUARDED = timedelta(days=1)  # the wall-time guard of a search, lifted: only iterations count


def unguarded(bot):
    """Returns ``bot`` with its search budget's wall-time guard lifted (a bot without one unchanged)."""
    budget = getattr(bot, "budget", None)
    if isinstance(budget, Budget):
        bot.budget = dataclasses.replace(budget, cap=UNGUARDED, share=UNGUARDED / timedelta(seconds=2))
    return bot


def one_game(game_name: str, seating: tuple[str, ...], seed: int) -> tuple[tuple[str, int], ...]:
    """Returns ``(bot, rank)`` per seat of one seeded game, ``seating[s]`` playing seat ``s``."""
    game = get_game(game_name)
    bots = ladder_bots(game_name)
    state = play_bots(game, [unguarded(bots[name]()) for name in seating], seed=seed)
    return tuple(zip(seating, game.ranks(state), strict=True))


def schedule(
    bots: list[str], best: str, players: int, games: int, best_games: int, first_seed: int, counts: dict
):
    """Returns ``(seating, seed)`` of every game of the round robin at ``players`` seats; ``counts``
    gives some pairs (``"a:b"``, sorted) their own number of 2-player games."""
    tasks = []
    if players == 2:
        for pair in itertools.combinations(bots, 2):
            count = counts.get(":".join(pair), best_games if best in pair else games)
            tasks += [(pair if g % 2 == 0 else pair[::-1], first_seed + g // 2) for g in range(count)]
        return tasks
    for group in itertools.combinations(bots, players):
        orders = list(itertools.permutations(group))
        tasks += [(orders[g % len(orders)], first_seed + g // len(orders)) for g in range(best_games)]
    return tasks


def play_table(game: str, players: int, tasks: list, jobs: int) -> dict:
    """Plays ``tasks`` (``jobs`` processes) and returns the stored entry of their table."""
    table, pair_games = PairTable(), {}
    with ProcessPoolExecutor(jobs) as pool:
        results = pool.map(one_game, *zip(*[(game, s, seed) for s, seed in tasks], strict=True))
        for done, result in enumerate(results, 1):
            table.add_match([Placement(bot, rank) for bot, rank in result])
            for a, b in itertools.combinations(sorted(bot for bot, _ in result), 2):
                pair_games[f"{a}:{b}"] = pair_games.get(f"{a}:{b}", 0) + 1
            if done % 20 == 0 or done == len(tasks):
                print(f"{game} {players}p: {done}/{len(tasks)} games", file=sys.stderr, flush=True)
    return {"players": players, "games": len(tasks), "pair_games": pair_games, "fields": table.to_fields()}


def report(game: str, entry: dict) -> str:
    """Returns the entry's fitted ladder, one line per bot (rating, interval, games, LOS over the next)."""
    lines = [f"{game}, {entry['players']} players, {entry['games']} games:"]
    for row in standings(fit(PairTable.from_fields(entry["fields"]))):
        los = "" if row.los_next is None else f"  LOS {row.los_next:.3f}"
        lines.append(f"  {row.bot:10} {row.elo:7.1f} [{row.low:.1f}, {row.high:.1f}] {row.games} games{los}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("game")
    parser.add_argument("--games", type=int, default=200, help="games per pair without the best bot")
    parser.add_argument("--best-games", type=int, default=100, help="games per pair with the best bot")
    parser.add_argument("--players", type=int, nargs="+", default=[2], help="player counts (one table each)")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument(
        "--pair", action="append", default=[], metavar="A:B=N", help="N games for one pair (a close one)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="processes (the file does not depend on it)")
    parser.add_argument("--out", type=Path, help="where to write (default: the stored ladder of the game)")
    args = parser.parse_args(argv)
    name = get_game(args.game).spec.name
    bots, best = sorted(ladder_bots(name)), aliases(name).get("best", "")
    counts = dict(_pair_count(text, bots) for text in args.pair)
    tables = []
    for players in args.players:
        get_game(name).check_players(players)
        if players > len(bots):
            parser.error(f"{players} players need {players} different bots; {name} has {len(bots)}")
        tasks = schedule(bots, best, players, args.games, args.best_games, args.first_seed, counts)
        tables.append(play_table(name, players, tasks, args.jobs))
        print(report(name, tables[-1]), flush=True)
    command = shlex.join(["python", BENCH, name, *_options(args)])
    data = {"game": name, "command": command, "first_seed": args.first_seed, "bots": bots, "tables": tables}
    out = args.out or ladder_path(name)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {out}", flush=True)


def _pair_count(text: str, bots: list[str]) -> tuple[str, int]:
    """Returns ``("a:b", n)`` (the pair sorted) of a ``--pair A:B=N``; exits naming the bots otherwise."""
    pair, _, count = text.partition("=")
    names = sorted(pair.split(":"))
    if len(names) != 2 or not set(names) <= set(bots) or names[0] == names[1] or not count.isdigit():
        sys.exit(f"--pair {text}: give A:B=N with two of {', '.join(bots)} and a number of games")
    return ":".join(names), int(count)


def _options(args: argparse.Namespace) -> list[str]:
    """Returns the options that decide the file's contents (``--jobs`` and ``--out`` do not)."""
    players = [str(p) for p in args.players]
    return [
        *("--games", str(args.games), "--best-games", str(args.best_games)),
        *("--players", *players, "--first-seed", str(args.first_seed)),
        *(option for text in args.pair for option in ("--pair", text)),
    ]


if __name__ == "__main__":
    main()
