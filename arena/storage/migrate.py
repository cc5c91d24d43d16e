"""The one-time migration to the replay store: ``arena storage migrate``.

Before the store, recording kept each match's replay as plain text in ``arena:replay:ID`` (no
expiry), a result JSON with ``replay_lines`` and no digest, and the job's whole hash. The migration
moves each such replay into the configured store (``arena.storage.replays.store_for``), gives its result
the new shape (``replay_sha256`` of the text, ``recorded_at`` the time of the migration, since the
old record kept no time, and no ``replay_lines``), trims recorded jobs' hashes to their status
(which then expires, as recording does now), indexes the old matches in each bot's list of
matches (``keys.bot_matches``, which bot pages and head to head read), ahead of any match recorded
since the upgrade, and gives a game whose results were recorded before pair tables existed, or before
they kept each result's table size, its pair table (the ratings are fitted on it), counted from the
game's results.

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

from arena.games import GAMES
from arena.queue import keys, store
from arena.queue.connection import hash_fields, maybe_text
from arena.ratings.pairs import match_increments
from arena.ratings.seating import records_seats
from arena.storage import replays

BATCH = 500  # keys asked for per SCAN / SSCAN


@dataclasses.dataclass
class MigrationReport:
    """What a migration did: replays moved, results given the new shape, job hashes trimmed, and the
    bytes the old replays held in Redis (their text)."""

    replays: int = 0
    results: int = 0
    jobs: int = 0
    old_bytes: int = 0
    indexed: int = 0  # old matches added to their bots' lists
    pair_tables: int = 0  # games whose pair table was counted anew from their results

    def describe(self) -> str:
        """Returns the report as one line."""
        return (
            f"moved {self.replays} replays ({self.old_bytes / 1e6:.1f} MB of text) into the store, "
            f"updated {self.results} results, trimmed {self.jobs} recorded jobs' hashes, "
            f"indexed {self.indexed} old matches in their bots' lists, "
            f"counted {self.pair_tables} games' pair tables from their results"
        )


def new_shape(result_text: str, replay_text: str, now: float) -> str:
    """Returns a result JSON of the old shape in the one shape results are stored in
    (``store.stored_result``: what recording writes)."""
    return store.stored_result(json.loads(result_text), replays.digest(replay_text), now)


def migrate(
    client: redis.Redis, progress: Callable[[MigrationReport], None] = lambda _: None
) -> MigrationReport:
    """Moves every old replay into the store and trims recorded jobs; returns what it did. Calls
    ``progress`` after each batch."""
    target = replays.store_for(client)
    report = MigrationReport()
    for game in GAMES:
        report.indexed += _index_old_matches(client, game)
        report.pair_tables += _count_pair_table(client, game)
    prefix = keys.replay("")
    for key in client.scan_iter(match=keys.replay("*"), count=BATCH):
        _move(client, target, key.removeprefix(prefix), report)
        if report.replays % BATCH == 0:
            progress(report)
    for match_id in client.sscan_iter(keys.RECORDED_SET, count=BATCH):
        report.jobs += _trim_job(client, match_id)
    progress(report)
    return report


def _index_old_matches(client: redis.Redis, game: str) -> int:
    """Puts a game's matches recorded before per-bot lists existed at the head of their bots' lists,
    oldest first; returns how many it indexed (0 when done before).

    Design detail: the old matches are those whose replay is still in the old place, and all of them
    are older than any match recorded since the upgrade (which went to the lists' tails), so one
    LPUSH per bot in reverse order puts them where they belong. A flag in ``keys.MIGRATIONS``, set in
    the same transaction, makes a rerun (or a second migration at once) skip the game.
    """
    flag = f"bot-lists:{game}"
    old_by_bot: dict[str, list[str]] = {}
    with client.pipeline() as pipe:
        try:
            pipe.watch(keys.MIGRATIONS)
            if pipe.hexists(keys.MIGRATIONS, flag):
                return 0
            for placements in store.iter_results(client, game):
                match_id = placements["match_id"]
                if client.exists(keys.replay(match_id)):
                    for bot in sorted({p["bot"] for p in placements["players"]}):
                        old_by_bot.setdefault(bot, []).append(match_id)
            pipe.multi()
            for bot, match_ids in old_by_bot.items():
                pipe.lpush(keys.bot_matches(game, bot), *reversed(match_ids))
            pipe.hset(keys.MIGRATIONS, flag, str(int(time.time())))
            pipe.execute()
        except redis.WatchError:  # another migration indexed the game meanwhile
            return 0
    return len({m for ids in old_by_bot.values() for m in ids})


def _count_pair_table(client: redis.Redis, game: str) -> int:
    """Counts a game's pair table anew from its results when they disagree (results recorded before
    pair tables existed), or once when its results were counted before pair tables kept the weight
    each result lacks (issue 37: a 3- to 6-seat match's pairwise results weigh less than a duel's,
    ``arena.ratings.pairs.match_weight``); returns 1 if it counted a table that has results, else 0.

    Design detail: recording increments ``keys.rating_updates`` with the pair table, so a counter
    below the results list's length means matches the table lacks. The table is counted into a
    temporary key and renamed over the old one in a transaction watching both, so a match recorded
    meanwhile makes it count again rather than be lost. A flag in ``keys.MIGRATIONS``
    (``sized-pairs:GAME``), set in the same transaction, marks a table whose results all carry their
    weight; until the migration sets it, the fit reads a result without its deficit as a duel's
    (weight 1), which is what every fit did before the weights.
    """
    results, updates, flag = keys.results(game), keys.rating_updates(game), f"sized-pairs:{game}"
    while True:
        with client.pipeline() as pipe:
            try:
                pipe.watch(results, updates, keys.MIGRATIONS)
                matches = pipe.llen(results)
                sized = pipe.hexists(keys.MIGRATIONS, flag)
                if int(pipe.get(updates) or 0) >= matches and sized:
                    return 0
                counts: dict[str, int] = {}
                for placements in store.iter_results(client, game):
                    fields = match_increments(store.rated_placements(placements), records_seats(game))
                    for field, n in fields:
                        counts[field] = counts.get(field, 0) + n
                temporary = keys.pairs(game) + ":counting"
                pipe.multi()
                pipe.delete(temporary)
                if counts:
                    pipe.hset(temporary, mapping=hash_fields(counts))
                    pipe.rename(temporary, keys.pairs(game))
                pipe.set(updates, matches)
                pipe.hset(keys.MIGRATIONS, flag, str(int(time.time())))
                pipe.execute()
                return 1 if matches else 0
            except redis.WatchError:  # a match was recorded meanwhile: count again
                continue


def _move(client: redis.Redis, target: replays.ReplayStore, match_id: str, report: MigrationReport) -> None:
    """Moves one match's old replay into the store and gives its result the new shape."""
    text = maybe_text(client.get(keys.replay(match_id)))
    if text is None:  # moved meanwhile by another migration
        return
    target.put(match_id, replays.REPLAY, text.encode())
    with client.pipeline() as pipe:
        result = maybe_text(client.get(keys.result(match_id)))
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


@dataclasses.dataclass
class ExpandReport:
    """What ``expand_stored`` did: replays rewritten whole, and those it could not regenerate."""

    expanded: int = 0
    failed: list[str] = dataclasses.field(default_factory=list)  # "MATCH_ID: why", each one

    def describe(self) -> str:
        """Returns the report as one line."""
        done = f"rewrote {self.expanded} replays kept as their decisions as whole replays"
        if not self.failed:
            return done
        return f"{done}; {len(self.failed)} could not be read or regenerated: {self.failed[0]}"


def expand_stored(target: replays.ReplayStore) -> ExpandReport:
    """Rewrites every replay the store keeps as its decisions (``arena.referee.compact``) as the
    whole replay, which any later arena reads without re-running the game: ``arena storage expand``,
    run by the arena version that recorded them before one whose rules for a game differ. Idempotent.

    Design detail: each entry is read, regenerated and written back only if it is still the bytes read
    (a match that retention deleted meanwhile is not brought back).
    """
    report = ExpandReport()
    for match_id, kind, _ in target.entries():
        if kind != replays.REPLAY:
            continue
        stored = target.read(match_id, kind)
        try:
            if stored is None or not replays.is_decisions_form(stored):
                continue
            whole = replays.compress(replays.decode(kind, stored))
        except replays.ReplayStoreError as exc:
            report.failed.append(f"{match_id}: {exc}")
            continue
        if target.read(match_id, kind) == stored:
            target.write(match_id, kind, whole)
            report.expanded += 1
    return report
