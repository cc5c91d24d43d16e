"""Whose bot is whose: the account each bot belongs to, so one person's bots never share a rated table.

A submitted bot's hash (``keys.bot(name)``) names its account in the field ``account``. A bot stored
before accounts has none: it is an account of its own, ``bot:<name>``. A built-in bot named as such
(``random``, ``greedy``, ...) belongs to no participant (None): several built-ins may sit at one
table. A built-in registered under a name by a participant is a submitted bot, so it has that
participant's account.

Tournament plans (``arena.schedule.plan``) and the ladder's pairing (``arena.ratings.pairing``) take
the mapping read here and never seat two bots of one account in a rated match; ``sharing`` and
``described`` are what their refusals say.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import redis

from arena.queue import keys
from arena.queue.connection import maybe_text_list

ACCOUNT_FIELD = "account"  # the field of a bot's hash naming its account
LEGACY_PREFIX = "bot:"  # a bot stored before accounts is the account "bot:<name>"


def owners(client: redis.Redis, names: Iterable[str]) -> dict[str, str | None]:
    """Returns each bot's account (None for a platform built-in, a name no bot is stored under), read
    in one round trip."""
    ordered = list(dict.fromkeys(names))
    with client.pipeline(transaction=False) as pipe:
        for name in ordered:
            pipe.hmget(keys.bot(name), [ACCOUNT_FIELD, "games"])
        replies = pipe.execute()
    found: dict[str, str | None] = {}
    for name, reply in zip(ordered, replies, strict=True):
        account, games = maybe_text_list(reply)
        found[name] = account or (LEGACY_PREFIX + name if games is not None else None)
    return found


def sharing(names: Sequence[str], owner_of: Mapping[str, str | None]) -> dict[str, list[str]]:
    """Returns the accounts with more than one of ``names``, each with its bots in their order
    (built-ins, whose owner is None, never share).

    >>> sharing(["a1", "b", "a2", "random", "greedy"], {"a1": "ann", "a2": "ann", "b": "bob"})
    {'ann': ['a1', 'a2']}
    """
    by_account: dict[str, list[str]] = {}
    for name in names:
        account = owner_of.get(name)
        if account is not None:
            by_account.setdefault(account, []).append(name)
    return {account: bots for account, bots in by_account.items() if len(bots) > 1}


def apart(names: Sequence[str], owner_of: Mapping[str, str | None]) -> bool:
    """Returns True if no two of ``names`` belong to one account.

    >>> apart(["a1", "b", "random", "greedy"], {"a1": "ann", "a2": "ann", "b": "bob"})
    True
    >>> apart(["a1", "a2"], {"a1": "ann", "a2": "ann"})
    False
    """
    accounts = [owner_of.get(name) for name in names]
    known = [a for a in accounts if a is not None]
    return len(set(known)) == len(known)


def tables(names: Sequence[str], owner_of: Mapping[str, str | None]) -> int:
    """Returns how many of ``names`` can sit at one table at most: one per account, every built-in.

    >>> tables(["a1", "a2", "b", "random"], {"a1": "ann", "a2": "ann", "b": "bob"})
    3
    """
    accounts = [owner_of.get(name) for name in names]
    return len({a for a in accounts if a is not None}) + accounts.count(None)


def described(shared: Mapping[str, Sequence[str]], most: int = 3) -> str:
    """Returns the bots that share an account, for a one-line error.

    >>> described({"ann": ["a1", "a2"], "bob": ["b1", "b2", "b3"]})
    'a1 and a2 share account ann; b1, b2 and b3 share account bob'
    """
    parts = []
    for account, bots in list(shared.items())[:most]:
        names = [b[:40] for b in bots[:5]] + ([f"{len(bots) - 5} more"] if len(bots) > 5 else [])
        listed = ", ".join(names[:-1]) + " and " + names[-1]
        parts.append(f"{listed} share account {account[:40]}")
    more = f"; and {len(shared) - most} more accounts" if len(shared) > most else ""
    return "; ".join(parts) + more


def never_meet(shared: Mapping[str, Sequence[str]]) -> str:
    """Returns the line that tells an organiser which bots of their tournament or ladder never meet.

    >>> never_meet({"ann": ["a1", "a2"]})
    "a1 and a2 share account ann: they never meet (one person's bots never share a rated table)"
    """
    return f"{described(shared)}: they never meet (one person's bots never share a rated table)"
