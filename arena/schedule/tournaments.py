"""Tournaments as the server and the single-machine CLI create and read them: the spec checked, the
plan queued, the progress, standings and results read back.

No web code here: ``arena tournament`` without a server calls these directly on its private Redis, and
``leaderboard.api.tournaments`` calls them for the API, so both check the same things in the same
order: the game and player count, the spec's limits (``TournamentSpec``), then each bot's version,
all before a single job is queued.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import redis

from arena.bots import builtin_bots
from arena.games import GameError, get_game
from arena.queue import keys, store
from arena.queue.connection import maybe_text, stream_entries, text_hash
from arena.queue.jobs import ensure_group
from arena.schedule import plan
from arena.schedule.plan import TournamentSpec
from arena.seeds import platform_key
from arena.storage import fits, retention
from arena.submissions import registry
from arena.submissions.accounts import refuse_disabled
from arena.submissions.owners import owners

RESULTS_PAGE_MAX = 500  # results returned by one page at most
STREAM_ID = re.compile(r"^(?:0|[0-9]{1,20}-[0-9]{1,20})$")  # a page's ``after``


class TournamentError(ValueError):
    """Tournament parameters that cannot make a tournament; the message says what to change."""


def make_spec(
    game: str,
    bots: list[str] | tuple[str, ...],
    format_: str = "round-robin",
    players: int = 2,
    rounds: int = 1,
    seed: int = 1,
    duplicate: bool = False,
    deadline_ms: int = 2000,
) -> TournamentSpec:
    """Returns the checked spec (without versions); raises TournamentError for bad parameters."""
    try:
        name = get_game(game).spec.name
        get_game(name).check_players(players)
    except GameError as exc:
        raise TournamentError(str(exc)) from None
    names = tuple(b.strip() for b in bots if b.strip())
    if len(names) < 2:
        raise TournamentError("a tournament needs at least two bot names, e.g. --bots greedy,random")
    try:
        return TournamentSpec(name, names, format_, players, rounds, seed, duplicate, deadline_ms)
    except ValueError as exc:
        raise TournamentError(str(exc)) from None


def with_versions(client: redis.Redis, spec: TournamentSpec) -> TournamentSpec:
    """Returns the spec with the version each bot plays and its account; raises TournamentError for an
    unknown bot, or for bots whose accounts leave a bot no table (``TournamentSpec``: one person's bots
    never share a rated table).

    Design detail: the accounts are checked first and built-in bots resolved last, since resolving one
    stores its version record: a refused tournament leaves Redis as it was.
    """
    owner_of = owners(client, spec.bots)
    try:
        spec = dataclasses.replace(spec, owners=tuple(owner_of[b] for b in spec.bots))
    except ValueError as exc:
        raise TournamentError(str(exc)) from None
    builtin = builtin_bots(spec.game)
    versions: dict[str, str] = {}
    try:
        refuse_disabled(client, spec.bots)  # a disabled account's bots enter no new tournament
        for bot in sorted(spec.bots, key=lambda b: b in builtin):
            versions[bot] = registry.resolve(client, spec.game, bot)
    except registry.SubmissionError as exc:
        raise TournamentError(str(exc)) from None
    return dataclasses.replace(spec, versions=tuple(versions[b] for b in spec.bots))


def start(client: redis.Redis, spec: TournamentSpec) -> tuple[int, int]:
    """Queues the tournament's matches (a spec with versions); returns (matches, newly queued).

    Queuing is idempotent: the same spec again queues nothing new (``arena.schedule.plan``).
    """
    try:
        jobs, new = plan.queue(client, spec, platform_key())  # checks every seat's version first
    except ValueError as exc:
        raise TournamentError(str(exc)) from None
    return len(jobs), new


def progress(client: redis.Redis, tournament_id: str) -> dict[str, Any] | None:
    """Returns a tournament's description with its counts (``total``, ``recorded``, ``dead``, ``done``
    as integers), or None if there is no such tournament."""
    meta = text_hash(client.hgetall(keys.tournament(tournament_id)))
    if not meta:
        return None
    counts = {k: int(meta.get(k) or 0) for k in ("total", "recorded", "dead")}
    return {**meta, **counts, "id": tournament_id, "done": counts["recorded"] + counts["dead"]}


def status(client: redis.Redis, tournament_id: str) -> dict[str, Any] | None:
    """Returns a tournament's progress and its standings (fitted to its own results), or None."""
    found = progress(client, tournament_id)
    if found is None:
        return None
    return {"tournament": found, "standings": fits.tournament_standings(client, tournament_id)}


def results_page(client: redis.Redis, tournament_id: str, after: str, limit: int) -> dict[str, Any]:
    """Returns up to ``limit`` finished matches of a tournament after stream id ``after`` ("0": from the
    start), each with its status and recorded result (None for a dead letter), and ``next``: the
    ``after`` of the following page, None at the end so far."""
    if not STREAM_ID.fullmatch(after):
        raise TournamentError(f"malformed page position {after[:40]!r}: give the 'next' of the previous page")
    start = f"({after}" if after != "0" else "-"
    entries = stream_entries(client.xrange(keys.tournament_done(tournament_id), min=start, count=limit))
    results = []
    for _, fields in entries:
        text = maybe_text(client.get(keys.result(fields["match_id"])))
        results.append({**fields, "result": None if text is None else store.result_fields(text)})
    return {"results": results, "next": entries[-1][0] if len(entries) == limit else None}


def queue_status(client: redis.Redis) -> dict[str, Any]:
    """Returns the queue's state: waiting and running jobs, recent tournaments, newest dead letters,
    and what the platform keeps (``retention.describe``)."""
    ensure_group(client)
    pending = client.xpending(keys.JOBS_STREAM, keys.WORKERS_GROUP)["pending"]
    group = next(g for g in client.xinfo_groups(keys.JOBS_STREAM) if g["name"] == keys.WORKERS_GROUP)
    return {
        "waiting": int(group.get("lag") or 0),
        "running": int(pending),
        "tournaments": store.tournaments(client),
        "dead": store.dead_letters(client),
        "retention": retention.describe(client),
    }
