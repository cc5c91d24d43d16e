"""Ladders the organiser runs on the server: the same feeding loop as ``arena ladder``, kept in the
server process, for the server's workers to play.

A ladder the organiser starts (``POST /api/v1/ladders``) is recorded in Redis, in the hash
``keys.LADDERS`` (its id -> ``{"spec", "ahead", "state", "error"}``), and fed by a thread of the server
running ``arena.schedule.ladder.run``: the one loop that keeps a ladder's queue ``ahead`` matches deep,
shared with the CLI, with no second copy here. The ``arena worker`` processes play its matches, and the
recording script counts them in the ladder's tournament hash and the game's pair table, so the
leaderboard follows it live.

When the server starts it resumes every ladder recorded as running (``LadderRunner.resume``): a
restart, even a crash, loses no ladder, and numbering goes on from the ladder's ``total``. Stopping one
(``DELETE``) removes its record and waits for its thread to finish, so once the answer is sent nothing
more is scheduled; the matches already queued (at most ``ahead``) are still played. A ladder that
cannot go on (its bots keep failing, or one was removed) stays listed with state ``failed`` and the
reason, and is not resumed; starting it again retries it. A ladder started with ``until_los`` (``arena
ladder ... --until-confident``) stops by itself once every neighbour in the fit's order reaches that
likelihood of superiority (``Ladder.confident``, after the matches in flight) and stays listed with
state ``confident``, not resumed; starting it again plays on only if it is no longer confident.

Design detail, one feeder per ladder: the threads live in one server process. Run one ``arena
server`` per Redis with ladders (a second one would resume the same ladders; their match ids are
deterministic and enqueueing is idempotent, so the queue would stay right, but the pairing would be
chosen twice).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import redis

from arena.console import say
from arena.queue import keys
from arena.queue.connection import maybe_text, retrying, text_hash
from arena.ratings.confidence import check_los
from arena.schedule.ladder import Ladder, LadderError, LadderSpec, run
from arena.seeds import platform_key
from arena.submissions import registry

T = TypeVar("T")
AHEAD_DEFAULT = 4  # matches a server's ladder keeps queued or playing, unless the organiser says
AHEAD_MAX = 64
JOIN_SECONDS = 30.0  # the longest a stop waits for the ladder's thread (it wakes every WAKE_MS)
RUNNING, FAILED, CONFIDENT = "running", "failed", "confident"


class LadderRunner:
    """The server's ladders: their records in Redis and, for each running one, its feeding thread."""

    def __init__(self, client: redis.Redis, url: str, log: Callable[[str], None] = say) -> None:
        self.client, self.url, self.log = client, url, log
        self._threads: dict[str, tuple[threading.Thread, threading.Event]] = {}
        self._lock = threading.Lock()  # guards ``_threads``: requests run in a thread pool
        self._closed = False  # set by ``close``: a resume still running then launches nothing

    def ladder(self, spec: LadderSpec) -> Ladder:
        """Returns the ladder of ``spec`` over the server's Redis, bots resolved as tournaments do."""
        client = self.client
        return Ladder(client, spec, platform_key(), lambda bot: registry.resolve(client, spec.game, bot))

    def start(
        self, spec: LadderSpec, ahead: int, until_los: float | None = None
    ) -> tuple[dict[str, Any], bool]:
        """Starts (or resumes) the ladder; returns its listing and whether it was started now (False:
        it was running already, and goes on as it was). ``until_los``: it stops by itself once
        confident at that LOS (None: it runs until stopped). Raises LadderError for an unknown bot and
        ValueError for ``ahead`` or ``until_los`` out of range."""
        if not 1 <= ahead <= AHEAD_MAX:
            raise ValueError(f"'ahead' must be from 1 to {AHEAD_MAX}, not {ahead}")
        if until_los is not None:
            check_los(until_los)
        ladder = self.ladder(spec)
        with self._lock:
            if self._alive(ladder.id):
                return self.describe(ladder.id, self._record(ladder.id)), False
            ladder.check_bots()
            ladder.open()
            record = {"spec": dataclasses.asdict(spec), "ahead": ahead, "state": RUNNING}
            record |= {} if until_los is None else {"until_los": until_los}
            self.client.hset(keys.LADDERS, ladder.id, json.dumps(record))
            self._launch(ladder, ahead, until_los)
        return self.describe(ladder.id, record), True

    def stop(self, ladder_id: str) -> dict[str, Any] | None:
        """Stops the ladder and waits until its thread schedules nothing more; returns its last
        listing, or None if no such ladder is recorded."""
        with self._lock:
            record = self._record(ladder_id)
            self.client.hdel(keys.LADDERS, ladder_id)
            found = self._threads.pop(ladder_id, None)
        if found is not None:
            found[1].set()
            found[0].join(JOIN_SECONDS)
        if record is None:
            return None
        return self.describe(ladder_id, {**record, "state": "stopped"})

    def listing(self) -> list[dict[str, Any]]:
        """Returns every recorded ladder (running, confident or failed) with its match counts, by id."""
        records = text_hash(self.client.hgetall(keys.LADDERS))
        return [self.describe(lid, _load(text)) for lid, text in sorted(records.items())]

    def running(self) -> list[str]:
        """Returns the ids of the ladders this process feeds now."""
        with self._lock:
            return sorted(lid for lid in self._threads if self._alive(lid))

    def describe(self, ladder_id: str, record: dict[str, Any] | None) -> dict[str, Any]:
        """Returns a ladder as the API lists it: its spec, ``ahead``, ``until_los`` (null: it runs until
        stopped), state (and error), and counts: ``total`` scheduled, ``recorded``, ``dead``,
        ``queued`` (scheduled, not finished)."""
        record = record or {}
        meta = self.client.hmget(keys.tournament(ladder_id), ["total", "recorded", "dead"])
        total, recorded, dead = (int(v or 0) for v in meta)
        shown = {"id": ladder_id, **record.get("spec", {}), "ahead": record.get("ahead")}
        shown |= {"until_los": record.get("until_los")}
        shown |= {"state": record.get("state"), "error": record.get("error")}
        return shown | {"total": total, "recorded": recorded, "dead": dead, "queued": total - recorded - dead}

    def resume(self) -> list[str]:
        """Starts a thread for every ladder recorded as running (at server start); returns their ids."""
        records = text_hash(
            retrying(self.url, lambda: self.client.hgetall(keys.LADDERS), self.log, who="arena server")
        )
        resumed = []
        for ladder_id, text in sorted(records.items()):
            record = _load(text)
            if record.get("state") != RUNNING:
                continue
            try:
                spec, ahead = LadderSpec.from_json(record["spec"]), int(record["ahead"])
                until_los = record.get("until_los")
                until_los = None if until_los is None else check_los(float(until_los))
            except (ValueError, TypeError, KeyError, AttributeError) as exc:  # written by another version?
                self.log(f"arena server: ladder {ladder_id} not resumed: its record does not parse ({exc})")
                continue
            with self._lock:
                if not self._alive(ladder_id):
                    self._launch(self.ladder(spec), ahead, until_los)
                    resumed.append(ladder_id)
        if resumed:
            self.log(f"arena server: resumed ladders {', '.join(resumed)}")
        return resumed

    def close(self) -> None:
        """Stops every thread (at server shutdown) and leaves the records: the next start resumes them."""
        with self._lock:
            threads, self._threads, self._closed = list(self._threads.values()), {}, True
        for _, event in threads:
            event.set()
        for thread, _ in threads:
            thread.join(JOIN_SECONDS)

    def _record(self, ladder_id: str) -> dict[str, Any] | None:
        """Returns the ladder's stored record, None if there is none."""
        text = maybe_text(self.client.hget(keys.LADDERS, ladder_id))
        return None if text is None else _load(text)

    def _alive(self, ladder_id: str) -> bool:
        """Returns True if the ladder's thread is running (caller holds ``_lock``)."""
        found = self._threads.get(ladder_id)
        return found is not None and found[0].is_alive() and not found[1].is_set()

    def _launch(self, ladder: Ladder, ahead: int, until_los: float | None) -> None:
        """Starts the ladder's feeding thread (caller holds ``_lock``), unless the server is stopping."""
        if self._closed:
            return
        event = threading.Event()
        thread = threading.Thread(
            target=self._feed, args=(ladder, ahead, until_los, event), name=f"ladder {ladder.id}", daemon=True
        )
        self._threads[ladder.id] = (thread, event)
        thread.start()

    def _feed(self, ladder: Ladder, ahead: int, until_los: float | None, stop: threading.Event) -> None:
        """Runs the ladder's loop until ``stop`` is set, or until it is confident at ``until_los``
        (then marked confident); a ladder that cannot go on is marked failed.

        Design detail: any other exception is caught too and recorded as the failure, with one line on
        the server's stderr: a thread's exception would otherwise vanish, leaving a ladder listed as
        running that schedules nothing."""

        def guard(action: Callable[[], T]) -> T:
            return retrying(self.url, action, self.log, who=f"arena server: ladder {ladder.id}")

        done = None if until_los is None else functools.partial(ladder.confident, until_los)
        try:
            if run(ladder, ahead, None, lambda: False, lambda _: None, guard, stop.is_set, done):
                finished = guard(ladder.finished)
                self.log(
                    f"arena server: ladder {ladder.id} confident: every neighbour's LOS >= "
                    f"{100 * (until_los or 0):g}% after {finished} matches"
                )
                self._end(ladder.id, {"state": CONFIDENT, "error": None}, stop)
        except LadderError as exc:
            self._fail(ladder.id, str(exc), stop)
        except Exception as exc:  # recorded and shown: see the docstring
            self._fail(ladder.id, f"unexpected error: {type(exc).__name__}: {exc}", stop)

    def _fail(self, ladder_id: str, reason: str, stop: threading.Event) -> None:
        """Marks a ladder failed with ``reason`` (unless it was stopped meanwhile) and says so."""
        self.log(f"arena server: ladder {ladder_id} stopped: {reason}")
        self._end(ladder_id, {"state": FAILED, "error": reason}, stop)

    def _end(self, ladder_id: str, change: dict[str, Any], stop: threading.Event) -> None:
        """Records that the ladder's thread ended (``change``: its state and error), unless it was
        stopped meanwhile; such a ladder stays listed and is not resumed."""
        with self._lock:
            record = self._record(ladder_id)
            if record is None or stop.is_set():
                return
            record |= change
            self.client.hset(keys.LADDERS, ladder_id, json.dumps(record))
            self._threads.pop(ladder_id, None)


def _load(text: str) -> dict[str, Any]:
    """Returns a stored ladder record; one that is not a JSON object is listed as ``unreadable`` (and
    never resumed), so one bad record cannot break the listing or the server's start."""
    try:
        record = json.loads(text)
    except ValueError:
        record = None
    if not isinstance(record, dict) or not isinstance(record.get("spec", {}), dict):
        return {
            "state": "unreadable",
            "error": "its record in Redis does not parse: stop it and start it again",
        }
    return record
