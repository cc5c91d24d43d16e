"""A ladder that never stops: keeps the queue fed with the matches that teach the ranking most.

``arena ladder GAME --bots a,b,c`` plays its bots' latest versions against each other until stopped.
It is bookkept as a tournament (format ``ladder``): its matches carry its id, so the recording script
counts each one in the ladder's hash (``recorded``, ``dead``), appends it to the ladder's stream of
finished matches and adds it to the game's pair table, from which the leaderboard refits on its next
read (``arena.storage.fits``): the leaderboard follows the ladder live, and ``arena tournament status``
and ``standings ID`` show the ladder like any tournament. ``total`` in its hash is the number of
matches scheduled so far.

The loop (``run``): whenever fewer than ``ahead`` of its matches are queued or playing, it refits the
pair table restricted to the ladder's players (only if a result arrived since the last fit), chooses
the next group (``arena.ratings.pairing.choose_group``) and enqueues it; then it sleeps on the stream of
finished matches. So workers never wait for a job, and the queue never holds more than ``ahead`` of
the ladder's jobs, each chosen from a fit at most ``ahead`` results old.

Design detail, ids and seeds: the ladder's id is a hash of its spec (game, bots, players, seed,
limits; not the versions), and match ``n`` is ``ID-mN`` with the keyed seed of ``(seed, ID, n)``
(``arena.seeds.keyed_seed``): no bot can compute the next deal. The same command with the same
``--seed`` resumes the ladder where it stopped (numbering continues from ``total``), and a bot
resubmitted meanwhile plays its new version, which the pairing places first. The groups in flight
before a restart count toward the queue's bound but are not known to the pairing (a few matches).

One person's bots never share a table: each refill reads the bots' accounts
(``arena.submissions.owners``) with their versions, and the pairing never groups two players of one
account. A ladder whose bots' accounts cannot fill a table of ``players`` is refused by
``check_bots``, before anything is queued, saying which bots share an account.

Design detail, the fit: restricted to the ladder's players (``PairTable.subset``), because the ladder's
question is their order, and the fit then costs ``O(k^3)`` for ``k`` ladder bots however many other
bots the game has. Results against other bots are left out: the ladder's fit is, if anything, less
sure than the leaderboard's, so it stops refining a pair no earlier.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

import redis

from arena.bots import builtin_bots
from arena.games import get_game
from arena.games.rng import derive
from arena.queue import keys, store
from arena.queue.connection import stream_reads
from arena.queue.jobs import MAX_ATTEMPTS, JobStatus, MatchJob, enqueue, ensure_group
from arena.ratings.confidence import confident
from arena.ratings.fit import Fit, fit
from arena.ratings.pairing import RANDOM_SHARE, Choice, choose_group
from arena.ratings.pairs import PairTable, player_id, split_player
from arena.seeds import keyed_seed
from arena.submissions.accounts import schedulable
from arena.submissions.archives import SubmissionError
from arena.submissions.owners import described, owners, sharing, tables
from arena.wire_limits import DEADLINE_MS_MAX, MAX_STRIKES_MAX

FORMAT = "ladder"  # the ``format`` field of the ladder's tournament hash
T = TypeVar("T")

FAILURES_TO_DROP = 3  # dead-lettered matches (more than its recorded ones) that drop a player
MAX_DEAD_IN_A_ROW = 10  # matches dead-lettered with none recorded between: the ladder stops
WAKE_MS = 1000  # the longest the loop sleeps on the stream of finished matches before looking again


class LadderError(Exception):
    """The ladder cannot go on (its workers are gone); the message says why."""


@dataclasses.dataclass(frozen=True)
class LadderSpec:
    """What defines a ladder: its game, bots, group size, seed and match limits."""

    game: str
    bots: tuple[str, ...]
    players: int = 2
    seed: int = 1
    deadline_ms: int = 2000
    max_strikes: int = 3
    random_share: float = RANDOM_SHARE

    def __post_init__(self) -> None:
        if len(set(self.bots)) != len(self.bots):
            raise ValueError(f"each bot may be named once: {', '.join(self.bots)}")
        if not 2 <= self.players <= len(self.bots):
            raise ValueError(f"--players {self.players} needs at least {self.players} bots and is at least 2")
        if not 1 <= self.deadline_ms <= DEADLINE_MS_MAX:
            raise ValueError(f"--deadline-ms must be from 1 to {DEADLINE_MS_MAX}, not {self.deadline_ms}")
        if not 1 <= self.max_strikes <= MAX_STRIKES_MAX:
            raise ValueError(f"max strikes must be from 1 to {MAX_STRIKES_MAX}, not {self.max_strikes}")
        if not 0.0 <= self.random_share <= 1.0:
            raise ValueError(f"--random-share must be from 0 to 1, not {self.random_share}")

    @classmethod
    def from_json(cls, value: dict) -> LadderSpec:
        """Returns the spec stored as ``dataclasses.asdict`` JSON (bots as a list); raises ValueError
        (TypeError for a field it does not know) as the constructor does."""
        return cls(**{**value, "bots": tuple(value["bots"])})

    @property
    def ladder_id(self) -> str:
        """Returns the id that names this ladder (game, ``ladder`` and a hash of the spec)."""
        text = json.dumps(dataclasses.asdict(self), sort_keys=True)
        return f"{self.game}-{FORMAT}-{hashlib.sha256(text.encode()).hexdigest()[:10]}"


def make_spec(
    game: str, bots: Sequence[str], players: int, seed: int, deadline_ms: int, random_share: float
) -> LadderSpec:
    """Returns the checked spec (the game's own name, bot names stripped); raises ValueError saying
    which parameter is wrong. The CLI and the server check a ladder here, the same way."""
    name = get_game(game).spec.name  # GameError is a ValueError
    get_game(name).check_players(players)
    names = tuple(b.strip() for b in bots if b.strip())
    if len(names) < 2:
        raise ValueError("a ladder needs at least two bot names, e.g. --bots greedy,random")
    return LadderSpec(name, names, players, seed, deadline_ms, random_share=random_share)


class Ladder:
    """One ladder's state in Redis and in this process: schedules its matches, one at a time."""

    def __init__(self, client: redis.Redis, spec: LadderSpec, key: bytes, resolve: Callable[[str], str]):
        """``key`` is the platform's seed key (``arena.seeds.platform_key``); ``resolve`` returns the
        version a bot name plays now (``arena.submissions.registry.resolve``)."""
        self.client, self.spec, self.key, self.resolve = client, spec, key, resolve
        self.id = spec.ladder_id
        self.scheduled = 0  # matches scheduled so far, over every run of this ladder
        self.pending: dict[str, tuple[str, ...]] = {}  # match id -> players, scheduled by this process
        self.recorded: collections.Counter[str] = collections.Counter()  # per player, of those matches
        self.dead: collections.Counter[str] = collections.Counter()
        self.last: Choice | None = None
        self.owner_of: dict[str, str | None] = {}  # bot -> account (None: a built-in), read at each refill
        self._fit: tuple[int, tuple[str, ...], Fit] | None = None  # (results counter, players, fit)

    def open(self) -> int:
        """Creates the ladder's record unless it exists; returns the matches scheduled before."""
        ensure_group(self.client)
        meta: dict[str, str | int] = {
            "game": self.spec.game,
            "format": FORMAT,
            "bots": ",".join(self.spec.bots),
            "total": 0,
        }
        store.save_tournament(self.client, self.id, {**meta, "players": self.spec.players})
        self.scheduled = int(self.client.hget(keys.tournament(self.id), "total") or 0)
        return self.scheduled

    def check_bots(self) -> None:
        """Returns if every bot of the ladder is submitted for its game or built in; raises LadderError
        naming the first that is neither.

        Design detail: built-in bots are resolved last, since resolving one stores its version record:
        a refused ladder leaves Redis as it was (as ``arena.schedule.tournaments.with_versions``)."""
        builtin = builtin_bots(self.spec.game)
        self.check_tables(owners(self.client, self.spec.bots), self.spec.bots)
        try:
            for bot in sorted(self.spec.bots, key=lambda b: b in builtin):
                self.resolve(bot)
        except SubmissionError as exc:
            raise LadderError(str(exc)) from None

    def check_tables(self, owner_of: dict[str, str | None], bots: Sequence[str]) -> None:
        """Raises LadderError when ``bots``' accounts cannot fill a table of the ladder's size (one
        person's bots never share one)."""
        left, shared = tables(bots, owner_of), sharing(bots, owner_of)
        if left < self.spec.players:
            who = f"{described(shared)}, and the bots of" if shared else "the bots left are of"
            raise LadderError(
                f"one person's bots never share a rated table: {who} only {left} accounts (a built-in "
                f"counts as one), which cannot fill a table of {self.spec.players}; add bots of other "
                "accounts or built-in bots, or play fewer --players"
            )

    def finished(self) -> int:
        """Returns how many of the ladder's matches are recorded or dead-lettered (every run's)."""
        return sum(self.counts())

    def counts(self) -> tuple[int, int]:
        """Returns how many of the ladder's matches are recorded, and how many dead-lettered."""
        recorded, dead = self.client.hmget(keys.tournament(self.id), ["recorded", "dead"])
        return int(recorded or 0), int(dead or 0)

    def fill(self, ahead: int, until: int | None) -> int:
        """Schedules matches until ``ahead`` are queued or playing (or ``until`` are scheduled in all);
        returns how many it scheduled."""
        room = ahead - (self.scheduled - self.finished())
        if until is not None:
            room = min(room, until - self.scheduled)
        if room <= 0:
            return 0
        try:
            playing = schedulable(self.client, self.spec.bots, self.spec.players)  # disabled accounts leave
        except SubmissionError as exc:
            raise LadderError(f"{exc}: the ladder cannot go on") from None
        versions = self.playable(playing)
        self.owner_of = owners(self.client, self.spec.bots)
        for _ in range(room):
            self.schedule(versions)
        return room

    def playable(self, bots: list[str]) -> dict[str, str]:
        """Returns the version each of ``bots`` plays now, without the bots that no longer resolve (a bot
        its owner removed, or moved to other games, while the ladder runs: one participant must not
        stop everyone's ladder); raises LadderError when fewer than a table are left."""
        versions = {}
        for bot in bots:
            try:
                versions[bot] = self.resolve(bot)
            except SubmissionError:
                continue
        if len(versions) < self.spec.players:
            gone = ", ".join(sorted(set(bots) - set(versions)))
            raise LadderError(
                f"bots {gone} no longer play {self.spec.game}, and fewer than {self.spec.players} are left: "
                "the ladder cannot go on"
            )
        return versions

    def schedule(self, versions: dict[str, str]) -> MatchJob:
        """Chooses and enqueues the next match among ``versions`` (bot -> version it plays)."""
        bot_of = {player_id(bot, version): bot for bot, version in versions.items()}
        self._forget_finished()
        players = sorted(set(bot_of) - self.failing())
        owner_of = {p: self.owner_of.get(bot_of[p]) for p in players}
        if tables(players, owner_of) < self.spec.players:
            failing = ", ".join(sorted(bot_of[p] for p in self.failing() if p in bot_of))
            if not failing:  # the accounts alone: every bot is still playing
                self.check_tables(self.owner_of, list(versions))
            raise LadderError(
                f"bots {failing} failed in {FAILURES_TO_DROP} or more matches (each tried {MAX_ATTEMPTS} "
                f"times), more than they finished: fewer than {self.spec.players} bots left to play (of "
                "distinct accounts); see 'arena tournament status'"
            )
        number = self.scheduled + 1
        draw = derive(self.spec.seed, self.id, "pairing", number)
        self.last = choose_group(
            self.current_fit(players),
            players,
            self.spec.players,
            draw,
            list(self.pending.values()),
            self.spec.random_share,
            owner_of,
        )
        seats = tuple(bot_of[p] for p in self.last.seats)
        job = MatchJob(
            match_id=f"{self.id}-m{number}",
            game=self.spec.game,
            seed=keyed_seed(self.key, self.spec.seed, self.id, number),
            bots=seats,
            deadline_ms=self.spec.deadline_ms,
            max_strikes=self.spec.max_strikes,
            tournament=self.id,
            versions=tuple(versions[bot] for bot in seats),
        )
        if enqueue(self.client, job):
            self.pending[job.match_id] = self.last.seats
        self.scheduled = number
        self.client.hset(keys.tournament(self.id), "total", number)
        return job

    def current_fit(self, players: Sequence[str]) -> Fit:
        """Returns the fit of the game's pair table restricted to ``players``, refitted only when a
        result was recorded (or the players changed) since the last one."""
        counter = int(self.client.get(keys.rating_updates(self.spec.game)) or 0)
        if self._fit is not None and self._fit[:2] == (counter, tuple(players)):
            return self._fit[2]
        with self.client.pipeline(transaction=True) as pipe:
            pipe.get(keys.rating_updates(self.spec.game))
            pipe.hgetall(keys.pairs(self.spec.game))
            counter, fields = pipe.execute()
        result = fit(PairTable.from_fields(fields).subset(players))
        self._fit = (int(counter or 0), tuple(players), result)
        return result

    def standing(self) -> list[tuple[str, float, float, float]]:
        """Returns the ladder's bots best first as (bot, Elo, low, high: the 95% interval), from the fit
        its last pairing used (at most ``ahead`` results old; no refit, so showing it costs nothing);
        [] before any result."""
        if self._fit is None or not any(self._fit[2].games.values()):
            return []
        result = self._fit[2]
        order = sorted(result.players, key=lambda p: (-result.ratings[p], p))
        return [(split_player(p)[0], result.ratings[p], *result.interval(p)) for p in order]

    def confident(self, los: float) -> bool:
        """Returns whether the ladder's players (each playable bot's version, less those left out after
        failing) stand in the fit's order with every neighbour's LOS at least ``los``, none
        provisional (``arena.ratings.confidence``)."""
        self._forget_finished()
        versions = self.playable(schedulable(self.client, self.spec.bots, self.spec.players))
        players = sorted({player_id(bot, version) for bot, version in versions.items()} - self.failing())
        return confident(self.current_fit(players), players, los)

    def failing(self) -> set[str]:
        """Returns the players left out of the pairing: seated in ``FAILURES_TO_DROP`` or more of this
        process's dead-lettered matches, and in more of those than of its recorded ones.

        Design detail: without this, a bot that cannot play would never record a game, so it would
        stay a new player, paired first, forever; its opponents' recorded games keep them in."""
        return {p for p, n in self.dead.items() if n >= FAILURES_TO_DROP and n > self.recorded[p]}

    def _forget_finished(self) -> None:
        """Drops from ``pending`` the matches that are recorded or dead, counting them per player."""
        if not self.pending:
            return
        with self.client.pipeline(transaction=False) as pipe:
            for match_id in self.pending:
                pipe.hget(keys.job(match_id), "status")
            statuses = pipe.execute()
        tally = {JobStatus.RECORDED.value: self.recorded, JobStatus.DEAD.value: self.dead}
        for match_id, status in zip(list(self.pending), statuses, strict=True):
            if status in tally:
                tally[status].update(self.pending.pop(match_id))


class Guard(Protocol):
    """Runs one Redis exchange and returns what it returns, for any type of result (the CLI's and the
    server's retry it while Redis is unreachable)."""

    def __call__(self, action: Callable[[], T], /) -> T: ...


def unguarded(action: Callable[[], T]) -> T:
    """The ``Guard`` that runs the exchange once."""
    return action()


def run(
    ladder: Ladder,
    ahead: int,
    matches: int | None,
    workers_gone: Callable[[], bool],
    on_progress: Callable[[int], None],
    guard: Guard = unguarded,
    stopped: Callable[[], bool] = lambda: False,
    done: Callable[[], bool] | None = None,
) -> bool:
    """Keeps ``ahead`` of the ladder's matches queued until stopped (KeyboardInterrupt, or ``stopped``
    returning True, asked every time the loop wakes, at least every ``WAKE_MS``), or, with ``matches``,
    until that many more are scheduled and every match scheduled is finished, or, with ``done``, until
    it returns True with every match scheduled finished; returns whether ``done`` ended it.

    ``done`` (the stopping rule of ``--until-confident``: ``Ladder.confident``) is asked every time the
    loop wakes; while it holds nothing more is scheduled, and once the matches in flight are finished
    and it still holds (on a fit with all of them) the ladder is done. If their results undo it, the
    ladder goes on: it never stops on a fit that misses results of its own matches.

    ``on_progress`` gets the number finished, every time the loop wakes; ``workers_gone`` is asked when
    nothing finished for a while: True raises ``LadderError`` (no worker will ever play the queue), as
    do ``MAX_DEAD_IN_A_ROW`` matches dead-lettered with none recorded (a bot that cannot play would
    otherwise fail forever).
    Every Redis exchange runs through ``guard`` (the CLI's retries while Redis is unreachable)."""
    before = guard(ladder.open)
    until = None if matches is None else before + matches
    stream, last = keys.tournament_done(ladder.id), "$"
    recorded_then, dead_then = guard(ladder.counts)
    while not stopped():
        recorded, dead = guard(ladder.counts)
        finished = recorded + dead
        on_progress(finished)
        if recorded > recorded_then:
            recorded_then, dead_then = recorded, dead
        elif dead - dead_then >= MAX_DEAD_IN_A_ROW:
            raise LadderError(
                f"the last {dead - dead_then} matches failed {MAX_ATTEMPTS} times each and were "
                "dead-lettered: a bot cannot play; see 'arena tournament status'"
            )
        if until is not None and finished >= until:
            return False
        if done is not None and guard(done):
            if finished >= ladder.scheduled:
                return True
        else:
            guard(lambda: ladder.fill(ahead, until))
        wait = functools.partial(ladder.client.xread, {stream: last}, count=500, block=WAKE_MS)
        read = stream_reads(guard(wait))
        for _, entries in read or []:
            last = entries[-1][0]
        if not read and workers_gone():
            raise LadderError(f"every local worker exited with {ladder.scheduled - finished} matches queued")
    return False
