"""arena benchmarks: each layer measured against the physical limit below it, side by side in one run.

    python bench/run.py            # the full run (a few minutes on 2 cores)
    python bench/run.py --quick    # a smoke run with tiny counts (CI keeps it working)

Prints a table (figure, value, floor, ratio, target) and writes the same figures to
bench/results.json. Absolute numbers depend on the machine and its load; the ratios are measured in
the same run, so they are what to compare between runs.

Layers:
1. engines: random playouts per second, and the cost of one decision step (legal actions + apply +
   the acting seat's observation), plus the codec's cost of putting that step on the wire;
2. transport: a bare grpcio bidirectional-streaming ping-pong between two processes over loopback,
   with a request the size of a typical decision request: the floor;
3. referee: wall time per decision step of a real match between two trivial bot processes;
4. concurrency: matches per second on one referee with 1, 2, 4 and 8 matches at once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arena import codec  # noqa: E402
from arena.games import GAMES  # noqa: E402
from arena.referee.leases import LeaseRegistry  # noqa: E402
from arena.referee.match import MatchConfig  # noqa: E402
from arena.referee.processes import resolve_bot  # noqa: E402
from arena.referee.runner import GameResult, SeriesConfig, SharedReferee, run_series  # noqa: E402
from arena.referee.server import start_server  # noqa: E402

FIRST_BOT = str(REPO / "bots" / "python" / "first_bot.py")
RESULTS = REPO / "bench" / "results.json"


# -- 1. engines -----------------------------------------------------------------------------------


def engine_figures(playouts: int) -> dict[str, dict[str, float]]:
    """Returns per game: playouts/s, µs per decision step, µs to encode that step for the wire."""
    figures = {}
    for name, game in sorted(GAMES.items()):
        players = game.spec.min_players
        steps = 0
        step_time = encode_time = 0.0
        start = time.perf_counter()
        for seed in range(playouts):
            rng = random.Random(seed)
            state = game.initial_state(players, seed)
            while not game.is_terminal(state):
                t0 = time.perf_counter()
                seats = game.to_move(state)
                legal = {seat: game.legal_actions(state, seat) for seat in seats}
                observations = {seat: game.observe(state, seat) for seat in seats}
                actions = {seat: rng.choice(legal[seat]) for seat in seats}
                state = game.apply(state, actions)
                t1 = time.perf_counter()
                for seat in seats:
                    codec.observation_to_proto(game, observations[seat])
                    for action in legal[seat]:
                        codec.action_to_proto(game, action)
                t2 = time.perf_counter()
                if seats:
                    steps += 1
                    step_time += t1 - t0
                    encode_time += t2 - t1
        total = time.perf_counter() - start
        figures[name] = {
            "playouts_per_s": playouts / (total - encode_time),
            "step_us": 1e6 * step_time / steps,
            "encode_us": 1e6 * encode_time / steps,
        }
    return figures


def typical_request_bytes() -> int:
    """Returns the mean size of a Ninjan decision request (2 players), the transport's payload."""
    game = GAMES["ninjan"]
    sizes = []
    for seed in range(5):
        rng = random.Random(seed)
        state = game.initial_state(2, seed)
        while not game.is_terminal(state):
            for seat in game.to_move(state):
                obs = codec.observation_to_proto(game, game.observe(state, seat))
                legal = [codec.action_to_proto(game, a) for a in game.legal_actions(state, seat)]
                sizes.append(obs.ByteSize() + sum(a.ByteSize() for a in legal) + 16)
            state = game.apply(
                state, {s: rng.choice(game.legal_actions(state, s)) for s in game.to_move(state)}
            )
    return int(statistics.mean(sizes))


# -- 2. transport ---------------------------------------------------------------------------------


def transport_round_trip_us(payload: int, rounds: int) -> float:
    """Returns µs per round trip of a bare grpcio bidi ping-pong between two processes on loopback."""
    server = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("pingpong.py")), "serve", str(payload)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        port = server.stdout.readline().strip()
        client = subprocess.run(
            [sys.executable, str(Path(__file__).with_name("pingpong.py")), "client", port, str(rounds)],
            capture_output=True,
            text=True,
            check=True,
        )
        return float(client.stdout.strip())
    finally:
        server.kill()
        server.wait()


# -- 3 and 4. referee -------------------------------------------------------------------------------


def _decision_steps(results: list[GameResult]) -> int:
    return sum(r.record.steps for r in results)


async def _timed_series(
    games: int, referee: SharedReferee | None = None, seed: int = 1
) -> tuple[float, int, int]:
    """Returns (seconds from the end of game 1 to the end of the series, steps, matches) for trivial bots."""
    specs = [resolve_bot("ninjan", FIRST_BOT), resolve_bot("ninjan", FIRST_BOT)]
    marks: list[float] = []
    config = SeriesConfig(games=games, seed=seed, match=MatchConfig(deadline=timedelta(seconds=10)))
    results = await run_series(
        GAMES["ninjan"], specs, config, on_result=lambda _: marks.append(time.perf_counter()), referee=referee
    )
    # Game 1 includes starting the bot processes; time the games after it.
    return marks[-1] - marks[0], _decision_steps(results[1:]), len(results) - 1


def referee_step_us(games: int) -> float:
    """Returns µs of wall time per decision step in a real match between two trivial bot processes."""
    seconds, steps, _ = asyncio.run(_timed_series(games))
    return 1e6 * seconds / steps


def concurrency_rates(games: int, levels: tuple[int, ...]) -> dict[int, float]:
    """Returns matches per second on one referee with ``level`` series running at once."""

    async def run(level: int) -> float:
        registry = LeaseRegistry()
        server, port = await start_server(registry)
        try:
            shared = SharedReferee(registry, port)
            runs = await asyncio.gather(*(_timed_series(games, shared, seed=100 * i) for i in range(level)))
        finally:
            await server.stop(None)
        return sum(matches for _, _, matches in runs) / max(seconds for seconds, _, _ in runs)

    return {level: asyncio.run(run(level)) for level in levels}


# -- report ---------------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny counts: checks the benchmark runs")
    args = parser.parse_args(argv)
    playouts, rounds, games, levels = (3, 300, 3, (1, 2)) if args.quick else (40, 5000, 30, (1, 2, 4, 8))

    payload = typical_request_bytes()
    engines = engine_figures(playouts)
    round_trip = transport_round_trip_us(payload, rounds)
    referee = referee_step_us(games)
    rates = concurrency_rates(games, levels)

    rows = []
    for name, fig in engines.items():
        rows.append((f"{name}: random playouts/s", fig["playouts_per_s"], None, None, None))
        rows.append(
            (f"{name}: decision step (us)", fig["step_us"], round_trip, fig["step_us"] / round_trip, 0.20)
        )
        rows.append(
            (
                f"{name}: wire encoding of a step (us)",
                fig["encode_us"],
                round_trip,
                fig["encode_us"] / round_trip,
                None,
            )
        )
    rows.append((f"grpc bidi round trip, {payload} B request (us)", round_trip, None, None, None))
    rows.append(("referee: wall time per decision step (us)", referee, round_trip, referee / round_trip, 1.5))
    base = rates[levels[0]]
    for level, rate in rates.items():
        rows.append((f"referee: matches/s with {level} at once", rate, base, rate / base, None))

    print(f"{'figure':<52} {'value':>11} {'floor':>10} {'ratio':>7} {'target':>7}  ok")
    for label, value, floor, ratio, target in rows:
        ok = "" if target is None else ("yes" if ratio <= target else "NO")
        print(
            f"{label:<52} {value:>11.1f} {'' if floor is None else f'{floor:.1f}':>10} "
            f"{'' if ratio is None else f'{ratio:.2f}':>7} {'' if target is None else f'<={target}':>7}  {ok}"
        )
    RESULTS.write_text(
        json.dumps(
            {
                "quick": args.quick,
                "payload_bytes": payload,
                "round_trip_us": round_trip,
                "engines": engines,
                "referee_step_us": referee,
                "matches_per_s": {str(k): v for k, v in rates.items()},
            },
            indent=2,
        )
    )
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
