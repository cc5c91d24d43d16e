"""arena benchmarks: each layer measured against the physical limit below it, side by side in one run.

    python bench/run.py              # the full run (about 15 minutes on 2 cores, most of it the drain)
    python bench/run.py --scale 0    # the same without the 10,000-match drain (a few minutes)
    python bench/run.py --quick      # a smoke run with tiny counts (CI keeps it working)
    python bench/run.py --scale 0 --repeat 3 --out /tmp/bench.json   # three passes: medians

Prints a table (figure, value, floor, ratio, target) and writes the same figures to
bench/results.json (or ``--out``): every ratio by name under ``ratios`` (``referee_decision_ratio``,
``pnrz_step_ratio``, ``sdk_ratio``, ...). With ``--repeat N`` every layer is measured N times, one
pass after another, and the table shows each figure's median. Absolute numbers depend on the machine
and its load; the ratios are measured in the same run, so they are what to compare between runs.

Layers:
1. engines: random playouts per second, and the cost of one decision step (legal actions + apply +
   the acting seat's observation), plus the codec's cost of putting that step on the wire;
2. transport: a bare grpcio bidirectional-streaming ping-pong between two processes over loopback
   TCP, and over a Unix socket (the only way out of a sandboxed bot), with a request the size of a
   typical decision request: the floors;
3. referee: decisions per second (and wall time per decision) of real matches between two trivial
   bot processes, each answering with the first legal action; and, to show where that time goes, a
   real SDK bot against a fake referee (protobuf and the SDK on top of the transport) and the match
   loop alone with in-process bots (the referee's own work, no gRPC), and the echo floor: the same
   SDK bot against a grpc.aio server that only echoes each answer over a Unix socket (what a
   referee in Python cannot go below; ``referee_echo_ratio``); and, per game, games/s played
   in-process (``arena match --in-process``) against over gRPC, the same series (bench/in_process.py);
4. concurrency: matches per second on one referee with 1, 2, 4 and 8 matches at once, and through the
   Redis queue (a private redis-server) with 1 and 2 worker processes, with the queue's own time
   (Redis round trips) against the time of the matches;
5. scale: ``--scale`` queued Ninjan matches (default 10,000) drained by 2 workers: the time, the peak
   resident memory of each worker and of Redis, and how many were lost;
6. sandbox: what the bot sandbox costs, sandboxed against unconfined, alternating in one run: the time
   from starting an SDK bot process to its Join, and the wall time per decision of real matches;
7. ratings: adding a result to the pair table, and refitting at 1,000 and 100,000 recorded matches
   (bench/ratings_bench.py);
8. ladder: games until Ninjan's pool is ranked right with 95% confidence, the ladder's pairing against
   round robin (bench/ladder_bench.py; not a time: the same on every machine).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any, NamedTuple

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

import in_process  # noqa: E402
import ladder_bench  # noqa: E402
import queue_bench  # noqa: E402
import ratings_bench  # noqa: E402
import sdk_pingpong  # noqa: E402

from arena import codec  # noqa: E402
from arena.games import GAMES  # noqa: E402
from arena.games.play import Driver, Turn, play  # noqa: E402
from arena.referee.leases import Lease, LeaseRegistry  # noqa: E402
from arena.referee.match import Match, MatchConfig, SeatState  # noqa: E402
from arena.referee.processes import DEFAULT_LIMITS, BotLimits, BotProcess, resolve_bot  # noqa: E402
from arena.referee.replay import ReplayWriter  # noqa: E402
from arena.referee.runner import SeriesConfig, SharedReferee, run_series  # noqa: E402
from arena.referee.server import seat_endpoint, start_referee  # noqa: E402
from arena.v1 import arena_pb2 as pb  # noqa: E402

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
            driver = Driver(game, game.initial_state(players, seed))
            while True:
                t0 = time.perf_counter()
                turn = driver.turn()
                if turn is None:
                    break
                observations = {seat: game.observe(turn.state, seat) for seat in turn.legal}
                driver.advance(
                    turn, {s: (rng.randrange(len(legal)), "bot") for s, legal in turn.legal.items()}
                )
                t1 = time.perf_counter()
                for seat, legal in turn.legal.items():
                    codec.observation_to_proto(game, observations[seat])
                    for action in legal:
                        codec.action_to_proto(game, action)
                t2 = time.perf_counter()
                if turn.legal:
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

        def choose(turn: Turn, seat: int, rng: random.Random = rng) -> int:
            obs = codec.observation_to_proto(game, game.observe(turn.state, seat))
            legal = [codec.action_to_proto(game, a) for a in turn.legal[seat]]
            sizes.append(obs.ByteSize() + sum(a.ByteSize() for a in legal) + 16)
            return rng.randrange(len(legal))

        for _ in play(game, game.initial_state(2, seed), choose):
            pass
    return int(statistics.mean(sizes))


# -- 2. transport ---------------------------------------------------------------------------------


def transport_round_trip_us(payload: int, rounds: int, client: str = "client", unix: bool = False) -> float:
    """Returns µs per round trip of a bare grpcio bidi ping-pong between two processes, over loopback
    TCP or (``unix``) a Unix socket, the only way out of a sandboxed bot (``client``: "client", sync
    grpc as the SDK uses it, or "aio-client")."""
    pingpong = str(Path(__file__).with_name("pingpong.py"))
    server = subprocess.Popen(
        [sys.executable, pingpong, "serve", str(payload), *(["unix"] if unix else [])],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        address = server.stdout.readline().strip()
        run = subprocess.run(
            [sys.executable, pingpong, client, address, str(rounds)],
            capture_output=True,
            text=True,
            check=True,
        )
        return float(run.stdout.strip())
    finally:
        server.kill()
        server.wait()


# -- 3 and 4. referee -------------------------------------------------------------------------------


@dataclasses.dataclass
class SeriesTiming:
    """What one timed series of trivial-bot matches took, from the end of its first game."""

    seconds: float
    matches: int
    steps: int  # decision steps (a step where several seats choose at once counts once)
    decisions: int  # decisions the bots made


async def _timed_series(
    games: int, referee: SharedReferee | None = None, seed: int = 1, limits: BotLimits = DEFAULT_LIMITS
) -> SeriesTiming:
    """Plays ``games`` Ninjan games between two first-legal-action bot processes and times them."""
    specs = [resolve_bot("ninjan", FIRST_BOT), resolve_bot("ninjan", FIRST_BOT)]
    marks: list[float] = []
    config = SeriesConfig(
        games=games, seed=seed, match=MatchConfig(deadline=timedelta(seconds=10)), bot_limits=limits
    )
    results = await run_series(
        GAMES["ninjan"], specs, config, on_result=lambda _: marks.append(time.perf_counter()), referee=referee
    )
    timed = results[1:]  # game 1 includes starting the bot processes
    return SeriesTiming(
        marks[-1] - marks[0],
        len(timed),
        sum(r.record.steps for r in timed),
        sum(r.replay_text.count('"type":"decision"') for r in timed),
    )


def referee_timing(games: int) -> SeriesTiming:
    """Returns the timing of a series of real matches between two trivial bot processes."""
    return asyncio.run(_timed_series(games))


def sdk_round_trip_us(rounds: int, echo: bool = False) -> float:
    """Returns µs per round trip of a real SDK bot process against a fake referee (sdk_pingpong.py);
    ``echo``: against a server that only echoes each answer with a request's bytes, over a Unix
    socket (the referee's floor in Python: what grpc.aio and the SDK cost per message)."""
    return asyncio.run(sdk_pingpong.round_trip_us(rounds, FIRST_BOT, echo))


async def _answer_first(lease: Lease) -> None:
    """An in-process bot: answers every DecisionRequest on the lease with index 0."""
    while (message := await lease.outbound.get()) is not None:
        if message.WhichOneof("kind") == "decision":
            lease.offer(pb.Answer(request_id=message.decision.request_id, index=0))


def match_loop_us(games: int) -> float:
    """Returns µs per decision of the referee's match loop alone: real matches (replays included) with
    in-process bots on leases, no gRPC."""

    async def run() -> float:
        decisions, began = 0, time.perf_counter()
        for number in range(games):
            leases = [Lease(f"bot{seat}") for seat in range(2)]
            for lease in leases:
                lease.claimed, lease.events_in_requests = True, True  # as if joined, like the SDK
            bots = [asyncio.create_task(_answer_first(lease)) for lease in leases]
            seats = [SeatState(seat, lease.name, lease) for seat, lease in enumerate(leases)]
            replay = ReplayWriter(ReplayWriter.header("loop", "ninjan", number, ["a", "b"], 10_000, 3))
            config = MatchConfig(deadline=timedelta(seconds=10))
            await Match(GAMES["ninjan"], seats, number, "loop", config, replay).run()
            decisions += replay.text().count('"type":"decision"')
            for lease in leases:
                lease.release()
            await asyncio.gather(*bots)
        return 1e6 * (time.perf_counter() - began) / decisions

    return asyncio.run(run())


def concurrency_rates(games: int, levels: tuple[int, ...]) -> dict[int, float]:
    """Returns matches per second on one referee with ``level`` series running at once."""

    async def run(level: int) -> float:
        registry = LeaseRegistry()
        async with start_referee(registry) as endpoint:
            shared = SharedReferee(registry, endpoint)
            runs = await asyncio.gather(*(_timed_series(games, shared, seed=100 * i) for i in range(level)))
        return sum(run.matches for run in runs) / max(run.seconds for run in runs)

    return {level: asyncio.run(run(level)) for level in levels}


# -- 6. sandbox -----------------------------------------------------------------------------------


async def _start_to_join_ms(limits: BotLimits, registry: LeaseRegistry, endpoint, logs: Path) -> float:
    """Returns ms from starting an SDK bot process to its Join reaching the referee."""
    lease = registry.create("timed")
    began = time.perf_counter()
    seat = await seat_endpoint(endpoint, lease) if limits.sandbox else endpoint  # as runner.connect_bots
    process = BotProcess(
        resolve_bot("ninjan", FIRST_BOT), {"ARENA_TOKEN": lease.token}, logs / "start.log", limits, seat
    )
    await asyncio.wait_for(lease.joined.wait(), 60)
    elapsed = 1000 * (time.perf_counter() - began)
    registry.forget(lease)
    await asyncio.to_thread(process.stop)
    return elapsed


def sandbox_figures(starts: int, games: int, repeats: int) -> dict[str, dict[str, float]]:
    """Returns, for "sandboxed" and "unconfined" bots, the median start-to-join time (ms) and the
    median wall time per decision (us) of real matches; the two kinds alternate, so both see the
    same machine load."""
    kinds = {"sandboxed": DEFAULT_LIMITS, "unconfined": dataclasses.replace(DEFAULT_LIMITS, sandbox=False)}
    joins: dict[str, list[float]] = {kind: [] for kind in kinds}
    decisions: dict[str, list[float]] = {kind: [] for kind in kinds}

    async def measure() -> None:
        registry = LeaseRegistry()
        with tempfile.TemporaryDirectory() as logs:
            async with start_referee(registry) as endpoint:
                for _ in range(starts):
                    for kind, limits in kinds.items():
                        joins[kind].append(await _start_to_join_ms(limits, registry, endpoint, Path(logs)))
        for _ in range(repeats):
            for kind, limits in kinds.items():
                timing = await _timed_series(games, limits=limits)
                decisions[kind].append(1e6 * timing.seconds / timing.decisions)

    asyncio.run(measure())
    return {
        kind: {"start_ms": statistics.median(joins[kind]), "decision_us": statistics.median(decisions[kind])}
        for kind in kinds
    }


def sandbox_rows(figures: dict[str, dict[str, float]]) -> list[Row]:
    boxed, free = figures["sandboxed"], figures["unconfined"]
    start_added = boxed["start_ms"] - free["start_ms"]
    return [
        Row("sandbox_start_unconfined_ms", "sandbox: bot start to Join, unconfined (ms)", free["start_ms"]),
        Row("sandbox_start_sandboxed_ms", "sandbox: bot start to Join, sandboxed (ms)", boxed["start_ms"]),
        measured(
            "sandbox_start_ratio", "sandbox: start time the sandbox adds (ms)", start_added, 50.0, "<= 1"
        ),
        Row(
            "sandbox_decision_unconfined_us",
            "sandbox: wall time per decision, unconfined (us)",
            free["decision_us"],
        ),
        measured(
            "sandbox_decision_ratio",
            "sandbox: wall time per decision, sandboxed (us)",
            boxed["decision_us"],
            free["decision_us"],
            "<= 1.05",
        ),
    ]


# -- 4 and 5. queue --------------------------------------------------------------------------------


def queue_figures(matches: int, drain: int) -> dict[str, dict]:
    """Returns the queue runs with 1 and 2 workers over ``matches`` jobs, and the drain of ``drain``
    jobs by 2 workers (skipped at 0), on a private redis-server."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        server, url = queue_bench.private_redis(Path(tmp))
        try:
            jobs = queue_bench.job_set(matches)
            runs = {str(w): queue_bench.run_once(url, w, jobs, Path(tmp)) for w in (1, 2)}
            if drain:
                runs["drain"] = queue_bench.run_once(url, 2, queue_bench.job_set(drain), Path(tmp))
        finally:
            server.kill()
            server.wait()
    return runs


# -- report ---------------------------------------------------------------------------------------


class Row(NamedTuple):
    """One figure of the table; ``key`` names it in the JSON (``ratios`` holds every ratio by key)."""

    key: str
    label: str
    value: float
    floor: float | None = None
    ratio: float | None = None
    target: str = ""  # ">= 1.7", "<= 0.2", or "" for a figure shown for context


def measured(key: str, label: str, value: float, floor: float, target: str = "") -> Row:
    """Returns a row with its ratio to ``floor``, measured in the same run."""
    return Row(key, label, value, floor, value / floor, target)


def format_rows(rows: list[Row]) -> str:
    """Returns the table: each figure, its floor, the ratio and the target, and whether it is met."""
    lines = [f"{'figure':<58} {'value':>11} {'floor':>10} {'ratio':>7} {'target':>8}  ok"]
    for row in rows:
        lines.append(
            f"{row.label:<58} {row.value:>11.1f} {'' if row.floor is None else f'{row.floor:.1f}':>10} "
            f"{'' if row.ratio is None else f'{row.ratio:.3f}':>7} {row.target:>8}  {met(row)}"
        )
    return "\n".join(lines)


def met(row: Row) -> str:
    """Returns "yes" or "NO" for a row with a target, "" for one without."""
    if not row.target or row.ratio is None:
        return ""
    sign, bound = row.target.split()
    return "yes" if (row.ratio <= float(bound) if sign == "<=" else row.ratio >= float(bound)) else "NO"


def median_rows(passes: list[list[Row]]) -> list[Row]:
    """Returns each row's median over the passes (value, floor and ratio each), in the first pass's
    order; a row measured in only some passes (the drain) keeps the passes that have it."""
    by_key: dict[str, list[Row]] = {}
    for rows in passes:
        for row in rows:
            by_key.setdefault(row.key, []).append(row)

    def middle(values: list[float | None]) -> float | None:
        present = [v for v in values if v is not None]
        return statistics.median(present) if present else None

    return [
        Row(
            row.key,
            row.label,
            statistics.median(r.value for r in by_key[row.key]),
            middle([r.floor for r in by_key[row.key]]),
            middle([r.ratio for r in by_key[row.key]]),
            row.target,
        )
        for row in passes[0]
    ]


def engine_rows(engines: dict[str, dict[str, float]], round_trip: float) -> list[Row]:
    rows: list[Row] = []
    for name, fig in engines.items():
        key = name.replace("-", "_")
        rows += [
            Row(f"{key}_playouts_per_s", f"{name}: random playouts/s", fig["playouts_per_s"]),
            measured(
                f"{key}_step_ratio", f"{name}: decision step (us)", fig["step_us"], round_trip, "<= 0.2"
            ),
            measured(
                f"{key}_encode_ratio", f"{name}: wire encoding of a step (us)", fig["encode_us"], round_trip
            ),
        ]
    return rows


def referee_rows(
    timing: SeriesTiming, rates: dict[int, float], floors: dict[str, float], sdk: float, loop: float
) -> list[Row]:
    """The referee's rows. Its bots run sandboxed, so their round trips go over the Unix socket: that
    floor is the one their decisions are measured against; the SDK's fake referee listens on TCP.
    The echo floor (``floors["echo"]``) is the same SDK bot against a grpc.aio server that does
    nothing but echo each answer with a request over a Unix socket: the least a referee in Python
    can take per decision."""
    tcp, unix, echo = floors["tcp"], floors["unix"], floors["echo"]
    per_decision = 1e6 * timing.seconds / timing.decisions
    per_step = 1e6 * timing.seconds / timing.steps
    rows: list[Row] = [
        measured("sdk_ratio", "sdk: SDK bot against a fake referee, round trip (us)", sdk, tcp, "<= 1.15"),
        measured("match_loop_ratio", "referee: match loop alone, no gRPC, per decision (us)", loop, unix),
        Row("referee_decisions_per_s", "referee: decisions/s, two trivial bot processes", 1e6 / per_decision),
        measured(
            "referee_decision_ratio", "referee: wall time per decision (us)", per_decision, unix, "<= 1.5"
        ),
        measured("referee_step_ratio", "referee: wall time per decision step (us)", per_step, unix),
        measured("echo_ratio", "referee: echo server floor, SDK bot over a Unix socket (us)", echo, unix),
        measured(
            "referee_echo_ratio",
            "referee: wall time per decision (floor: echo) (us)",
            per_decision,
            echo,
            "<= 1.2",
        ),
    ]
    base = rates[min(rates)]
    for level, rate in rates.items():
        rows.append(
            measured(f"matches_{level}_at_once_ratio", f"referee: matches/s with {level} at once", rate, base)
        )
    return rows


def in_process_rows(figures: dict[str, dict[str, float]]) -> list[Row]:
    """Per game: games/s in-process, its floor the same series over gRPC (the ratio: the speed-up)."""
    rows: list[Row] = []
    for name, fig in figures.items():
        key = name.replace("-", "_")
        grpc_rate, local_rate = fig["grpc_games_per_s"], fig["in_process_games_per_s"]
        rows += [
            Row(f"{key}_grpc_games_per_s", f"{name}: games/s over gRPC, two random bots", grpc_rate),
            measured(
                f"{key}_in_process_ratio",
                f"{name}: games/s in-process (floor: over gRPC)",
                local_rate,
                grpc_rate,
            ),
        ]
    return rows


def queue_rows(runs: dict[str, dict]) -> list[Row]:
    one, two = runs["1"], runs["2"]
    rows: list[Row] = [
        Row("queue_one_worker_matches_per_s", "queue: matches/s, 1 worker", one["matches_per_second"]),
        measured(
            "queue_two_workers_ratio",
            "queue: matches/s, 2 workers (floor: 1 worker)",
            two["matches_per_second"],
            one["matches_per_second"],
            ">= 1.7",
        ),
    ]
    for workers, run in (("1", one), ("2", two)):
        plural = "s" if workers == "2" else ""
        rows += [
            measured(
                f"queue_redis_share_{workers}",
                f"queue: Redis ms per match, {workers} worker{plural} (floor: match ms)",
                run["redis_ms_per_match"],
                run["match_ms_per_match"],
                "<= 0.02",
            ),
            Row(
                f"queue_redis_round_trips_{workers}",
                f"queue: Redis round trips per match, {workers} worker{plural}",
                run["redis_calls_per_match"],
            ),
        ]
    if "drain" in runs:
        drain = runs["drain"]
        rows += [
            Row(
                "scale_drain_s",
                f"scale: {drain['matches']} matches drained by 2 workers (s)",
                drain["wall_seconds"],
            ),
            Row("scale_lost", "scale: matches lost", drain["lost"]),
            Row(
                "scale_worker_rss_mib",
                "scale: peak RSS of the larger worker (MiB)",
                max(drain["worker_peak_rss_mib"]),
            ),
            Row("scale_redis_mib", "scale: peak memory of Redis (MiB)", drain["redis_peak_mib"]),
        ]
    return rows


def ratings_rows(figures: dict[str, Any]) -> list[Row]:
    """The fitted ratings' rows (bench/ratings_bench.py, 100 bots, a private redis-server): recording a
    result through the real script and refitting from Redis, at the most recorded matches against the
    fewest; the pair table keeps both flat."""
    sizes = sorted(figures["sizes"].values(), key=lambda size: size["matches"])
    fewest, most = sizes[0], sizes[-1]
    rows = [
        Row(
            "ratings_add_result_us",
            "ratings: add one result to the pair table (us)",
            figures["add_result_us"],
        )
    ]
    for size in sizes:
        rows += [
            Row(
                f"ratings_record_{size['matches']}_us",
                f"ratings: record a result at {size['matches']:,} matches (us)",
                size["record_us"],
            ),
            Row(
                f"ratings_refit_{size['matches']}_ms",
                f"ratings: refit from Redis at {size['matches']:,} matches (ms)",
                size["refit_ms"],
            ),
        ]
    rows += [
        measured(
            "ratings_record_ratio",
            "ratings: record, most matches (floor: fewest)",
            most["record_us"],
            fewest["record_us"],
            "<= 2",
        ),
        measured(
            "ratings_refit_ratio",
            "ratings: refit, most matches (floor: fewest)",
            most["refit_ms"],
            fewest["refit_ms"],
            "<= 2",
        ),
    ]
    return rows


def one_pass(counts: Counts, drain: int) -> tuple[list[Row], dict[str, Any]]:
    """Measures every layer once; returns the rows and the raw figures behind them."""
    payload = typical_request_bytes()
    engines = engine_figures(counts.playouts)
    floors = {
        "tcp": transport_round_trip_us(payload, counts.rounds),
        "unix": transport_round_trip_us(payload, counts.rounds, unix=True),
    }
    aio = transport_round_trip_us(payload, counts.rounds, "aio-client")
    sdk = sdk_round_trip_us(counts.rounds)
    floors["echo"] = sdk_round_trip_us(counts.rounds, echo=True)
    loop = match_loop_us(counts.games * 5)
    timing = referee_timing(counts.games)
    local = in_process.figures(counts.local_games)
    rates = concurrency_rates(counts.games, counts.levels)
    queue = queue_figures(counts.queued, drain)
    sandbox = sandbox_figures(*counts.sandbox)
    ratings = ratings_bench.figures(**counts.ratings)
    ladder = ladder_bench.figures(**counts.ladder)
    rows = [
        *engine_rows(engines, floors["tcp"]),
        Row("tcp_round_trip_us", f"grpc bidi round trip over TCP, {payload} B request (us)", floors["tcp"]),
        measured("unix_ratio", "grpc bidi round trip over a Unix socket (us)", floors["unix"], floors["tcp"]),
        measured("aio_ratio", "grpc bidi round trip, grpc.aio client (us)", aio, floors["tcp"]),
        *referee_rows(timing, rates, floors, sdk, loop),
        *in_process_rows(local),
        *queue_rows(queue),
        *sandbox_rows(sandbox),
        *ratings_rows(ratings),
        measured(
            "ladder_games_ratio",
            "ladder: games to a settled ranking (floor: round robin)",
            ladder["median_ladder"],
            ladder["median_round_robin"],
            "<= 0.7",
        ),
    ]
    raw = {
        "payload_bytes": payload,
        "round_trip_us": floors["tcp"],
        "unix_round_trip_us": floors["unix"],
        "aio_round_trip_us": aio,
        "engines": engines,
        "sdk_round_trip_us": sdk,
        "echo_round_trip_us": floors["echo"],
        "match_loop_decision_us": loop,
        "referee": dataclasses.asdict(timing),
        "referee_decision_us": 1e6 * timing.seconds / timing.decisions,
        "referee_step_us": 1e6 * timing.seconds / timing.steps,
        "matches_per_s": {str(k): v for k, v in rates.items()},
        "in_process": local,
        "queue": queue,
        "sandbox": sandbox,
        "ratings": ratings,
        "ladder": ladder,
    }
    return rows, raw


@dataclasses.dataclass(frozen=True)
class Counts:
    """How much each layer measures: the full run's counts, or tiny ones (``--quick``)."""

    playouts: int = 40
    rounds: int = 5000
    games: int = 40
    levels: tuple[int, ...] = (1, 2, 4, 8)
    queued: int = 300
    sandbox: tuple[int, int, int] = (15, 40, 5)
    ratings: dict = dataclasses.field(default_factory=dict)
    ladder: dict = dataclasses.field(default_factory=dict)
    local_games: int = 20  # per game and way (bench/in_process.py)


QUICK = Counts(3, 300, 3, (1, 2), 6, (2, 2, 1), {"sizes": (100, 1000), "repeats": 1}, {"seeds": 1}, 3)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny counts: checks the benchmark runs")
    parser.add_argument(
        "--scale", type=int, help="matches in the drain (default 10000; 20 with --quick; 0 skips)"
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="passes; the table shows each figure's median [1]"
    )
    parser.add_argument("--out", type=Path, default=RESULTS, help=f"where to write the JSON [{RESULTS}]")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    counts = QUICK if args.quick else Counts()
    drain = args.scale if args.scale is not None else (20 if args.quick else 10_000)
    passes = [one_pass(counts, drain if number == 0 else 0) for number in range(args.repeat)]
    rows = median_rows([rows for rows, _ in passes])
    print(format_rows(rows))
    machine = {"cpus": os.cpu_count(), "load_average": os.getloadavg(), "python": sys.version.split()[0]}
    results = {
        "quick": args.quick,
        "repeat": args.repeat,
        "machine": machine,
        **passes[0][1],
        "ratios": {row.key: row.ratio for row in rows if row.ratio is not None},
        "figures": {row.key: row.value for row in rows},
        "table": [row._asdict() | {"ok": met(row)} for row in rows],
        "passes": [raw for _, raw in passes[1:]],
    }
    args.out.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
