"""The ladder: its pairing policy (pure), its queue-feeding loop on a real Redis, and ``arena ladder``
end to end (real workers, real sandbox), with the leaderboard following it."""

from __future__ import annotations

import itertools
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping

import psutil
import pytest

from arena.games.rng import derive
from arena.queue import keys
from arena.queue.jobs import load_job
from arena.ratings import Placement
from arena.ratings.fit import Fit, fit
from arena.ratings.pairing import NEW_GAMES, choose_group, ranking
from arena.ratings.pairs import PairTable
from arena.schedule.ladder import Ladder, LadderError, LadderSpec
from arena.storage import fits
from arena.submissions import registry
from tests.conftest import (
    REPO,
    SEED_KEY,
    SEED_KEY_ENV,
    Gate,
    default_ctrl_c,
    json_lines,
    run_arena,
    submit_gated,
)


def fitted(scores: Mapping[tuple[str, str], tuple[int, int]]) -> Fit:
    """Returns the fit of two-player results: ``{(a, b): (a's wins, b's wins)}``."""
    table = PairTable()
    for (a, b), (wins, losses) in scores.items():
        for _ in range(wins):
            table.add_match([Placement(a, 1), Placement(b, 2)])
        for _ in range(losses):
            table.add_match([Placement(a, 2), Placement(b, 1)])
    return fit(table)


# a > b clearly, b and c even (their order unsettled), c > d clearly; everyone well past NEW_GAMES
SETTLED_EXCEPT_BC = fitted({("a", "b"): (40, 2), ("b", "c"): (11, 10), ("c", "d"): (40, 2)})
POOL = ["a", "b", "c", "d"]


def test_a_new_version_is_paired_first_against_the_nearest_rated() -> None:
    players = [*POOL, "new"]
    choice = choose_group(SETTLED_EXCEPT_BC, players, 2, derive(1, "t"), random_share=0.0)
    assert choice.reason == "new" and "new" in choice.seats
    # unrated, it sits at 1500: its opponent is the established player rated nearest to 1500
    nearest = min(POOL, key=lambda p: abs(SETTLED_EXCEPT_BC.ratings[p] - 1500))
    assert set(choice.seats) == {"new", nearest}


def test_matches_in_flight_count_toward_a_new_versions_games() -> None:
    players = [*POOL, "new"]
    in_flight = [("new", "b")] * NEW_GAMES
    choice = choose_group(SETTLED_EXCEPT_BC, players, 2, derive(1, "t"), in_flight, random_share=0.0)
    assert choice.reason == "uncertain"
    fewer = in_flight[:-1]
    choice = choose_group(SETTLED_EXCEPT_BC, players, 2, derive(1, "t"), fewer, random_share=0.0)
    assert choice.reason == "new" and set(choice.seats) != {"new", "b"}, "its opponents spread"


def test_the_least_settled_adjacent_pair_is_played() -> None:
    order = ranking(SETTLED_EXCEPT_BC, POOL)
    assert order[0] == "a" and order[3] == "d" and set(order[1:3]) == {"b", "c"}
    for n in range(20):
        choice = choose_group(SETTLED_EXCEPT_BC, POOL, 2, derive(n, "t"), random_share=0.0)
        assert choice.reason == "uncertain" and set(choice.seats) == {"b", "c"}
    # with b-c in flight, the next job goes to another neighbour pair, never to a far one
    choice = choose_group(SETTLED_EXCEPT_BC, POOL, 2, derive(1, "t"), [("c", "b")], random_share=0.0)
    assert set(choice.seats) in (set(order[:2]), set(order[2:]))


def test_the_random_share_reaches_every_bot_and_every_pair() -> None:
    pairs: Counter[frozenset[str]] = Counter()
    reasons: Counter[str] = Counter()
    for n in range(400):
        choice = choose_group(SETTLED_EXCEPT_BC, POOL, 2, derive(7, "ladder", n))
        pairs[frozenset(choice.seats)] += 1
        reasons[choice.reason] += 1
    assert set(pairs) == {frozenset(p) for p in itertools.combinations(POOL, 2)}
    assert 0.12 < reasons["random"] / 400 < 0.28, reasons  # the 20% share, within sampling noise
    # without it, the far pairs (a-c, a-d, b-d) and the settled ones are never played
    never = [
        choose_group(SETTLED_EXCEPT_BC, POOL, 2, derive(7, "ladder", n), random_share=0.0) for n in range(50)
    ]
    assert {frozenset(c.seats) for c in never} == {frozenset({"b", "c"})}


def test_the_choice_is_a_function_of_the_seed() -> None:
    def sequence(seed: int) -> list[tuple[str, ...]]:
        return [choose_group(SETTLED_EXCEPT_BC, POOL, 2, derive(seed, "ladder", n)).seats for n in range(60)]

    assert sequence(3) == sequence(3)
    assert sequence(3) != sequence(4)
    seats = Counter(c[0] for c in sequence(3) if set(c) == {"b", "c"})
    assert set(seats) == {"b", "c"}, "seats are shuffled: each of the pair plays first"


def test_groups_of_three_are_neighbours_in_the_ranking() -> None:
    for n in range(30):
        choice = choose_group(SETTLED_EXCEPT_BC, POOL, 3, derive(n, "t"), random_share=0.0)
        assert choice.reason == "uncertain" and len(set(choice.seats)) == 3
        assert {"b", "c"} <= set(choice.seats) and set(choice.seats) in ({"a", "b", "c"}, {"b", "c", "d"})


def test_a_pool_it_cannot_pair_is_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="a group of 3 needs at least 3 players"):
        choose_group(SETTLED_EXCEPT_BC, ["a", "b"], 3, derive(1, "t"))
    with pytest.raises(ValueError, match="listed once"):
        choose_group(SETTLED_EXCEPT_BC, ["a", "a"], 2, derive(1, "t"))
    with pytest.raises(ValueError, match="--random-share"):
        LadderSpec("ninjan", ("a", "b"), random_share=1.5)


def test_the_ladder_keeps_a_bounded_queue_and_resumes_its_numbering(client) -> None:
    spec = LadderSpec("ninjan", ("random", "greedy", "search"), seed=9)
    resolve = lambda bot: registry.resolve(client, "ninjan", bot)  # noqa: E731
    ladder = Ladder(client, spec, SEED_KEY, resolve)
    assert ladder.open() == 0
    assert ladder.fill(ahead=3, until=None) == 3
    assert ladder.fill(ahead=3, until=None) == 0, "nothing finished: the queue stays at three"
    jobs = [load_job(client, f"{ladder.id}-m{n}")[0] for n in (1, 2, 3)]
    assert all(job is not None and job.tournament == ladder.id and len(job.versions) == 2 for job in jobs)
    assert len({job.seed for job in jobs}) == 3
    assert all(job.seed < 2**64 for job in jobs)
    assert client.hget(keys.tournament(ladder.id), "total") == "3"
    # a new process with the same spec (the same command) continues from match 4, to a limit
    again = Ladder(client, spec, SEED_KEY, resolve)
    assert again.open() == 3
    client.hset(keys.tournament(ladder.id), "recorded", 3)  # as if three results were recorded
    assert again.fill(ahead=3, until=4) == 1
    assert load_job(client, f"{ladder.id}-m4")[0] is not None
    assert again.fill(ahead=3, until=4) == 0


def leaderboard(url: str) -> list[dict]:
    proc = run_arena("leaderboard", "ninjan", "--json", "--redis", url)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def games_per_bot(url: str) -> Counter[str]:
    proc = run_arena("results", "ninjan", "--json", "--redis", url)
    assert proc.returncode == 0, proc.stderr
    return Counter(p["bot"] for match in json_lines(proc.stdout) for p in match["players"])


@pytest.mark.e2e
def test_arena_ladder_plays_its_matches_and_the_leaderboard_counts_them(client, redis_url: str) -> None:
    bots = ("random", "greedy", "search")
    args = ("ladder", "ninjan", "--bots", ",".join(bots), "--matches", "12", "--workers", "1")
    proc = run_arena(*args, "--redis", redis_url, "--seed", "3", "--json", env=SEED_KEY_ENV)
    assert proc.returncode == 0, proc.stderr
    assert "12 matches scheduled in this run, 12 finished in all, 0 still queued" in proc.stderr
    assert "matches finished in this run" not in proc.stderr, "no progress lines unless asked off a terminal"
    rows = leaderboard(redis_url)
    assert sorted(r["bot"] for r in rows) == sorted(bots)
    played = games_per_bot(redis_url)
    assert sum(played.values()) == 24
    assert {r["bot"]: r["games"] for r in rows} == dict(played)
    assert json.loads(proc.stdout) == rows, "the ladder ends on the leaderboard, as it stands"
    # the same command again resumes the ladder: 6 more matches, numbered on
    proc = run_arena(
        *args[:4], "--matches", "6", "--workers", "1", "--redis", redis_url, "--seed", "3", env=SEED_KEY_ENV
    )
    assert proc.returncode == 0, proc.stderr
    assert sum(r["games"] for r in leaderboard(redis_url)) == 36
    status = run_arena("tournament", "status", "--redis", redis_url)
    assert "ladder" in status.stdout and "18/18 done" in status.stdout


@pytest.mark.e2e
def test_the_leaderboard_follows_a_running_ladder_until_ctrl_c(client, redis_url: str) -> None:
    argv = [
        sys.executable,
        "-m",
        "arena.cli",
        "ladder",
        "ninjan",
        "--bots",
        "random,greedy",
        "--workers",
        "1",
    ]
    argv += ["--redis", redis_url, "--seed", "4"]
    ladder = subprocess.Popen(
        argv,
        cwd=REPO,
        env={**os.environ, **SEED_KEY_ENV},
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        preexec_fn=default_ctrl_c,  # Ctrl-C must reach it even from a suite run in the background
    )
    source = fits.game_source("ninjan")
    seen = []
    deadline = time.monotonic() + 180
    while len(seen) < 3 and time.monotonic() < deadline and ladder.poll() is None:
        view = fits.view(client, source)
        if view["matches"] and (not seen or view["matches"] > seen[-1]):
            seen.append(view["matches"])  # each read refits: the board moves as results arrive
        time.sleep(0.05)
    workers = psutil.Process(ladder.pid).children()
    os.killpg(ladder.pid, signal.SIGINT)  # Ctrl-C: the whole group, its workers too
    out, err = ladder.communicate(timeout=120)
    assert len(seen) == 3 and seen == sorted(seen), (seen, err)
    assert ladder.returncode == 130, err
    assert "interrupted" in err and "ninjan leaderboard" in out
    assert workers and not any(w.is_running() and w.status() != psutil.STATUS_ZOMBIE for w in workers)
    queued = int(
        client.hget(keys.tournament(LadderSpec("ninjan", ("random", "greedy"), seed=4).ladder_id), "total")
    )
    finished = int(client.get(keys.rating_updates("ninjan")))
    assert finished <= queued <= finished + 2, "never more than --ahead (2) queued beyond the results"


@pytest.mark.e2e
def test_ctrl_c_mid_match_ends_the_ladder_quietly_with_its_summary(client, redis_url: str, tmp_path) -> None:
    """Started as from a suite run in the background (SIGINT ignored, reset in the child), the ladder
    shows its progress (matches, the order with intervals) when asked; Ctrl-C while a worker is in
    the middle of a match (held at a gate) prints the summary and no traceback."""
    gate = Gate(tmp_path / "gate")
    submit_gated(client, gate, tmp_path)
    argv = [sys.executable, "-m", "arena.cli", "ladder", "ninjan", "--bots", "gated,random", "--workers", "1"]
    argv += ["--no-sandbox", "--progress", "--redis", redis_url, "--seed", "7"]
    ignored = signal.signal(signal.SIGINT, signal.SIG_IGN)  # what a shell's '&' gives the suite
    try:
        ladder = subprocess.Popen(
            argv,
            cwd=REPO,
            env={**os.environ, **SEED_KEY_ENV},
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=default_ctrl_c,
        )
    finally:
        signal.signal(signal.SIGINT, ignored)
    try:
        gate.grant(1)  # one match is played; the next one is held mid-match
        bot = r"(gated|random) \d+ \(\d+\.\.\d+\)"
        progress = re.compile(rf": 1 matches finished in this run; {bot} > {bot}$")
        lines = [""]
        while not progress.search(lines[-1]):  # the gate: the ladder's progress, with the order
            lines.append(ladder.stderr.readline())
            assert lines[-1], "".join(lines)
        wait_until(lambda: gate.holds(1), 120)
        os.killpg(ladder.pid, signal.SIGINT)
        out, err = ladder.communicate(timeout=120)
    finally:
        gate.open()
        if ladder.poll() is None:
            os.killpg(ladder.pid, signal.SIGKILL)
    assert ladder.returncode == 130, err
    assert "interrupted" in err and "ninjan leaderboard" in out
    for noise in ("Traceback", "Task was destroyed", "Exception ignored", "Event loop is closed"):
        assert noise not in err, err


def wait_until(condition: Callable[[], bool], seconds: float) -> None:
    """Polls ``condition`` until it holds; fails after ``seconds`` (a generous bound, not a timing)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.05)


@pytest.mark.e2e
def test_the_efficiency_benchmark_runs_and_writes_its_figures(tmp_path) -> None:
    """One seed of bench/ladder_bench.py (figures come from its full run: docs/ladder.md); the run is
    deterministic, so this seed's saving is always the same."""
    out = tmp_path / "ladder.json"
    proc = subprocess.run(
        [sys.executable, "bench/ladder_bench.py", "--seeds", "1", "--out", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    figures = json.loads(out.read_text())
    assert figures["truth"][0] == "greedy" and figures["truth"][-1] == "random"
    (run,) = figures["runs"]
    assert run["ladder"]["settled"] and run["round_robin"]["settled"]
    assert set(run["ladder"]["reasons"]) == {"random", "new", "uncertain"}
    assert figures["saving"] >= figures["target"] and figures["ok"] is True


def test_a_bot_whose_matches_keep_failing_is_left_out(client) -> None:
    """A bot that cannot play never records a game: without a rule it would stay 'new' and be paired
    first forever. Its dead-lettered matches drop it; when too few bots are left, the ladder stops."""
    spec = LadderSpec("ninjan", ("random", "greedy", "search"), seed=2, random_share=0.0)
    ladder = Ladder(client, spec, SEED_KEY, lambda bot: registry.resolve(client, "ninjan", bot))
    ladder.open()
    broken = {"search"}

    def finish_queued() -> None:
        """Plays nothing: marks each queued match dead if a broken bot sits in it, else recorded."""
        for match_id in list(ladder.pending):
            job, _ = load_job(client, match_id)
            status = "dead" if broken & set(job.bots) else "recorded"
            client.hset(keys.job(match_id), "status", status)
            client.hincrby(keys.tournament(ladder.id), status, 1)

    for _ in range(12):
        ladder.fill(ahead=2, until=None)
        finish_queued()
    assert [p.split("@")[0] for p in ladder.failing()] == ["search"]
    last = [
        load_job(client, f"{ladder.id}-m{n}")[0].bots
        for n in range(ladder.scheduled - 4, ladder.scheduled + 1)
    ]
    assert all(set(bots) == {"random", "greedy"} for bots in last), last
    broken.add("greedy")
    with pytest.raises(LadderError, match="fewer than 2 bots left"):
        for _ in range(12):
            ladder.fill(ahead=2, until=None)
            finish_queued()


def test_a_version_submitted_while_the_ladder_runs_is_played_first(client) -> None:
    """Each refill re-resolves the bots: a new version is a new player, paired before anything else."""
    table = PairTable()
    for a, b in itertools.combinations(["a@v1", "b@v1", "c@v1"], 2):
        for _ in range(NEW_GAMES):
            table.add_match([Placement(a, 1), Placement(b, 2)])
    client.hset(keys.pairs("ninjan"), mapping=table.to_fields())
    client.set(keys.rating_updates("ninjan"), 3 * NEW_GAMES)
    versions = {"a": "v1", "b": "v1", "c": "v1"}
    spec = LadderSpec("ninjan", ("a", "b", "c"), seed=5, random_share=0.0)
    ladder = Ladder(client, spec, SEED_KEY, versions.__getitem__)
    ladder.open()
    ladder.fill(ahead=1, until=None)
    assert ladder.last is not None and ladder.last.reason == "uncertain"
    client.hset(keys.tournament(ladder.id), "recorded", 1)
    versions["b"] = "v2"  # resubmitted
    ladder.fill(ahead=1, until=None)
    assert ladder.last.reason == "new" and "b@v2" in ladder.last.seats
    job = load_job(client, f"{ladder.id}-m2")[0]
    assert dict(zip(job.bots, job.versions, strict=True))["b"] == "v2"


def test_doctests() -> None:
    import doctest

    import arena.cli.ladder
    import arena.ratings.pairing

    assert doctest.testmod(arena.ratings.pairing).failed == 0
    assert doctest.testmod(arena.cli.ladder).failed == 0
