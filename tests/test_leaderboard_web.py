"""The leaderboard web app: its JSON API (Starlette's TestClient) and its pages in real headless Chromium.

Everything runs against a redis-server this module starts on a free port (never the Redis on 6379),
filled by a small real tournament (``arena tournament``) and by results written through the queue's
own recording function (``arena.queue.store.record``), as a worker would. The browser is Debian's
``/usr/bin/chromium`` driven by Playwright's Python package; nothing is downloaded.
"""

from __future__ import annotations

import json
import math
import shutil
import socket
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from arena import codec
from arena.games import GAMES, get_game
from arena.queue import keys, store
from arena.queue.connection import connect, retrying
from arena.queue.jobs import MatchJob
from arena.referee.replay import read_lines, reproduce
from leaderboard import browser, data
from leaderboard.app import leaderboard_app as create_app
from tests.conftest import replay_of_random_game, run_arena

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
needs_chromium = pytest.mark.skipif(not Path(browser.CHROMIUM).exists(), reason="needs Debian's chromium")

HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=1">'


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("redis")
    port = free_port()
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder), "--save", ""],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    retrying(url, connect(url).ping, lambda _: None, attempts=100)
    yield url
    proc.kill()
    proc.wait()


def record_random_game(
    client: redis.Redis, game_name: str, seed: int, bots: list[str], match_id: str
) -> None:
    """Records one game through the queue's own transaction, exactly as a worker does."""
    text, record = replay_of_random_game(game_name, seed, bots, match_id)
    job = MatchJob(match_id, record.game, seed, tuple(bots))
    assert store.record(client, job, record, text, "0-1")


@pytest.fixture(scope="module")
def filled(redis_url: str) -> redis.Redis:
    """A real two-match ninjan tournament, plus one recorded game of each other game."""
    client = connect(redis_url)
    client.flushall()
    done = run_arena(
        "tournament", "ninjan", "--bots", "greedy,random", "--workers", "2", "--redis", redis_url
    )
    assert done.returncode == 0, done.stderr
    for seed, game in enumerate(("pnrz", "ninja-master", "ninja-burger"), 1):
        record_random_game(client, game, seed, ["random", "other"], f"{game}-web-{seed}")
    return client


@pytest.fixture(scope="module")
def api(filled: redis.Redis, redis_url: str) -> Any:
    from starlette.testclient import TestClient

    with TestClient(create_app(redis_url)) as test_client:
        yield test_client


def site_board(base: str) -> Any:
    """Returns the site's own leaderboard answer for ninjan (what its page draws)."""
    with urllib.request.urlopen(f"{base}/api/v1/games/ninjan/leaderboard", timeout=30) as answer:
        return json.loads(answer.read())


def signed(elo: float) -> str:
    """Returns an Elo figure as the page shows it: a sign (a true minus) and one decimal."""
    return ("+" if elo >= 0 else "\u2212") + f"{abs(elo):.1f}"


def cli_json(*args: str) -> Any:
    done = run_arena(*args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def cli_rows(redis_url: str, game: str) -> list[dict]:
    return cli_json("leaderboard", game, "--json", "--redis", redis_url)


def tournament_id(client: redis.Redis) -> str:
    (tid,) = client.zrange(keys.TOURNAMENTS_SET, 0, -1)
    return tid


def newest_match(client: redis.Redis, game: str) -> str:
    return data.matches(client, game, None, limit=1).items[0]["match_id"]


def states_of(replay_text: str) -> list[Any]:
    """Returns the state before the game and after every apply, by re-running the replay."""
    lines = [json.loads(x) for x in replay_text.splitlines()]
    game = get_game(lines[0]["game"])
    states = [game.initial_state(len(lines[0]["players"]), lines[0]["seed"])]
    reproduce(lines, lambda step: states.append(step.state))
    return states


# -- the JSON API ---------------------------------------------------------------------------------


def test_api_games_and_leaderboard_match_the_cli(api: Any, redis_url: str) -> None:
    games = {g["name"]: g for g in api.get("/api/v1/games").json()}
    assert set(games) == set(GAMES)
    assert games["ninjan"]["matches"] == 2 and games["pnrz"]["matches"] == 1
    board = api.get("/api/v1/games/ninjan/leaderboard").json()
    assert board["matches"] == 2 and board["rows"] == cli_rows(redis_url, "ninjan")
    assert board["pairs"] == cli_json("leaderboard", "ninjan", "--json", "--pairs", "--redis", redis_url)
    assert {r["bot"] for r in board["rows"]} == {"greedy", "random"} == set(board["pairs"])
    assert api.get("/api/v1/games/nosuch/leaderboard").status_code == 404
    # ninjan's fit has a seat advantage (arena.ratings.seating): the API and the CLI show the same
    (advantage,) = board["seat_advantage"]
    assert (advantage["players"], advantage["seat"]) == (2, 1)
    assert advantage["low"] < advantage["elo"] < advantage["high"]
    text = run_arena("leaderboard", "ninjan", "--redis", redis_url)
    assert text.returncode == 0, text.stderr
    shown = f"2 players: seat 1 {advantage['elo']:+.1f} [{advantage['low']:+.1f}, {advantage['high']:+.1f}]"
    assert f"seat advantage over seat 0 (Elo, 95% interval), fitted with the ratings: {shown}" in text.stdout


def test_api_tournament_standings_match_the_cli(api: Any, filled: redis.Redis, redis_url: str) -> None:
    tid = tournament_id(filled)
    (listed,) = api.get("/api/v1/tournaments").json()["tournaments"]
    assert listed["id"] == tid and listed["recorded"] == "2"
    standings = api.get(f"/api/v1/tournaments/{tid}").json()["standings"]
    assert standings == cli_json("tournament", "standings", tid, "--json", "--redis", redis_url)
    assert standings["matches"] == standings["total"] == 2 and len(standings["crosstable"]) == 2
    assert api.get("/api/v1/tournaments/nosuch").status_code == 404


def test_api_matches_and_one_match(api: Any, filled: redis.Redis) -> None:
    page = api.get("/api/v1/matches", params={"game": "ninjan", "bot": "greedy"}).json()
    listed = page["matches"]
    assert len(listed) == 2 and all("greedy" in {p["bot"] for p in m["players"]} for m in listed)
    assert page["next"] is None
    assert api.get("/api/v1/matches", params={"bot": "nobody"}).json() == {"matches": [], "next": None}
    assert len(api.get("/api/v1/matches").json()["matches"]) == 5
    one = api.get(f"/api/v1/matches/{listed[0]['match_id']}").json()
    assert one == store.result_fields(filled.get(keys.result(listed[0]["match_id"])))
    assert api.get("/api/v1/matches/nosuch").status_code == 404
    assert api.get("/api/v1/matches/nosuch/replay").status_code == 404


def test_api_bot_page_has_every_version_and_head_to_head(api: Any) -> None:
    page = api.get("/api/v1/games/ninjan/bots/greedy").json()
    (version,) = page["versions"]
    assert page["row"]["bot"] == "greedy" and version["version"] == page["row"]["version"]
    assert version["games"] == 2 and version["elo"] == page["row"]["elo"]
    (h2h,) = page["head_to_head"]
    assert h2h["opponent"] == "random" and h2h["games"] == 2
    assert h2h["ahead"] + h2h["tied"] + h2h["behind"] == 2
    assert api.get("/api/v1/games/ninjan/bots/nobody").status_code == 404


@pytest.mark.parametrize("game", ["ninjan", "pnrz", "ninja-master", "ninja-burger"])
def test_api_replay_is_every_step_with_every_seat_view(api: Any, filled: redis.Redis, game: str) -> None:
    match_id = newest_match(filled, game)
    replay = api.get(f"/api/v1/matches/{match_id}/replay").json()
    text = store.replay_text(filled, match_id)
    engine = get_game(game)
    states = states_of(text)
    assert replay["reproduces"] and len(replay["frames"]) == len(states)
    for frame, state in list(zip(replay["frames"], states, strict=True))[:: max(1, len(states) // 7)]:
        seen = [codec.to_json(engine.observe(state, s), engine.observation_type) for s in range(2)]
        assert frame["observations"] == seen
        assert frame["public"] == codec.to_json(engine.public_view(state), engine.public_view_type)
        assert not {"seat", "hand"} & set(frame["public"])
    assert replay["frames"][-1]["scores"] == [p["score"] for p in replay["result"]["players"]]
    catalogue = {k: [codec.to_json(c, type(c)) for c in cards] for k, cards in engine.catalogue().items()}
    assert replay["catalogue"] == catalogue


def test_pnrz_regions_are_the_scoring_sections(api: Any, filled: redis.Redis) -> None:
    from arena.games.pnrz import board as pnrz_board
    from arena.games.pnrz import engine as pnrz

    match_id = newest_match(filled, "pnrz")
    state = states_of(store.replay_text(filled, match_id))[-1]
    regions = api.get(f"/api/v1/matches/{match_id}/replay").json()["frames"][-1]["public"]["regions"]
    scores = pnrz.faction_scores(state.board)
    assert {r["faction"]: r["score"] for r in regions} == {f.name: v for f, v in scores.items() if v > 0}
    cells = pnrz_board.picture_cells(state.board)
    for region in regions:
        pictures = [cells[c["x"], c["y"]] for c in region["cells"]]
        assert {p.faction.name for p in pictures} == {region["faction"]}
        assert pnrz_board.Kind.ENEMY not in {p.kind for p in pictures}


def test_the_leaderboard_has_no_python_of_any_game() -> None:
    """What is secret, and what a game's table shows, is the game's: the leaderboard's Python names no
    game, and each game's drawing is one file of its own in the game's folder (``viewer.js``)."""
    import leaderboard
    from arena.games import GAMES, folder_of

    folder = Path(leaderboard.__file__).parent
    for source in folder.rglob("*.py"):  # the API's modules (leaderboard/api/) included
        text = source.read_text(encoding="utf-8")
        named = [name for name in GAMES if name in text or GAMES[name].spec.wire_name in text]
        assert not named, f"{source.relative_to(folder)} names {named}"
    assert not (folder / "static" / "viewers").exists()
    assert all((folder_of(game) / "viewer.js").is_file() for game in GAMES)


def test_pages_are_one_shell_with_a_strict_content_policy(api: Any) -> None:
    for path in (
        "/",
        "/games/ninjan",
        "/games/ninjan/bots/a%2Fb",
        "/matches",
        "/matches/x",
        "/tournaments/t",
    ):
        response = api.get(path)
        assert response.status_code == 200 and '<main id="app">' in response.text
        assert "script-src 'self'" in response.headers["content-security-policy"]
    for path in ("/api/v1/games", "/api/v1/matches/nosuch", "/api/v1/nope", "/nope", "/static/nope.js"):
        response = api.get(path)  # JSON answers and errors carry the page's headers too
        assert response.headers["content-type"].startswith("application/json"), path
        assert "script-src 'self'" in response.headers["content-security-policy"], path
        assert response.headers["x-content-type-options"] == "nosniff", path
    assert "function h(" in api.get("/static/app.js").text
    assert api.get("/static/viewer.js").status_code == 200 and api.get("/static/app.css").status_code == 200
    for game in GAMES:  # each drawing is served from its game's folder
        assert f'register("{game}"' in api.get(f"/static/viewers/{game}.js").text


# -- in headless Chromium -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(filled: redis.Redis, redis_url: str) -> Iterator[tuple[str, Any]]:
    with browser.serving(create_app(redis_url)) as base, browser.chromium() as chrome:
        yield base, chrome


def shown_rows(page: Any, table: str = "#leaderboard") -> list[dict[str, str]]:
    """Returns the cells of each row as shown (the bot cell without its provisional badge)."""
    cells = ("rank", "bot", "version", "elo", "interval", "games", "los_next")
    return page.eval_on_selector_all(
        f"{table} tbody tr[data-bot]",
        "(rows, cells) => rows.map(r => Object.fromEntries("
        "cells.map(c => [c, r.querySelector('td.' + c).firstChild.textContent])))",
        list(cells),
    )


def half_up(value: float) -> int:
    """Returns ``value`` rounded as JavaScript's toFixed(0) rounds the page's numbers."""
    return math.floor(value + 0.5)


def expected_rows(rows: list[dict]) -> list[dict[str, str]]:
    return [
        {
            "rank": str(r["rank"]),
            "bot": r["bot"],
            "version": r["version"] or "–",
            "elo": f"{r['elo']:.1f}",
            "interval": f"{half_up(r['low'])} – {half_up(r['high'])}",
            "games": str(r["games"]),
            "los_next": "–" if r["los_next"] is None else f"{100 * r['los_next']:.1f}%",
        }
        for r in rows
    ]


@needs_chromium
def test_browser_leaderboard_matches_the_cli_and_sorts(site: tuple[str, Any], redis_url: str) -> None:
    base, chrome = site
    page = browser.open_page(chrome, f"{base}/games/ninjan")
    rows = cli_rows(redis_url, "ninjan")
    assert shown_rows(page) == expected_rows(rows)
    assert page.locator("figure.chartbox svg line.interval").count() == 2
    assert page.locator("#leaderboard tbody tr.provisional td.bot .badge").count() == 2  # 2 games each
    board = site_board(base)
    (advantage,) = board["seat_advantage"]
    line = page.locator(".seat-advantage").text_content() or ""
    assert f"2 players: seat 1 {signed(advantage['elo'])} [{signed(advantage['low'])}, " in line, line
    pairs = cli_json("leaderboard", "ninjan", "--json", "--pairs", "--redis", redis_url)
    shown = page.eval_on_selector_all("#pairs tbody tr", "rows => rows.map(r => r.textContent)")
    assert shown == [
        f"{r['rank']}{r['bot']}"
        + "".join("–" if c is r else f"{100 * pairs[r['bot']][c['bot']]:.1f}%" for c in rows)
        for r in rows
    ]
    page.click("th[data-key='bot']")
    bots = [r["bot"] for r in shown_rows(page)]
    assert bots == sorted(bots)
    page.click("th[data-key='elo']")
    elos = [float(r["elo"]) for r in shown_rows(page)]
    assert elos == sorted(elos, reverse=True)
    page.close()


@needs_chromium
def test_browser_tournament_and_bot_pages_show_standings_crosstable_and_versions(
    site: tuple[str, Any], api: Any, filled: redis.Redis, redis_url: str
) -> None:
    base, chrome = site
    tid = tournament_id(filled)
    standings = cli_json("tournament", "standings", tid, "--json", "--redis", redis_url)
    page = browser.open_page(chrome, f"{base}/tournaments/{tid}")
    assert shown_rows(page) == expected_rows(standings["rows"])
    shown = page.eval_on_selector_all(
        "#crosstable tbody tr", "rows => rows.map(r => [...r.querySelectorAll('td')].map(c => c.textContent))"
    )
    expected = []
    for i, line in enumerate(standings["crosstable"]):
        cells = iter(f"{c['wins']}-{c['draws']}-{c['losses']}" for c in line["against"])
        results = ["–" if j == i else next(cells) for j in range(len(standings["rows"]))]
        expected.append([str(i + 1), line["bot"], f"{line['score']:.1f}", str(line["games"]), *results])
    assert shown == expected
    page.close()
    page = browser.open_page(chrome, f"{base}/games/ninjan/bots/greedy")
    assert shown_rows(page, "#versions") == expected_rows(
        api.get("/api/v1/games/ninjan/bots/greedy").json()["versions"]
    )
    page.close()


def ninjan_shown(page: Any) -> dict[str, Any]:
    """Returns the Ninjan table as drawn: piles, and per seat score, hand and collected cards."""
    return page.evaluate(
        """() => ({
          piles: [...document.querySelectorAll('.pile')].map(p =>
            [...p.querySelectorAll('.card')].map(c => c.dataset.card)),
          seats: [...document.querySelectorAll('.seat')].map(s => ({
            score: s.querySelector('.score').textContent,
            hand: [...s.querySelectorAll('.hand .card')].map(c => c.dataset.card || 'back'),
            collected: [...s.querySelectorAll('.collected .card')].map(c => c.dataset.card)})),
        })"""
    )


@needs_chromium
def test_browser_replay_steps_show_the_state_of_the_replay_file(
    site: tuple[str, Any], filled: redis.Redis, tmp_path: Path
) -> None:
    base, chrome = site
    page = browser.open_page(chrome, f"{base}/games/ninjan")
    page.click("table.matches a.replay-link >> nth=0")
    page.wait_for_selector(".viewer[data-frame='0']")
    match_id = page.url.rsplit("/", 1)[1]
    replay_file = tmp_path / "replay.jsonl"
    replay_file.write_text(store.replay_text(filled, match_id), encoding="utf-8")
    states = states_of(replay_file.read_text())
    assert read_lines(replay_file)[0]["match_id"] == match_id
    for _ in range(7):
        page.click("#forward")
    page.click("#back")
    page.wait_for_selector(".viewer[data-frame='6']")
    state, game = states[6], get_game("ninjan")
    shown = ninjan_shown(page)
    assert shown["piles"] == [[str(c) for c in pile] for pile in state.piles]
    for seat, drawn in enumerate(shown["seats"]):
        assert drawn["score"] == str(game.scores(state)[seat])
        assert drawn["hand"] == [str(c) for c in state.hands[seat]]
        assert drawn["collected"] == [str(c) for c in state.collected[seat]]
    page.select_option("#seat", "1")
    hidden = ninjan_shown(page)["seats"]
    assert hidden[0]["hand"] == ["back"] * len(state.hands[0])
    assert hidden[1]["hand"] == [str(c) for c in state.hands[1]]
    page.click("#last")
    page.wait_for_selector(f".viewer[data-frame='{len(states) - 1}']")
    page.close()


def shown_matches(page: Any) -> list[str]:
    return page.eval_on_selector_all("table.matches tbody tr", "rows => rows.map(r => r.dataset.match)")


@needs_chromium
def test_browser_match_list_loads_more_pages_with_the_cursor(site: tuple[str, Any], api: Any) -> None:
    base, chrome = site
    every = [m["match_id"] for m in api.get("/api/v1/matches").json()["matches"]]
    page = browser.open_page(chrome, f"{base}/matches?limit=2")
    assert shown_matches(page) == every[:2]
    for _ in range(len(every)):
        if page.locator("button.more").is_hidden():
            break
        page.click("button.more")
        page.wait_for_function("() => !document.querySelector('button.more').disabled")
    assert shown_matches(page) == every and page.locator("button.more").is_hidden()
    page.close()


@needs_chromium
def test_browser_head_to_head_page_shows_the_record_and_the_meetings(site: tuple[str, Any], api: Any) -> None:
    base, chrome = site
    page = browser.open_page(chrome, f"{base}/games/ninjan/bots/greedy")
    page.click("a.h2h-link >> nth=0")
    page.wait_for_selector("#record")
    pair = api.get("/api/v1/games/ninjan/head-to-head", params={"a": "greedy", "b": "random"}).json()
    facts = page.eval_on_selector_all("#record dd", "cells => cells.map(c => c.textContent)")
    record = pair["record"]
    assert facts[:2] == [str(record["games"]), f"{record['ahead']} / {record['tied']} / {record['behind']}"]
    assert shown_matches(page) == [m["match_id"] for m in pair["matches"]] and len(pair["matches"]) == 2
    assert "searched 2 of" in page.locator("#walked").text_content()
    page.close()


@needs_chromium
def test_browser_shows_a_hostile_bot_name_as_text_and_updates_without_reload(
    site: tuple[str, Any], filled: redis.Redis
) -> None:
    base, chrome = site
    page = browser.open_page(chrome, f"{base}/games/ninjan")
    page.evaluate("() => { window.sameDocument = 'yes'; }")
    before = len(shown_rows(page))
    record_random_game(filled, "ninjan", 77, [HOSTILE, "random"], "ninjan-hostile")
    page.wait_for_function(f"() => document.querySelectorAll('#leaderboard tr[data-bot]').length > {before}")
    assert page.evaluate("() => window.sameDocument") == "yes"  # the page was updated, not reloaded
    assert HOSTILE in [r["bot"] for r in shown_rows(page)]
    assert page.evaluate("() => window.pwned") is None
    assert page.locator("main script, main img").count() == 0
    page.goto(f"{base}/matches/ninjan-hostile")
    page.wait_for_selector(".viewer[data-frame='0']")
    assert HOSTILE in page.locator(".seat h3").first.text_content()
    assert page.evaluate("() => window.pwned") is None and page.locator("main script, main img").count() == 0
    page.close()


@needs_chromium
def test_browser_draws_every_game_and_the_screenshot_command_writes_pngs(
    site: tuple[str, Any], filled: redis.Redis, redis_url: str, tmp_path: Path
) -> None:
    base, chrome = site
    drawn = {
        "pnrz": "svg.board.pnrz .region",
        "ninja-master": ".dice .die",
        "ninja-burger": ".seat .ninjacard",
    }
    for game, selector in drawn.items():
        page = browser.open_page(chrome, f"{base}/matches/{newest_match(filled, game)}")
        page.click("#last")
        page.wait_for_selector(selector)
        assert page.locator(f"script[src='/static/viewers/{game}.js']").count() == 1
        page.close()
    page = chrome.new_page()  # a game without a drawing of its own is shown as its public view in text
    page.route("**/static/viewers/pnrz.js", lambda route: route.abort())
    page.goto(f"{base}/matches/{newest_match(filled, 'pnrz')}")
    page.wait_for_selector(".viewer .table.plain dl.facts dt")
    assert "board" in page.locator(".table.plain").text_content()
    page.close()
    done = run_arena("screenshots", str(tmp_path), "--redis", redis_url)
    assert done.returncode == 0, done.stderr
    names = {p.name for p in tmp_path.iterdir()}
    for game in drawn.keys() | {"ninjan"}:
        assert {f"leaderboard-{game}.png", f"replay-{game}.png"} <= names
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in tmp_path.iterdir())
