"""The dress rehearsal (issue 38): many participants' bots on the whole platform, a ladder per game for
some minutes while viewers read the pages, then every figure a competition needs measured.

    nice -n 15 .venv/bin/python bench/rehearsal.py --minutes 6 --bots 24 --out /tmp/rehearsal.json

Starts a private Redis (a free loopback port, never 6379), ``arena server`` and ``--workers`` ``arena
worker`` processes with a state folder of its own (a temporary one, or ``--keep FOLDER``), registers
``--participants`` accounts through the HTTP API, uploads ``--bots`` honest bots (variants of the
built-ins with a share of random moves or a small search budget: bench/rehearsal/roster.py) plus broken
and hostile ones, runs the ladders for ``--minutes``, adds a worker at minute 10 (or a third of
``--minutes`` if shorter), and writes the report (bench/rehearsal/report.py) to ``--out`` as JSON and
its table to stdout. ``--languages`` adds the starter kits' bots (bench/rehearsal/kits.py: Node, Go and
C++, one per game, built once and cached).

``--against compose`` runs the same rehearsal against ``compose.yaml`` (bench/rehearsal/compose_stack.py:
an organiser's copy of the project, its secrets, the server on a free loopback port, ``--scale
worker=N``). It needs a Docker daemon: when ``DOCKER_HOST`` is not set, the command runs itself again
under ``scripts/with-docker`` (as root: a private dockerd, Compose v2 and the base images, cached in
/var/lib/arena-compose-test; about 7 minutes the first time), which takes the daemon down and leaves
the machine as it was at the end:

    nice -n 10 .venv/bin/python bench/rehearsal.py --against compose --minutes 6 --languages python,node
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: arena and bench.rehearsal

from bench.rehearsal import report
from bench.rehearsal.run import Options, Rehearsal
from bench.rehearsal.stack import StackError


def sizes(text: str) -> tuple[int, ...]:
    """Returns the table sizes ``--players`` names (a ladder per game and size the game allows)."""
    try:
        found = tuple(int(n) for n in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give table sizes such as 2,3") from None
    if not found or min(found) < 2:
        raise argparse.ArgumentTypeError(f"{text!r}: a table has at least 2 seats")
    return found


def parse(argv: list[str]) -> tuple[Options, argparse.Namespace]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=6.0, help="minutes the ladders run (default 6)")
    parser.add_argument("--participants", type=int, default=8, help="accounts (default 8)")
    parser.add_argument(
        "--bots", type=int, default=24, help="honest bots, spread over the games (default 24)"
    )
    parser.add_argument("--workers", type=int, default=2, help="workers at the start; one more joins later")
    parser.add_argument("--games", default="ninjan,ninja-burger,pnrz,ninja-master", help="comma-separated")
    parser.add_argument(
        "--languages", default="python,node,go,cpp", help="python and the kits (comma-separated)"
    )
    parser.add_argument("--hostile", type=int, default=2, help="hostile bots, at most 4 (default 2)")
    parser.add_argument(
        "--players", type=sizes, default=(2,), help="the ladders' table sizes, comma-separated (default 2)"
    )
    parser.add_argument("--late-minute", type=float, default=None, help="when the extra worker joins")
    parser.add_argument("--against", choices=["local", "compose"], default="local")
    parser.add_argument("--out", type=Path, default=None, help="the report's JSON file")
    parser.add_argument("--keep", type=Path, default=None, help="keep the state and logs in this new folder")
    args = parser.parse_args(argv)
    options = Options(
        minutes=args.minutes, participants=args.participants, bots=args.bots, workers=args.workers,
        games=tuple(args.games.split(",")), hostile=min(4, args.hostile), against=args.against,
        late_minute=args.late_minute, languages=tuple(args.languages.split(",")),
        players=args.players,
    )  # fmt: skip
    return options, args


def main(argv: list[str]) -> int:
    options, args = parse(argv)
    if options.against == "compose" and not os.environ.get("DOCKER_HOST"):
        with_docker = str(Path(__file__).resolve().parent.parent / "scripts" / "with-docker")
        print("bench/rehearsal.py: no DOCKER_HOST: running under scripts/with-docker", file=sys.stderr)
        os.execv(with_docker, [with_docker, sys.executable, str(Path(__file__).resolve()), *argv])
    with tempfile.TemporaryDirectory(prefix="rehearsal-") as tmp:
        folder = args.keep or Path(tmp) / "state"
        rehearsal = Rehearsal(options, folder)
        try:
            rehearsal.run()
        except StackError as exc:
            print(f"bench/rehearsal.py: {exc}", file=sys.stderr)
            return 2
        result = report.build(rehearsal)
    if args.out:
        args.out.write_text(json.dumps(result, indent=1, default=str) + "\n")
    print(report.table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
