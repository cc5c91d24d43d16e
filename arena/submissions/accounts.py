"""Participants' accounts: whose a bot is, whether they may submit, and how much (quotas).

A participant registers once on a server (``arena account create NAME``) and gets an *account token*,
shown once and stored only as a salted scrypt hash (``arena.submissions.owner_secrets``). The token
names its account: ``account.NAME.SECRET``, SECRET being ``secrets.token_urlsafe(32)``, so the server
finds the one stored hash to check without a scan (``token_account``), and a token of any other shape
is refused without a hash. It authorises submitting, updating and removing the account's bots and
reading their output; it is not a seat's ``ARENA_TOKEN``, which a referee gives a bot for one match.

An account is ``pending`` (the server was started with ``--approve-accounts`` and the organiser has not
approved it yet: it may submit nothing), ``active``, or ``disabled`` by the organiser: it may submit
nothing, and its bots leave every schedule (``schedulable``: a ladder stops drawing them, a new
tournament naming one is refused); their recorded results stay.

Each submitted bot's hash names its account in its ``account`` field. A bot without one (submitted
before accounts, or without an account token on a server that allows it) is an account of its own,
``bot:NAME`` (``account_of``), whose credential is the bot's owner secret; the organiser can disable it
like any account. A created account's name follows the bot names' pattern, which has no ``:``, so the
two kinds never meet.

Quotas (``Quotas``, the server's options) are counted per account, every one of them in Redis:

- active bots per game: an account's bots playing one game (a new bot, or a bot taking up a game);
- submissions per hour: stored submissions (new bots and versions) in the last hour, a sliding window;
- uploads in flight: bodies the server is reading for the account at once (``begin_upload``);
- regression series at a time: the account's series waiting or running (``arena.schedule.regression``).

A refusal (``QuotaError``) names the quota, its limit and when it frees, and nothing is stored.

Design detail, no check-then-act race: one submission of an account at a time has its quotas checked
and is stored, under a lock in Redis (``keys.account_lock``, ``admitted``), so two uploads of one
account cannot both pass a quota that only one fits; the count of uploads in flight is one script
(``begin_upload``), each upload's entry carrying the time by which it ends at the latest, so a server
that dies mid-upload frees its slots.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import datetime
import math
import os
import re
import secrets
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence

import redis

from arena.games import get_game
from arena.queue import keys
from arena.queue.connection import maybe_text_list, members, text_hash, text_set
from arena.queue.jobs import run_script
from arena.submissions.archives import SubmissionError, shown_name
from arena.submissions.owner_secrets import could_be_owner_secret, hash_secret
from arena.submissions.owners import ACCOUNT_FIELD, LEGACY_PREFIX, owners

PENDING, ACTIVE, DISABLED = "pending", "active", "disabled"
TOKEN_PREFIX = "account"  # an account token is ``account.NAME.SECRET``
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")  # as a bot's name: no ':' and no '.'
HOUR = 3600.0
LOCK_MS = 60_000  # the longest one submission holds its account's lock (it is released when stored)
LOCK_WAIT = 10.0  # how long a submission waits for its account's lock before a 503
LIVE_SERIES = ("waiting", "running")  # arena.schedule.series.State values that hold a series slot


class AccountError(SubmissionError):
    """An account that cannot be made, found or used; ``status`` is the HTTP status the server answers
    (``retry_after``, seconds, when waiting helps)."""

    def __init__(self, message: str, status: int = 422, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


class QuotaError(AccountError):
    """A quota the request would exceed: the message names it, its limit and when it frees."""


@dataclasses.dataclass(frozen=True)
class Quotas:
    """What one account may do on a server (0: no limit): bots playing one game, stored submissions
    in the last hour, uploads read at once, regression series waiting or running at once."""

    bots_per_game: int = 3
    submissions_per_hour: int = 20
    uploads: int = 2
    series: int = 2

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            if getattr(self, field.name) < 0:
                raise ValueError(f"the quota {field.name} must be 0 (no limit) or more")


@dataclasses.dataclass(frozen=True)
class Account:
    """An account as the API shows it (never its token)."""

    name: str
    state: str
    created: float = 0.0
    changed: float = 0.0

    def to_json(self) -> dict:
        """Returns the account as ``arena account show --json`` prints it."""
        return dataclasses.asdict(self)


def validate_name(name: str) -> str:
    """Returns ``name`` if an account may be created under it, else raises AccountError (400)."""
    if not NAME_PATTERN.fullmatch(name):
        raise AccountError(
            f"invalid account name {shown_name(name)!r}: use 1-40 lowercase letters, digits, '-' or '_', "
            "starting with a letter or digit",
            400,
        )
    return name


def account_of(bot: str, fields: Mapping[str, str]) -> str:
    """Returns the account of bot ``bot`` whose stored hash is ``fields``: its ``account`` field, or
    ``bot:NAME`` for a bot without one (its own account, its credential the owner secret)."""
    return fields.get(ACCOUNT_FIELD) or LEGACY_PREFIX + bot


def is_own(account: str) -> bool:
    """Returns whether ``account`` is a bot's own account (``bot:NAME``), not a created one."""
    return account.startswith(LEGACY_PREFIX)


def owned(bot: str, fields: Mapping[str, str], account: str | None) -> bool:
    """Returns True when bot ``bot`` (its stored ``fields``) is ``account``'s, a created account the
    server checked the token of; False for a bot without an account reached without one (its owner
    secret decides); raises SubmissionError for any other pairing."""
    owner = fields.get("account")
    if owner == account:
        return owner is not None
    if owner:
        raise SubmissionError(f"bot {bot} belongs to another account: only its account may change it")
    raise SubmissionError(
        f"bot {bot} was submitted with an owner secret, not by an account: send that secret"
    )


def new_token(name: str) -> str:
    """Returns a fresh token of account ``name``: ``account.NAME.`` and 32 random bytes, base64url."""
    return f"{TOKEN_PREFIX}.{name}.{secrets.token_urlsafe(32)}"


def token_account(token: str) -> str | None:
    """Returns the account a token of an account token's shape names, None for any other token
    (no account's token can be it, so it is refused without a hash). Cheap."""
    parts = token.split(".")
    if len(parts) != 3 or parts[0] != TOKEN_PREFIX:
        return None
    name, secret = parts[1], parts[2]
    return name if NAME_PATTERN.fullmatch(name) and could_be_owner_secret(secret) else None


# KEYS: the account's hash, the set of accounts. ARGV: the name, then flat field/value pairs.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('SADD', KEYS[2], ARGV[1])
return 1
"""


def create(client: redis.Redis, name: str, approval: bool) -> tuple[Account, str]:
    """Creates account ``name`` (``pending`` with ``approval``, else ``active``); returns it and its
    token, which is not stored (only its scrypt hash). Raises AccountError: 400 for an invalid name,
    409 for a name taken."""
    validate_name(name)
    taken = AccountError(f"the account name {name!r} is taken: choose another", 409)
    if client.exists(keys.account(name)):
        raise taken
    token = new_token(name)
    now = repr(time.time())
    fields = {
        "state": PENDING if approval else ACTIVE,
        "token_hash": hash_secret(token),
        "created": now,
        "changed": now,
    }
    flat = [name, *(x for item in fields.items() for x in item)]
    if not run_script(client, _CREATE, (keys.account(name), keys.ACCOUNTS_SET), flat):
        raise taken  # another request made it meanwhile
    found = load(client, name)
    assert found is not None
    return found, token


def load(client: redis.Redis, name: str) -> Account | None:
    """Returns account ``name`` (a created one, or a bot's own ``bot:NAME`` while that bot exists
    without an account), or None."""
    fields = text_hash(client.hgetall(keys.account(name)))
    own = _own_bot(client, name)
    if not fields and own is None:
        return None
    created = float(fields.get("created") or (own or {}).get("created") or 0)
    return Account(name, fields.get("state", ACTIVE), created, float(fields.get("changed") or created))


def _own_bot(client: redis.Redis, account: str) -> dict[str, str] | None:
    """Returns the fields of the bot whose own account ``account`` is (``bot:NAME``, a bot stored
    without an account), or None."""
    if not is_own(account):
        return None
    games, owner, created = maybe_text_list(
        client.hmget(keys.bot(account[len(LEGACY_PREFIX) :]), ["games", "account", "created"])
    )
    return {"created": created or "0"} if games and not owner else None


def bots_of(client: redis.Redis, account: str) -> list[str]:
    """Returns the names of the account's bots, sorted."""
    if is_own(account):
        return [account[len(LEGACY_PREFIX) :]] if _own_bot(client, account) is not None else []
    return sorted(text_set(client.smembers(keys.account_bots(account))))


def list_all(client: redis.Redis) -> list[Account]:
    """Returns every created account, and every bot's own account the organiser has changed, by name."""
    found = (load(client, name) for name in sorted(text_set(client.smembers(keys.ACCOUNTS_SET))))
    return [a for a in found if a is not None]


def set_state(client: redis.Redis, name: str, state: str) -> Account:
    """Sets account ``name``'s state (``approve``: active, ``disable``: disabled); returns it. A bot's
    own account (``bot:NAME``) gets a record of its own. Raises AccountError (404) for no such account."""
    if load(client, name) is None:
        raise AccountError(
            f"no account {shown_name(name)!r}: see 'arena account list' (a bot submitted without an "
            "account is the account bot:NAME)",
            404,
        )
    with client.pipeline() as pipe:
        pipe.hset(keys.account(name), mapping={"state": state, "changed": repr(time.time())})
        pipe.sadd(keys.ACCOUNTS_SET, name)
        pipe.execute()
    found = load(client, name)
    assert found is not None
    return found


def check_state(client: redis.Redis, account: str) -> None:
    """Returns if ``account`` may submit; raises AccountError (403) saying why not: it waits for the
    organiser's approval, it is disabled, or it does not exist."""
    found = load(client, account)
    if found is None and not is_own(account):
        raise AccountError(
            f"no account {shown_name(account)!r} on this server: make one with 'arena account create NAME'",
            403,
        )
    state = found.state if found is not None else ACTIVE
    if state == PENDING:
        raise AccountError(
            f"account {account} waits for the organiser's approval: it can submit once the organiser "
            f"runs 'arena account approve {account}'",
            403,
        )
    if state == DISABLED:
        raise AccountError(f"account {account} is disabled by the organiser: it can submit nothing", 403)


# -- who is scheduled -------------------------------------------------------------------------------


def disabled_bots(client: redis.Redis, bots: Iterable[str]) -> dict[str, str]:
    """Returns the bots of ``bots`` whose account is disabled, each with its account (two round trips;
    a built-in or unknown name is nobody's, never disabled)."""
    owner_of = {bot: owner for bot, owner in owners(client, bots).items() if owner is not None}
    if not owner_of:
        return {}
    with client.pipeline(transaction=False) as pipe:
        for owner in owner_of.values():
            pipe.hget(keys.account(owner), "state")
        states = maybe_text_list(pipe.execute())
    return {
        bot: owner for (bot, owner), state in zip(owner_of.items(), states, strict=True) if state == DISABLED
    }


def schedulable(client: redis.Redis, bots: Sequence[str], at_least: int = 0) -> list[str]:
    """Returns ``bots`` without those whose account is disabled, in their order: what a ladder may draw
    now. Raises SubmissionError when fewer than ``at_least`` are left."""
    gone = disabled_bots(client, bots)
    left = [bot for bot in bots if bot not in gone]
    if len(left) < at_least:
        raise SubmissionError(
            f"bots {', '.join(sorted(gone))} left the schedule (their accounts are disabled), and fewer "
            f"than {at_least} bots are left to play"
        )
    return left


def refuse_disabled(client: redis.Redis, bots: Iterable[str]) -> None:
    """Raises SubmissionError naming the first of ``bots`` whose account is disabled (a new tournament
    may not seat it); returns if there is none."""
    gone = disabled_bots(client, bots)
    if gone:
        bot = sorted(gone)[0]
        raise SubmissionError(
            f"bot {bot}'s account {gone[bot]} is disabled by the organiser: leave {bot} out of the bots"
        )


# -- quotas -----------------------------------------------------------------------------------------


def _when(moment: float, now: float) -> str:
    """Returns when a quota frees, as ``HH:MM:SS UTC (in N s)``."""
    clock = datetime.datetime.fromtimestamp(moment, datetime.UTC).strftime("%H:%M:%S")
    return f"{clock} UTC (in {max(1, math.ceil(moment - now))} s)"


# KEYS: the account's uploads. ARGV: now, the time this upload ends at the latest, the limit (0: none),
# the upload's id, the key's lifetime in seconds. Returns {1} when taken, else {0, held, earliest end}.
_BEGIN_UPLOAD = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local held = redis.call('ZCARD', KEYS[1])
local limit = tonumber(ARGV[3])
if limit > 0 and held >= limit then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return {0, held, first[2]}
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[5])
return {1}
"""


def begin_upload(client: redis.Redis, account: str, limit: int, seconds: float) -> str:
    """Takes one of the account's ``limit`` upload slots (0: no limit) for at most ``seconds``; returns
    its id for ``end_upload``. Raises QuotaError (429) when every slot is held."""
    now, slot = time.time(), os.urandom(8).hex()
    lifetime = str(math.ceil(seconds) + 60)
    args = (repr(now), repr(now + seconds), str(limit), slot, lifetime)
    answer = run_script(client, _BEGIN_UPLOAD, (keys.account_uploads(account),), args)
    if int(answer[0]) != 1:
        ends = float(answer[2])
        raise QuotaError(
            f"quota 'uploads in flight' of account {account}: the server is reading {int(answer[1])} of "
            f"its uploads (the limit is {limit}); one frees as soon as it arrives, by {_when(ends, now)} "
            "at the latest",
            429,
            max(1, math.ceil(ends - now)),
        )
    return slot


def end_upload(client: redis.Redis, account: str, slot: str) -> None:
    """Frees an upload slot ``begin_upload`` took."""
    client.zrem(keys.account_uploads(account), slot)


def _lock(client: redis.Redis, account: str, wait: float = LOCK_WAIT) -> str:
    """Takes the account's submission lock (waiting up to ``wait`` seconds); returns its holder's id.
    Raises AccountError (503) when another submission holds it longer."""
    holder, end = os.urandom(8).hex(), time.monotonic() + wait
    while not client.set(keys.account_lock(account), holder, nx=True, px=LOCK_MS):
        if time.monotonic() > end:
            raise AccountError(
                f"another submission of account {account} is being stored: try again in a few seconds",
                503,
                5,
            )
        time.sleep(0.02)  # a submission holds it while it is checked and stored: milliseconds
    return holder


_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


@contextlib.contextmanager
def admitted(
    client: redis.Redis,
    account: str,
    bot: str,
    games: Sequence[str],
    quotas: Quotas,
    *,
    tested: bool = False,
) -> Iterator[None]:
    """Holds the account's lock while the block stores one submission of ``bot`` for ``games``
    (``tested``: with a regression series); first raises AccountError when the account may not submit
    (``check_state``) and QuotaError when the submission would exceed a quota, before the block runs,
    so nothing is stored. A block that ends without an exception counts as a submission."""
    holder = _lock(client, account)
    try:
        check_state(client, account)
        now = time.time()
        _check_bots_per_game(client, account, bot, games, quotas.bots_per_game)
        if tested:
            _check_series(client, account, bot, quotas.series)
        _check_submissions(client, account, quotas.submissions_per_hour, now)
        yield
        key = keys.account_submissions(account)
        with client.pipeline() as pipe:
            pipe.zadd(key, {f"{now!r}-{os.urandom(4).hex()}": now})
            pipe.zremrangebyscore(key, "-inf", now - HOUR)
            pipe.expire(key, int(HOUR) + 60)
            pipe.execute()
    finally:
        run_script(client, _UNLOCK, (keys.account_lock(account),), (holder,))


def _game_names(games: Iterable[str]) -> set[str]:
    """Returns the games' own names (an unknown one as given: the submission refuses it later)."""
    names = set()
    for game in games:
        try:
            names.add(get_game(game).spec.name)
        except ValueError:
            names.add(game)
    return names


def _bot_games(client: redis.Redis, bots: Sequence[str]) -> dict[str, set[str]]:
    """Returns each bot's games (empty for a name no bot has)."""
    with client.pipeline(transaction=False) as pipe:
        for bot in bots:
            pipe.hget(keys.bot(bot), "games")
        found = maybe_text_list(pipe.execute())
    return {bot: set((text or "").split(",")) - {""} for bot, text in zip(bots, found, strict=True)}


def _check_bots_per_game(
    client: redis.Redis, account: str, bot: str, games: Sequence[str], limit: int
) -> None:
    """Raises QuotaError (403) when ``bot`` would be one bot too many of the account in a game it does
    not play yet."""
    if limit <= 0:
        return
    mine = _bot_games(client, [bot])[bot]
    others = _bot_games(client, [b for b in bots_of(client, account) if b != bot])
    for game in sorted(_game_names(games) - mine):
        playing = sorted(b for b, played in others.items() if game in played)
        if len(playing) >= limit:
            raise QuotaError(
                f"quota 'active bots per game' of account {account}: it has {len(playing)} bots playing "
                f"{game} ({', '.join(playing)}), and the limit is {limit}; it frees when one of them is "
                "removed ('arena bots remove NAME')",
                403,
            )


def _check_submissions(client: redis.Redis, account: str, limit: int, now: float) -> None:
    """Raises QuotaError (429) when the account stored ``limit`` submissions in the last hour."""
    if limit <= 0:
        return
    key = keys.account_submissions(account)
    recent = client.zrangebyscore(key, now - HOUR, "+inf", withscores=True)
    if len(recent) >= limit:
        frees = float(recent[len(recent) - limit][1]) + HOUR
        raise QuotaError(
            f"quota 'submissions per hour' of account {account}: {len(recent)} submissions in the last "
            f"hour, and the limit is {limit}; the next frees at {_when(frees, now)}",
            429,
            max(1, math.ceil(frees - now)),
        )


def live_series(client: redis.Redis, account: str, but: str = "") -> list[str]:
    """Returns the account's regression series waiting or running (``BOT@VERSION``), those of bot
    ``but`` left out (a new version of it cancels them)."""
    bots = [b for b in bots_of(client, account) if b != but]
    with client.pipeline(transaction=False) as pipe:
        for bot in bots:
            pipe.zrange(keys.regression_series(bot), -2, -1)  # a bot has at most two live: see regression
        versions = [(bot, v) for bot, found in zip(bots, pipe.execute(), strict=True) for v in members(found)]
    with client.pipeline(transaction=False) as pipe:
        for _, version in versions:
            pipe.hget(keys.regression(version), "state")
        states = maybe_text_list(pipe.execute())
    return [f"{bot}@{v}" for (bot, v), state in zip(versions, states, strict=True) if state in LIVE_SERIES]


def _check_series(client: redis.Redis, account: str, bot: str, limit: int) -> None:
    """Raises QuotaError (429) when the account's other bots have ``limit`` series waiting or running."""
    if limit <= 0:
        return
    live = live_series(client, account, but=bot)
    if len(live) >= limit:
        raise QuotaError(
            f"quota 'regression series at a time' of account {account}: {len(live)} series are waiting "
            f"or running ({', '.join(live)}), and the limit is {limit}; it frees when one decides or is "
            "cancelled (see 'arena bots show NAME')",
            429,
        )


def usage(client: redis.Redis, account: str, quotas: Quotas) -> dict:
    """Returns what the account uses of each quota, beside its limit (0: no limit)."""
    now = time.time()
    bots = bots_of(client, account)
    per_game = collections.Counter(game for played in _bot_games(client, bots).values() for game in played)
    uploads = client.zcount(keys.account_uploads(account), now, "+inf")
    submitted = client.zcount(keys.account_submissions(account), now - HOUR, "+inf")
    return {
        "bots": bots,
        "bots_per_game": {"limit": quotas.bots_per_game, "used": dict(sorted(per_game.items()))},
        "submissions_per_hour": {"limit": quotas.submissions_per_hour, "used": int(submitted)},
        "uploads": {"limit": quotas.uploads, "used": int(uploads)},
        "series": {"limit": quotas.series, "used": live_series(client, account)},
    }
