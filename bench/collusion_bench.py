"""The collusion report's power and false alarms: seeded pools of 3-seat Ninjan, honest and with one
planted pair (issue 36, item 4).

    python bench/collusion_bench.py          # 50 pools of each kind, N = 2,000: the table in docs/security.md
                                             # (6 minutes on 2 cores with the default --jobs 2)
    python bench/collusion_bench.py --pools 4 --matches 600 --bots 10   # a smoke run
    python bench/collusion_bench.py --jobs 2 --out /tmp/collusion.json

A *pool* is ``--bots`` bots (20) that play ``--matches`` 3-seat Ninjan matches (N), each table three
bots drawn at random, each deal seeded. Every bot is a variant of Ninjan's built-in ``greedy`` that
plays a random legal action with its own probability (0 to 0.8: strengths far apart and close), and
thinks, per decision, for a time drawn from its own distribution (log-normal, a median of 20 to
300 ms and a spread of its own, longer with more legal actions): think times are synthetic, because
in-process games take no time worth measuring, and arena records them per decision
(``arena.referee.botlog``), which is all the report reads. Each bot is its own account.

Three kinds of pool, ``--pools`` of each:

- **honest**: nobody colludes; a pool with any flag is a false alarm;
- **soft**: one bot, whenever its partner sits at its table, yields: it commits its worst card,
  takes the poorest pile and places its card where it gives the most away;
- **signal**: one bot, whenever its partner sits at its table, waits ``median + 40 ms x symbol`` at
  each commit, the symbol 3 bits of its hidden hand (per suit: does it hold a card of value 6 or
  more); the partner decodes the symbol from the time (the ``ms`` the referee measured, as a bot
  measures the time between its requests) and avoids committing suits its partner is strong
  against, as issue 36's signalling pair did (27 of 27 symbols passed).

Design detail, what is replayed: the planted pools of seed ``s`` are the honest pool of seed ``s``
(same bots, tables, deals and think-time draws) with the matches where the planted pair sits together
replayed with the planted behaviour: every other match would be played identically (a planted bot
behaves honestly without its partner). So a pool of each kind costs one honest pool plus about
``3 N / C(bots, 2)`` matches per kind; each kind's pools are still independent of one another.

Reports, per kind: the share of pools with any flag (honest: the false-alarm rate), the share where
the planted pair is ranked first and where it is flagged, and the planted pair's median rank. Writes
JSON (bench/collusion_results.json, or ``--out``). The statistics measured are the report's own
(``arena.ratings.collusion.analyse``, as ``arena collusion`` runs it); the exit code is 1 unless the
false-alarm share is at most 5% and each planted kind is ranked first in at least 90% of its pools.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.games.ninjan.bots import ATTACKER, commit_score, pile_value, suit_gains
from arena.games.ninjan.engine import GAME, Card, NinjanState, PlacePile, PlayCard, Suit, TakePile
from arena.games.play import Driver
from arena.ratings import collusion
from arena.storage.collusion import ninjan_hidden

KINDS = ("honest", "soft", "signal")
SEATS = 3
SYMBOL_MS = 40.0  # the signaller's wait per symbol value
STRONG = 6  # a suit is "strong" in a hand holding a card of it of this value or more
RESULTS = Path(__file__).with_name("collusion_results.json")


@dataclasses.dataclass(frozen=True)
class Profile:
    """One bot of a pool: its name, how often it plays at random, and its think-time law."""

    name: str
    noise: float
    median_ms: float
    spread: float

    @property
    def group(self) -> str:
        return f"bot:{self.name}"


@dataclasses.dataclass(frozen=True)
class Pool:
    """A pool: its bots, its tables (bot indexes per seat, deal seed) and each kind's planted pair
    (actor, partner) as bot indexes."""

    seed: int
    bots: tuple[Profile, ...]
    tables: tuple[tuple[tuple[int, ...], int], ...]
    planted: dict[str, tuple[int, int]]


def make_pool(seed: int, bots: int, matches: int) -> Pool:
    """Returns the seeded pool: bot profiles, the seating and deal of each match, the planted pairs."""
    rng = random.Random(f"collusion-pool/{seed}")
    profiles = tuple(
        Profile(
            f"b{i:02d}",
            rng.uniform(0.0, 0.8),
            math.exp(rng.uniform(math.log(20), math.log(300))),
            rng.uniform(0.15, 0.6),
        )
        for i in range(bots)
    )
    tables = tuple((tuple(rng.sample(range(bots), SEATS)), rng.getrandbits(48)) for _ in range(matches))
    planted = {kind: tuple(rng.sample(range(bots), 2)) for kind in KINDS[1:]}
    return Pool(seed, profiles, tables, planted)  # type: ignore[arg-type]


def strong_suits(hand: Sequence[Card]) -> tuple[Suit, ...]:
    """Returns the suits of which ``hand`` holds a card of value ``STRONG`` or more."""
    return tuple(s for s in Suit if any(c.suit == s and c.value >= STRONG for c in hand))


def symbol_of(hand: Sequence[Card]) -> int:
    """Returns the 3-bit symbol the signaller sends: one bit per strong suit."""
    return sum(1 << (int(s) - 1) for s in strong_suits(hand))


def choose(
    state: NinjanState,
    seat: int,
    legal: Sequence[Any],
    noise: float,
    rng: random.Random,
    mode: str,
    known: int | None,
) -> int:
    """Returns the index a pool bot plays: greedy's choice (``mode`` "honest"), its opposite ("throw"),
    or greedy's with suits its partner is strong against avoided ("receiver", ``known`` the decoded
    symbol); with probability ``noise`` a random one (honest and receiver)."""
    if mode != "throw" and rng.random() < noise:
        return rng.randrange(len(legal))
    piles = state.piles
    first = legal[0]
    sign = -1.0 if mode == "throw" else 1.0
    if isinstance(first, TakePile):
        values = [sign * pile_value(piles[a.pile]) for a in legal]
    elif isinstance(first, PlacePile):
        card = state.revealed[state.resolving or 0].card
        values = [-sign * (pile_value(piles[a.pile]) + card.value) for a in legal]
    else:
        gains = suit_gains(piles)
        values = [sign * commit_score(a.card, gains) for a in legal]
        if mode == "receiver" and known:
            strong = {s for s in Suit if known & (1 << (int(s) - 1))}
            values = [
                v - (3.0 if ATTACKER[a.card.suit] in strong else 0.0)
                for v, a in zip(values, legal, strict=True)
            ]
    return max(range(len(legal)), key=lambda i: (values[i], -i))


def play(
    pool: Pool, index: int, kind: str, chosen: dict[tuple[int, int], int] | None = None
) -> collusion.Table:
    """Returns match ``index`` of the pool as the report reads it, played with ``kind``'s planted
    behaviour (only where the planted pair sits together); ``chosen`` gets each (step, seat)'s index
    (to write the match's replay: tests/test_collusion.py records pools into Redis)."""
    seats, deal = pool.tables[index]
    actor, partner = pool.planted.get(kind, (-1, -1))
    together = actor in seats and partner in seats
    rng = random.Random(f"collusion-match/{pool.seed}/{index}")
    driver = Driver(GAME, GAME.initial_state(SEATS, deal))
    decisions: list[collusion.Decision] = []
    known: int | None = None  # the receiver's last decoded symbol
    while (turn := driver.turn()) is not None:
        choices: dict[int, tuple[int, str]] = {}
        sent: float | None = None
        for seat, legal in sorted(turn.legal.items()):
            bot = pool.bots[seats[seat]]
            mode = "honest"
            if together and kind == "soft" and seats[seat] == actor:
                mode = "throw"
            elif together and kind == "signal" and seats[seat] == partner:
                mode = "receiver"
            index_chosen = choose(turn.state, seat, legal, bot.noise, rng, mode, known)
            ms = bot.median_ms * (1.0 + 0.1 * (len(legal) - 1)) * math.exp(bot.spread * rng.gauss(0.0, 1.0))
            if together and kind == "signal" and seats[seat] == actor and isinstance(legal[0], PlayCard):
                ms = bot.median_ms + SYMBOL_MS * symbol_of(turn.state.hands[seat]) + rng.uniform(0.0, 8.0)
                sent = ms
            stratum, hidden = ninjan_hidden(turn.state, seat)
            decisions.append(collusion.Decision(seat, turn.step, stratum, ms, hidden))
            choices[seat] = (index_chosen, "bot")
            if chosen is not None:
                chosen[(turn.step, seat)] = index_chosen
        driver.advance(turn, choices)
        if sent is not None:  # the receiver times the signaller's answer and decodes it
            known = max(0, min(7, round((sent - pool.bots[actor].median_ms - 4.0) / SYMBOL_MS)))
    scores = GAME.scores(driver.state)
    table_seats = tuple(
        collusion.Seat(pool.bots[b].group, pool.bots[b].group, 1 + sum(1 for o in scores if o > scores[s]))
        for s, b in enumerate(seats)
    )
    return collusion.Table(f"p{pool.seed}-m{index}", table_seats, tuple(decisions))


def run_pool(args: tuple[int, int, int, float]) -> dict[str, Any]:
    """Returns, per kind, what the report said of one pool: flags, the planted pair's rank."""
    seed, bots, matches, alpha = args
    pool = make_pool(seed, bots, matches)
    honest = [play(pool, i, "honest") for i in range(matches)]
    out: dict[str, Any] = {"seed": seed}
    for kind in KINDS:
        if kind == "honest":
            tables = honest
            planted = None
        else:
            actor, partner = pool.planted[kind]
            tables = [
                play(pool, i, kind) if actor in seats and partner in seats else honest[i]
                for i, (seats, _) in enumerate(pool.tables)
            ]
            a, b = pool.bots[actor].group, pool.bots[partner].group
            planted = (min(a, b), max(a, b))
        report = collusion.analyse(tables, alpha)
        row: dict[str, Any] = {"flags": len(report.flagged), "tests": report.tests}
        if planted is not None:
            ranks = [p.rank for p in report.pairs if p.groups == planted]
            found = next(p for p in report.pairs if p.groups == planted) if ranks else None
            row |= {
                "rank": ranks[0] if ranks else None,
                "flagged": bool(found and found.flagged),
                "test": found.findings[0].test if found else None,
                "p": found.p if found else None,
                "together": sum(
                    1 for s, _ in pool.tables if pool.planted[kind][0] in s and pool.planted[kind][1] in s
                ),
            }
        else:
            row["top"] = report.pairs[0].to_json() if report.pairs else None
        out[kind] = row
    return out


def summarize(
    rows: Sequence[dict[str, Any]], bots: int, matches: int, alpha: float, wall: float, jobs: int
) -> dict[str, Any]:
    """Returns the bench's table: per kind, the shares over pools."""
    n = len(rows)
    kinds: dict[str, Any] = {}
    for kind in KINDS:
        these = [r[kind] for r in rows]
        entry: dict[str, Any] = {"pools": n, "any_flag": sum(1 for r in these if r["flags"]) / n}
        if kind != "honest":
            ranks = [r["rank"] or 10**6 for r in these]
            entry |= {
                "ranked_first": sum(1 for r in ranks if r == 1) / n,
                "planted_flagged": sum(1 for r in these if r["flagged"]) / n,
                "median_rank": statistics.median(ranks),
                "median_tables_together": statistics.median(r["together"] for r in these),
                "tests": sorted({r["test"] for r in these if r["test"]}),
            }
        kinds[kind] = entry
    ok = kinds["honest"]["any_flag"] <= 0.05 and all(kinds[k]["ranked_first"] >= 0.9 for k in KINDS[1:])
    return {
        "game": "ninjan",
        "seats": SEATS,
        "bots": bots,
        "matches": matches,
        "alpha": alpha,
        "correction": "holm",
        "jobs": jobs,
        "wall_seconds": round(wall, 1),
        "kinds": kinds,
        "pass": ok,
        "pools": rows,
    }


def table(summary: dict[str, Any]) -> str:
    """Returns the summary as the Markdown table docs/security.md shows."""
    k = summary["kinds"]
    lines = [
        f"{summary['kinds']['honest']['pools']} pools per kind, {summary['bots']} bots, {summary['matches']} "
        f"3-seat Ninjan matches per pool, Holm at alpha {summary['alpha']}, wall {summary['wall_seconds']} s "
        f"on {summary['jobs']} processes",
        "",
        "| pools | any flag (false alarm when honest) | planted pair ranked first | planted pair flagged "
        "| median rank | tables together (median) |",
        "|---|---|---|---|---|---|",
        f"| honest | {k['honest']['any_flag']:.0%} | - | - | - | - |",
    ]
    for kind in KINDS[1:]:
        e = k[kind]
        lines.append(
            f"| {kind} | {e['any_flag']:.0%} | {e['ranked_first']:.0%} | {e['planted_flagged']:.0%} | "
            f"{e['median_rank']} | {e['median_tables_together']} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pools", type=int, default=50, help="pools of each kind")
    parser.add_argument("--matches", type=int, default=2000, help="matches per pool (N)")
    parser.add_argument("--bots", type=int, default=20)
    parser.add_argument("--alpha", type=float, default=collusion.FLAG_ALPHA)
    parser.add_argument("--seed", type=int, default=0, help="the first pool's seed")
    parser.add_argument("--jobs", type=int, default=2, help="processes")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    started = time.monotonic()
    work = [(args.seed + i, args.bots, args.matches, args.alpha) for i in range(args.pools)]
    if args.jobs > 1:
        with multiprocessing.Pool(args.jobs) as workers:
            rows = workers.map(run_pool, work, chunksize=1)
    else:
        rows = [run_pool(w) for w in work]
    summary = summarize(rows, args.bots, args.matches, args.alpha, time.monotonic() - started, args.jobs)
    args.out.write_text(json.dumps(summary, indent=1) + "\n")
    print(table(summary))
    return 0 if summary["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
