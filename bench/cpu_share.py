"""What a CPU-hungry bot takes from its opponent: a bot that spins 8 processes flat out for a whole
series, against ``random``, at ``--deadline-ms 100``, sandboxed with the default limits.

Two rows, measured side by side in one run (``arena match`` as a user runs it, seeds shared):
- the spinner's CPU use over the series (its processes' own CPU seconds per wall second, read inside
  its sandbox once a second) against its stated share (``--bot-cpus``, 1.0 by default): within 1.1x
  where a cgroup enforces the share;
- the opponent's median think time with the spinner beside it against the same opponent beside a
  second ``random``: within 2x.

    .venv/bin/python bench/cpu_share.py [--games 400] [--bot-cpus 1.0]

Where no cgroup can be written (a container on a cgroup v1 host), the worker's first line says that the
per-bot CPU share is not enforced, and this benchmark shows what that costs.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The checkout's arena, else the one on PATH (inside the worker image: docker cp this file in and run it
# there to measure a worker container, where no per-bot cgroup can be made on a cgroup v1 host).
ARENA = (
    str(REPO / ".venv" / "bin" / "arena") if (REPO / ".venv").is_dir() else shutil.which("arena") or "arena"
)

# An SDK bot that forks 8 processes spinning forever, then plays random legal moves; a thread prints
# its whole process tree's CPU seconds (everything in its PID namespace is its own) once a second.
SPINNER = """\
import os, random, sys, threading, time
from arena.sdk import Bot

def tree_cpu():
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])
            except OSError:
                pass
    return total / ticks

def report():
    while True:
        print(f"cpu {tree_cpu():.3f} {time.monotonic():.3f}", file=sys.stderr, flush=True)
        time.sleep(1.0)

class Spinner(Bot):
    name = "spinner"
    def choose(self, observation, legal_actions, deadline):
        return random.randrange(len(legal_actions))

if __name__ == "__main__":
    for _ in range(8):
        if os.fork() == 0:
            while True:
                pass
    threading.Thread(target=report, daemon=True).start()
    Spinner().run()
"""


def play(bots: list[str], games: int, cpus: float, folder: Path) -> list[dict]:
    """Plays a series with ``arena match --json``; returns one result object per game."""
    command = [
        *(ARENA, "match", "ninjan", *bots),
        *("--games", str(games), "--deadline-ms", "100", "--seed", "1", "--json"),
        *("--bot-cpus", str(cpus), "--replay-dir", str(folder)),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    if done.returncode not in (0, 1):
        sys.exit(f"cpu_share: arena match failed: {done.stderr.strip()[-500:]}")
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return [line for line in lines if "match_id" in line]  # not the series' last line, its summary


def think_times(results: list[dict], bot: str) -> list[float]:
    """Returns every think time (ms) of the seat ``bot`` played, over the series' match logs."""
    times = []
    for result in results:
        seat = next(p["seat"] for p in result["players"] if p["bot"] == bot)
        for line in Path(result["match_log"]).read_text().splitlines():
            entry = json.loads(line)
            if entry.get("type") == "think" and entry["seat"] == seat:
                times.append(entry["ms"])
    return times


def spinner_share(folder: Path) -> tuple[float, float]:
    """Returns (CPU seconds per wall second, wall seconds measured) from the spinner's log."""
    (log,) = (folder / "logs").glob("*-spinner.log")
    samples = [line.split()[1:] for line in log.read_text().splitlines() if line.startswith("cpu ")]
    (cpu0, t0), (cpu1, t1) = map(float, samples[0]), map(float, samples[-1])
    return (cpu1 - cpu0) / (t1 - t0), t1 - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=400, help="games per series")
    parser.add_argument("--bot-cpus", type=float, default=1.0, help="each bot's CPU share")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-cpu-share-") as tmp:
        work = Path(tmp)
        spinner = work / "spinner" / "spinner.py"
        spinner.parent.mkdir()
        spinner.write_text(SPINNER)
        with_spinner = play([str(spinner), "random"], args.games, args.bot_cpus, work / "with")
        alone = play(["random", "random"], args.games, args.bot_cpus, work / "without")
        share, seconds = spinner_share(work / "with")
        busy = statistics.median(think_times(with_spinner, "random"))
        calm = statistics.median(think_times(alone, "random#2"))
    cap = args.bot_cpus or float("nan")  # 0: no CPU share at all (what an unenforced share costs)
    rows = [
        (f"spinner CPU (cores, over {seconds:.0f} s)", share, cap, share / cap, 1.1),
        ("opponent median think (ms)", busy, calm, busy / calm, 2.0),
    ]
    print(f"{'figure':<34} {'value':>9} {'floor':>9} {'ratio':>7} {'target':>7}")
    for name, value, floor, ratio, target in rows:
        bound = f"<= {target:.2f}"
        print(f"{name:<34} {value:>9.3f} {floor:>9.3f} {ratio:>7.2f} {bound:>7}")


if __name__ == "__main__":
    main()
