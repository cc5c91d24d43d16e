"""Soak test of the referee (issue 8): thousands of Ninjan matches on one referee, normal and hostile.

usage: PYTHONPATH=. python bench/soak.py [--scale 1.0]

Lanes of matches run concurrently on one in-process referee (this process): two random bots, and
hostile bots (tests/bots/hostile.py) that misbehave in every match against built-in bots: illegal
actions, garbage bytes, floods of answers, oversize messages (the stream is cut, the bot restarted),
and a bot that forks children and exits (restarted every match). Every bot runs in the sandbox, as by
default. It prints the referee's resident memory after the first 100 matches and at the end (they
must be within 20%), checks that every normal match finished without a strike, and that no bot
process (nor any child of one, found by the tag in its command line) is left over.
Exit code 0 when all holds. Not a CI test: it takes minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import secrets
import sys
import tempfile
import time
from pathlib import Path

import psutil

from arena.games import get_game
from arena.games.base import Game
from arena.referee.leases import LeaseRegistry
from arena.referee.processes import MARKER_VARIABLE, BotSpec, resolve_bot
from arena.referee.runner import GameResult, SeriesConfig, SharedReferee, run_series
from arena.referee.server import start_referee

REPO = Path(__file__).resolve().parent.parent
HOSTILE = REPO / "tests" / "bots" / "hostile.py"
TAG = secrets.token_hex(8)  # in the command line of every child the fork bot leaves (hostile.py)
LANES = [  # (hostile mode or None for a normal match, opponent, games)
    (None, "random", 600),
    ("illegal", "random", 450),
    ("garbage", "greedy", 350),
    ("flood", "random", 300),
    ("oversize", "random", 150),
    ("fork", "greedy", 150),
]


def hostile(mode: str) -> BotSpec:
    """Returns a hostile bot in ``mode``, its folder bound into its sandbox (it reports on stdout)."""
    argv = (sys.executable, str(HOSTILE), mode, *([TAG] if mode == "fork" else []))
    return BotSpec(f"hostile-{mode}", argv, "command", code=(HOSTILE.parent,))


class Meter:
    """Counts finished matches and samples this process's resident memory."""

    def __init__(self) -> None:
        self.done = 0
        self.strikes = 0
        self.forfeits = 0
        self.normal_failures: list[str] = []
        self.rss_at_100: int | None = None
        self.started = time.monotonic()

    def on_result(self, normal: bool, result: GameResult) -> None:
        self.done += 1
        players = result.record.players
        self.strikes += sum(p.strikes for p in players)
        self.forfeits += sum(p.forfeit for p in players)
        if normal and (result.notes or any(p.strikes or p.forfeit for p in players)):
            self.normal_failures.append(f"{result.record.match_id}: {result.notes}")
        if self.done == 100:
            self.rss_at_100 = rss()
        if self.done % 250 == 0:
            elapsed = time.monotonic() - self.started
            print(f"{self.done} matches, {elapsed:.0f} s, rss {rss() / 2**20:.1f} MiB", flush=True)


def rss() -> int:
    gc.collect()
    return psutil.Process().memory_info().rss


def leftovers() -> list[str]:
    """Returns the processes that are children of this process, carry a bot marker (unconfined bots)
    or the fork bot's tag in their command line (sandboxed ones: their pids are the namespace's)."""
    found = [f"{p.pid} {p.name()}" for p in psutil.Process().children(recursive=True)]
    for proc in psutil.process_iter(["pid", "name"]):
        try:
            if any(key == MARKER_VARIABLE for key in proc.environ()):
                found.append(f"{proc.pid} {proc.info['name']} (marked)")
            if any(f"hostile-child-{TAG}" in word for word in proc.cmdline()):
                found.append(f"{proc.pid} {proc.info['name']} (a fork bot's child)")
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return sorted(set(found))


async def play_lanes(game: Game, referee: SharedReferee, scale: float) -> Meter:
    """Plays every lane's series at once on ``referee``; returns what the meter counted."""
    work = Path(tempfile.mkdtemp(prefix="arena-soak-"))
    meter = Meter()
    series = []
    for number, (mode, opponent, games) in enumerate(LANES):
        specs = [resolve_bot("ninjan", opponent), resolve_bot("ninjan", "random")]
        if mode is not None:
            specs[1] = hostile(mode)
        config = SeriesConfig(
            games=max(1, int(games * scale)), seed=1000 * number, log_dir=work / f"logs-{number}"
        )
        series.append(
            run_series(
                game,
                specs,
                config,
                on_result=lambda r, normal=mode is None: meter.on_result(normal, r),
                referee=referee,
            )
        )
    await asyncio.gather(*series)
    return meter


async def soak(scale: float) -> int:
    game = get_game("ninjan")
    registry = LeaseRegistry()
    async with start_referee(registry) as endpoint:
        meter = await play_lanes(game, SharedReferee(registry, endpoint), scale)
    end = rss()
    time.sleep(0.5)
    left = leftovers()
    first = meter.rss_at_100 or end
    growth = (end - first) / first
    print(f"matches: {meter.done} in {time.monotonic() - meter.started:.0f} s on one referee")
    print(f"strikes: {meter.strikes}, forfeits: {meter.forfeits} (hostile bots)")
    mib = 2**20
    print(
        f"referee rss after 100 matches: {first / mib:.1f} MiB; "
        f"at the end: {end / mib:.1f} MiB ({growth:+.1%})"
    )
    print(f"normal matches with a strike, forfeit or note: {len(meter.normal_failures)}")
    print(f"leftover bot processes: {len(left)} {left[:5]}")
    print(f"leases still registered: {len(registry.leases())}")
    ok = abs(growth) <= 0.20 and not left and not meter.normal_failures and not registry.leases()
    print("soak: OK" if ok else "soak: FAILED")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every lane's games by this")
    args = parser.parse_args()
    os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    return asyncio.run(soak(args.scale))


if __name__ == "__main__":
    sys.exit(main())
