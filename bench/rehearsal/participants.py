"""Participants, through the server's HTTP API only, as people would: each creates an account, uploads
its bots (tar.gz bodies with the account's token), watches their smoke matches, and some upload a new
version mid-run with a regression test against the previous one. The organiser starts a ladder per
game over the bots that passed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import http.client
import json
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

from arena.submissions.archives import ArchiveLimits, pack

from .roster import BotPlan, new_version


@dataclasses.dataclass
class Answer:
    """An HTTP answer: status, JSON body (or the text in ``{"text"}``) and seconds taken."""

    status: int
    body: dict[str, Any]
    seconds: float


def call(method: str, url: str, token: str = "", body: bytes | None = None, timeout: float = 60) -> Answer:
    """Makes one HTTP request; returns its answer whatever the status (a network failure is status 0).

    A server that refuses a body part way (413) answers and closes while the body is still being sent:
    the answer is then read after the broken pipe, as a browser does, rather than lost with it.
    """
    parts = urllib.parse.urlsplit(url)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if body is not None:
        headers["Content-Type"] = "application/json" if body[:1] == b"{" else "application/gzip"
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
    start = time.monotonic()
    try:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the answer may be waiting
            connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        status, raw = response.status, response.read()
    except (OSError, http.client.HTTPException) as exc:
        return Answer(0, {"error": f"{type(exc).__name__}: {exc}"}, time.monotonic() - start)
    finally:
        connection.close()
    try:
        parsed = json.loads(raw) if raw else {}
    except ValueError:
        parsed = {"text": raw[:200].decode(errors="replace")}
    return Answer(status, parsed if isinstance(parsed, dict) else {"list": parsed}, time.monotonic() - start)


@dataclasses.dataclass
class Submission:
    """What became of one bot's upload: the API's answer, then its smoke match."""

    plan: BotPlan
    account: str
    status: int = 0
    error: str = ""
    smoke: str = ""  # passed, failed, pending, superseded ('' before any)
    reason: str = ""
    log: str = ""  # the smoke status's tail of the bot's log
    smoke_id: str = ""  # the smoke match's id
    versions: int = 0
    resubmitted: str = ""  # the answer to a new version's upload, "STATUS error"


class Participants:
    """The rehearsal's participants and their bots, talking to the server at ``url``."""

    def __init__(self, url: str, organiser: str, count: int) -> None:
        self.url = url
        self.organiser = organiser
        self.count = max(1, count)
        self.tokens: dict[str, str] = {}
        self.submissions: dict[str, Submission] = {}
        self.refused_accounts: list[str] = []

    def register(self) -> None:
        """Creates every participant's account (``POST /api/v1/accounts/NAME``)."""
        for n in range(self.count):
            name = f"p{n:02d}"
            answer = call("POST", f"{self.url}/api/v1/accounts/{name}")
            if answer.status == 201:
                self.tokens[name] = answer.body["token"]
            else:
                self.refused_accounts.append(f"{name}: {answer.status} {answer.body.get('error')}")

    def submit_all(self, plans: list[BotPlan]) -> None:
        """Uploads every bot, each game's dealt to the participants in turn."""
        names = sorted(self.tokens)
        dealt: dict[str, int] = {}
        for plan in plans:
            k = dealt[plan.game] = dealt.get(plan.game, -1) + 1
            # a game's bots go to different people in turn (one person's bots never share a rated table)
            account = names[(k + len(dealt)) % len(names)]
            sub = Submission(plan, account)
            self.submissions[plan.name] = sub
            self.upload(sub)

    def upload(self, sub: Submission) -> None:
        """Packs and uploads one bot's folder with its account's token."""
        answer = self.send(sub.plan, self.tokens[sub.account])
        sub.status = answer.status
        sub.error = str(answer.body.get("error", ""))
        if answer.status in (200, 201):
            sub.versions += 1
            sub.smoke = "pending"

    def send(self, plan: BotPlan, token: str, regression: bool = False) -> Answer:
        """Uploads ``plan``'s files as a tar.gz (``test_against=previous`` with ``regression``)."""
        with tempfile.TemporaryDirectory() as tmp:
            # packed past the client's own limit: the server's check is what the rehearsal tries
            archive = pack(plan.write(Path(tmp) / plan.name), ArchiveLimits(packed_bytes=64 << 20)).archive
        query = {"games": plan.game, "entry": plan.entry} | ({"build": plan.build} if plan.build else {})
        if regression:
            query["test_against"] = "previous"
        url = f"{self.url}/api/v1/bots/{plan.name}?{urllib.parse.urlencode(query)}"
        return call("POST", url, token, archive)

    def resubmit(self, names: list[str]) -> None:
        """Uploads a new version of each named bot that plays the same, with a regression test against
        the previous one; its smoke match is then watched as the first one was."""
        for name in names:
            sub = self.submissions[name]
            sub.plan = new_version(sub.plan)
            answer = self.send(sub.plan, self.tokens[sub.account], regression=True)
            sub.resubmitted = f"{answer.status} {answer.body.get('error', '')}".strip()
            if answer.status in (200, 201):
                sub.versions += 1
                sub.smoke = "pending"

    def poll_smoke(self) -> int:
        """Reads each uploaded bot's newest smoke status; returns how many are still pending."""
        pending = 0
        for sub in self.submissions.values():
            if sub.smoke not in ("pending", ""):
                continue
            if sub.status not in (200, 201):
                continue
            answer = call("GET", f"{self.url}/api/v1/bots/{sub.plan.name}", self.tokens[sub.account])
            smoke = answer.body.get("smoke") or {}
            sub.smoke = str(smoke.get("status", "pending"))
            sub.reason = str(smoke.get("reason", ""))
            sub.log = str(smoke.get("log", ""))[-600:]
            sub.smoke_id = str(smoke.get("match_id", ""))
            pending += sub.smoke == "pending"
        return pending

    def wait_smoke(self, limit: float) -> int:
        """Waits up to ``limit`` seconds for every smoke match; returns how many are still pending."""
        deadline = time.monotonic() + limit
        while (pending := self.poll_smoke()) and time.monotonic() < deadline:
            time.sleep(2)
        return pending

    def passed(self, game: str) -> list[str]:
        """Returns the names of ``game``'s bots whose smoke match passed."""
        return sorted(n for n, s in self.submissions.items() if s.plan.game == game and s.smoke == "passed")

    def start_ladder(
        self, game: str, bots: list[str], players: int, seed: int, ahead: int, deadline_ms: int
    ) -> Answer:
        """Asks the server, as the organiser, for a ladder of ``game`` over ``bots`` at ``players`` seats."""
        body = {
            "game": game,
            "bots": bots,
            "players": players,
            "seed": seed,
            "ahead": ahead,
            "deadline_ms": deadline_ms,
        }
        return call("POST", f"{self.url}/api/v1/ladders", self.organiser, json.dumps(body).encode())

    def stop_ladders(self) -> list[dict[str, Any]]:
        """Stops every ladder the server runs; returns their last listings."""
        stopped = []
        for ladder in call("GET", f"{self.url}/api/v1/ladders").body.get("ladders", []):
            answer = call("DELETE", f"{self.url}/api/v1/ladders/{ladder['id']}", self.organiser)
            stopped.append(answer.body if answer.status == 200 else {**ladder, "stop_error": answer.body})
        return stopped

    def regression_states(self, names: list[str]) -> dict[str, Any]:
        """Returns each named bot's regression test as its owner's page shows it."""
        found = {}
        for name in names:
            sub = self.submissions[name]
            found[name] = call("GET", f"{self.url}/api/v1/bots/{name}", self.tokens[sub.account]).body.get(
                "regression"
            )
        return found
