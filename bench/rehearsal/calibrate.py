"""The rehearsal's true strengths: a seeded in-process round robin of its honest Python bots, fitted.

    nice python -m bench.rehearsal.calibrate --bots 88 --games 16          # writes calibration.json
    python -m bench.rehearsal.calibrate --score /tmp/rehearsal.json       # a run's order against it

The rehearsal's honest bots (``roster.plan``: variants of a built-in with a share of random moves or
a small search budget; the roster is a function of ``--bots``) are each rebuilt from their
``variant.json`` (``variant_bot.from_spec``) and every pair of one game plays ``--games`` seeded
games in this process (``arena.testing.play_bots``: the engines and the bots, no referee), game
``g`` dealing seed ``g // 2`` with the pair's first bot in seat ``g % 2``, so each deal is played
from both seats. The table is fitted as the leaderboard is (``arena.ratings.fit``): each bot's Elo
and the standard deviation of each pair's difference. The result, with the games per pair and each
bot's spec, goes to ``calibration.json`` beside this file.

The rehearsal's Kendall distance is then counted over the pairs whose calibrated gap is at least
``GAP_ELO`` with a 95% interval clear of 0 (``pairs_to_order``), as issue 38 asks; a bot whose spec
differs from the calibrated one (another roster) is left out and named.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from arena.games import get_game
from arena.ratings.elo import Placement
from arena.ratings.fit import Z95, fit
from arena.ratings.pairs import PairTable
from arena.testing import play_bots

from . import variant_bot
from .roster import BotPlan, plan

CALIBRATION = Path(__file__).with_name("calibration.json")
GAP_ELO = 50.0  # pairs at least this far apart (and clear of 0 at 95%) count in the Kendall distance
GAMES = ("ninjan", "ninja-burger", "pnrz", "ninja-master")


def spec_of(bot: BotPlan) -> dict[str, Any]:
    """Returns the bot's ``variant.json`` as a dict."""
    return dict(json.loads(dict(bot.files)["variant.json"]))


def one_game(game_name: str, specs: tuple[dict[str, Any], ...], seed: int) -> tuple[int, ...]:
    """Returns the finishing rank of each seat of one seeded game between the variants ``specs``."""
    from bench.builtin_ladder import unguarded  # the search budget counts iterations, not wall time

    game = get_game(game_name)
    state = play_bots(game, [unguarded(variant_bot.from_spec(spec)) for spec in specs], seed=seed)
    return tuple(game.ranks(state))


def calibrate_game(game: str, bots: list[BotPlan], games: int, jobs: int) -> dict[str, Any]:
    """Plays the round robin of one game's honest bots; returns their fitted Elo and pair figures."""
    tasks = [
        ((a, b) if g % 2 == 0 else (b, a), g // 2)
        for a, b in itertools.combinations(bots, 2)
        for g in range(games)
    ]
    table = PairTable()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(one_game, game, (spec_of(x), spec_of(y)), seed) for (x, y), seed in tasks]
        for ((x, y), _), future in zip(tasks, futures, strict=True):
            ranks = future.result()
            table.add_match([Placement(x.name, ranks[0]), Placement(y.name, ranks[1])])
    result = fit(table)
    return {
        "games_per_pair": games,
        "bots": {
            b.name: {
                "elo": round(result.ratings[b.name], 1),
                "sd": round(result.sd(b.name), 1),
                "spec": spec_of(b),
            }
            for b in bots
        },
        "difference_sd": {
            f"{a.name}:{b.name}": round(result.difference_sd(a.name, b.name), 2)
            for a, b in itertools.combinations(bots, 2)
        },
    }


def honest_python(bots: int) -> dict[str, list[BotPlan]]:
    """Returns the rehearsal's honest Python bots per game for ``--bots`` (as ``roster.plan`` deals)."""
    found: dict[str, list[BotPlan]] = {}
    for bot in plan(list(GAMES), bots, 0, with_broken=False):
        if bot.kind == "honest":
            found.setdefault(bot.game, []).append(bot)
    return found


def pairs_to_order(calibrated: dict[str, Any], specs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Returns the pairs of one game whose calibrated gap is >= ``GAP_ELO`` with a 95% interval clear
    of 0, as ``{"pairs": [(stronger, weaker)], "left_out": [bots whose spec differs]}``; ``specs``
    gives the run's bots' specs."""
    bots = calibrated["bots"]
    same = sorted(b for b in bots if specs.get(b) == bots[b]["spec"])
    left_out = sorted(b for b in specs if b in bots and b not in same)
    pairs = []
    for a, b in itertools.combinations(same, 2):
        gap = bots[a]["elo"] - bots[b]["elo"]
        sd = calibrated["difference_sd"].get(f"{a}:{b}") or calibrated["difference_sd"].get(f"{b}:{a}")
        if abs(gap) >= GAP_ELO and sd is not None and abs(gap) > Z95 * sd:
            pairs.append((a, b) if gap > 0 else (b, a))
    return {"pairs": pairs, "left_out": left_out}


def kendall(order: list[tuple[str, float]], pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """Returns the share of ``pairs`` (stronger, weaker) that the ladder's ``order`` ((bot, Elo))
    puts the other way round, over the pairs both of whose bots it rated."""
    elo = dict(order)
    counted = [(a, b) for a, b in pairs if a in elo and b in elo]
    discordant = [f"{a}>{b}" for a, b in counted if elo[a] < elo[b]]
    return {
        "pairs": len(counted),
        "discordant": len(discordant),
        "distance": round(len(discordant) / len(counted), 3) if counted else None,
        "discordant_pairs": discordant[:20],
    }


def score(report: dict[str, Any], calibration: dict[str, Any]) -> dict[str, Any]:
    """Returns each game's Kendall distance of a rehearsal report's final order from the calibration."""
    bots = report.get("options", {}).get("bots")
    if bots != calibration.get("bots_option"):
        why = f"calibrated for --bots {calibration.get('bots_option')}, the run had --bots {bots}"
        return {game: {"distance": None, "why": why} for game in report.get("order", {})}
    run = honest_python(int(bots))
    out = {}
    for game, figures in report.get("order", {}).items():
        if game not in calibration.get("games", {}):
            out[game] = {"distance": None, "why": "not calibrated"}
            continue
        calibrated = calibration["games"][game]
        chosen = pairs_to_order(calibrated, {b.name: spec_of(b) for b in run.get(game, [])})
        out[game] = kendall([(b, e) for b, e in figures["order"]], chosen["pairs"]) | {
            "left_out": chosen["left_out"],
            "games_per_pair": calibrated["games_per_pair"],
        }
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=88, help="the rehearsal's --bots (default 88)")
    parser.add_argument("--games", type=int, default=16, help="games per pair (default 16)")
    parser.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    parser.add_argument("--only", default=",".join(GAMES), help="games to calibrate (comma-separated)")
    parser.add_argument("--out", type=Path, default=CALIBRATION)
    parser.add_argument("--score", type=Path, default=None, help="a rehearsal's JSON report to score")
    args = parser.parse_args(argv)
    if args.score:
        if not args.out.exists():
            print(f"calibrate: no calibration at {args.out}: run without --score first", file=sys.stderr)
            return 2
        print(
            json.dumps(score(json.loads(args.score.read_text()), json.loads(args.out.read_text())), indent=1)
        )
        return 0
    found = json.loads(args.out.read_text()) if args.out.exists() else {"games": {}}
    if found.get("bots_option") not in (None, args.bots):
        found = {"games": {}}  # another roster: start afresh
    found["command"] = "python -m bench.rehearsal.calibrate " + " ".join(argv)
    found["bots_option"] = args.bots
    for game, bots in honest_python(args.bots).items():
        if game not in args.only.split(","):
            continue
        started = time.monotonic()
        found["games"][game] = calibrate_game(game, bots, args.games, args.jobs)
        found["games"][game]["seconds"] = round(time.monotonic() - started)
        found["games"][game]["command"] = found["command"]  # games may be calibrated by separate runs
        args.out.write_text(json.dumps(found, indent=1, sort_keys=True) + "\n")
        print(f"{game}: {len(bots)} bots, {args.games} games per pair, {found['games'][game]['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
