"""Tournament plans: which matches a tournament is made of, with their ids and seeds.

``round-robin`` plays every group of ``players`` bots, ``gauntlet`` every group that contains the
challenger (the first bot); both play every seating rotation of each group, ``rounds`` times. With
``duplicate`` deals, all rotations of a group in a round share one seed, so each bot gets each seat's
cards once and the luck of the deal cancels out (and each of those matches starts fresh bot processes,
so none remembers the deal). Every match's seed is keyed with the platform's secret
(``arena.seeds.keyed_seed``): the organiser's chosen seed reproduces the tournament, and no bot can
compute a seed from it or from other matches' seeds.

Every parameter is checked before anything is queued, against the game (``TournamentSpec``: the game
exists and takes that many players) and the protocol's limits (``arena.wire_limits``: a deadline the
wire cannot carry would fail every match, and a job that fails every time is dead-lettered, not
played), and ``queue`` checks that every seat's version is stored before it queues a single job; the
server and the CLI both queue through it.

One person's bots never share a rated table: given each bot's account (``owners``, read by
``arena.submissions.owners``; None for a built-in), a plan leaves out every group with two bots of one
account, and a spec in which some bot would then have no table at all (a round robin of 3-seat tables
among two accounts' bots, a gauntlet naming a bot of the challenger's own account) is refused, saying
which bots share an account, before anything is queued; ``queue`` checks every match against the
accounts stored in Redis once more.

Design detail: the tournament id is a hash of everything that defines the plan (the bots' versions
included), and match ids derive from it, so running the same tournament command twice enqueues nothing
new and just resumes it, while a tournament after a bot was updated is a new one. The accounts enter
the hash only when two bots share one (only then do they change the plan), so a tournament among bots
of distinct accounts keeps the id and match ids it had before accounts existed.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
from collections.abc import Iterator

import redis

from arena.games import GameError, get_game
from arena.queue import keys, store
from arena.queue.jobs import MatchJob, enqueue, ensure_group
from arena.seeds import keyed_seed
from arena.submissions.owners import apart, described, owners, sharing, tables
from arena.submissions.registry import VERSION_PATTERN
from arena.wire_limits import DEADLINE_MS_MAX, MAX_STRIKES_MAX

FORMATS = ("round-robin", "gauntlet")
MAX_MATCHES = 100_000  # matches in one plan: each is a job in Redis, enqueued in one go


@dataclasses.dataclass(frozen=True)
class TournamentSpec:
    game: str
    bots: tuple[str, ...]
    format: str = "round-robin"
    players: int = 2
    rounds: int = 1
    seed: int = 1
    duplicate: bool = False
    deadline_ms: int = 2000
    max_strikes: int = 3
    versions: tuple[str, ...] = ()  # the version each bot plays, in the order of ``bots``
    owners: tuple[str | None, ...] = ()  # each bot's account (None: a built-in), in the order of ``bots``

    def __post_init__(self) -> None:
        try:
            get_game(self.game).check_players(self.players)
        except GameError as exc:
            raise ValueError(str(exc)) from None
        if self.format not in FORMATS:
            raise ValueError(f"unknown format {self.format!r}; valid formats: {', '.join(FORMATS)}")
        if len(set(self.bots)) != len(self.bots):
            raise ValueError(f"each bot may be named once: {shown(repeated(self.bots))} named more than once")
        if not 2 <= self.players <= len(self.bots):
            raise ValueError(f"--players {self.players} needs at least {self.players} bots and is at least 2")
        if self.rounds < 1:
            raise ValueError("--rounds must be at least 1")
        if not 1 <= self.deadline_ms <= DEADLINE_MS_MAX:
            raise ValueError(f"--deadline-ms must be from 1 to {DEADLINE_MS_MAX}, not {self.deadline_ms}")
        if not 1 <= self.max_strikes <= MAX_STRIKES_MAX:
            raise ValueError(f"max strikes must be from 1 to {MAX_STRIKES_MAX}, not {self.max_strikes}")
        if self.versions and len(self.versions) != len(self.bots):
            raise ValueError(f"one version per bot: {list(self.bots)} but {list(self.versions)}")
        if self.owners and len(self.owners) != len(self.bots):
            raise ValueError(f"one account per bot: {list(self.bots)} but {list(self.owners)}")
        self._check_tables()
        if self.matches > MAX_MATCHES:
            raise ValueError(
                f"this tournament would be {count(self.matches)} matches ({count(self.rounds)} rounds of "
                f"{count(self.matches // self.rounds)}); at most {MAX_MATCHES:,}: play fewer --rounds or bots"
            )

    @property
    def owner_of(self) -> dict[str, str | None]:
        """Returns each bot's account (None for all when the spec names no accounts)."""
        return dict(zip(self.bots, self.owners or (None,) * len(self.bots), strict=True))

    def _check_tables(self) -> None:
        """Raises ValueError when keeping one account's bots apart leaves a bot no table to sit at."""
        owner_of = self.owner_of
        shared = sharing(self.bots, owner_of)
        if not shared:
            return
        rule = "one person's bots never share a rated table"
        if self.format == "gauntlet":
            challenger = self.bots[0]
            account = owner_of[challenger]
            mates = [b for b in self.bots[1:] if account is not None and owner_of[b] == account]
            if mates:
                raise ValueError(
                    f"{rule}: {described({account or '': [challenger, *mates]})}, so a gauntlet of "
                    f"{challenger[:40]} cannot include {shown(mates)}; leave them out of --bots"
                )
        if tables(self.bots, owner_of) < self.players:
            raise ValueError(
                f"{rule}: {described(shared)}, and the bots of only {tables(self.bots, owner_of)} accounts "
                f"(a built-in counts as one) cannot fill a table of {self.players}; add bots of other "
                "accounts or built-in bots, or play fewer --players"
            )

    @property
    def matches(self) -> int:
        """Returns the number of matches of the plan (``len(plan(...))``), without building it."""
        owner_of, seats = self.owner_of, self.players
        if self.format == "gauntlet":
            challenger = owner_of[self.bots[0]]
            others = [b for b in self.bots[1:] if challenger is None or owner_of[b] != challenger]
            groups = _groups_apart(others, owner_of, seats - 1)
        else:
            groups = _groups_apart(list(self.bots), owner_of, seats)
        return self.rounds * groups * seats

    @property
    def tournament_id(self) -> str:
        """Returns the id that names this plan (game, format and a hash of the whole spec; the accounts
        only when two bots share one, the only case in which they change the plan)."""
        fields = dataclasses.asdict(self)
        if not sharing(self.bots, self.owner_of):
            del fields["owners"]
        text = json.dumps(fields, sort_keys=True)
        return f"{self.game}-{self.format}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"


def _groups_apart(bots: list[str], owner_of: dict[str, str | None], size: int) -> int:
    """Returns how many groups of ``size`` of ``bots`` hold no two bots of one account: the
    elementary symmetric polynomial of the accounts' bot counts (each built-in an account of one).

    >>> _groups_apart(["a1", "a2", "b", "c"], {"a1": "ann", "a2": "ann", "b": None, "c": None}, 2)
    5
    """
    sizes = collections.Counter(owner_of[b] if owner_of[b] is not None else ("builtin", b) for b in bots)
    ways = [1] + [0] * size  # ways[k]: groups of k from the accounts seen so far
    for n in sizes.values():
        for k in range(size, 0, -1):
            ways[k] += ways[k - 1] * n
    return ways[size]


def count(n: int) -> str:
    """Returns a count for a message, with thousands separators; a count too long to read (a hostile
    request's) is written by its size.

    >>> count(200_000_000), count(10**40)
    ('200,000,000', 'over 10^30')
    """
    return f"{n:,}" if n < 10**30 else "over 10^30"


def repeated(names: tuple[str, ...]) -> list[str]:
    """Returns the names that occur more than once, in their first order."""
    counts = collections.Counter(names)
    return [name for name in counts if counts[name] > 1]


def shown(words: list[str], most: int = 5, chars: int = 40) -> str:
    """Returns words for an error message, bounded: at most ``most`` of them, each cut at ``chars``
    characters (a hostile request's parameters are echoed, not its megabytes).

    >>> shown(["a", "b" * 50, "c", "d", "e", "f", "g"])
    'a, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb..., c, d, e and 2 more'
    """
    cut = [w if len(w) <= chars else w[:chars] + "..." for w in words[:most]]
    more = f" and {len(words) - most} more" if len(words) > most else ""
    return ", ".join(cut) + more


def groups(spec: TournamentSpec) -> list[tuple[str, ...]]:
    """Returns the groups of bots that meet, in a fixed order (``itertools.combinations``' order),
    leaving out every group with two bots of one account."""
    owner_of = spec.owner_of
    if spec.format == "gauntlet":  # the combinations with the first bot: it and those of the others
        challenger, account = spec.bots[0], owner_of[spec.bots[0]]
        others = tuple(b for b in spec.bots[1:] if account is None or owner_of[b] != account)
        return [(challenger, *g) for g in combinations_apart(others, owner_of, spec.players - 1)]
    return list(combinations_apart(spec.bots, owner_of, spec.players))


def combinations_apart(
    bots: tuple[str, ...], owner_of: dict[str, str | None], size: int
) -> Iterator[tuple[str, ...]]:
    """Yields the groups of ``itertools.combinations(bots, size)`` with no two bots of one account, in
    the same order, without walking the groups it leaves out.

    >>> list(combinations_apart(("a1", "a2", "b", "c"), {"a1": "ann", "a2": "ann", "b": "bob", "c": None}, 3))
    [('a1', 'b', 'c'), ('a2', 'b', 'c')]
    """

    def extend(start: int, group: tuple[str, ...], taken: frozenset[str]) -> Iterator[tuple[str, ...]]:
        if len(group) == size:
            yield group
            return
        for i in range(start, len(bots) - (size - len(group)) + 1):
            account = owner_of[bots[i]]
            if account is None:
                yield from extend(i + 1, (*group, bots[i]), taken)
            elif account not in taken:
                yield from extend(i + 1, (*group, bots[i]), taken | {account})

    return extend(0, (), frozenset())


def rotations(group: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Returns every seating rotation of a group: each bot sits in each seat once.

    >>> rotations(("a", "b", "c"))
    [('a', 'b', 'c'), ('b', 'c', 'a'), ('c', 'a', 'b')]
    """
    return [group[i:] + group[:i] for i in range(len(group))]


def plan(spec: TournamentSpec, key: bytes) -> list[MatchJob]:
    """Returns the tournament's jobs: rounds x groups x rotations, each with its own match id and a
    seed keyed with ``key`` (the platform's secret, ``arena.seeds.platform_key``)."""
    tid = spec.tournament_id
    version_of = dict(zip(spec.bots, spec.versions, strict=False))
    jobs = []
    for r in range(spec.rounds):
        for g, group in enumerate(groups(spec)):
            for s, seats in enumerate(rotations(group)):
                place = (r, g) if spec.duplicate else (r, g, s)
                seed = keyed_seed(key, spec.seed, tid, *place)
                jobs.append(
                    MatchJob(
                        match_id=f"{tid}-r{r + 1}-g{g + 1}-s{s + 1}",
                        game=spec.game,
                        seed=seed,
                        bots=seats,
                        deadline_ms=spec.deadline_ms,
                        max_strikes=spec.max_strikes,
                        tournament=tid,
                        versions=tuple(version_of[b] for b in seats) if version_of else (),
                        fresh_bots=spec.duplicate,
                    )
                )
    return jobs


def queue(client: redis.Redis, spec: TournamentSpec, key: bytes) -> tuple[list[MatchJob], int]:
    """Queues the tournament's matches after checking that every seat can be run; returns the jobs
    and how many were newly queued (none when the same spec was queued before: it resumes).

    Raises ValueError, before anything is written, for a spec without a version per bot or with a
    version that is not stored (each match would fail on every worker and be dead-lettered).
    """
    check_versions(client, spec)
    jobs = plan(spec, key)
    check_tables(client, spec, jobs)
    ensure_group(client)
    meta: dict[str, str | int] = {
        "game": spec.game,
        "format": spec.format,
        "bots": ",".join(spec.bots),
        "total": len(jobs),
    }
    store.save_tournament(
        client, spec.tournament_id, {**meta, "players": spec.players, "rounds": spec.rounds}
    )
    return jobs, sum(enqueue(client, job) for job in jobs)


def check_versions(client: redis.Redis, spec: TournamentSpec) -> None:
    """Raises ValueError unless each bot of ``spec`` has a well-formed version stored in Redis."""
    if not spec.versions:
        raise ValueError("a queued tournament needs each bot's version (arena.submissions.registry.resolve)")
    for bot, version in zip(spec.bots, spec.versions, strict=True):
        if not VERSION_PATTERN.fullmatch(version):
            raise ValueError(f"bot {bot}: malformed version {version!r}")
        if not client.hexists(keys.bot_version(version), "kind"):
            raise ValueError(f"bot {bot}: version {version} is not stored (removed?): resubmit the bot")


def check_tables(client: redis.Redis, spec: TournamentSpec, jobs: list[MatchJob]) -> None:
    """Raises ValueError if a match of ``jobs`` would seat two bots of one account, as the accounts
    stored in Redis say now (a spec made without them: ``arena.schedule.tournaments.with_versions``
    reads them)."""
    stored = owners(client, spec.bots)
    for job in jobs:
        if not apart(job.bots, stored):
            raise ValueError(
                f"one person's bots never share a rated table: {described(sharing(job.bots, stored))} and "
                f"would meet in {job.match_id}; give the spec each bot's account "
                "(arena.schedule.tournaments.with_versions)"
            )
