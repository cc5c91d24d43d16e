"""Regression tests: a new version of a submitted bot plays the version it replaces until an SPRT decides.

``arena bots submit NAME ... --test-against previous`` notes on the new version (``request``) the bot's
active version at that moment, the SPRT's hypotheses and a budget of games. The series starts when the
new version becomes active (``activated``): at once on this machine, after its smoke match passes on a
server (``arena.queue.smoke``). By default it is fishtest's non-regression test: H0 says the new
version is 10 Elo weaker than the old one (a regression), H1 that it is as strong (elo0=-10, elo1=0,
alpha=beta=0.05), at most ``DEFAULT_MAX_GAMES`` games.

Games come in pairs: one deal (a keyed seed, ``arena.seeds.keyed_seed``) played twice with the seats
swapped, each game with fresh bot processes, so the luck of the deal cancels out and the pentanomial
model applies (``arena.ratings.sprt``). A worker records each game of a series with ``finish_game``:
one script marks the job recorded, adds its match id to the recorded set (a game recorded twice
counts once) and, when the other game of its pair is in, adds the pair's score to the counts ``p0``..``p4``.
Then ``advance`` recomputes the LLR from the counts and either stores the verdict (H0: regression, H1:
no regression, ``none`` when the budget ran out or the games could not be played) or queues the next
pairs, keeping ``AHEAD`` pairs queued or playing. ``advance`` reads everything from Redis and may run
any number of times, from any worker, in any order: a worker killed between recording and advancing
has not acknowledged the game's job yet, so the worker that reclaims it advances the series
(``resume``).

Design detail, not rated: both seats are the same bot (``NAME`` and ``NAME~previous``), and the
leaderboard's tables per bot name (its latest version, its recent matches) cannot hold two versions of
one bot in one match; a regression game leaves its score in the series, not a result or a rating, as a
smoke match does.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import time
from collections.abc import Callable

import redis

from arena.queue import keys
from arena.queue.jobs import JobStatus, MatchJob, enqueue, ensure_group, run_script
from arena.queue.store import FINISH_JOB_FUNCTION, JOB_TTL
from arena.queue.submissions import Submission, SubmissionError
from arena.ratings.sprt import PENTANOMIAL, Sprt, SprtParams, SprtSpecError
from arena.referee.record import MatchRecord
from arena.seeds import fresh_seed, keyed_seed, platform_key

DEFAULT_PARAMS = SprtParams(elo0=-10.0, elo1=0.0)  # fishtest's non-regression bounds
DEFAULT_MAX_GAMES = 400
MAX_GAMES_LIMIT = 20_000  # a budget larger than this is refused: every game is a job
AHEAD = 3  # pairs of a series queued or playing at once
MAX_VOID = 3  # pairs that could not be played (a job dead-lettered) after which the series stops
TARGETS = ("previous",)  # what --test-against accepts
PREVIOUS_SUFFIX = "~previous"  # the old version's seat name (a name no submitted bot can have)
_MATCH_ID = re.compile(r"^regression-((?:builtin-)?[0-9a-f]{12})-p(\d+)([ab])$")


class State(enum.StrEnum):
    """Where a series is, the ``state`` field of ``keys.regression(version)``."""

    WAITING = "waiting"  # requested; starts when the new version becomes active
    RUNNING = "running"  # pairs of games queued or playing
    DONE = "done"  # ``verdict`` stored; games still in flight are not counted


@dataclasses.dataclass(frozen=True)
class Request:
    """What a submission asks for: a test against its bot's active version, with these bounds."""

    params: SprtParams = DEFAULT_PARAMS
    max_games: int = DEFAULT_MAX_GAMES


def parse_request(test_against: str | None, sprt: str | None, max_games: int | None = None) -> Request | None:
    """Returns the regression test a submission's options ask for (None without ``--test-against``);
    raises SubmissionError for a target other than ``previous``, a bad ``--sprt`` text or budget."""
    if test_against is None:
        if sprt is not None or max_games is not None:
            raise SubmissionError("--sprt is for a regression test: add --test-against previous")
        return None
    if test_against not in TARGETS:
        raise SubmissionError(f"--test-against {test_against!r}: the only choice is 'previous'")
    try:
        params = SprtParams.parse(sprt) if sprt is not None else DEFAULT_PARAMS
    except SprtSpecError as exc:
        raise SubmissionError(f"--sprt: {exc}") from None
    budget = DEFAULT_MAX_GAMES if max_games is None else max_games
    if not 2 <= budget <= MAX_GAMES_LIMIT:
        raise SubmissionError(f"a regression test plays 2 to {MAX_GAMES_LIMIT:,} games, not {budget}")
    return Request(params, budget)


def previous(client: redis.Redis, bot: str) -> str:
    """Returns the bot's active version, the one a new version is tested against; raises
    SubmissionError when the bot has none (a first submission has nothing to regress from)."""
    version = client.hget(keys.bot(bot), "version")
    if not version:
        raise SubmissionError(
            f"--test-against previous: bot {bot} has no active version to test against; "
            "submit it once without --test-against"
        )
    return version


# KEYS: the series hash. ARGV: flat field/value pairs. Writes only if no series exists for the version.
_REQUEST = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""


def request(client: redis.Redis, bot: str, new: str, old: str, wanted: Request) -> bool:
    """Notes that version ``new`` of ``bot`` is to be tested against ``old`` (its active version when
    it was submitted), in the bot's first game; returns False if the version has a series already.
    Raises SubmissionError for an unknown bot, or when ``new`` is ``old`` (nothing to test)."""
    if new == old:
        raise SubmissionError(f"bot {bot}: version {new} is the active one already; nothing to test")
    games = client.hget(keys.bot(bot), "games")
    if not games:
        raise SubmissionError(f"no submitted bot {bot!r}: see 'arena bots list'")
    p = wanted.params
    fields = {
        "bot": bot,
        "game": games.split(",")[0],
        "new": new,
        "old": old,
        "elo0": repr(p.elo0),
        "elo1": repr(p.elo1),
        "alpha": repr(p.alpha),
        "beta": repr(p.beta),
        "max_games": str(wanted.max_games),
        "seed": str(fresh_seed()),
        "state": State.WAITING.value,
        "created": repr(time.time()),
        "queued": "0",
        "void": "0",
    }
    flat = [x for item in fields.items() for x in item]
    return bool(run_script(client, _REQUEST, (keys.regression(new),), flat))


# KEYS: series hash, bot hash. ARGV: version, waiting, running, now.
_ACTIVATED = """
if redis.call('HGET', KEYS[1], 'state') ~= ARGV[2] then return 0 end
if redis.call('HGET', KEYS[2], 'version') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[3], 'started', ARGV[4])
return 1
"""


def activated(client: redis.Redis, bot: str, version: str) -> bool:
    """Starts the series requested for ``version`` if it is waiting and the version is now the bot's
    active one, queuing its first pairs; returns whether it started."""
    args = (version, State.WAITING.value, State.RUNNING.value, repr(time.time()))
    if not run_script(client, _ACTIVATED, (keys.regression(version), keys.bot(bot)), args):
        return False
    advance(client, version)
    return True


def params_of(fields: dict[str, str]) -> SprtParams:
    """Returns the SPRT parameters stored in a series hash."""
    return SprtParams(*(float(fields[k]) for k in ("elo0", "elo1", "alpha", "beta")))


def test_of(fields: dict[str, str]) -> Sprt:
    """Returns the SPRT of a series hash: its parameters and pentanomial counts."""
    return Sprt(params_of(fields), tuple(int(fields.get(f"p{k}", 0)) for k in range(PENTANOMIAL)))


def advance(client: redis.Redis, version: str) -> str | None:
    """Moves the running series of ``version`` on: stores its verdict when the LLR crossed a bound or
    it cannot go on, else queues pairs until ``AHEAD`` are in flight; returns the verdict, or None
    while it runs. Safe to call any number of times: it reads the series and writes under WATCH."""
    key = keys.regression(version)
    with client.pipeline() as pipe:
        while True:
            try:
                pipe.watch(key)
                fields = pipe.hgetall(key)
                if fields.get("state") != State.RUNNING:
                    return fields.get("verdict") or None
                verdict, reason = _decide(client, fields)
                if verdict is not None:
                    update = _verdict_fields(fields, verdict, reason)
                else:  # enqueueing is idempotent: a retry after a WatchError queues nothing twice
                    update = {"queued": str(_queue_pairs(client, version, fields))}
                pipe.multi()
                pipe.hset(key, mapping=update)
                pipe.execute()
                return verdict
            except redis.WatchError:
                continue


def _decide(client: redis.Redis, fields: dict[str, str]) -> tuple[str | None, str]:
    """Returns the verdict a series has reached and why it stopped early (or (None, ""))."""
    test = test_of(fields)
    if test.verdict is not None:
        return test.verdict, ""
    new, old = fields["new"], fields["old"]
    gone = [v for v in (new, old) if not client.exists(keys.bot_version(v))]
    if gone:
        return "none", f"version {gone[0]} was removed before the test decided"
    void = int(fields["void"])
    if void >= MAX_VOID:
        why = fields.get("error") or "no error given"
        return "none", f"{void} pairs of games could not be played; the last error: {why}"
    if test.games + 2 * void >= int(fields["max_games"]):
        return "none", f"the budget of {fields['max_games']} games ran out before the test decided"
    return None, ""


def _verdict_fields(fields: dict[str, str], verdict: str, reason: str) -> dict[str, str]:
    """Returns the fields that close a series with ``verdict``."""
    test = test_of(fields)
    return {
        "state": State.DONE.value,
        "verdict": verdict,
        "reason": reason,
        "llr": repr(test.llr),
        "finished": repr(time.time()),
    }


def _queue_pairs(client: redis.Redis, version: str, fields: dict[str, str]) -> int:
    """Queues the series' next pairs (idempotently: a pair's match ids are fixed) so that ``AHEAD``
    are queued or playing, within the budget; returns how many pairs are queued in all."""
    settled = sum(test_of(fields).counts) + int(fields["void"])
    queued = int(fields["queued"])
    target = max(queued, min(int(fields["max_games"]) // 2, settled + AHEAD))
    if target > queued:
        ensure_group(client)
        key = platform_key()
        for pair in range(queued, target):
            for half in "ab":
                enqueue(client, game_job(fields, version, pair, half, key))
    return target


def game_job(fields: dict[str, str], version: str, pair: int, half: str, key: bytes) -> MatchJob:
    """Returns the job of one game of a series: in game ``a`` the new version holds seat 0, in game
    ``b`` seat 1, on the same keyed deal, each with fresh bot processes."""
    bot, new, old = fields["bot"], fields["new"], fields["old"]
    seats = [(bot, new), (bot + PREVIOUS_SUFFIX, old)]
    if half == "b":
        seats.reverse()
    return MatchJob(
        match_id=f"regression-{version}-p{pair}{half}",
        game=fields["game"],
        seed=keyed_seed(key, int(fields["seed"]), "regression", version, pair),
        bots=tuple(b for b, _ in seats),
        versions=tuple(v for _, v in seats),
        fresh_bots=True,
    )


def series_of(job: MatchJob) -> tuple[str, int, str] | None:
    """Returns (version, pair, half) of a regression series' game, or None for any other job."""
    found = _MATCH_ID.fullmatch(job.match_id)
    return (found[1], int(found[2]), found[3]) if found else None


def half_points(record: MatchRecord, seat: int) -> int:
    """Returns the new version's score in half points: 2 ranked ahead, 1 level, 0 behind (a forfeited
    seat is ranked last, so a forfeit loses)."""
    mine = record.players[seat].rank
    theirs = record.players[1 - seat].rank
    return 2 if mine < theirs else 1 if mine == theirs else 0


# KEYS: recorded set, job stream, job hash, series hash. ARGV: match id, group, entry id, recorded
# status, job TTL, pair, half, half points of the new version, running state. (No XACK: see
# ``finish_game``.)
_FINISH_GAME = (
    FINISH_JOB_FUNCTION
    + """
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
finish_job(KEYS[3], ARGV[4], ARGV[5])
if redis.call('HGET', KEYS[4], 'state') ~= ARGV[9] then return 1 end
if redis.call('HEXISTS', KEYS[4], 'v' .. ARGV[6]) == 1 then return 1 end
redis.call('HSET', KEYS[4], 's' .. ARGV[6] .. ARGV[7], ARGV[8])
local other = redis.call('HGET', KEYS[4], 's' .. ARGV[6] .. (ARGV[7] == 'a' and 'b' or 'a'))
if not other then return 1 end
local names = {'losses', 'draws', 'wins'}
for _, points in ipairs({tonumber(ARGV[8]), tonumber(other)}) do
  redis.call('HINCRBY', KEYS[4], names[points + 1], 1)
end
redis.call('HINCRBY', KEYS[4], 'p' .. (tonumber(ARGV[8]) + tonumber(other)), 1)
return 1
"""
)


def finish_game(client: redis.Redis, job: MatchJob, record: MatchRecord, entry_id: str = "") -> bool:
    """Records a played game of a series once, advances the series, then acknowledges the job's
    stream entry (``entry_id``, if any); returns False if the game was recorded already (then it
    counts nothing).

    Design detail: the acknowledgement comes last, so a worker killed before it has advanced leaves
    the entry pending; the worker that reclaims it finds the job recorded and calls ``resume``."""
    found = series_of(job)
    if found is None:
        raise ValueError(f"{job.match_id} is not a game of a regression series")
    version, pair, half = found
    points = half_points(record, 0 if half == "a" else 1)  # the new version's seat (game_job)
    args = (job.match_id, keys.WORKERS_GROUP, entry_id, JobStatus.RECORDED.value, JOB_TTL)
    args += (str(pair), half, str(points), State.RUNNING.value)
    script_keys = (keys.RECORDED_SET, keys.JOBS_STREAM, keys.job(job.match_id), keys.regression(version))
    new = bool(run_script(client, _FINISH_GAME, script_keys, args))
    advance(client, version)
    if entry_id:
        client.xack(keys.JOBS_STREAM, keys.WORKERS_GROUP, entry_id)
    return new


def resume(client: redis.Redis, match_id: str) -> None:
    """Advances the series of ``match_id`` if it is a series game (a reclaimed stream entry of a game
    recorded by a worker that died before acknowledging it); does nothing for any other match."""
    found = _MATCH_ID.fullmatch(match_id)
    if found:
        advance(client, found[1])


# KEYS: series hash. ARGV: pair, running state, error.
_VOID = """
if redis.call('HGET', KEYS[1], 'state') ~= ARGV[2] then return 0 end
local pair = ARGV[1]
if redis.call('HEXISTS', KEYS[1], 'v' .. pair) == 1 then return 0 end
local played = redis.call('HMGET', KEYS[1], 's' .. pair .. 'a', 's' .. pair .. 'b')
if played[1] and played[2] then return 0 end
redis.call('HSET', KEYS[1], 'v' .. pair, 1, 'error', ARGV[3])
redis.call('HINCRBY', KEYS[1], 'void', 1)
return 1
"""


def void_game(client: redis.Redis, job: MatchJob, error: str = "") -> None:
    """Voids the pair of a series game that could not be played (dead-lettered with ``error``), so it
    never counts, and advances the series (which queues another pair in its place, or stops after
    ``MAX_VOID``, saying the last error)."""
    found = series_of(job)
    if found is None:
        return
    version, pair, _ = found
    run_script(client, _VOID, (keys.regression(version),), (str(pair), State.RUNNING.value, error[:500]))
    advance(client, version)


def status(client: redis.Redis, version: str) -> dict | None:
    """Returns the regression series of ``version`` as ``arena bots show --json`` and the web page
    show it, or None when none was requested: state, verdict ("H0", "H1", "none" or None while it
    runs), reason, llr, lower, upper, elo0, elo1, alpha, beta, games, max_games, wins, draws, losses
    (of the new version), pentanomial, bot, game, new, old."""
    fields = client.hgetall(keys.regression(version))
    if not fields:
        return None
    test = test_of(fields)
    p = test.params
    return {
        "state": fields["state"],
        "verdict": fields.get("verdict") or None,
        "reason": fields.get("reason", ""),
        "llr": round(float(fields.get("llr", test.llr)), 4),
        "lower": round(p.lower, 4),
        "upper": round(p.upper, 4),
        **{"elo0": p.elo0, "elo1": p.elo1, "alpha": p.alpha, "beta": p.beta},
        "games": test.games,
        "max_games": int(fields["max_games"]),
        **{k: int(fields.get(k, 0)) for k in ("wins", "draws", "losses")},
        "pentanomial": list(test.counts),
        **{k: fields[k] for k in ("bot", "game", "new", "old")},
    }


def for_bot(client: redis.Redis, candidate: str, version: str) -> dict | None:
    """Returns the regression series of a bot's newest version that has one (its candidate's, else
    its active version's), or None."""
    for wanted in (candidate, version):
        found = status(client, wanted) if wanted else None
        if found is not None:
            return found
    return None


VERDICT_WORDS = {
    "H1": "no regression (H1 accepted)",
    "H0": "a regression (H0 accepted)",
    "none": "no verdict",
}


def format_lines(state: dict) -> list[str]:
    """Returns the lines of ``arena bots show`` about a regression series (``status``)."""
    hypotheses = f"H0: elo {state['elo0']:g}, H1: elo {state['elo1']:g}"
    bounds = f"{hypotheses}, alpha {state['alpha']:g}, beta {state['beta']:g}"
    head = f"regression: {state['new']} against {state['old']} in {state['game']} ({bounds})"
    if state["state"] == State.WAITING:
        return [head, "  waiting: starts when this version becomes active (its smoke match passes)"]
    verdict = VERDICT_WORDS.get(state["verdict"] or "", "running")
    counts = f"W/D/L {state['wins']}/{state['draws']}/{state['losses']}"
    llr = f"LLR {state['llr']:.2f} ({state['lower']:.2f}, {state['upper']:.2f})"
    lines = [
        head,
        f"  {verdict}: {state['games']} of at most {state['max_games']} games, {counts}, {llr}",
        f"  pairs scoring 0, 0.5, 1, 1.5, 2: {', '.join(map(str, state['pentanomial']))}",
    ]
    return lines + ([f"  stopped: {state['reason']}"] if state["reason"] else [])


def submit_tested(
    client: redis.Redis, bot: str, wanted: Request | None, store: Callable[[], tuple[Submission, str | None]]
) -> tuple[Submission, str | None]:
    """Returns what ``store`` (a call of ``submissions.submit``) returns; with ``wanted``, the new
    version is first checked to have a version to regress from (the bot's active one, noted before the
    store), then its series is requested, and started at once if the version is active already (no
    smoke match on this machine; on a server it starts when the smoke match passes)."""
    old = previous(client, bot) if wanted is not None else ""
    found, secret = store()
    if wanted is not None:
        new = found.candidate or found.version
        request(client, bot, new, old, wanted)
        if not found.candidate:
            activated(client, bot, new)
    return found, secret


def for_name(client: redis.Redis, bot: str, game: str) -> dict | None:
    """Returns the regression series of a submitted bot's newest version (``for_bot``) when it is
    played in ``game``, or None (a built-in or unknown bot has none)."""
    candidate, version = client.hmget(keys.bot(bot), ["candidate", "version"])
    found = for_bot(client, candidate or "", version or "")
    return found if found is not None and found["game"] == game else None
