"""What older releases wrote to Redis, for the tests of ``arena storage migrate`` and for
bench/record_memory.py's "old" figures: a tiny copy of their writes, kept here so that both use the
same one."""

from __future__ import annotations

import json
from typing import Any

from arena.testing.playouts import replay_of_random_game


def old_record(client: Any, job: Any, text: str) -> None:
    """Records a match exactly as ``store._record_commands`` did before the replay store (a tiny copy
    of its writes): plain replay in ``arena:replay:ID``, result with ``replay_lines`` and no digest,
    the job's whole hash kept. ``client`` is a ``redis.Redis``, ``job`` an ``arena.queue.jobs.MatchJob``
    whose game was played by ``replay_of_random_game`` (``text`` is its replay)."""
    from arena.queue import keys, store
    from arena.ratings.pairs import match_fields

    _, match = replay_of_random_game(job.game, job.seed, list(job.bots), job.match_id)
    placements = store.placements_json(match, job)
    result = json.dumps(
        {"match_id": job.match_id, **match.to_json(), "replay_lines": text.count("\n")}, separators=(",", ":")
    )
    with client.pipeline() as pipe:
        pipe.sadd(keys.RECORDED_SET, job.match_id)
        pipe.set(keys.result(job.match_id), result)
        pipe.set(keys.replay(job.match_id), text)
        pipe.rpush(keys.results(job.game), json.dumps(placements, separators=(",", ":")))
        for field in match_fields(store.rated_placements(placements)):
            pipe.hincrby(keys.pairs(job.game), field, 1)
        pipe.incr(keys.rating_updates(job.game))
        pipe.hset(keys.job(job.match_id), mapping={"status": "recorded", "error": ""})
        pipe.execute()
