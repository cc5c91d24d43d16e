"""Seeds no bot can compute: each match's seed is independent of every other's (arena/seeds.py).

A bot that knows a seed knows every hidden card and future roll. Before, game g of a series used
seed + g and a tournament's seeds were consecutive, so one published seed gave away all the others,
and a small chosen seed was found from a bot's own hand in about a second.
"""

from __future__ import annotations

import itertools
import os
import stat
from pathlib import Path

import pytest

from arena.games.rng import derive_seed
from arena.schedule.plan import TournamentSpec, plan
from arena.seeds import KEY_FILE_VARIABLE, KEY_VARIABLE, keyed_seed, platform_key, series_seed
from tests.conftest import run_arena

KEY = bytes(range(32))


def test_series_seeds_are_hashes_not_consecutive() -> None:
    seeds = [series_seed(7, g) for g in range(50)]
    assert len(set(seeds)) == 50
    assert all(0 <= s < 1 << 64 for s in seeds)
    assert all(b - a != 1 for a, b in itertools.pairwise(seeds))
    assert seeds == [series_seed(7, g) for g in range(50)]  # reproducible from the series seed


def test_a_tournaments_seeds_depend_on_the_platform_key() -> None:
    spec = TournamentSpec("ninjan", ("a", "b", "c"), rounds=2, seed=1)
    jobs = plan(spec, KEY)
    seeds = [job.seed for job in jobs]
    assert len(set(seeds)) == len(seeds)
    assert plan(spec, KEY) == jobs  # the organiser reproduces it
    assert not set(seeds) & {job.seed for job in plan(spec, b"another platform's key")}


def test_published_seeds_and_a_small_chosen_seed_do_not_give_away_another_match() -> None:
    """The attacker knows the chosen seed (1), the tournament id, every match's place and every seed
    but one; it tries the schemes arena used before and the unkeyed hash of everything it knows."""
    spec = TournamentSpec("ninjan", ("a", "b", "c"), rounds=3, seed=1)
    jobs = plan(spec, KEY)
    target, published = jobs[-1], [job.seed for job in jobs[:-1]]
    guesses = {spec.seed + n for n in range(10_000)}
    guesses |= {s + d for s in published for d in (-1, 1)}
    guesses |= {
        derive_seed(spec.seed, spec.tournament_id, r, g, s)
        for r in range(3)
        for g in range(3)
        for s in range(2)
    }
    guesses |= {derive_seed(s, "series", n) for s in published for n in range(3)}
    assert target.seed not in guesses


def test_duplicate_deals_share_a_seed_per_group_and_play_with_fresh_bot_processes() -> None:
    spec = TournamentSpec("ninjan", ("a", "b", "c"), players=3, duplicate=True, seed=5)
    jobs = plan(spec, KEY)
    assert len({job.seed for job in jobs}) == 1  # one group, one round: three rotations of one deal
    assert all(job.fresh_bots for job in jobs)
    assert not any(job.fresh_bots for job in plan(TournamentSpec("ninjan", ("a", "b"), seed=5), KEY))


def test_the_key_is_made_once_secret_to_its_owner_and_overridable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    key = platform_key(tmp_path)
    assert len(key) == 32 and platform_key(tmp_path) == key
    assert stat.S_IMODE(os.stat(tmp_path / "seed.key").st_mode) == 0o600
    monkeypatch.setenv(KEY_VARIABLE, "ab" * 32)
    assert platform_key(tmp_path) == bytes.fromhex("ab" * 32)
    monkeypatch.setenv(KEY_VARIABLE, "not hex")
    with pytest.raises(ValueError, match="hex"):
        platform_key(tmp_path)


def test_keyed_seeds_differ_by_every_label() -> None:
    base = keyed_seed(KEY, 1, "t", 0, 0)
    assert (
        len(
            {
                base,
                keyed_seed(KEY, 2, "t", 0, 0),
                keyed_seed(KEY, 1, "u", 0, 0),
                keyed_seed(KEY, 1, "t", 0, 1),
            }
        )
        == 4
    )


def test_a_hosted_platform_reads_its_key_from_a_secret_file_both_server_and_workers_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(KEY_VARIABLE, raising=False)
    secret = tmp_path / "seed_key"
    secret.write_text("cd" * 32 + "\n")
    monkeypatch.setenv(KEY_FILE_VARIABLE, str(secret))
    assert platform_key(tmp_path) == bytes.fromhex("cd" * 32)
    assert not (tmp_path / "seed.key").exists()  # no key of its own is made beside it
    secret.write_text("short")
    with pytest.raises(ValueError, match="at least 32 hexadecimal digits"):
        platform_key(tmp_path)
    monkeypatch.setenv(KEY_FILE_VARIABLE, str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="cannot read"):
        platform_key(tmp_path)


def test_a_server_or_worker_that_cannot_read_its_key_says_so_at_start(tmp_path: Path) -> None:
    env = {KEY_FILE_VARIABLE: str(tmp_path / "missing"), "ARENA_REDIS_URL": "redis://127.0.0.1:1/0"}
    for command in (["worker", "--no-sandbox", "--burst"], ["server", "--port", "0"]):
        proc = run_arena(*command, env=env)
        assert proc.returncode == 2, proc.stderr
        (line,) = proc.stderr.splitlines()[-1:]
        assert line.startswith(f"arena: error: {KEY_FILE_VARIABLE}: cannot read"), proc.stderr
