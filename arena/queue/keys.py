"""Every Redis key arena uses, in one place. All start with ``arena:``.

Jobs flow through one stream; everything a finished match leaves behind is written in the same
transaction that acknowledges its job (see ``arena.queue.store.record``). Games of regression series
wait in a list of their own (``REGRESSION_QUEUE``) and enter the stream when a worker finds no other
job waiting there (``arena.queue.jobs.TAKE_FUNCTION``), or one in ``REGRESSION_SHARE`` enqueues of
another job (``arena.queue.jobs.enqueue``).
"""

from __future__ import annotations

PREFIX = "arena:"

JOBS_STREAM = PREFIX + "jobs"  # stream of match jobs: fields {"match_id", "job"}
REGRESSION_QUEUE = PREFIX + "jobs:regression"  # list of the match ids of regression games waiting, oldest
#   first: moved into JOBS_STREAM when nothing else waits there, or in turn (REGRESSION_TURN)
REGRESSION_STARVED = PREFIX + "regression-starved"  # sorted set: versions whose running series found
#   REGRESSION_QUEUE full, scored by REGRESSION_STARVED_SEQ; fed first when room frees (schedule.regression)
REGRESSION_STARVED_SEQ = PREFIX + "regression-starved:seq"  # counter giving each entry above a new score
REGRESSION_TURN = PREFIX + "jobs:regression-turn"  # counter of enqueued jobs: every REGRESSION_SHARE-th
#   moves the oldest waiting regression game into JOBS_STREAM just before itself (arena.queue.jobs)
WORKERS_GROUP = "arena:workers"  # the consumer group every worker joins
DEAD_STREAM = PREFIX + "dead"  # dead-letter stream: jobs that failed MAX_ATTEMPTS times, with the error
RECORDED_SET = PREFIX + "recorded"  # match ids whose result is recorded (the idempotency check)
TOURNAMENTS_SET = PREFIX + "tournaments"  # sorted set of tournament ids, scored by creation time
BOTS_SET = PREFIX + "bots"  # names of the submitted bots
MIGRATIONS = PREFIX + "migrations"  # hash of one-time migrations done: name -> time (arena.storage.migrate)
LADDERS = PREFIX + "ladders"  # hash of the ladders a server runs: id -> JSON (arena.schedule.ladder_runner)
ACCOUNTS_SET = PREFIX + "accounts"  # names of the participants' accounts (arena.submissions.accounts)


def job(match_id: str) -> str:
    """Returns the key of a job's hash: job JSON, status, attempts, last error, tournament."""
    return f"{PREFIX}job:{match_id}"


def result(match_id: str) -> str:
    """Returns the key of a recorded match's result (JSON)."""
    return f"{PREFIX}result:{match_id}"


def replay(match_id: str) -> str:
    """Returns the key where a match's replay (JSON Lines text) was kept before the replay store
    (``arena.storage.replays``); read only by ``arena storage migrate``, which moves it, and as a
    fallback until then (``store.replay_text``)."""
    return f"{PREFIX}replay:{match_id}"


def results(game: str) -> str:
    """Returns the key of a game's list of recorded matches' placements (JSON ``{"match_id",
    "players": [{"bot", "version", "rank"}]}``), in the order they were recorded."""
    return f"{PREFIX}results:{game}"


def bot_matches(game: str, bot: str) -> str:
    """Returns the key of a bot's list of the match ids it played in ``game``, in the order they were
    recorded: a bot's page and head-to-head read its newest entries, never the whole history."""
    return f"{PREFIX}bot-matches:{game}:{bot}"


def pairs(game: str) -> str:
    """Returns the key of a game's pair table: a hash of counters, ``"a"`` -> matches of player ``a``,
    ``"a>b"`` -> a's pairwise wins over b, ``"a=b"`` -> their draws (``arena.ratings.pairs``)."""
    return f"{PREFIX}pairs:{game}"


def rating_updates(game: str) -> str:
    """Returns the key of a game's counter of recorded matches, incremented with its pair table: a
    cached fit that reflects another count is stale."""
    return f"{PREFIX}rating-updates:{game}"


def fit(name: str) -> str:
    """Returns the key of a cached fit's hash (``name`` a game, or ``tournament:ID``): ``updates``
    (the count of recorded matches it reflects), ``view`` (the JSON of its standings, win table or
    crosstable) and, for a game, ``bot:NAME`` per bot (versions, head to head; ``arena.ratings.views``)."""
    return f"{PREFIX}fit:{name}"


def refits(name: str) -> str:
    """Returns the key of the counter of fits computed for ``name`` (as in ``fit``)."""
    return f"{PREFIX}refits:{name}"


def tournament(tournament_id: str) -> str:
    """Returns the key of a tournament's hash: game, bots, format, players, rounds, seed, total."""
    return f"{PREFIX}tournament:{tournament_id}"


def tournament_done(tournament_id: str) -> str:
    """Returns the key of a tournament's stream of finished jobs ({"match_id", "status"}), which
    feeds the progress bar."""
    return f"{PREFIX}tournament:{tournament_id}:done"


def tournament_pairs(tournament_id: str) -> str:
    """Returns the key of a tournament's own pair table (as ``pairs``; its hash's ``recorded`` field
    counts the matches in it)."""
    return f"{PREFIX}tournament:{tournament_id}:pairs"


def bot(name: str) -> str:
    """Returns the key of a submitted bot's hash: games, kind, current version, secret hash, times."""
    return f"{PREFIX}bot:{name}"


def account(name: str) -> str:
    """Returns the key of an account's hash (``arena.submissions.accounts``): state (pending, active,
    disabled), token_hash (scrypt; none for a bot's own account ``bot:NAME``), created, changed."""
    return f"{PREFIX}account:{name}"


def account_bots(name: str) -> str:
    """Returns the key of the set of the bots an account submitted (each bot's hash names its account
    in its ``account`` field; a bot without one is its own account, ``bot:NAME``)."""
    return f"{PREFIX}account-bots:{name}"


def account_submissions(name: str) -> str:
    """Returns the key of an account's sorted set of its recent submissions, scored by their time:
    the quota of submissions per hour counts the last hour's."""
    return f"{PREFIX}account-submissions:{name}"


def account_uploads(name: str) -> str:
    """Returns the key of an account's sorted set of the uploads the server is reading for it, each
    scored by the time by which it ends at the latest (a server that died mid-upload frees its slot)."""
    return f"{PREFIX}account-uploads:{name}"


def account_lock(name: str) -> str:
    """Returns the key of the lock one submission of an account holds while its quotas are checked and
    it is stored: two uploads of one account cannot both pass a quota."""
    return f"{PREFIX}account-lock:{name}"


def session(digest: str) -> str:
    """Returns the key of a participant's web session's hash (``leaderboard.api.participant``), named
    by the SHA-256 of the session id its cookie carries, never by the id: account, csrf, the account
    token sealed under a key only the session id yields, created, expires. It expires with the session."""
    return f"{PREFIX}session:{digest}"


def bot_versions(name: str) -> str:
    """Returns the key of the set of every version a submitted bot has had (still runnable by jobs)."""
    return f"{PREFIX}bot:{name}:versions"


def bot_version(version: str) -> str:
    """Returns the key of one immutable bot version's hash: kind, entry argv or built-in name, the
    packed directory (base64 tar.gz), sizes. Content-addressed: the version is the hash of its content."""
    return f"{PREFIX}bot-version:{version}"


def played_versions(game: str) -> str:
    """Returns the key of a game's hash bot -> version it played in its latest recorded match."""
    return f"{PREFIX}played-versions:{game}"


def retired_players(game: str) -> str:
    """Returns the key of a game's set of retired player ids (``bot@version`` of removed bots): still
    in the rating fit, left out of the leaderboard's views (``arena.submissions.registry.remove``)."""
    return f"{PREFIX}retired-players:{game}"


def smoke(version: str) -> str:
    """Returns the key of a bot version's smoke-match hash: status (pending, passed, failed), reason,
    log (the tail of the bot's log), match_id (of the latest request), bot, updated."""
    return f"{PREFIX}smoke:{version}"


def regression(version: str) -> str:
    """Returns the key of a version's regression series against the version it replaced
    (``arena.schedule.regression``): bot, game, new, old, the SPRT's bounds and budget, state, the
    pentanomial counts ``p0``..``p4``, each game's score and, once decided, the verdict."""
    return f"{PREFIX}regression:{version}"


def regression_series(bot: str) -> str:
    """Returns the key of a bot's sorted set of the versions that have a regression series, scored by
    when it was requested: where a new version finds the series it supersedes."""
    return f"{PREFIX}regression-series:{bot}"


def stored(match_id: str) -> str:
    """Returns the key of a match's hash in the Redis replay store: kind (``replay``, ``log-0``...) ->
    compressed bytes (``arena.storage.replays.RedisStore``)."""
    return f"{PREFIX}stored:{match_id}"


STORE_PENDING = PREFIX + "store-pending"  # sorted set: match ids put in a folder store and not yet
#   recorded, scored by the time of the put; the sweep deletes the entries of those left over an hour
RETENTION = PREFIX + "retention"  # hash: the organiser's ``replay_days``, ``replays_per_bot`` (0: no limit)
RETENTION_SWEPT = PREFIX + "retention:swept"  # set with a one-hour expiry by the sweep: at most one an hour


def retention_cursor(name: str) -> str:
    """Returns the key of a sweep's hash of cursors (``name``: ``days`` or ``per-bot``): list key ->
    how many of its oldest entries the sweep has dealt with already, so no sweep rereads them."""
    return f"{PREFIX}retention:cursor:{name}"
