"""Collusion shows (issue 36, item 4): the statistics (``arena.ratings.collusion``), a small seeded
version of bench/collusion_bench.py (honest pools raise no flag, each kind of planted pair is ranked
first and flagged), ``arena collusion GAME`` end to end over a private Redis holding recorded matches
with stored logs, and the organiser-only endpoint."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import redis

from arena.queue import keys, store
from arena.queue.jobs import MatchJob
from arena.ratings import collusion, significance
from arena.referee import botlog
from arena.testing import replay_of_game
from tests.conftest import REPO, run_arena

sys.path.insert(0, str(REPO / "bench"))
import collusion_bench as bench  # bench/ is no package: on the path, as tests/test_bench.py does

needs_redis = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")


def seat(name: str, rank: int, group: str | None = None) -> collusion.Seat:
    return collusion.Seat(name, group or f"bot:{name}", rank)


def test_holm_adjusts_step_down_and_keeps_the_order() -> None:
    assert significance.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert significance.holm([0.5, 0.001]) == pytest.approx([0.5, 0.002])
    assert significance.holm([]) == []


def test_poisson_binomial_tail_is_exact() -> None:
    assert significance.upper_tail([0.5] * 10, 9) == pytest.approx(11 / 1024)
    assert significance.upper_tail([0.2, 0.9], 2) == pytest.approx(0.18)
    assert significance.upper_tail([0.3], 0) == 1.0 and significance.upper_tail([0.3], 2) == 0.0


def test_leave_pair_out_judges_a_pair_by_its_results_against_the_others() -> None:
    """a and b are equals against c, d, e; a always beats b. With the pair's own results the fit
    calls a stronger; without them a and b are level again, so a's wins over b are a surprise."""
    tables = [collusion.Table(f"ab{i}", (seat("a", 1), seat("b", 2))) for i in range(30)]
    for x in ("a", "b"):
        for y in ("c", "d", "e"):
            for i in range(20):
                first, second = (x, y) if i % 2 else (y, x)
                tables.append(collusion.Table(f"{x}{y}{i}", (seat(first, 1), seat(second, 2))))
    from arena.ratings.elo import Placement
    from arena.ratings.fit import fit
    from arena.ratings.pairs import table_of

    fitted = fit(table_of([Placement(s.player, s.rank) for s in t.seats] for t in tables))
    records = collusion._player_records(tables)
    assert fitted.win_probability("a", "b") > 0.7
    assert collusion.leave_pair_out(fitted, "a", "b", records) == pytest.approx(0.5, abs=0.08)
    report = collusion.analyse(tables)
    assert report.pairs[0].groups == ("bot:a", "bot:b") and report.pairs[0].flagged
    assert report.pairs[0].findings[0].test == "above"


def test_a_think_time_signal_shows_and_honest_times_do_not() -> None:
    """Two seats' decisions with hidden numbers: one waits longer the more it holds, one at random."""
    import random

    rng = random.Random(3)
    tables = []
    for i in range(60):
        decisions = []
        for step in range(9):
            for s in (0, 1):
                hidden = (float(rng.randrange(5)), float(rng.randrange(5)))
                ms = 50 + 20 * hidden[0] + rng.uniform(0, 5) if s == 0 else rng.lognormvariate(4, 0.5)
                decisions.append(collusion.Decision(s, step, f"commit-{step}", ms, hidden))
        tables.append(
            collusion.Table(f"m{i}", (seat("x", 1 + i % 2), seat("y", 2 - i % 2)), tuple(decisions))
        )
    report = collusion.analyse(tables)
    leaks = {f.first: f for p in report.pairs for f in p.findings if f.test == "leak"}
    assert leaks["bot:x"].flagged and leaks["bot:x"].p < 1e-20
    assert not leaks["bot:y"].flagged and leaks["bot:y"].p > 1e-3
    rows = collusion.leak_rows(tables, "bot:x", "bot:y")
    assert collusion.permutation_p(rows, permutations=99, seed=1) == pytest.approx(0.01)
    assert collusion.permutation_p(collusion.leak_rows(tables, "bot:y", "bot:x"), 99, seed=1) > 0.01


@pytest.mark.parametrize("seed", [0, 1])
def test_small_seeded_pools_rank_the_planted_pairs_first_and_flag_no_honest_one(seed: int) -> None:
    """bench/collusion_bench.py at a small size (10 bots, 600 matches a pool): the honest pool raises
    no flag; the soft-player's pair and the think-time signaller's are ranked first, the signaller
    flagged. (Seed 1's soft-player is weak and its partner strong: losing to everyone is what it
    mostly did anyway, so 37 tables give p = 6e-5, below every honest pair's but short of Holm's
    threshold of 0.01 / 315 tests; seed 0's is flagged.)"""
    row = bench.run_pool((seed, 10, 600, collusion.FLAG_ALPHA))
    assert row["honest"]["flags"] == 0, row["honest"]
    for kind in ("soft", "signal"):
        assert row[kind]["rank"] == 1 and row[kind]["p"] < 1e-4, (kind, row[kind])
    assert row["signal"]["flagged"] and row["signal"]["test"] == "leak"
    assert row["soft"]["test"] in ("above", "yields") and row["soft"]["flagged"] == (seed == 0)


def record_pool(client: redis.Redis, pool: bench.Pool, kind: str) -> None:
    """Records every match of a pool through the queue's recording script, as a worker does: its
    replay, and a stored match log with each decision's think time."""
    for index, (seats, deal) in enumerate(pool.tables):
        chosen: dict[tuple[int, int], int] = {}
        table = bench.play(pool, index, kind, chosen)
        bots = [pool.bots[b].name for b in seats]
        match_id = f"collusion-{index:04d}"
        text, record = replay_of_game(
            "ninjan", deal, bots, match_id, lambda turn, s, c=chosen: c[(turn.step, s)]
        )
        header = json.loads(text.splitlines()[0])
        think = [botlog.Think(d.step, d.seat, d.ms, True) for d in table.decisions]
        fields = {"match_id": match_id, "game": "ninjan", "players": header["players"], "deadline_ms": 2000}
        log = botlog.match_log_text(fields, {}, think).encode()
        job = MatchJob(match_id, "ninjan", deal, tuple(bots))
        new, _ = store.record_and_take(client, job, record, text, "0-1", extras={botlog.STORE_KIND: log})
        assert new


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A private Redis holding a 10-bot pool of 400 matches with a think-time signaller (its bot in
    account "eve") and its partner (account "mallory"); the other bots have no account."""
    from arena.queue.connection import connect
    from arena.testing import RedisServer

    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    client = connect(server.url)
    pool = bench.make_pool(5, 10, 400)
    actor, partner = pool.planted["signal"]
    client.hset(keys.bot(pool.bots[actor].name), mapping={"account": "eve"})
    client.hset(keys.bot(pool.bots[partner].name), mapping={"account": "mallory"})
    record_pool(client, pool, "signal")
    yield server.url, client
    server.kill()


@needs_redis
def test_cli_names_the_signalling_accounts_from_the_record(recorded: Any) -> None:
    url, _ = recorded
    done = run_arena("collusion", "ninjan", "--redis", url, "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["game"] == "ninjan" and report["matches"] == 400 and report["correction"] == "holm"
    first = report["pairs"][0]
    assert first["groups"] == ["eve", "mallory"] and first["flagged"], first
    assert first["findings"][0]["test"] == "leak" and first["findings"][0]["first"] == "eve"
    shown = run_arena("collusion", "ninjan", "--redis", url, "--top", "3")
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert "400 matches" in lines[0] and "Holm" in lines[0]
    assert lines[3].split()[:4] == ["1", "eve", "+", "mallory"] and lines[3].endswith("FLAG")
    assert "eve's think times carry its hidden hand at tables with mallory" in shown.stdout
    latest = run_arena("collusion", "ninjan", "--redis", url, "--last", "50", "--json")
    assert latest.returncode == 0 and json.loads(latest.stdout)["matches"] == 50, latest.stderr


@needs_redis
def test_the_endpoint_is_the_organisers_only(recorded: Any, tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from leaderboard.api.auth import OrganiserToken
    from leaderboard.app import ServerConfig, server_app

    url, client = recorded
    token = "organiser-" + "0123456789abcdef" * 2
    token_file = tmp_path / "organiser"
    token_file.write_text(token)
    app = server_app(url, ServerConfig(organiser=OrganiserToken.from_file(token_file)), client)
    path = "/api/v1/games/ninjan/collusion"
    with TestClient(app) as web:
        assert web.get(path).status_code == 401
        assert web.get(path, headers={"Authorization": "Bearer " + "x" * 42}).status_code == 403
        answer = web.get(path + "?top=2", headers={"Authorization": f"Bearer {token}"})
        assert answer.status_code == 200, answer.text
        assert answer.json()["pairs"][0]["groups"] == ["eve", "mallory"] and len(answer.json()["pairs"]) == 2
        bad = web.get(path + "?top=0", headers={"Authorization": f"Bearer {token}"})
        assert bad.status_code == 400
        organiser = {"Authorization": f"Bearer {token}"}
        assert web.get("/api/v1/games/chess/collusion", headers=organiser).status_code == 404
        page = web.get("/static/collusion.html")  # the page holds no data: it asks with the token typed
        assert page.status_code == 200 and 'id="token"' in page.text and "/static/collusion.js" in page.text
        assert "/api/v1/games/" in web.get("/static/collusion.js").text
    done = run_arena("collusion", "ninjan", "--server", "http://127.0.0.1:9", "--json")
    assert done.returncode == 2 and "--organiser-token-file" in done.stderr
    from leaderboard import browser

    with browser.serving(app) as base:  # the CLI against a served app: what the endpoint answers
        done = run_arena(
            "collusion", "ninjan", "--server", base, "--organiser-token-file", str(token_file), "--json"
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == {**answer.json(), "pairs": json.loads(done.stdout)["pairs"]}
        assert json.loads(done.stdout)["pairs"][:2] == answer.json()["pairs"]
        wrong = tmp_path / "wrong"
        wrong.write_text("organiser-" + "0" * 32)
        done = run_arena("collusion", "ninjan", "--server", base, "--organiser-token-file", str(wrong))
        assert done.returncode != 0 and "wrong organiser token" in done.stderr


@needs_redis
@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="needs Debian's chromium")
def test_the_organisers_page_draws_the_report_in_chromium(recorded: Any, tmp_path: Path) -> None:
    """The page asks with the token typed in it: a wrong one shows the server's refusal, the right
    one the table, the flagged pair first (a screenshot is left in the test's folder)."""
    from leaderboard import browser
    from leaderboard.api.auth import OrganiserToken
    from leaderboard.app import ServerConfig, server_app

    url, client = recorded
    token = "organiser-" + "fedcba9876543210" * 2
    token_file = tmp_path / "organiser"
    token_file.write_text(token)
    app = server_app(url, ServerConfig(organiser=OrganiserToken.from_file(token_file)), client)
    with browser.serving(app) as base, browser.chromium() as chrome:
        page = chrome.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{base}/static/collusion.html")
        page.wait_for_selector("#game option[value='ninjan']", state="attached")
        page.select_option("#game", "ninjan")
        page.fill("#token", "organiser-" + "0" * 32)
        page.click("button[type=submit]")
        page.wait_for_selector("#report p.error")
        assert "wrong organiser token" in page.inner_text("#report")
        page.fill("#token", token)
        page.click("button[type=submit]")
        page.wait_for_selector("#report table")
        first = page.inner_text("#report table tr:nth-child(2)")
        assert "eve + mallory" in first and "FLAG" in first and "leak" in first
        page.screenshot(path=str(tmp_path / "collusion.png"), full_page=True)


def test_an_empty_record_says_so() -> None:
    from arena.cli.collusion import format_report

    report = {"game": "ninjan", **collusion.analyse([]).to_json()}
    assert report["pairs"] == [] and report["tests"] == 0 and report["flagged"] == 0
    assert format_report(report).endswith("no two accounts or bots have shared a table yet")


def test_the_table_escapes_names() -> None:
    """An account or bot name is shown, never obeyed, by the organiser's terminal."""
    from arena.cli.collusion import format_report

    finding = {"test": "leak", "first": "a\x1b[2J", "second": "b", "tables": 3, "n": 30, "observed": 0.5}
    finding |= {"expected": 0.1, "p": 1e-9, "p_holm": 1e-9, "flagged": True}
    pair = {
        "rank": 1,
        "groups": ["a\x1b[2J", "b"],
        "p": 1e-9,
        "p_holm": 1e-9,
        "flagged": True,
        "findings": [finding],
    }
    report = {
        "game": "ninjan",
        "matches": 1,
        "groups": 2,
        "tests": 1,
        "alpha": 0.01,
        "flagged": 1,
        "pairs": [pair],
    }
    shown = format_report(report)
    assert "\x1b" not in shown and "a\\x1b[2J + b" in shown and "a\\x1b[2J's think times" in shown
