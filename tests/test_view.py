"""Watching any game: ``arena view`` serves the web replay viewer for the replays ``arena match`` wrote,
with the bots' output beside each step and their think times against the deadline.

The replays are played by ``arena match`` (real bot processes, sandboxed); ``arena view`` runs as a
process (its address line is the gate), and the browser tests drive Debian's Chromium at the same app
and write a screenshot per game (to ``$ARENA_VIEW_SHOTS`` when set, to look at them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from arena.cli.view import replay_files
from leaderboard import browser
from leaderboard.app import view_app as create_view_app
from tests.conftest import REPO, SMALLEST, run_arena

needs_chromium = pytest.mark.skipif(not Path(browser.CHROMIUM).exists(), reason="needs Debian's chromium")
PLAYERS = SMALLEST

# Says on stderr what it is about to choose, then chooses the first legal action.
TALKING_BOT = """
import sys

from arena.sdk import Bot


class Talk(Bot):
    name = "talk"

    def choose(self, observation, legal_actions, deadline):
        print(f"{len(legal_actions)} legal actions; taking the first", file=sys.stderr, flush=True)
        return 0


if __name__ == "__main__":
    Talk().run()
"""


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Plays one game of each game with the talking bot in seat 0; returns each game's replay."""
    folder = tmp_path_factory.mktemp("view")
    bot = folder / "talk.py"
    bot.write_text(TALKING_BOT, encoding="utf-8")
    found = {}
    for game, players in PLAYERS.items():
        proc = run_arena(
            "match", game, str(bot), *["random"] * (players - 1), "--seed", "21", "--json",
            "--replay-dir", str(folder / "replays"),
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        found[game] = Path(json.loads(proc.stdout.splitlines()[0])["replay"])
    return found


def get(url: str) -> tuple[int, dict]:
    """Returns the status and JSON body of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_arena_view_serves_the_replays_of_a_folder(replays: dict[str, Path]) -> None:
    folder = replays["ninjan"].parent
    view = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "view", str(folder), "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        line = view.stdout.readline()
        assert line.startswith("arena: viewing 4 replays at http://127.0.0.1:"), line + view.stderr.read()
        url = line.split(" at ")[1].split()[0]
        assert url.endswith("/matches"), line  # a folder: the list of its replays
        base = url.removesuffix("/matches")
        ninjan = replays["ninjan"].name.removesuffix(".jsonl")
        status, match = get(f"{base}/api/v1/matches/{ninjan}")
        assert status == 200 and match["game"] == "ninjan" and match["players"][0]["bot"] == "talk"
        status, data = get(f"{base}/api/v1/matches/{ninjan}/replay")
        assert status == 200 and data["reproduces"] and data["deadline_ms"] == 2000
        talk = [x["text"] for f in data["frames"] for x in f["logs"] if x["seat"] == 0]
        assert talk and all(t.endswith("legal actions; taking the first") for t in talk)
        assert len(data["think"]) == sum(len(f["decisions"]) for f in data["frames"])
        status, missing = get(f"{base}/api/v1/matches/nosuch/replay")
        assert status == 404 and "serves only the files given" in missing["error"]
        with urllib.request.urlopen(f"{base}/matches/{ninjan}", timeout=60) as page:
            assert "default-src 'self'" in page.headers["Content-Security-Policy"]
            assert b"/static/view.js" in page.read()
    finally:
        view.kill()
        view.wait(timeout=30)


@pytest.mark.parametrize(
    ("paths", "message"),
    [(["/nonexistent/x.jsonl"], "no such replay file or folder"), (["{empty}"], "no replay (.jsonl) in")],
)
def test_arena_view_refuses_what_is_not_a_replay_in_one_line(
    tmp_path: Path, paths: list[str], message: str
) -> None:
    proc = run_arena("view", "--no-browser", *[p.replace("{empty}", str(tmp_path)) for p in paths])
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr


def test_a_replay_that_does_not_rerun_gets_an_error_not_a_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "header", "game": "ninjan", "seed": 1, "players": []}\n', encoding="utf-8")
    client = TestClient(create_view_app(replay_files([bad])))
    response = client.get("/api/v1/matches/bad/replay")
    assert response.status_code == 422 and "does not re-run" in response.json()["error"]


@needs_chromium
def test_the_viewer_shows_each_games_log_panel_and_think_chart(
    replays: dict[str, Path], tmp_path: Path
) -> None:
    shots = Path(os.environ.get("ARENA_VIEW_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    files = replay_files(list(replays.values()))
    with browser.serving(create_view_app(files)) as base, browser.chromium() as chrome:
        for game, replay in replays.items():
            page = browser.open_page(chrome, f"{base}/matches/{replay.name.removesuffix('.jsonl')}")
            page.wait_for_selector("#think-chart polyline")
            last = int(page.get_attribute("#frame-slider", "max") or 0)
            middle = next(
                i for i in range(last // 2, last + 1) if page.evaluate(_has_talk, i)
            )  # a frame where seat 0 decided
            page.fill("#frame-slider", str(middle))
            page.wait_for_selector(f".viewer[data-log-frame='{middle}']")
            assert "legal actions; taking the first" in page.inner_text("#botlog")
            assert "thought" in page.inner_text("#botlog")
            assert page.locator("#think-chart polyline").count() == PLAYERS[game]
            assert "deadline 2000 ms" in page.inner_text("#think-chart")
            page.screenshot(path=str(shots / f"view-{game}.png"), full_page=True)
            page.close()
    assert all((shots / f"view-{g}.png").read_bytes()[:4] == b"\x89PNG" for g in PLAYERS)


# Whether frame i of the page's replay has a decision of seat 0 (the talking bot), read from the API.
_has_talk = """async (i) => {
  const id = decodeURIComponent(location.pathname.split('/')[2]);
  const replay = await (await fetch(`/api/v1/matches/${encodeURIComponent(id)}/replay`)).json();
  return replay.frames[i].decisions.some((d) => d.seat === 0);
}"""


def test_the_play_by_play_says_who_did_what_in_words_and_draws_pnrz_once_per_turn(tmp_path: Path) -> None:
    proc = run_arena("match", "pnrz", "builder", "random", "--seed", "2", "-v", "--replay-dir", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[0] == "-- pnrz: seat 0: builder, seat 1: random"
    assert out[1].startswith("   legend: grid: one letter per picture, P pirate, N ninja, R robot, Z zombie")
    assert sum(line.startswith("   legend:") for line in out) == 1
    assert "{" not in proc.stdout and "seat0=" not in proc.stdout  # no JSON, no seat numbers for names
    assert any(line.strip().endswith("builder: selects tile 55 from the hand") for line in out)
    assert any(" places tile 55 (" in line for line in out)  # the event in words, the tile's pictures
    heads = [line.split()[1] for line in out if line.strip().startswith("turn ") and " play " in line]
    assert len(heads) > 20 and len(heads) == len(set(heads))  # each turn's grid drawn once
    replayed = run_arena("replay", str(next(tmp_path.glob("pnrz-*.jsonl"))))
    assert replayed.returncode == 0, replayed.stderr + replayed.stdout[-300:]
    assert replayed.stdout.startswith(proc.stdout.split("\n", 2)[0] + "\n")


def test_the_play_by_play_draws_every_step_of_a_simultaneous_game(tmp_path: Path) -> None:
    proc = run_arena(
        "match", "ninjan", "greedy", "random", "--seed", "4", "-v", "--replay-dir", str(tmp_path)
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[1].startswith("   legend: cards: suit letter and value (")
    steps = {
        line.split()[0] for line in out if line[:6].strip().isdigit()
    }  # decision lines: "  12  bot: ..."
    tables = [line for line in out if line.strip().startswith("round ")]
    assert len(tables) == len(steps) > 5
    assert all("scores: greedy=" in t and " random=" in t for t in tables)


def test_match_view_serves_the_game_it_just_played(tmp_path: Path) -> None:
    env = {**os.environ, "BROWSER": "true"}  # webbrowser then runs true(1): no browser is started
    argv = ["match", "ninjan", "greedy", "random", "--seed", "8", "--view", "--replay-dir", str(tmp_path)]
    view = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=REPO,
        env=env,
    )
    try:
        line = next(x for x in view.stdout if x.startswith("arena: viewing "))
        url = line.split(" at ")[1].split()[0]
        status, data = get(url.replace("/matches/", "/api/v1/matches/") + "/replay")
        assert status == 200 and data["game"] == "ninjan" and data["reproduces"]
        assert [p["bot"] for p in data["header"]["players"]] == ["greedy", "random"]
    finally:
        view.kill()
        view.wait(timeout=30)


def listed_folder(replays: dict[str, Path], folder: Path) -> list[str]:
    """Copies the replays (and their match logs) into ``folder``, each file a minute newer than the
    one before in the order of ``replays``; returns their ids, newest first."""
    folder.mkdir(parents=True, exist_ok=True)
    ids = []
    for minute, replay in enumerate(replays.values()):
        for path in (replay, replay.with_suffix(".log")):
            if path.exists():
                copied = folder / path.name
                copied.write_bytes(path.read_bytes())
                os.utime(copied, (1_700_000_000 + 60 * minute,) * 2)
        ids.append(replay.name.removesuffix(".jsonl"))
    return ids[::-1]


def test_arena_view_of_a_folder_lists_every_replay_newest_first(
    replays: dict[str, Path], tmp_path: Path
) -> None:
    newest_first = listed_folder(replays, tmp_path / "replays")
    client = TestClient(create_view_app(replay_files([tmp_path / "replays"])), follow_redirects=False)
    home = client.get("/")
    assert home.status_code == 307 and home.headers["location"] == "/matches"
    assert client.get("/matches").status_code == 200
    listed = client.get("/api/v1/matches").json()
    assert [m["match_id"] for m in listed["matches"]] == newest_first and listed["next"] is None
    games = {game: path.name.removesuffix(".jsonl") for game, path in replays.items()}
    for match in listed["matches"]:
        header = json.loads((tmp_path / "replays" / f"{match['match_id']}.jsonl").read_text().splitlines()[0])
        assert games[match["game"]] == match["match_id"]
        assert [p["bot"] for p in match["players"]] == [p["bot"] for p in header["players"]]
        assert {p["rank"] for p in match["players"]} and match["termination"] == "normal"
        firsts = [p["bot"] for p in match["players"] if p["rank"] == 1]
        assert match["winner"] == (firsts[0] if len(firsts) == 1 else None)
        assert client.get(f"/api/v1/matches/{match['match_id']}/replay").status_code == 200
    one = client.get("/api/v1/matches?game=ninjan&bot=talk").json()["matches"]
    assert [m["match_id"] for m in one] == [games["ninjan"]]
    paged = client.get("/api/v1/matches?limit=3").json()
    rest = client.get(f"/api/v1/matches?limit=3&after={paged['next']}").json()
    assert [m["match_id"] for m in paged["matches"] + rest["matches"]] == newest_first
    assert client.get("/api/v1/matches?after=x").status_code == 400
    for page, target in [
        ("/games/ninjan", "/matches?game=ninjan"),  # a replay page's links: its game, its bots
        ("/games/ninjan/bots/talk", "/matches?game=ninjan&bot=talk"),
        ("/games/ninjan/head-to-head", "/matches?game=ninjan"),
    ]:
        answer = client.get(page)
        assert answer.status_code == 307 and answer.headers["location"] == target, page


@needs_chromium
def test_the_list_opens_every_replay_each_step_in_words_and_no_link_is_dead(
    replays: dict[str, Path], tmp_path: Path
) -> None:
    shots = Path(os.environ.get("ARENA_VIEW_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    newest_first = listed_folder(replays, tmp_path / "replays")
    files = replay_files([tmp_path / "replays"])
    links: set[str] = set()
    with browser.serving(create_view_app(files)) as base, browser.chromium() as chrome:
        page = browser.open_page(chrome, f"{base}/")
        rows = page.locator("table.matches tbody tr")
        assert [rows.nth(i).get_attribute("data-match") for i in range(rows.count())] == newest_first
        for i, match_id in enumerate(newest_first):
            row = rows.nth(i).inner_text()
            game = match_id.rsplit("-", 1)[0]
            assert game in row and "talk" in row and "pts · #" in row, row
        links |= set(page.eval_on_selector_all("a[href]", "(as) => as.map((a) => a.href)"))
        page.screenshot(path=str(shots / "view-list.png"), full_page=True)
        for match_id in newest_first:
            page.click(f"tr[data-match='{match_id}'] a.replay-link")
            page.wait_for_selector(".viewer #log")
            game = match_id.rsplit("-", 1)[0]
            frame = page.evaluate(_with_events, _EVENT_KIND[game])
            page.fill("#frame-slider", str(frame["index"]))
            page.wait_for_selector(f".viewer[data-frame='{frame['index']}']")
            said = page.inner_text("#log")
            for sentence in [*frame["event_words"], *(d["words"] for d in frame["decisions"])]:
                assert all(line in said for line in sentence.splitlines()), (sentence, said)
            assert "=" not in said.split("scores:")[0], said  # no key=value dump
            page.screenshot(path=str(shots / f"view-step-{game}.png"), full_page=True)
            links |= set(page.eval_on_selector_all("a[href]", "(as) => as.map((a) => a.href)"))
            page.go_back()
            page.wait_for_selector("table.matches tbody tr")
        for link in sorted(links):  # every link of the list and the replay pages: a page that draws
            with urllib.request.urlopen(link, timeout=60) as answer:
                assert answer.status == 200, link
            shown = browser.open_page(chrome, link)
            heading = shown.inner_text("main h1")
            assert heading not in ("Not available", "No such page"), (link, shown.inner_text("main"))
            shown.close()
    assert {link.split("/", 3)[3].split("?")[0] for link in links} >= {
        "matches",
        *(f"matches/{m}" for m in newest_first),
    }


# A frame of the page's replay that has decisions and an event of the given kind (else any event).
_with_events = """async (kind) => {
  const id = decodeURIComponent(location.pathname.split('/')[2]);
  const replay = await (await fetch(`/api/v1/matches/${encodeURIComponent(id)}/replay`)).json();
  const frames = replay.frames.map((f, index) => ({ ...f, index }))
    .filter((f) => f.events.length && f.decisions.length);
  return frames.find((f) => f.events.some((e) => kind in e)) || frames[0];
}"""
_EVENT_KIND = {
    "ninjan": "pile_taken",
    "ninja-master": "round_tallied",
    "ninja-burger": "check_rolled",
    "pnrz": "tile_placed",
}


@needs_chromium
def test_the_list_says_local_replay_and_names_an_unfinished_replay(
    replays: dict[str, Path], tmp_path: Path
) -> None:
    folder = tmp_path / "replays"
    folder.mkdir()
    lines = replays["ninjan"].read_text().splitlines(keepends=True)
    (folder / "ninjan-cut.jsonl").write_text("".join(lines[:4]))  # a game stopped after a few steps
    with browser.serving(create_view_app(replay_files([folder]))) as base, browser.chromium() as chrome:
        page = browser.open_page(chrome, f"{base}/")
        page.wait_for_selector("tr[data-match='ninjan-cut']")
        assert "unfinished" in page.inner_text("tr[data-match='ninjan-cut']")
        assert "Newest replay file first" in page.inner_text("main")
        page.wait_for_load_state("networkidle")  # a live page's first poll has come back by now
        assert page.inner_text("#live") == "local replay"
