"""The participant's web page (issue 36, item 6): sign in with the account token (a session cookie,
``HttpOnly``, ``SameSite=Strict``, CSRF-protected writes), see one's bots, versions, smoke results,
regression tests and recent matches with one's own bots' logs, and upload a new version through the
API's own submission path; the home page tells a newcomer how to take part.

The server app (``leaderboard.app.server_app``) runs over a private redis-server (``redis_url`` of
``tests/conftest.py``, never 6379): its API through Starlette's TestClient, its pages in Debian's
headless Chromium (``leaderboard.browser``). No worker runs: a smoke match's verdict and a recorded
match with its stored log are written by the functions a worker calls. The Chromium story leaves its
screenshots in ``$ARENA_PARTICIPANT_SHOTS`` when set (else the test's own folder).
"""

from __future__ import annotations

import gzip
import hashlib
import http.cookiejar
import io
import json
import os
import shutil
import tarfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from starlette.testclient import TestClient

from arena.queue import jobs, keys, store
from arena.queue.connection import connect
from arena.queue.jobs import MatchJob
from arena.referee import botlog
from arena.referee.botlog import Line
from arena.submissions import smoke
from arena.submissions.archives import ArchiveLimits
from arena.submissions.owner_secrets import hash_secret
from leaderboard import browser
from leaderboard.api import participant
from leaderboard.api.auth import OrganiserToken
from leaderboard.app import ServerConfig, leaderboard_app, server_app
from tests.conftest import replay_of_random_game
from tests.test_api_contract import match_log
from tests.test_attacks_server import running_server
from tests.test_server import TOKEN, snapshot

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
needs_chromium = pytest.mark.skipif(not Path(browser.CHROMIUM).exists(), reason="needs Debian's chromium")

LIMIT = 512 * 1024  # the server's archive limit here: an upload past it is refused
HOSTILE = '<img src=x onerror="window.pwned=1">'


def config(**changes: Any) -> ServerConfig:
    """Returns the test server's configuration: a small archive limit, room for many writes."""
    base: dict[str, Any] = {
        "archive_limits": ArchiveLimits(packed_bytes=LIMIT),
        "write_burst": 10_000,
        "writes_per_minute": 60_000.0,
        "accounts_per_hour": 1000,
        "organiser": OrganiserToken(hash_secret(TOKEN)),
    }
    return ServerConfig(**(base | changes))


def archive(size: int = 0) -> bytes:
    """Returns a bot's folder as a tar.gz: ``bot.py``, and ``size`` bytes of noise gzip cannot shrink."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        files = {"bot.py": b"print('a bot')\n"} | ({"noise.bin": os.urandom(size)} if size else {})
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


class Platform:
    """The server's app, its Redis and the accounts made on it (name -> token)."""

    def __init__(self, redis_url: str) -> None:
        self.redis_url = redis_url
        self.client = connect(redis_url)
        # what snapshot() compares: every key as text, stored logs (compressed bytes) escaped
        self.raw = redis.Redis.from_url(redis_url, decode_responses=True, encoding_errors="backslashreplace")
        self.app = server_app(redis_url, config())
        self.tokens: dict[str, str] = {}

    def api(self, https: bool = False) -> TestClient:
        """Returns a fresh client of the app (its own cookies)."""
        return TestClient(self.app, base_url="https://testserver" if https else "http://testserver")

    def account(self, name: str) -> str:
        """Makes account ``name`` through the API; returns its token."""
        answer = self.api().post(f"/api/v1/accounts/{name}")
        assert answer.status_code == 201, answer.text
        self.tokens[name] = answer.json()["token"]
        return self.tokens[name]

    def builtin_bot(self, account: str, bot: str) -> None:
        """Submits the built-in ``random`` as ``bot`` with ``account``'s token (active at once)."""
        headers = {"Authorization": f"Bearer {self.tokens[account]}"}
        query = {"games": "ninjan", "builtin": "random"}
        answer = self.api().post(f"/api/v1/bots/{bot}", params=query, headers=headers)
        assert answer.status_code == 201, answer.text

    def signed_in(self, account: str, https: bool = False) -> tuple[TestClient, str]:
        """Returns a client signed in as ``account`` and its CSRF token."""
        api = self.api(https)
        answer = api.post("/api/v1/session", json={"token": self.tokens[account]})
        assert answer.status_code == 200, answer.text
        return api, answer.json()["csrf"]

    def record_match(self, match_id: str, bots: list[str], seed: int = 3) -> None:
        """Records a Ninjan match of ``bots`` as a worker does, with a stored log in which each seat
        wrote two lines naming its bot (one of them markup)."""
        text, record = replay_of_random_game("ninjan", seed, bots, match_id)
        lines = {
            seat: [Line(None, f"{bot} warming up"), Line(1, f"{bot}'s secret plan {HOSTILE}")]
            for seat, bot in enumerate(bots)
        }
        extras = {botlog.STORE_KIND: botlog.for_store(match_log(text, lines))}
        job = MatchJob(match_id, record.game, seed, tuple(bots))
        assert store.record_and_take(self.client, job, record, text, "0-1", extras=extras)[0]

    def pass_smoke(self, bot: str, log: str) -> None:
        """Plays the bot's queued smoke match as a worker would: it passes, with ``log`` its log's tail."""
        while (taken := jobs.take_job(self.client, "participant-test")) is not None:
            job = taken.job
            assert job is not None
            if job.smoke and job.bots[0] == bot:
                smoke.finish(self.client, job, True, "", log, taken.entry_id)
                return
        raise AssertionError(f"no smoke match of {bot} was queued")


@pytest.fixture(scope="module")
def platform(redis_url: str) -> Platform:
    """A server with accounts alice (bot alice-random) and bob (bot bob-random) and a match of theirs."""
    made = Platform(redis_url)
    made.client.flushall()
    jobs.ensure_group(made.client)
    for name in ("alice", "bob"):
        made.account(name)
        made.builtin_bot(name, f"{name}-random")
    made.record_match("ninjan-alice-bob", ["alice-random", "bob-random"])
    return made


def session_id(api: TestClient) -> str:
    return str(api.cookies.get(participant.COOKIE))


# -- the API: the session, its cookie, CSRF ---------------------------------------------------------


def test_signing_in_sets_an_httponly_strict_cookie_holding_only_the_session_id(platform: Platform) -> None:
    api = platform.api()
    answer = api.post("/api/v1/session", json={"token": platform.tokens["alice"]})
    assert answer.status_code == 200, answer.text
    assert answer.json()["account"]["name"] == "alice" and answer.json()["csrf"]
    cookie = answer.headers["set-cookie"]
    flags = {part.strip().lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/", f"max-age={participant.SESSION_SECONDS}"} <= flags
    assert "secure" not in flags  # plain http: a Secure cookie would never come back
    sid = session_id(api)
    assert participant.SESSION_ID.fullmatch(sid)
    # Redis holds the session under the id's hash, and neither the id nor the token anywhere
    stored = platform.client.hgetall(participant.session_key(sid))
    assert participant.session_key(sid) == keys.session(hashlib.sha256(sid.encode()).hexdigest())
    assert stored["account"] == "alice" and platform.client.ttl(participant.session_key(sid)) > 0
    everything = repr(snapshot(platform.raw))
    assert sid not in everything and platform.tokens["alice"] not in everything
    again = api.get("/api/v1/session").json()
    assert again["account"]["name"] == "alice" and again["csrf"] == answer.json()["csrf"]
    https, _ = platform.signed_in("alice", https=True)  # over https the cookie is Secure too
    assert https.cookies.jar and all(c.secure for c in https.cookies.jar)


def test_sign_in_takes_a_right_account_token_as_json_only(platform: Platform) -> None:
    api = platform.api()
    before = snapshot(platform.raw)
    form = api.post("/api/v1/session", data={"token": platform.tokens["alice"]})  # what a foreign form sends
    assert form.status_code == 400 and "JSON" in form.json()["error"]
    wrong = platform.tokens["alice"][:-2] + ("wA" if not platform.tokens["alice"].endswith("wA") else "xA")
    assert api.post("/api/v1/session", json={"token": wrong}).status_code == 403
    assert api.post("/api/v1/session", json={"token": "not a token"}).status_code == 403
    assert api.post("/api/v1/session", json={}).status_code == 400
    assert snapshot(platform.raw) == before and participant.COOKIE not in api.cookies
    assert api.get("/api/v1/session").status_code == 401


def test_sign_in_failures_are_limited_per_address(platform: Platform) -> None:
    app = server_app(platform.redis_url, config(auth_failure_burst=3, auth_failures_per_minute=1.0))
    api = TestClient(app)
    token = platform.tokens["bob"]
    wrong = [token[:-2] + f"{c}A" for c in "wxyz" if token[:-2] + f"{c}A" != token][:4]  # a token's shape
    codes = [api.post("/api/v1/session", json={"token": w}).status_code for w in [*wrong, *wrong][:4]]
    assert codes == [403, 403, 403, 429]
    limited = api.post("/api/v1/session", json={"token": token})  # the right token waits too
    assert limited.status_code == 429 and "Retry-After" in limited.headers


def test_every_write_of_a_session_needs_its_csrf_token(platform: Platform) -> None:
    api, csrf = platform.signed_in("alice")
    query = {"games": "ninjan", "entry": "python bot.py"}
    before = snapshot(platform.raw)
    for headers in ({}, {"X-CSRF-Token": "wrong"}, {"X-CSRF-Token": csrf[:-1]}):
        upload = api.post("/api/v1/session/bots/alice-csrf", params=query, content=archive(), headers=headers)
        assert upload.status_code == 403 and "CSRF" in upload.json()["error"], upload.text
        out = api.delete("/api/v1/session", headers=headers)
        assert out.status_code == 403 and "CSRF" in out.json()["error"]
    assert snapshot(platform.raw) == before  # nothing stored, the session still open
    _, other_csrf = platform.signed_in("alice")  # another session's token is not this one's
    headers = {"X-CSRF-Token": other_csrf}
    assert (
        api.post(
            "/api/v1/session/bots/alice-csrf", params=query, content=archive(), headers=headers
        ).status_code
        == 403
    )
    done = api.post(
        "/api/v1/session/bots/alice-csrf", params=query, content=archive(), headers={"X-CSRF-Token": csrf}
    )
    assert done.status_code == 201 and done.json()["account"] == "alice"
    assert platform.client.hget(keys.bot("alice-csrf"), "account") == "alice"
    removed = api.delete(
        "/api/v1/bots/alice-csrf", headers={"Authorization": f"Bearer {platform.tokens['alice']}"}
    )
    assert removed.status_code == 200


def test_signing_out_and_expiry_end_the_session(platform: Platform) -> None:
    api, csrf = platform.signed_in("alice")
    sid = session_id(api)
    out = api.delete("/api/v1/session", headers={"X-CSRF-Token": csrf})
    assert out.status_code == 200 and out.json() == {"signed_out": "alice"}
    assert not platform.client.exists(participant.session_key(sid))
    assert "max-age=0" in out.headers["set-cookie"].lower()
    stale = platform.api()  # the old id, sent again, opens nothing
    stale.cookies.set(participant.COOKIE, sid)
    for client in (api, stale):
        ended = client.get("/api/v1/session/account")
        assert ended.status_code == 401 and "sign in" in ended.json()["error"]
    api, _ = platform.signed_in("alice")  # Redis drops an expired session
    key = participant.session_key(session_id(api))
    platform.client.pexpire(key, 1)
    time.sleep(0.05)
    assert api.get("/api/v1/session").status_code == 401
    api, _ = platform.signed_in("alice")  # and a session past its end is refused whatever Redis holds
    platform.client.hset(participant.session_key(session_id(api)), "expires", repr(time.time() - 1))
    assert api.get("/api/v1/session/account").status_code == 401
    forged = platform.api()  # a made-up id opens nothing
    forged.cookies.set(participant.COOKIE, "A" * 43)
    assert forged.get("/api/v1/session").status_code == 401


def test_the_session_reads_its_own_account_bots_and_logs_and_nothing_else(platform: Platform) -> None:
    api, csrf = platform.signed_in("alice")
    account = api.get("/api/v1/session/account").json()
    assert (
        account["name"] == "alice"
        and "alice-random" in account["bots"]
        and "bob-random" not in account["bots"]
    )
    assert api.get("/api/v1/session/bots/alice-random").json()["name"] == "alice-random"
    match = api.get("/api/v1/matches/ninjan-alice-bob").json()
    seat = {p["bot"]: p["seat"] for p in match["players"]}
    mine = api.get(f"/api/v1/session/matches/ninjan-alice-bob/log/{seat['alice-random']}")
    assert mine.status_code == 200
    assert [x["text"] for x in mine.json()["lines"]] == [
        "alice-random warming up",
        f"alice-random's secret plan {HOSTILE}",
    ]
    before = snapshot(platform.raw)
    theirs = api.get(f"/api/v1/session/matches/ninjan-alice-bob/log/{seat['bob-random']}")
    assert theirs.status_code == 403 and "secret plan" not in theirs.text
    bot = api.get("/api/v1/session/bots/bob-random")
    assert bot.status_code == 403 and "belongs to an account" in bot.json()["error"]
    upload = api.post(
        "/api/v1/session/bots/bob-random",
        params={"games": "ninjan", "entry": "python bot.py"},
        content=archive(),
        headers={"X-CSRF-Token": csrf},
    )
    assert upload.status_code == 403
    assert snapshot(platform.raw) == before
    assert platform.api().get("/api/v1/session/bots/alice-random").status_code == 401  # signed out: nothing


def test_an_upload_goes_through_the_apis_checks(platform: Platform) -> None:
    api, csrf = platform.signed_in("alice")
    headers = {"X-CSRF-Token": csrf}
    before = snapshot(platform.raw)
    big = api.post(
        "/api/v1/session/bots/alice-big",
        params={"games": "ninjan", "entry": "python bot.py"},
        content=archive(2 * LIMIT),
        headers=headers,
    )
    assert big.status_code == 413 and f"at most {LIMIT} bytes" in big.json()["error"]
    no_entry = api.post(
        "/api/v1/session/bots/alice-big",
        params={"games": "ninjan", "entry": "python missing.py"},
        content=archive(),
        headers=headers,
    )
    assert no_entry.status_code == 422 and "missing.py" in no_entry.json()["error"]
    assert snapshot(platform.raw) == before


def test_a_pending_account_signs_in_and_is_told_why_it_cannot_upload_yet(platform: Platform) -> None:
    api = TestClient(server_app(platform.redis_url, config(approve_accounts=True)))
    made = api.post("/api/v1/accounts/dave")
    assert made.status_code == 201 and made.json()["account"]["state"] == "pending"
    signed = api.post("/api/v1/session", json={"token": made.json()["token"]})
    assert signed.status_code == 200 and signed.json()["account"]["state"] == "pending"
    before = snapshot(platform.raw)
    upload = api.post(
        "/api/v1/session/bots/dave-bot",
        params={"games": "ninjan", "entry": "python bot.py"},
        content=archive(),
        headers={"X-CSRF-Token": signed.json()["csrf"]},
    )
    assert upload.status_code == 403 and "approval" in upload.json()["error"]
    assert snapshot(platform.raw) == before


def test_the_pages_are_a_shell_under_the_strict_policy(platform: Platform, redis_url: str) -> None:
    api = platform.api()
    for path in ("/participant", "/participant/bots/a-bot"):
        page = api.get(path)
        assert page.status_code == 200 and '<script src="/static/participant.js" defer>' in page.text
        assert "script-src 'self'" in page.headers["content-security-policy"]
    rules = api.get("/api/v1/participation").json()
    assert rules["archive"]["packed_bytes"] == LIMIT and rules["quotas"]["bots_per_game"] == 3
    script = api.get("/static/participant.js").text
    assert not [line for line in script.splitlines() if "innerHTML" in line and not line.startswith("//")]
    local = TestClient(leaderboard_app(redis_url))  # this machine's own leaderboard takes no participants
    assert local.get("/api/v1/participation").status_code == 404
    assert local.get("/api/v1/session").status_code == 404


def test_a_real_arena_server_serves_the_page_and_the_session(platform: Platform, tmp_path: Path) -> None:
    """The same through ``arena server`` itself, over HTTP: its own archive limit (``--max-upload-mb``)."""
    with running_server(platform.redis_url, tmp_path, "--max-upload-mb", "1") as address:
        base = f"http://{address}"
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))

        def call(method: str, path: str, body: bytes | None = None, **headers: str) -> tuple[int, Any]:
            request = urllib.request.Request(base + path, data=body, method=method, headers=headers)
            try:
                with opener.open(request, timeout=30) as response:
                    return response.status, json.loads(response.read() or b"null")
            except urllib.error.HTTPError as refusal:
                return refusal.code, json.loads(refusal.read())

        with opener.open(base + "/participant", timeout=30) as page:
            assert b"/static/participant.js" in page.read()
        status, made = call("POST", "/api/v1/accounts/erin")
        assert status == 201
        assert call("GET", "/api/v1/session")[0] == 401
        token = json.dumps({"token": made["token"]}).encode()
        status, session = call("POST", "/api/v1/session", token, **{"Content-Type": "application/json"})
        assert status == 200 and [c.name for c in jar] == [participant.COOKIE]
        query = "?games=ninjan&entry=python%20bot.py"
        csrf = {"X-CSRF-Token": session["csrf"], "Content-Type": "application/gzip"}
        status, big = call("POST", "/api/v1/session/bots/erin-bot" + query, archive(2 * 2**20), **csrf)
        assert status == 413 and f"at most {2**20} bytes" in big["error"]
        status, stored = call("POST", "/api/v1/session/bots/erin-bot" + query, archive(), **csrf)
        assert status == 201 and stored["account"] == "erin"
        assert call("GET", "/api/v1/session/account")[1]["bots"] == ["erin-bot"]


# -- in headless Chromium ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(platform: Platform) -> Iterator[tuple[str, Any]]:
    with browser.serving(platform.app) as base, browser.chromium() as chrome:
        yield base, chrome


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("ARENA_PARTICIPANT_SHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def opened(chrome: Any, url: str, view: str) -> Any:
    """Returns a page (in a fresh browser context: its own cookies) at ``url`` once drawn as ``view``."""
    page = chrome.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(url)
    page.wait_for_selector(f"body[data-view='{view}']")
    return page


def redrawn(page: Any, view: str) -> None:
    page.wait_for_function(f"() => document.body.dataset.view === '{view}'")


def shot(page: Any, path: Path) -> None:
    """Writes a full-page PNG of ``page`` once its text holds no stray "null" or "undefined"."""
    text = page.locator("main").text_content()
    assert "null" not in text and "undefined" not in text, text
    page.screenshot(path=str(path), full_page=True)


@needs_chromium
def test_chromium_home_page_tells_a_newcomer_how_to_take_part(
    site: tuple[str, Any], platform: Platform, shots: Path
) -> None:
    base, chrome = site
    page = chrome.new_page(viewport={"width": 1280, "height": 900})
    page.goto(base + "/")
    page.wait_for_selector("#take-part")
    text = page.locator("#take-part").text_content()
    assert "How to take part" in text and "Make an account" in text and "At most 512 KiB an archive" in text
    assert f"--server {base}" in text
    page.click("#take-part a[href='/participant']")
    page.wait_for_selector("body[data-view='signed-out']")
    page.goto(base + "/")
    page.wait_for_selector("#take-part")
    shot(page, shots / "participant-home.png")
    page.close()
    with browser.serving(leaderboard_app(platform.redis_url)) as local:  # no participants on one machine
        page = browser.open_page(chrome, local + "/")
        assert page.locator("#take-part").count() == 0 and "null" not in page.locator("main").text_content()
        page.close()


@needs_chromium
def test_chromium_a_participant_signs_in_uploads_and_reads_their_bots_logs(
    site: tuple[str, Any], platform: Platform, tmp_path: Path, shots: Path
) -> None:
    base, chrome = site
    client = platform.client
    page = opened(chrome, f"{base}/participant", "signed-out")
    assert page.locator("#signin #token").is_visible() and page.locator("#how").is_visible()
    assert "at most 512 KiB packed" in page.locator("#limits").text_content()  # the server's own limit
    shot(page, shots / "participant-signed-out.png")

    # signing in: the cookie is out of the page's scripts' reach
    page.fill("#token", "account.alice.wrong")
    page.click("#signin button")
    page.wait_for_selector("#signin-result .refused")
    assert "Not signed in" in page.locator("#signin-result").text_content()
    page.fill("#token", platform.tokens["alice"])
    page.click("#signin button")
    redrawn(page, "signed-in")
    (cookie,) = [c for c in page.context.cookies() if c["name"] == participant.COOKIE]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and cookie["path"] == "/"
    assert participant.COOKIE not in page.evaluate("() => document.cookie")
    shown = page.eval_on_selector_all("#bots tbody tr", "rows => rows.map(r => r.dataset.bot)")
    assert "alice-random" in shown and "bob-random" not in shown
    assert "alice" in page.locator("#signed-in").text_content()
    shot(page, shots / "participant-signed-in.png")

    # an upload past the server's archive limit is refused with the server's message; nothing stored
    big, small = tmp_path / "big.tar.gz", tmp_path / "bot.tar.gz"
    big.write_bytes(archive(2 * LIMIT))
    small.write_bytes(archive())
    before = snapshot(platform.raw)
    page.fill("#bot-name", "alice-new")
    page.fill("#bot-games", "ninjan")
    page.fill("#bot-entry", "python bot.py")
    page.set_input_files("#bot-archive", str(big))
    page.click("#upload button[type='submit']")
    page.wait_for_selector("#upload-outcome.refused")
    refusal = page.locator("#upload-outcome").text_content()
    assert refusal.startswith("Refused: request body too large") and f"at most {LIMIT} bytes" in refusal
    assert snapshot(platform.raw) == before
    shot(page, shots / "participant-upload-refused.png")

    # the same bot, small enough: stored as alice's, its smoke match queued
    page.set_input_files("#bot-archive", str(small))
    page.click("#upload button[type='submit']")
    page.wait_for_selector("#upload-outcome.ok")
    assert "Accepted: alice-new version" in page.locator("#upload-outcome").text_content()
    assert client.hget(keys.bot("alice-new"), "account") == "alice"
    row = page.locator("#bots tr[data-bot='alice-new']")
    assert row.locator("td.smoke").text_content() == "pending"
    shot(page, shots / "participant-upload-accepted.png")

    # a worker plays its smoke match and a rated match with bob's bot; the bot's page has alice's log
    platform.pass_smoke("alice-new", "alice-new: ready\nalice-new: took pile 2")
    platform.record_match("ninjan-new-bob", ["bob-random", "alice-new"], seed=8)
    page.click("#bots a[href='/participant/bots/alice-new']")
    redrawn(page, "bot")
    assert page.locator("#smoke").text_content().startswith("passed")
    assert "took pile 2" in page.locator("#smoke-log").text_content()
    page.click("tr[data-match='ninjan-new-bob'] button.showlog")
    page.wait_for_selector("table.botlog[data-match='ninjan-new-bob']")
    lines = page.eval_on_selector_all("table.botlog td.text", "cells => cells.map(c => c.textContent)")
    assert lines == ["alice-new warming up", f"alice-new's secret plan {HOSTILE}"]
    assert "bob-random's secret plan" not in page.content()
    assert page.evaluate("() => window.pwned") is None and page.locator("main img").count() == 0
    shot(page, shots / "participant-bot-logs.png")

    # a new version with a regression test, uploaded from the bot's page
    second = tmp_path / "bot2.tar.gz"
    second.write_bytes(archive(100))
    page.set_input_files("#bot-archive", str(second))
    page.check("#bot-test")
    page.click("#upload button[type='submit']")
    page.wait_for_selector("#upload-outcome.ok")
    assert "a new version" in page.locator("#upload-outcome").text_content()
    assert "waiting" in page.locator("#regression").text_content()

    # another account's bot is not shown; signing out ends the session
    page.goto(f"{base}/participant/bots/bob-random")
    page.wait_for_selector("body[data-view='bot']")
    assert "belongs to an account" in page.locator("#bot-refused").text_content()
    page.goto(f"{base}/participant")
    page.wait_for_selector("body[data-view='signed-in']")
    page.click("#signout")
    redrawn(page, "signed-out")
    assert not [c for c in page.context.cookies() if c["name"] == participant.COOKIE]
    assert page.request.get(f"{base}/api/v1/session").status == 401
    page.context.close()


@needs_chromium
def test_chromium_a_newcomer_makes_an_account_and_signs_in_with_its_token(site: tuple[str, Any]) -> None:
    base, chrome = site
    page = opened(chrome, f"{base}/participant", "signed-out")
    page.fill("#account-name", "carol")
    page.click("#create button")
    page.wait_for_selector("#new-token")
    token = page.locator("#new-token").text_content()
    assert token.startswith("account.carol.")
    page.fill("#token", token)
    page.click("#signin button")
    redrawn(page, "signed-in")
    assert page.locator("#no-bots").is_visible()
    page.context.close()
