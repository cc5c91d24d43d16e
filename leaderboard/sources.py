"""Where the app's matches come from: Redis (the platform's record), or replay files (``arena view``).

One app serves both (``leaderboard.app.create_app``): the pages and the routes every replay page reads
(``/api/v1/games``, ``/api/v1/stamp``, ``/api/v1/matches/{id}`` and its ``/replay``) ask the source;
the routes that only the platform's record can answer (leaderboards, tournaments, bots, logs, the
write API) are served over Redis alone.

- ``RedisSource``: what the queue recorded, read through ``leaderboard.data``; replays re-run into
  frames in a process of their own and kept encoded (``leaderboard.rerun``: a re-run in the
  server's interpreter would hold up every other page). ``bot_output`` False (``arena server``): a
  replay carries think times but no bot's output, which is its owner's; True (this machine's own
  leaderboard): everything.
- ``FileSource``: replay files on this machine, each with the match log beside it (the bots' output
  stamped with decision steps, think times; ``arena.referee.botlog``). Its list of matches is the
  files given, newest first; a leaderboard's game and bot pages send a browser to that list, so no
  link of a replay page is dead.
"""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path
from typing import Any

import redis

from arena.games import GAMES, GameError, get_game
from arena.queue.connection import connect
from arena.referee import botlog
from arena.referee.botlog import MatchLogError, find_match_log, read_match_log
from arena.referee.record import sole_winner
from arena.referee.replay import ReplayError, opening, read_lines
from arena.storage import replays
from leaderboard import data, frames, rerun
from leaderboard.http import ApiError

TAIL_BYTES = 64 * 1024  # the end of a replay read for its result line (a result is a few hundred bytes)


class Source:
    """What the pages and a replay page's routes read. ``client`` is None for a source without Redis
    (then the app serves no route that needs it); ``shell`` is the HTML file every page is."""

    client: redis.Redis | None = None
    shell = "index.html"

    def elsewhere(self, path: str, params: dict[str, str]) -> str | None:
        """Returns where a page's ``path`` (its path parameters ``params``) sends a browser instead,
        or None (the page itself)."""
        return None

    def check_page(self, match_id: str | None) -> None:
        """Raises ApiError(404) for a page this source has nothing to show on (``match_id``: the
        match a replay page shows; None for any other page)."""

    def matches(self, game: str | None, bot: str | None, limit: int, after: str | None) -> data.Page:
        """Returns a page of matches, newest first (of ``game``, of ``bot``; None: all); raises
        data.PageError for a position ``after`` no page handed out."""
        raise NotImplementedError

    def games(self) -> list[dict[str, Any]]:
        """Returns the games the navigation bar lists."""
        raise NotImplementedError

    def stamp(self) -> dict[str, int]:
        """Returns what the pages poll: it changes whenever a new result is recorded."""
        raise NotImplementedError

    def match(self, match_id: str) -> dict[str, Any]:
        """Returns one match's result; raises ApiError."""
        raise NotImplementedError

    def replay(self, match_id: str) -> bytes:
        """Returns one match's replay re-run into frames (``leaderboard.frames``) as gzipped JSON
        (``leaderboard.rerun.encode``); raises ApiError."""
        raise NotImplementedError

    def close(self) -> None:
        """Releases what the source holds (the app's shutdown)."""


class RedisSource(Source):
    """The platform's record in the Redis at ``url``."""

    def __init__(self, url: str, client: redis.Redis | None = None, bot_output: bool = True) -> None:
        self.url = url
        self.client = client or connect(url)
        self.bot_output = bot_output
        self.renderer = rerun.Renderer()

    @property
    def redis(self) -> redis.Redis:
        assert self.client is not None
        return self.client

    def games(self) -> list[dict[str, Any]]:
        return data.games(self.redis)

    def stamp(self) -> dict[str, int]:
        return data.stamp(self.redis)

    def matches(self, game: str | None, bot: str | None, limit: int, after: str | None) -> data.Page:
        return data.matches(self.redis, game, bot, limit, after)

    def match(self, match_id: str) -> dict[str, Any]:
        found = data.match(self.redis, match_id)
        if found is None:
            raise ApiError(404, f"no recorded match {match_id!r}")
        return found

    def replay(self, match_id: str) -> bytes:
        """Returns the match's replay as gzipped frames, re-running it only on the first request."""
        try:
            return self.renderer.gzipped(match_id, lambda: self._stored(match_id), self.bot_output)
        except (ReplayError, replays.ReplayStoreError) as exc:  # corrupt, or decisions of other rules
            raise ApiError(500, f"the stored replay does not re-run: {exc}") from None
        except rerun.RendererError as exc:
            raise ApiError(503, str(exc)) from None

    def _stored(self, match_id: str) -> tuple[str, str | None]:
        """Returns the match's stored replay text, possibly as its decisions (the re-running process
        regenerates it), and match log text (None: no log stored)."""
        text = data.replay_text(self.redis, match_id, whole=False)
        if text is None:
            raise ApiError(404, f"no replay of match {match_id!r}")
        stored_log = replays.store_for(self.redis).get(match_id, botlog.STORE_KIND)
        return text, None if stored_log is None else stored_log.decode("utf-8", errors="replace")

    def close(self) -> None:
        self.renderer.close()


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
        self._listed: dict[str, tuple[tuple[int, int], dict[str, Any]]] = {}  # id -> (file stamp, summary)

    def path(self, match_id: str) -> Path:
        """Returns the replay file of ``match_id``; raises ApiError(404) for an id not given."""
        if match_id not in self.files:
            raise ApiError(404, f"no replay {match_id!r} here: arena view serves only the files given")
        return self.files[match_id]

    def elsewhere(self, path: str, params: dict[str, str]) -> str | None:
        """Returns the list of replays for the pages a leaderboard has and the files do not: ``/``,
        a game's page (its replays) and a bot's (the replays it played), so that no link is dead."""
        if path == "/":
            return "/matches"
        if "game" not in params:
            return None
        query = {"game": params["game"]} | ({"bot": params["bot"]} if "bot" in params else {})
        return "/matches?" + urllib.parse.urlencode(query)

    def check_page(self, match_id: str | None) -> None:
        if match_id is not None:
            self.path(match_id)

    def listed(self) -> list[dict[str, Any]]:
        """Returns every replay given as the list shows it (``summary`` and its winner), newest file
        first; a file that is not a replay is left out (opening it says why)."""
        found = []
        for match_id, path in self.files.items():
            try:
                stat = path.stat()
                stamp = (stat.st_mtime_ns, stat.st_size)
                if self._listed.get(match_id, (None,))[0] != stamp:
                    self._listed[match_id] = (stamp, ends_summary(path, match_id))
                found.append((stat.st_mtime, match_id, self._listed[match_id][1]))
            except (OSError, ReplayError, UnicodeDecodeError):
                continue
        found.sort(key=lambda item: (-item[0], item[1]))
        return [summary for _, _, summary in found]

    def games(self) -> list[dict[str, Any]]:
        """Returns the games of the replays given (the navigation bar, the list's filter)."""
        listed = self.listed()
        return [
            {
                "name": name,
                "title": GAMES[name].spec.title,
                "players": [GAMES[name].spec.min_players, GAMES[name].spec.max_players],
                "matches": sum(m["game"] == name for m in listed),
                "bots": len({p["bot"] for m in listed if m["game"] == name for p in m["players"]}),
            }
            for name in GAMES
            if any(m["game"] == name for m in listed)
        ]

    def matches(self, game: str | None, bot: str | None, limit: int, after: str | None) -> data.Page:
        """Returns a page of the replays given, newest file first, numbered from the newest."""
        if after is not None and not (after.isascii() and after.isdigit() and len(after) < 10):
            raise data.PageError(f"no page starts at {after[:40]!r}: give the 'next' of a page")
        chosen = [
            m | {"number": number}
            for number, m in enumerate(self.listed(), start=1)
            if (game is None or m["game"] == game)
            and (bot is None or any(p["bot"] == bot for p in m["players"]))
        ]
        start = int(after or 0)
        following = str(start + limit) if start + limit < len(chosen) else None
        return data.Page(chosen[start : start + limit], following)

    def stamp(self) -> dict[str, int]:
        return {}

    def match(self, match_id: str) -> dict[str, Any]:
        path = self.path(match_id)
        try:
            return summary(read_lines(path), match_id)
        except ReplayError as exc:
            raise ApiError(422, str(exc)) from None

    def replay(self, match_id: str) -> bytes:
        path = self.path(match_id)
        try:
            return rerun.encode(view_data(path))
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


def ends_summary(path: Path, match_id: str) -> dict[str, Any]:
    """Returns ``summary`` of the replay at ``path`` read from its first and last lines only (a list
    of many long replays reads no decision), with its sole winner (None: shared or unfinished);
    raises ReplayError for a file whose ends are not a replay's."""
    with path.open("rb") as file:
        first = file.readline()
        size = file.seek(0, 2)
        file.seek(max(len(first), size - TAIL_BYTES))
        tail = file.read().splitlines()
    complete = size - TAIL_BYTES <= len(first) or len(tail) > 1  # the tail holds a whole last line
    # a last line longer than the tail is no result (a few hundred bytes): the replay is unfinished
    last = next((line for line in reversed(tail) if line.strip()), first) if complete else first
    try:
        header, end = json.loads(first), json.loads(last)
    except ValueError as exc:
        raise ReplayError(f"{path.name}: not a replay ({exc})") from None
    if not isinstance(header, dict) or header.get("type") != "header" or not isinstance(end, dict):
        raise ReplayError(f"{path.name}: not a replay (no header line first)")
    try:
        shown = summary([header, end], match_id)
        ranked = [(p["bot"], p["rank"]) for p in shown["players"]]
    except (KeyError, TypeError) as exc:
        raise ReplayError(f"{path.name}: not a replay (its header or result lacks {exc})") from None
    finished = end.get("type") == "result"
    return shown | {"winner": sole_winner(ranked) if finished else None}


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
