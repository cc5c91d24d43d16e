"""Simulated viewers: readers of the leaderboard, bot pages and replays over HTTP (loopback only), at a
bounded rate shared between them, each answer's time kept by page kind for the p50/p95 figures.

Each reader waits ``readers / rate`` seconds between its requests' starts (never less, a slow answer
only delays it), so the whole load is at most ``rate`` requests a second however the server fares.
"""

from __future__ import annotations

import random
import statistics
import threading
import time
import urllib.parse
from typing import Any

from .participants import call

KINDS = ("leaderboard", "bot", "replay", "list")  # list: the newest matches, where replays are found


class Viewers:
    """``readers`` threads reading pages of ``games`` at ``rate`` requests a second in all."""

    def __init__(self, url: str, games: list[str], readers: int = 8, rate: float = 10.0) -> None:
        self.url = url
        self.games = games
        self.readers = readers
        self.period = readers / rate
        self.times: dict[str, list[float]] = {kind: [] for kind in KINDS}
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._bots: dict[str, list[str]] = {}
        self._matches: list[str] = []

    def start(self) -> None:
        for n in range(self.readers):
            thread = threading.Thread(target=self._read, args=(random.Random(n),), daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=30)

    def _read(self, draw: random.Random) -> None:
        """One reader: a page every ``period`` seconds until stopped."""
        next_at = time.monotonic() + draw.random() * self.period
        while not self._stop.wait(max(0.0, next_at - time.monotonic())):
            next_at += self.period
            kind = KINDS[draw.randrange(len(KINDS))]
            self.visit(kind, draw)

    def visit(self, kind: str, draw: random.Random) -> None:
        """Reads one page of ``kind`` (a bot or replay page only once some are known), timing it."""
        game = draw.choice(self.games)
        if kind == "leaderboard":
            path = f"/api/v1/games/{game}/leaderboard"
        elif kind == "bot" and self._bots.get(game):
            path = f"/api/v1/games/{game}/bots/{urllib.parse.quote(draw.choice(self._bots[game]))}"
        elif kind == "replay" and self._matches:
            path = f"/api/v1/matches/{urllib.parse.quote(draw.choice(self._matches))}/replay"
        else:
            path, kind = f"/api/v1/matches?game={game}&limit=50", "list"
        answer = call("GET", self.url + path, timeout=10)
        with self._lock:
            if answer.status != 200:
                self.failures.append(f"{answer.status} {path} {answer.body.get('error', '')}"[:300])
            elif kind == "list":
                self._matches = [m["match_id"] for m in answer.body.get("matches", [])][-50:] or self._matches
            self.times.setdefault(kind, []).append(answer.seconds)
            if kind == "leaderboard" and answer.status == 200:
                self._bots[game] = [row["bot"] for row in answer.body.get("rows", []) if "bot" in row]

    def idle_sample(self, per_kind: int = 30) -> dict[str, list[float]]:
        """Reads ``per_kind`` pages of each kind one at a time (no other reader running): the idle
        reference. Returns their times by kind.

        A first round is read and not timed: the first read of a leaderboard after the last results
        refits it, a cost of the results' arrival (counted under load, where results arrive), not of
        an idle page."""
        draw = random.Random(99)
        saved, self.times = self.times, {kind: [] for kind in KINDS}
        for kind in KINDS:
            self.visit(kind, draw)
        self.times = {kind: [] for kind in KINDS}
        for _ in range(per_kind):
            for kind in KINDS:
                self.visit(kind, draw)
        idle, self.times = self.times, saved
        return idle


def percentiles(times: list[float]) -> dict[str, Any]:
    """Returns the count, p50 and p95 of ``times`` in milliseconds (None when empty)."""
    if not times:
        return {"n": 0, "p50_ms": None, "p95_ms": None}
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered) * 1000, 1),
        "p95_ms": round(p95 * 1000, 1),
    }
