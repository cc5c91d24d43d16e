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

Design detail: the tournament id is a hash of everything that defines the plan (the bots' versions
included), and match ids derive from it, so running the same tournament command twice enqueues nothing
new and just resumes it, while a tournament after a bot was updated is a new one.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import itertools
import json
import math

import redis

from arena.games import GameError, get_game
from arena.queue import keys, store
from arena.queue.jobs import MatchJob, enqueue, ensure_group
from arena.seeds import keyed_seed
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
        if self.matches > MAX_MATCHES:
            raise ValueError(
                f"this tournament would be {count(self.matches)} matches ({count(self.rounds)} rounds of "
                f"{count(self.matches // self.rounds)}); at most {MAX_MATCHES:,}: play fewer --rounds or bots"
            )

    @property
    def matches(self) -> int:
        """Returns the number of matches of the plan (``len(plan(...))``), without building it."""
        bots, seats = len(self.bots), self.players
        groups = math.comb(bots - 1, seats - 1) if self.format == "gauntlet" else math.comb(bots, seats)
        return self.rounds * groups * seats

    @property
    def tournament_id(self) -> str:
        """Returns the id that names this plan (game, format and a hash of the whole spec)."""
        text = json.dumps(dataclasses.asdict(self), sort_keys=True)
        return f"{self.game}-{self.format}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"


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
    """Returns the groups of bots that meet, in a fixed order."""
    every = list(itertools.combinations(spec.bots, spec.players))
    if spec.format == "gauntlet":
        return [g for g in every if spec.bots[0] in g]
    return every


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
