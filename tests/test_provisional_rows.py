"""Provisional rows are ranked by their rating and marked, not moved (issue 39, item 8).

A provisional rating (fewer than 10 matches, or a 95% interval wider than +/-150) used to be listed
after every established one, so a table's first row could be a bot that scored 6 of 18 above bots
that scored 14 of 18. Here results are recorded through the queue's own recording script, in a game
and a tournament: ``a`` beats ``b`` 30:10, ``b`` beats ``c`` 30:10, ``a`` beats ``c`` 35:5, and the
newcomer ``new`` beat ``c`` in its only two matches, which rates it between ``a`` and ``b``. The CLI's
tables (``arena leaderboard``, ``arena tournament standings``) and the web pages show ``new`` second,
marked; the web's box hides it, and LOS then compares ``a`` with ``b``. A screenshot of the leaderboard
with its provisional row is written to ``$ARENA_BOARD_SHOTS`` (default: the test's temporary folder).

Against the private redis-server of ``tests.conftest`` (never the Redis on 6379).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from arena.cli.tables import PROVISIONAL
from arena.queue.connection import connect
from leaderboard import browser
from leaderboard.app import leaderboard_app
from tests.conftest import run_arena
from tests.test_fits import record_result

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
needs_chromium = pytest.mark.skipif(not Path(browser.CHROMIUM).exists(), reason="needs Debian's chromium")

TOURNAMENT = "t-provisional"
ORDER = ["a", "new", "b", "c"]  # by rating; new has played two matches


@pytest.fixture(scope="module")
def recorded(redis_url: str) -> redis.Redis:
    client: redis.Redis = connect(redis_url)
    client.flushall()
    duels = [("a", "b", 30, 10), ("b", "c", 30, 10), ("a", "c", 35, 5), ("new", "c", 2, 0)]
    for winner, loser, wins, losses in duels:
        for i in range(wins + losses):
            rank = {winner: 1, loser: 2} if i < wins else {winner: 2, loser: 1}
            seated = (winner, loser) if i % 2 == 0 else (loser, winner)  # both seatings, in turn
            record_result(
                client, f"{winner}-{loser}-{i}", {b: rank[b] for b in seated}, tournament=TOURNAMENT
            )
    return client


def cli(redis_url: str, *args: str) -> str:
    done = run_arena(*args, "--redis", redis_url)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("command", [("leaderboard", "ninjan"), ("tournament", "standings", TOURNAMENT)])
def test_the_cli_ranks_a_provisional_row_by_its_rating_and_marks_it(
    recorded: redis.Redis, redis_url: str, command: tuple[str, ...]
) -> None:
    rows = json.loads(cli(redis_url, *command, "--json"))
    rows = rows["rows"] if isinstance(rows, dict) else rows
    assert [(r["rank"], r["bot"], r["provisional"]) for r in rows] == [
        (1, "a", False),
        (2, "new", True),
        (3, "b", False),
        (4, "c", False),
    ]
    assert [r["elo"] for r in rows] == sorted((r["elo"] for r in rows), reverse=True)
    lines = cli(redis_url, *command).splitlines()
    table = [line.split() for line in lines if line.split()[:1] in (["1"], ["2*"], ["3"], ["4"])]
    assert [cells[:2] for cells in table[:4]] == [["1", "a"], ["2*", "new"], ["3", "b"], ["4", "c"]]
    legend = PROVISIONAL.splitlines()[0]
    assert f"  {legend}" in lines and legend.startswith("* provisional: fewer than 10 matches")


def shown_bots(page: Any) -> list[str]:
    return page.eval_on_selector_all("#leaderboard tbody tr[data-bot]", "rs => rs.map(r => r.dataset.bot)")


def los_cells(page: Any) -> dict[str, str]:
    return dict(
        page.eval_on_selector_all(
            "#leaderboard tbody tr[data-bot]",
            "rows => rows.map(r => [r.dataset.bot, r.querySelector('td.los_next').textContent])",
        )
    )


@pytest.fixture(scope="module")
def site(recorded: redis.Redis, redis_url: str) -> Iterator[tuple[str, Any]]:
    with browser.serving(leaderboard_app(redis_url)) as base, browser.chromium() as chrome:
        yield base, chrome


@needs_chromium
@pytest.mark.parametrize("path", ["/games/ninjan", f"/tournaments/{TOURNAMENT}"])
def test_the_web_ranks_a_provisional_row_in_place_with_a_badge_and_a_box_hides_it(
    site: tuple[str, Any], redis_url: str, path: str, tmp_path: Path
) -> None:
    base, chrome = site
    rows = {r["bot"]: r for r in json.loads(cli(redis_url, "leaderboard", "ninjan", "--json"))}
    page = browser.open_page(chrome, f"{base}{path}")
    assert shown_bots(page) == ORDER
    marked = page.eval_on_selector_all("#leaderboard tr.provisional td.bot .badge", "b => b.length")
    assert marked == 1 and page.locator("tr[data-bot='new'] .badge").text_content() == "provisional"
    assert "ranked by its rating" in page.locator(".provisional-note").text_content()
    if path == "/games/ninjan":
        assert los_cells(page)["a"] == f"{100 * rows['a']['los_next']:.1f}%"  # a over new, the next row
        shots = Path(os.environ.get("ARENA_BOARD_SHOTS", tmp_path))
        shots.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shots / "leaderboard-provisional.png"), full_page=True)
    page.check("#leaderboard-hide-provisional")
    page.wait_for_function("() => !document.querySelector(\"#leaderboard tr[data-bot='new']\")")
    assert shown_bots(page) == ["a", "b", "c"]
    if path == "/games/ninjan":
        los = los_cells(page)
        assert los["a"] == f"{100 * rows['a']['los_next_established']:.1f}%"  # a over b, the next shown
        assert rows["a"]["los_next_established"] != rows["a"]["los_next"]
        page.screenshot(path=str(shots / "leaderboard-provisional-hidden.png"), full_page=True)
    page.uncheck("#leaderboard-hide-provisional")
    page.wait_for_selector("#leaderboard tr[data-bot='new']")
    page.close()
