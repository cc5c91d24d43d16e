"""Replays re-run into frames in a process of their own, and kept encoded as they are served.

Why a process: re-running a replay (the engine from its decisions, the public table and every seat's
view at every step, as JSON) costs from tens to hundreds of milliseconds of CPU. Run in the server's
own interpreter it holds the GIL, and every other page waits behind it: the dress rehearsal (issue
38, 4 minutes, 26 bots, 8 readers at 10 requests/s) measured the leaderboard's p95 at 507 ms under
load against 19 ms idle, and a profile of the server showed 63% of its busy time in re-runs. In a
process of its own a re-run uses a core of its own, and the server's threads keep answering.

Why kept encoded: a replay never changes once recorded, and viewers read the newest matches, so the
same replay is asked for again and again. Each one is kept gzipped (the bytes most browsers take
as they are; a client that does not accept gzip gets them decompressed, which costs little and
releases the GIL), in a cache bounded by bytes rather than by count: a long match's frames are a
hundred times a short one's. Requests for a replay being re-run wait for that one re-run.

``Renderer(in_process=True)`` re-runs in the calling thread, for ``arena view`` (one person's files).
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import gzip
import json
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from arena.referee import botlog
from arena.storage import replays
from leaderboard import frames

# Gzipped replays kept in memory (a 300-step PNRZ match is ~100 KiB of them, a Ninjan match ~9 KiB): the
# newest matches, which is what viewers watch, a few hundred of them. 32 MiB was a quarter of a busy
# server's memory, filling at ~18 MiB an hour in a dress rehearsal (issue 38) with older matches that
# nobody read again: a server's memory growing for hours looks like a leak to its organiser.
CACHE_BYTES = 8 * 2**20
RERUN_NICE = 5  # the re-running process yields the CPU to the server's pages (a replay can wait more)
GZIP_LEVEL = 6  # zlib's default: within a few percent of 9's size at a third of its time
OWNER_ONLY = (  # what a public replay says instead of the bots' output (docs/security.md)
    "Bot output is shown only to each bot's owner: GET /api/v1/matches/MATCH/log/SEAT with the bot's "
    "secret. Think times are public."
)


class RendererError(RuntimeError):
    """The re-running process failed twice in a row (the message says what to do)."""


def replay_frames(text: str, log_text: str | None, match_id: str, bot_output: bool) -> dict[str, Any]:
    """Returns a stored replay re-run into frames (``leaderboard.frames``), with its stored match log
    (``log_text``; None: none stored) attached: the bots' output lines only if ``bot_output``, the
    think times always. ``text`` may be a replay kept as its decisions (regenerated here, in the
    re-running process, not in the server's interpreter). Raises ReplayError for text that does not
    re-run, ReplayStoreError for decisions this arena's rules cannot regenerate."""
    replay = frames.frames(replays.whole(replays.REPLAY, text.encode()).decode())
    if log_text is None:
        return replay
    with contextlib.suppress(botlog.MatchLogError):
        log = botlog.parse_match_log(log_text, match_id)
        found = {"found": True} if bot_output else {"found": False, "problem": OWNER_ONLY}
        if not bot_output:
            log = dataclasses.replace(log, lines=(), cut="")
        replay = frames.with_match_log(replay, log) | {"match_log": found}
    return replay


def ready() -> int:
    """Returns the re-running process's pid: the task ``Renderer.warm`` sends, which has the process
    import this module (and with it every engine) before the first replay is asked for."""
    return os.getpid()


def encode(replay: dict[str, Any]) -> bytes:
    """Returns ``replay`` as gzipped JSON, encoded as starlette's JSONResponse encodes an answer."""
    body = json.dumps(replay, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")
    return gzip.compress(body, compresslevel=GZIP_LEVEL, mtime=0)


def render(text: str, log_text: str | None, match_id: str, bot_output: bool) -> bytes:
    """Returns the replay's frames as gzipped JSON (what the re-running process computes)."""
    return encode(replay_frames(text, log_text, match_id, bot_output))


class Renderer:
    """Re-runs replays (in one process of its own, started at the first replay asked for, unless
    ``in_process``) and keeps the last ``cache_bytes`` of their gzipped frames."""

    def __init__(self, cache_bytes: int = CACHE_BYTES, in_process: bool = False) -> None:
        self.cache_bytes = cache_bytes
        self.in_process = in_process
        self.renders = 0  # re-runs computed (a cached or joined answer is not one)
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._kept: collections.OrderedDict[str, bytes] = collections.OrderedDict()
        self._kept_bytes = 0
        self._running: dict[str, Future[bytes]] = {}
        self.warming: Future[int] | None = None  # ``warm``'s answer, once called

    def gzipped(self, match_id: str, read: Callable[[], tuple[str, str | None]], bot_output: bool) -> bytes:
        """Returns the match's frames as gzipped JSON: kept, being re-run (then that re-run's), or
        re-run now from ``read()`` (the replay's text and its match log's, or None), which runs only
        when no answer is kept. Raises what ``read`` or the re-run raise (ReplayError: text that
        does not re-run), RendererError if the process died twice."""
        with self._lock:
            if match_id in self._kept:
                self._kept.move_to_end(match_id)
                return self._kept[match_id]
            running = self._running.get(match_id)
            mine = running is None
            if mine:
                running = self._running[match_id] = Future()
        assert running is not None
        if not mine:
            return running.result()
        try:
            text, log_text = read()
            answer = self._run(text, log_text, match_id, bot_output)
            self._keep(match_id, answer)  # kept before it stops running: no gap for a second re-run
        except BaseException as exc:
            running.set_exception(exc)
            raise
        finally:
            with self._lock:
                self._running.pop(match_id, None)
        running.set_result(answer)
        return answer

    def _run(self, text: str, log_text: str | None, match_id: str, bot_output: bool) -> bytes:
        """Re-runs one replay; a dead process is replaced once (a second death raises)."""
        with self._lock:
            self.renders += 1
        if self.in_process:
            return render(text, log_text, match_id, bot_output)
        for attempt in (1, 2):
            pool = self._process()
            try:
                return pool.submit(render, text, log_text, match_id, bot_output).result()
            except BrokenProcessPool:
                self._discard(pool)
                if attempt == 2:
                    raise RendererError(
                        "the process that re-runs replays died twice in a row: see the server's log "
                        "(out of memory?); the replay page works again once it stays up"
                    ) from None
        raise AssertionError("unreachable")

    def warm(self) -> Future[int]:
        """Starts the re-running process now, in the background, for a long-running server: spawning
        an interpreter that imports the engines takes seconds on a machine busy with matches, and
        otherwise the first viewer of a replay waits for it (a 10 s timeout in a dress rehearsal).
        Returns the process's pid once it has imported them (in process: this process's); a second
        call returns the first's."""
        with self._lock:
            if self.warming is not None:
                return self.warming
            started = self.warming = Future()
        if self.in_process:
            started.set_result(os.getpid())
        else:
            threading.Thread(target=self._warm, args=(started,), name="rerun-warm", daemon=True).start()
        return started

    def _warm(self, started: Future[int]) -> None:
        try:
            started.set_result(self._process().submit(ready).result())
        except (BrokenProcessPool, RuntimeError) as exc:  # died or closed: a replay asked for starts it
            started.set_exception(exc)

    def _process(self) -> ProcessPoolExecutor:
        """Returns the re-running process's pool, started if it is not (spawned: the server runs
        threads, which a forked child would inherit mid-lock)."""
        with self._lock:
            if self._pool is None:
                spawn = multiprocessing.get_context("spawn")
                self._pool = ProcessPoolExecutor(
                    max_workers=1, mp_context=spawn, initializer=os.nice, initargs=(RERUN_NICE,)
                )
            return self._pool

    def _discard(self, pool: ProcessPoolExecutor) -> None:
        with self._lock:
            if self._pool is pool:
                self._pool = None
        pool.shutdown(wait=False, cancel_futures=True)

    def _keep(self, match_id: str, answer: bytes) -> None:
        """Keeps an answer, dropping the least recently served beyond ``cache_bytes`` (an answer
        larger than the whole cache is served but not kept)."""
        if len(answer) > self.cache_bytes:
            return
        with self._lock:
            if match_id in self._kept:
                return
            self._kept[match_id] = answer
            self._kept_bytes += len(answer)
            while self._kept_bytes > self.cache_bytes:
                _, dropped = self._kept.popitem(last=False)
                self._kept_bytes -= len(dropped)

    def pids(self) -> list[int]:
        """Returns the pids of the re-running process (none before the first re-run, or in process)."""
        with self._lock:
            pool = self._pool
        processes = getattr(pool, "_processes", None) or {}
        return sorted(processes)

    def close(self) -> None:
        """Stops the re-running process (at the app's shutdown)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
