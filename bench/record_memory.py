"""Redis memory per recorded match, before and after the replay store, for each store.

Records ``--matches`` matches per game through the real recording script (``store.record``; each job
enqueued first, in a tournament, as the CLI does) into a fresh private redis-server, and reports
``INFO memory`` ``used_memory`` growth per match, the ``MEMORY USAGE`` of each of one match's own keys,
and the folder store's bytes on disk per match. "old" writes what recording wrote before the store
(plain replay, full job hash; the copy in arena/testing/legacy.py, which the migration's tests use).

    .venv/bin/python bench/record_memory.py [--matches 1000] [--games ninjan,pnrz] [--players 2,4]
        [--play random|bots]

Figures of 2026-12-05 (``--matches 1000 --play bots``: built-in bots' games, at most 4 players, the
bench has four bot names; replays kept as their decisions with their digest, zstd-15 with the game's
dictionary, compact results): Redis bytes for each match after the first 1,000 (the first ones also
pay ~0.6 MB of Redis's fixed costs), job hashes expired, with the Redis store / with the folder store,
and the folder's bytes on disk per match; "whole" is the Redis store before replays were kept as
their decisions:

    game          players   Redis store   folder store   folder disk    old   (whole)
    ninjan           2             1092            658           181   9609    1312
    ninjan           4             1364            797           267  17786    1901
    pnrz             2             1480            660           515  33744    2710
    pnrz             4             1548            803           473  30114    2598
    ninja-burger     2             1273            668           349  28580    2359
    ninja-burger     4             2024            805           893  70748    4662
    ninja-master     2             1065            666           151  10006    1320
    ninja-master     4             1361            805           295  27819    2262
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import redis

from arena.queue import keys, store
from arena.queue.connection import connect
from arena.queue.jobs import MatchJob, enqueue
from arena.referee.record import MatchRecord
from arena.storage import replays
from arena.testing import RedisServer, replay_of_random_game
from arena.testing.legacy import old_record
from bench.train_replay_dictionaries import lineup, replay_of_bots

SAMPLES = 20  # distinct games played per game name; each is recorded under many match ids
BOTS = ("alpha", "beta", "gamma", "delta")


def samples(game: str, players: int, play: str) -> list[tuple[str, MatchRecord]]:
    """Returns SAMPLES games of ``game`` between ``players`` bots named ``BOTS``, played by random
    policies (``play`` "random") or by built-in bots, random and heuristic ("bots"), as
    ``bench/train_replay_dictionaries.py`` draws them (other seeds than its corpus)."""
    names = list(BOTS[:players])
    if play == "random":
        return [replay_of_random_game(game, 500 + i, names, "SAMPLE") for i in range(SAMPLES)]
    rng = random.Random(f"record_memory/{game}/{players}")
    return [
        replay_of_bots(game, 500 + i, lineup(game, players, rng), "SAMPLE", names) for i in range(SAMPLES)
    ]


def record_all(
    client: redis.Redis, game: str, players: int, matches: int, way: str, play: str, first: int = 0
) -> None:
    """Records ``matches`` matches of ``game`` between ``players`` bots the ``way`` given ("old", or
    through the store), numbered from ``first``."""
    bots = BOTS[:players]
    played = samples(game, players, play)
    for i in range(first, first + matches):
        match_id = f"t1-r{i // 2 + 1}-g{i % 2 + 1}-s1"
        text, record = played[i % SAMPLES]
        text = text.replace('"match_id":"SAMPLE"', f'"match_id":"{match_id}"', 1)
        job = MatchJob(match_id, game, 500 + i % SAMPLES, bots, tournament="t1")
        enqueue(client, job)
        if way == "old":
            old_record(client, job, text)
        else:
            store.record(client, job, record, text, "0-1")


def own_keys(client: redis.Redis, match_id: str) -> dict[str, int]:
    """Returns the MEMORY USAGE of the keys one match owns alone."""
    named = {"result": keys.result(match_id), "job": keys.job(match_id), "stored": keys.stored(match_id)}
    named["replay (old)"] = keys.replay(match_id)
    return {name: client.memory_usage(key) or 0 for name, key in named.items() if client.exists(key)}


def shared_keys(client: redis.Redis, game: str, players: int) -> dict[str, int]:
    """Returns the MEMORY USAGE of the keys all matches share (divide by the matches for a share)."""
    named = {
        "recorded set": keys.RECORDED_SET,
        "results list": keys.results(game),
        "per-bot lists": keys.bot_matches(game, "alpha"),
        "tournament stream": keys.tournament_done("t1"),
        "jobs stream": keys.JOBS_STREAM,
    }
    usage = {name: client.memory_usage(key, samples=0) or 0 for name, key in named.items()}
    usage["per-bot lists"] *= players
    return usage


def expire_jobs(client: redis.Redis) -> bool:
    """Deletes the recorded jobs' hashes, as their expiry does a day after recording (the old way
    kept them for ever); returns True."""
    for batch in client.scan_iter(match=keys.job("*"), count=1000, _type="hash"):
        if client.ttl(batch) > 0:
            client.delete(batch)
    return True


def measure(game: str, players: int, matches: int, way: str, folder: Path, play: str) -> str:
    """Returns one line of figures for one game, player count and way of recording."""
    server = RedisServer(folder / f"redis-{game}-{players}-{way}")
    server.folder.mkdir()
    server.start()
    try:
        os.environ.pop(replays.ENV_STORE, None)
        if way == "folder":
            os.environ[replays.ENV_STORE] = str(folder / f"store-{game}-{players}")
        client = connect(server.url)

        def used() -> int:
            return client.info("memory")["used_memory"]

        before = used()
        record_all(client, game, players, matches, way, play)
        per_match = (used() - before) / matches
        expired = expire_jobs(client) and (used() - before) / matches
        halfway = used()  # Redis's fixed costs (script cache, buffers, first allocations) are paid
        record_all(client, game, players, matches, way, play, first=matches)
        marginal = expire_jobs(client) and (used() - halfway) / matches  # what one more match costs
        total = 2 * matches
        disk = sum(p.stat().st_size for p in (folder / f"store-{game}-{players}").rglob("*.z"))
        mine = ", ".join(f"{k} {v}" for k, v in own_keys(client, "t1-r1-g1-s1").items())
        shared = ", ".join(f"{k} {v / total:.0f}" for k, v in shared_keys(client, game, players).items())
        figures = f"{per_match:>5.0f} B/match in Redis ({expired:.0f} once the job hashes expired"
        figures += f"; {marginal:.0f} for each of the next {matches})"
        figures += f", {disk / total:>5.0f} B/match in the folder"
        return f"{game:<13}{players}p {way:<7}{figures}; own keys: {mine}; shares: {shared}"
    finally:
        server.kill()
        os.environ.pop(replays.ENV_STORE, None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--players", default="2,4", help="player counts, comma-separated")
    parser.add_argument("--play", choices=("random", "bots"), default="random", help="who plays the games")
    parser.add_argument("--games", default="ninjan,pnrz,ninja-burger,ninja-master")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for game in args.games.split(","):
            for players in map(int, args.players.split(",")):
                for way in ("old", "redis", "folder"):
                    print(measure(game, players, args.matches, way, Path(tmp), args.play), flush=True)


if __name__ == "__main__":
    main()
