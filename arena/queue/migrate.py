"""The one-time migration to the replay store: ``arena storage migrate``.

Before the store, recording kept each match's replay as plain text in ``arena:replay:ID`` (no
expiry), a result JSON with ``replay_lines`` and no digest, and the job's whole hash. The migration
moves each such replay into the configured store (``arena.queue.replays.store_for``), gives its result
the new shape (``replay_sha256`` of the text, ``recorded_at`` the time of the migration, since the
old record kept no time, and no ``replay_lines``), and trims recorded jobs' hashes to their status
(which then expires, as recording does now).

Design detail: each match is moved in the order put, then one transaction that rewrites the result and
deletes the old key. Interrupted anywhere, a rerun finds the old key still there and puts the same
bytes again: the migration is idempotent, and no replay is ever in neither place.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable

import redis

from arena.queue import keys, replays, store

BATCH = 500  # keys asked for per SCAN / SSCAN


@dataclasses.dataclass
class MigrationReport:
    """What a migration did: replays moved, results given the new shape, job hashes trimmed, and the
    bytes the old replays held in Redis (their text)."""

    replays: int = 0
    results: int = 0
    jobs: int = 0
    old_bytes: int = 0

    def describe(self) -> str:
        """Returns the report as one line."""
        return (
            f"moved {self.replays} replays ({self.old_bytes / 1e6:.1f} MB of text) into the store, "
            f"updated {self.results} results, trimmed {self.jobs} recorded jobs' hashes"
        )


def new_shape(result_text: str, replay_text: str, now: float) -> str:
    """Returns a result JSON of the old shape in the new one (kept as is where it has it already)."""
    result = json.loads(result_text)
    result.pop("replay_lines", None)
    result.setdefault("replay_sha256", replays.digest(replay_text))
    result.setdefault("recorded_at", int(now))
    return json.dumps(result, separators=(",", ":"))


def migrate(
    client: redis.Redis, progress: Callable[[MigrationReport], None] = lambda _: None
) -> MigrationReport:
    """Moves every old replay into the store and trims recorded jobs; returns what it did. Calls
    ``progress`` after each batch."""
    target = replays.store_for(client)
    report = MigrationReport()
    prefix = keys.replay("")
    for key in client.scan_iter(match=keys.replay("*"), count=BATCH):
        _move(client, target, key.removeprefix(prefix), report)
        if report.replays % BATCH == 0:
            progress(report)
    for match_id in client.sscan_iter(keys.RECORDED_SET, count=BATCH):
        report.jobs += _trim_job(client, match_id)
    progress(report)
    return report


def _move(client: redis.Redis, target: replays.ReplayStore, match_id: str, report: MigrationReport) -> None:
    """Moves one match's old replay into the store and gives its result the new shape."""
    text = client.get(keys.replay(match_id))
    if text is None:  # moved meanwhile by another migration
        return
    target.put(match_id, replays.REPLAY, text.encode())
    with client.pipeline() as pipe:
        result = client.get(keys.result(match_id))
        if result is not None:
            pipe.set(keys.result(match_id), new_shape(result, text, time.time()))
        pipe.delete(keys.replay(match_id))
        pipe.execute()
    report.replays += 1
    report.results += result is not None
    report.old_bytes += len(text.encode())


def _trim_job(client: redis.Redis, match_id: str) -> int:
    """Trims a recorded job's hash to its status (``store.finish_job``); returns 1 if it had more."""
    if client.hlen(keys.job(match_id)) <= 1:
        return 0
    return int(store.finish_job(client, match_id))
