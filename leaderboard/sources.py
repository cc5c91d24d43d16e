"""Where the app's matches come from: Redis (the platform's record), or replay files (``arena view``).

One app serves both (``leaderboard.app.create_app``): the pages and the routes every replay page reads
(``/api/v1/games``, ``/api/v1/stamp``, ``/api/v1/matches/{id}`` and its ``/replay``) ask the source;
the routes that only the platform's record can answer (leaderboards, tournaments, bots, logs, the
write API) are served over Redis alone.

- ``RedisSource``: what the queue recorded, read through ``leaderboard.data``; replays re-run into
  frames once and kept (a replay never changes once recorded). ``bot_output`` False (``arena
  server``): a replay carries think times but no bot's output, which is its owner's; True (this
  machine's own leaderboard): everything.
- ``FileSource``: replay files on this machine, each with the match log beside it (the bots' output
  stamped with decision steps, think times; ``arena.referee.botlog``).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import threading
from pathlib import Path
from typing import Any

import redis

from arena.games import GameError, get_game
from arena.queue.connection import connect
from arena.referee import botlog
from arena.referee.botlog import MatchLogError, find_match_log, read_match_log
from arena.referee.replay import ReplayError, opening, read_lines
from arena.storage import replays
from leaderboard import data, frames
from leaderboard.http import ApiError

FRAME_CACHE_SIZE = 16  # re-run replays kept in memory (a replay never changes once recorded)
OWNER_ONLY = (  # what a public replay says instead of the bots' output (docs/security.md)
    "Bot output is shown only to each bot's owner: GET /api/v1/matches/MATCH/log/SEAT with the bot's "
    "secret. Think times are public."
)


class Source:
    """What the pages and a replay page's routes read. ``client`` is None for a source without Redis
    (then the app serves no route that needs it); ``shell`` is the HTML file every page is."""

    client: redis.Redis | None = None
    shell = "index.html"

    def home(self) -> str | None:
        """Returns where ``/`` sends a browser instead of the home page, or None (the home page)."""
        return None

    def check_page(self, match_id: str | None) -> None:
        """Raises ApiError(404) for a page this source has nothing to show on (``match_id``: the
        match a replay page shows; None for any other page)."""

    def games(self) -> list[dict[str, Any]]:
        """Returns the games the navigation bar lists."""
        raise NotImplementedError

    def stamp(self) -> dict[str, int]:
        """Returns what the pages poll: it changes whenever a new result is recorded."""
        raise NotImplementedError

    def match(self, match_id: str) -> dict[str, Any]:
        """Returns one match's result; raises ApiError."""
        raise NotImplementedError

    def replay(self, match_id: str) -> dict[str, Any]:
        """Returns one match's replay re-run into frames (``leaderboard.frames``); raises ApiError."""
        raise NotImplementedError


class RedisSource(Source):
    """The platform's record in the Redis at ``url``."""

    def __init__(self, url: str, client: redis.Redis | None = None, bot_output: bool = True) -> None:
        self.url = url
        self.client = client or connect(url)
        self.bot_output = bot_output
        self._frames: collections.OrderedDict[str, dict[str, Any]] = collections.OrderedDict()
        self._lock = threading.Lock()  # read on the thread pool

    @property
    def redis(self) -> redis.Redis:
        assert self.client is not None
        return self.client

    def games(self) -> list[dict[str, Any]]:
        return data.games(self.redis)

    def stamp(self) -> dict[str, int]:
        return data.stamp(self.redis)

    def match(self, match_id: str) -> dict[str, Any]:
        found = data.match(self.redis, match_id)
        if found is None:
            raise ApiError(404, f"no recorded match {match_id!r}")
        return found

    def replay(self, match_id: str) -> dict[str, Any]:
        """Returns the match's replay as frames, re-running it only on the first request."""
        with self._lock:
            if match_id in self._frames:
                self._frames.move_to_end(match_id)
                return self._frames[match_id]
        try:
            replay = self._rerun(match_id)
        except (ReplayError, replays.ReplayStoreError) as exc:  # corrupt, or decisions of other rules
            raise ApiError(500, f"the stored replay does not re-run: {exc}") from None
        with self._lock:
            self._frames[match_id] = replay
            while len(self._frames) > FRAME_CACHE_SIZE:
                self._frames.popitem(last=False)
        return replay

    def _rerun(self, match_id: str) -> dict[str, Any]:
        text = data.replay_text(self.redis, match_id)
        if text is None:
            raise ApiError(404, f"no replay of match {match_id!r}")
        replay = frames.frames(text)
        stored_log = replays.store_for(self.redis).get(match_id, botlog.STORE_KIND)
        if stored_log is not None:  # the bots' output per step and think times (static/view.js)
            with contextlib.suppress(botlog.MatchLogError):
                log = botlog.parse_match_log(stored_log.decode("utf-8", errors="replace"), match_id)
                found = {"found": True} if self.bot_output else {"found": False, "problem": OWNER_ONLY}
                if not self.bot_output:
                    log = dataclasses.replace(log, lines=(), cut="")
                replay = frames.with_match_log(replay, log) | {"match_log": found}
        return replay


def game_name(name: str) -> str:
    """Returns the registered name of a game (aliases accepted); raises ApiError(404)."""
    try:
        return get_game(name).spec.name
    except GameError as exc:
        raise ApiError(404, str(exc)) from None


class FileSource(Source):
    """Replay files on this machine (``files``: id -> replay path), for ``arena view``."""

    shell = "view.html"

    def __init__(self, files: dict[str, Path]) -> None:
        if not files:
            raise ValueError("arena view needs at least one replay file")
        self.files = dict(files)

    def path(self, match_id: str) -> Path:
        """Returns the replay file of ``match_id``; raises ApiError(404) for an id not given."""
        if match_id not in self.files:
            raise ApiError(404, f"no replay {match_id!r} here: arena view serves only the files given")
        return self.files[match_id]

    def home(self) -> str | None:
        return f"/matches/{next(iter(self.files))}"

    def check_page(self, match_id: str | None) -> None:
        if match_id is None:
            raise ApiError(404, "arena view shows only the replays it was given, at /matches/ID")
        self.path(match_id)

    def games(self) -> list[dict[str, Any]]:
        return []  # the navigation bar: no leaderboard here

    def stamp(self) -> dict[str, int]:
        return {}

    def match(self, match_id: str) -> dict[str, Any]:
        path = self.path(match_id)
        try:
            return summary(read_lines(path), match_id)
        except ReplayError as exc:
            raise ApiError(422, str(exc)) from None

    def replay(self, match_id: str) -> dict[str, Any]:
        path = self.path(match_id)
        try:
            return view_data(path)
        except (ReplayError, OSError, UnicodeDecodeError) as exc:
            raise ApiError(422, f"the replay does not re-run: {exc}") from None


def summary(lines: list[dict[str, Any]], match_id: str) -> dict[str, Any]:
    """Returns what the replay page shows above the viewer: game, players with rank and score, seed,
    steps and termination (from the result line; an unfinished replay shows its players unranked)."""
    header = lines[0]
    result = next((x for x in reversed(lines) if x.get("type") == "result"), None)
    players = (result or {}).get("players") or [
        {"seat": seat, "bot": p["bot"], "score": 0, "rank": 0, "forfeit": False, "strikes": 0}
        for seat, p in enumerate(header["players"])
    ]
    return {
        "match_id": match_id,
        "game": header["game"],
        "seed": str(header["seed"]),  # as text: a 64-bit seed is past what a JavaScript number holds
        "players": players,
        "steps": (result or {}).get("steps", 0),
        "termination": (result or {}).get("termination", "unfinished"),
    }


def view_data(path: Path) -> dict[str, Any]:
    """Returns the replay at ``path`` re-run into the viewer's frames, each frame with the bots'
    output lines stamped with its step (``logs``) and its decisions' think times (``think``); the
    start frame has the lines written before a seat's first decision. Raises ReplayError."""
    opening(read_lines(path))  # checked here first: a malformed replay gets its one-line reason
    replay = frames.frames(path.read_text(encoding="utf-8"))
    try:
        log = read_match_log(path)
    except MatchLogError as exc:
        replay["match_log"] = {"found": False, "problem": str(exc)}
        return replay
    replay["match_log"] = {"found": True, "path": str(find_match_log(path))}
    return frames.with_match_log(replay, log)
