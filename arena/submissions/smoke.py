"""Smoke matches: a submitted version plays the built-in ``random`` once before it plays anyone.

The server queues one (``request_smoke``) when a version is submitted as a candidate (the bot hash's
field ``candidate``, see ``arena.submissions.registry.submit``). It is an ordinary job, played by a
worker in the sandbox like every match, marked ``smoke``: the worker does not record it as a result
(no rating, no leaderboard, no results list) but stores the version's smoke status instead
(``finish``). The version passes when its seat joined and played to the end without forfeiting; then,
in the same script, the bot's active ``version`` becomes that candidate, but only if the candidate is
still the one tested (a newer submission is not overwritten by an older one's pass). Otherwise the
status says why (never joined, crashed, ran out of strikes, the build failed) with the tail of the
bot's log, which ``arena bots show`` and the server's API show to the submitter.

A smoke job whose version is neither the bot's candidate nor its active version when a worker takes
it (a newer version was submitted, or the bot was removed) is not played at all
(``skip_if_superseded``): no build, no match, status ``superseded``. Otherwise one address submitting
30 versions a minute would keep the workers busy with builds of up to 120 s each for versions nobody
will use.

Design detail: each request gets a fresh match id, stored in the status; a worker's verdict is kept
only if its match id is still the latest request's, so a re-request supersedes a slow earlier one.
"""

from __future__ import annotations

import enum
import secrets
import time
from pathlib import Path

import redis

from arena.queue import keys
from arena.queue.connection import hash_fields, maybe_text, text_hash
from arena.queue.jobs import JobStatus, MatchJob, enqueue, ensure_group, run_script
from arena.referee.processes import READY_LINE
from arena.referee.replay import ReplayError, parse_lines
from arena.referee.runner import GameResult
from arena.schedule import regression
from arena.submissions import registry

OPPONENT = "random"  # the built-in bot every candidate plays
LOG_LINES = 20  # lines of the bot's log kept in its smoke status


class SmokeStatus(enum.StrEnum):
    """A version's smoke status, the ``status`` field of ``keys.smoke(version)``."""

    PENDING = "pending"  # queued or being played
    PASSED = "passed"  # joined and played to the end; the bot's active version if still its candidate
    FAILED = "failed"  # see ``reason`` and ``log``
    SUPERSEDED = "superseded"  # not played: a newer version (or the bot's removal) came first


def request_smoke(client: redis.Redis, bot_name: str, version: str) -> str:
    """Queues a smoke match of ``bot_name`` at ``version`` against ``random`` in the bot's first game,
    marks the version's status pending and returns the match id; raises SubmissionError for an
    unknown bot or a version that is not the bot's."""
    games = maybe_text(client.hget(keys.bot(bot_name), "games"))
    if not games:
        raise registry.SubmissionError(f"no submitted bot {bot_name!r}: see 'arena bots list'")
    if not client.sismember(keys.bot_versions(bot_name), version):
        raise registry.SubmissionError(f"bot {bot_name} has no version {version!r}")
    game = games.split(",")[0]
    opponent = registry.resolve(client, game, OPPONENT)
    match_id = f"smoke-{version}-{secrets.token_hex(4)}"
    job = MatchJob(
        match_id, game, secrets.randbits(40), (bot_name, OPPONENT), versions=(version, opponent), smoke=True
    )
    fields = {"status": SmokeStatus.PENDING.value, "reason": "", "log": "", "match_id": match_id}
    fields |= {"bot": bot_name, "updated": repr(time.time())}
    client.hset(keys.smoke(version), mapping=hash_fields(fields))
    ensure_group(client)
    enqueue(client, job)
    return match_id


def status(client: redis.Redis, version: str) -> dict[str, str]:
    """Returns the version's smoke status (status, reason, log, match_id, bot, updated), or {} when
    no smoke match was ever requested for it."""
    return text_hash(client.hgetall(keys.smoke(version)))


def verdict(result: GameResult, bot: str) -> tuple[bool, str, str]:
    """Returns (passed, reason, log tail) of a played smoke match; the candidate holds seat 0."""
    player = result.record.players[0]
    log = log_tail(result.logs[0] if result.logs else None)
    if not player.forfeit:
        return True, "", log
    problems = [n for n in result.notes if n.startswith(f"bot {bot} ")]
    why = problems[0] if problems else result.failures.get(0, "")
    if not why:
        causes = strike_causes(result.replay_text, 0)
        why = f"forfeited after {player.strikes} strikes" + (f": {causes}" if causes else "")
    return False, why, log


# What each strike's code means to the bot's author, singular and plural (proto/arena/v1/arena.proto)
STRIKE_WORDS = {
    "ERROR_CODE_TIMEOUT": ("missed deadline", "missed deadlines"),
    "ERROR_CODE_ILLEGAL_ACTION": ("illegal action", "illegal actions"),
    "ERROR_CODE_BAD_INDEX": ("answer index out of range", "answer indexes out of range"),
    "ERROR_CODE_MALFORMED": ("malformed answer", "malformed answers"),
    "ERROR_CODE_UNEXPECTED_MESSAGE": ("unexpected message", "unexpected messages"),
    "ERROR_CODE_STALE_ANSWER": ("answer to a closed request", "answers to closed requests"),
}


def strike_causes(replay_text: str, seat: int) -> str:
    """Returns the seat's strikes in the replay counted by cause, each with its last message, e.g.
    ``"3 missed deadlines (the last: no answer within 2000 ms)"``: a bot that only timed out is not
    told it may have sent illegal actions. "" when the replay has none (or cannot be read)."""
    counts: dict[str, int] = {}
    last: dict[str, str] = {}
    try:
        lines = parse_lines(replay_text)  # the one reader of replay lines, checked
    except ReplayError:
        return ""
    for line in lines:
        if line["type"] == "strike" and line["seat"] == seat:
            counts[line["code"]] = counts.get(line["code"], 0) + 1
            last[line["code"]] = line["message"]
    parts = []
    for code, count in counts.items():
        one, many = STRIKE_WORDS.get(code, (code.lower(), code.lower()))
        said = f" (the last: {last[code]})" if last[code] else ""
        parts.append(f"{count} {one if count == 1 else many}{said}")
    return ", ".join(parts)


def log_tail(path: Path | None, lines: int = LOG_LINES) -> str:
    """Returns the last ``lines`` lines of a bot's log (without the worker's ready line), newline-joined."""
    if path is None:
        return ""
    try:
        with open(path, "rb") as log:
            log.seek(0, 2)
            log.seek(max(0, log.tell() - 16384))
            text = log.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    kept = [line[:300] for line in text.splitlines() if line.strip() and line != READY_LINE]
    return "\n".join(kept[-lines:])


# KEYS: smoke hash, bot hash, job hash, job stream. ARGV: match id, status, reason, log,
# version, passed (1/0), now, recorded status, group, entry id.
_FINISH = """
if redis.call('HGET', KEYS[1], 'match_id') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'status', ARGV[2], 'reason', ARGV[3], 'log', ARGV[4], 'updated', ARGV[7])
  if ARGV[6] == '1' and redis.call('HGET', KEYS[2], 'candidate') == ARGV[5] then
    redis.call('HSET', KEYS[2], 'version', ARGV[5], 'updated', ARGV[7])
    redis.call('HDEL', KEYS[2], 'candidate')
  end
end
redis.call('HSET', KEYS[3], 'status', ARGV[8], 'error', '')
if ARGV[10] ~= '' then redis.call('XACK', KEYS[4], ARGV[9], ARGV[10]) end
return 1
"""


def finish(
    client: redis.Redis, job: MatchJob, passed: bool, reason: str, log: str, entry_id: str = ""
) -> None:
    """Stores a smoke match's verdict, activates the candidate on a pass (only if it is still the
    bot's candidate) and acknowledges the job, atomically. A superseded request's verdict is dropped.
    The match id stays out of the recorded set: a smoke match is no result (its job's status alone
    stops a rerun)."""
    outcome = SmokeStatus.PASSED if passed else SmokeStatus.FAILED
    bot, version = job.bots[0], job.versions[0]
    run_script(
        client,
        _FINISH,
        (keys.smoke(version), keys.bot(bot), keys.job(job.match_id), keys.JOBS_STREAM),
        (
            job.match_id,
            outcome.value,
            reason,
            log,
            version,
            "1" if passed else "0",
            repr(time.time()),
            JobStatus.RECORDED.value,
            keys.WORKERS_GROUP,
            entry_id,
        ),
    )
    if passed:  # active now unless superseded: a regression series requested for it starts
        regression.activated(client, bot, version)


# KEYS: smoke hash, bot hash, job hash, job stream. ARGV: match id, version, status, reason, now,
# recorded status, group, entry id.
_SKIP = """
local wanted = redis.call('HMGET', KEYS[2], 'candidate', 'version')
if wanted[1] == ARGV[2] or wanted[2] == ARGV[2] then return 0 end
if redis.call('HGET', KEYS[1], 'match_id') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'status', ARGV[3], 'reason', ARGV[4], 'log', '', 'updated', ARGV[5])
end
redis.call('HSET', KEYS[3], 'status', ARGV[6], 'error', '')
if ARGV[8] ~= '' then redis.call('XACK', KEYS[4], ARGV[7], ARGV[8]) end
return 1
"""


def skip_if_superseded(client: redis.Redis, job: MatchJob, entry_id: str = "") -> bool:
    """Returns True, with the job acknowledged and the version's status ``superseded``, when the
    job's version is neither its bot's candidate nor its active version (nothing is built or played
    then); False, changing nothing, when it is one of them."""
    bot, version = job.bots[0], job.versions[0]
    reason = f"not played: {version} is no longer the candidate of bot {bot} (a newer version or removal)"
    skipped = run_script(
        client,
        _SKIP,
        (keys.smoke(version), keys.bot(bot), keys.job(job.match_id), keys.JOBS_STREAM),
        (
            job.match_id,
            version,
            SmokeStatus.SUPERSEDED.value,
            reason,
            repr(time.time()),
            JobStatus.RECORDED.value,
            keys.WORKERS_GROUP,
            entry_id,
        ),
    )
    return bool(skipped)


def could_not_play(client: redis.Redis, job: MatchJob, error: str) -> None:
    """Marks the version's smoke failed when its match was dead-lettered (the platform's fault, not
    the bot's: the submitter is told to try again)."""
    reason = f"the smoke match could not be played ({error}); submit again later"
    run_script(
        client,
        """if redis.call('HGET', KEYS[1], 'match_id') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'status', ARGV[2], 'reason', ARGV[3], 'updated', ARGV[4])
end""",
        (keys.smoke(job.versions[0]),),
        (job.match_id, SmokeStatus.FAILED.value, reason, repr(time.time())),
    )
