"""What the queue says happened, read behind the API at the end of a run: every scheduled ladder match
is recorded once, dead with its cause, or still in flight; anything else is lost or doubled.

A ladder ``L`` schedules ``total`` matches (its tournament hash); each finished one is appended to its
done stream (``match_id``, ``status``), and a recorded one to its game's results list. A match id in a
results list twice, or recorded twice in its done stream, is doubled; a scheduled match neither
recorded, dead nor queued or running is lost.
"""

from __future__ import annotations

import collections
import json
import re
from typing import Any

from arena.queue import keys
from arena.queue.connection import maybe_text, text_hash


def ladder_ledger(client: Any, ladder_id: str, game: str) -> dict[str, Any]:
    """Returns one ladder's counts: scheduled, recorded, dead, in flight, lost and doubled ids."""
    info = text_hash(client.hgetall(keys.tournament(ladder_id)))
    total = int(info.get("total", 0) or 0)
    done: collections.Counter[tuple[str, str]] = collections.Counter()
    statuses: dict[str, set[str]] = collections.defaultdict(set)
    for _, fields in client.xrange(keys.tournament_done(ladder_id)):
        mid, status = str(fields.get("match_id")), str(fields.get("status"))
        done[(mid, status)] += 1
        statuses[status].add(mid)
    listed = collections.Counter(
        json.loads(raw)["match_id"] for raw in client.lrange(keys.results(game), 0, -1)
    )
    mine = {mid: n for mid, n in listed.items() if mid.startswith(ladder_id)}
    in_flight = [
        mid
        for mid in scan_jobs(client, ladder_id)
        if maybe_text(client.hget(keys.job(mid), "status")) in ("queued", "running")
    ]
    recorded = statuses.get("recorded", set()) | set(mine)
    dead = statuses.get("dead", set()) - recorded
    doubled = sorted(
        {mid for mid, n in mine.items() if n > 1}
        | {m for (m, s), n in done.items() if n > 1 and s == "recorded"}
    )
    return {
        "scheduled": total,
        "recorded": len(recorded),
        "dead": len(dead),
        "in_flight": len(in_flight),
        "lost": max(0, total - len(recorded) - len(dead) - len(in_flight)),
        "doubled": doubled,
        "recorded_not_listed": sorted(statuses.get("recorded", set()) - set(mine)),
    }


def scan_jobs(client: Any, prefix: str) -> list[str]:
    """Returns the match ids of the job hashes whose id starts with ``prefix``."""
    start = len(keys.job(""))
    return [str(key)[start:] for key in client.scan_iter(match=keys.job(prefix) + "*", count=1000)]


def dead_letters(client: Any) -> dict[str, int]:
    """Returns the dead-letter stream's entries counted by cause (the error with ids and numbers
    blanked, so one cause is one line)."""
    causes: collections.Counter[str] = collections.Counter()
    for _, fields in client.xrange(keys.DEAD_STREAM):
        error = str(fields.get("error", "")) or "(no error given)"
        causes[re.sub(r"[0-9a-f]{6,}|\d+", "N", error)[:200]] += 1
    return dict(causes)


def job_bots(client: Any, match_id: str) -> list[str]:
    """Returns the bots of a match's job (empty when its hash is gone)."""
    raw = client.hget(keys.job(match_id), "job")
    return list(json.loads(raw)["bots"]) if raw else []


def redis_memory(client: Any) -> int:
    """Returns the bytes Redis uses (``INFO memory``'s used_memory)."""
    return int(client.info("memory")["used_memory"])
