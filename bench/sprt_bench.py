"""What ``arena match --sprt`` costs per game against a plain series of the same bots, side by side.

``--sprt`` plays every deal twice with the seats swapped, so each game needs fresh bot processes (a
process must not remember a deal); a plain series keeps its processes for every game. Where the
referee may give a niced process its priority back, the next game's processes start (niced) while a
game plays (``arena.referee.niceness``), and a ``--sprt`` game should then cost about what a plain
game costs; elsewhere each game also waits for its bots to start.

Runs ``arena match GAME A B --games N``, the same with ``--sprt``, and ``--sprt`` as where priorities
cannot be restored (no process started early: how every ``--sprt`` game was played before), in turn,
``--rounds`` times, the same seed, sandboxed as a user runs them; prints wall seconds per game of each
(the median over the rounds) and the ratios to the plain series (paired round by round), and writes
them as JSON with ``--out``:

    .venv/bin/python bench/sprt_bench.py [--game ninjan] [--bots random,random] [--games 40] [--rounds 3]

The SPRT's bounds are wide (elo0=-2, elo1=2) and the bots even, so it never stops early; the ``--json``
lines are counted to make sure each run played every game.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NEVER_DECIDES = "elo0=-2,elo1=2"
ARENA = [sys.executable, "-m", "arena.cli"]
# arena as where a niced process cannot get its priority back: each --sprt game starts its bots after
# the last game, as before processes were started early
ARENA_NOT_EARLY = [
    sys.executable,
    "-c",
    "import sys; from arena.referee import niceness; niceness.can_restore = lambda: False; "
    "from arena.cli.main import main; sys.argv[0] = 'arena'; main()",
]
KINDS = {  # name: (how arena is run, the options added)
    "plain": (ARENA, []),
    "sprt": (ARENA, ["--sprt", NEVER_DECIDES]),
    "sprt_not_early": (ARENA_NOT_EARLY, ["--sprt", NEVER_DECIDES]),
}


def timed_series(kind: str, game: str, bots: list[str], games: int) -> float:
    """Returns the wall seconds per game of one ``arena match`` series of ``kind`` (a new process, as a
    user runs it)."""
    arena, options = KINDS[kind]
    with tempfile.TemporaryDirectory(prefix="sprt-bench-") as replays:
        argv = [*arena, "match", game, *bots, "--games", str(games), "--seed", "7", "--json"]
        argv += ["--replay-dir", replays, *options]
        start = time.monotonic()
        proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, check=False)
        seconds = time.monotonic() - start
    played = sum(1 for line in proc.stdout.splitlines() if '"match_id"' in line)
    if proc.returncode != 0 or played != games:
        why = proc.stderr[-400:]
        raise SystemExit(f"sprt_bench: {' '.join(argv)} played {played} of {games} games: {why}")
    return seconds / games


def figures(game: str, bots: list[str], games: int, rounds: int) -> dict:
    """Returns the per-game wall seconds of each kind of series (medians over ``rounds``) and each
    kind's ratio to the plain series (the median of the rounds' ratios: drift cancels)."""
    seconds: dict[str, list[float]] = {kind: [] for kind in KINDS}
    for _ in range(rounds):
        for kind, times in seconds.items():
            times.append(timed_series(kind, game, bots, games))
    ratios = {
        kind: [t / p for t, p in zip(times, seconds["plain"], strict=True)]
        for kind, times in seconds.items()
        if kind != "plain"
    }
    return {
        "game": game,
        "bots": bots,
        "games": games,
        "rounds": rounds,
        "seconds_per_game": {kind: statistics.median(times) for kind, times in seconds.items()},
        "over_plain": {kind: statistics.median(r) for kind, r in ratios.items()},
        "ratios_by_round": ratios,
    }


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="ninjan")
    parser.add_argument("--bots", default="random,random", help="two bots, comma-separated")
    parser.add_argument("--games", type=int, default=40, help="games per series (even)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    result = figures(args.game, args.bots.split(","), args.games - args.games % 2, args.rounds)
    ms = {kind: f"{value * 1000:.0f} ms" for kind, value in result["seconds_per_game"].items()}
    print(f"{result['game']} {' vs '.join(result['bots'])}, {result['games']} games x {result['rounds']}:")
    for kind in KINDS:
        ratio = "" if kind == "plain" else f"  {result['over_plain'][kind]:.2f}x plain"
        print(f"  {kind:<15} {ms[kind]:>8} per game{ratio}")
    if args.out:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
