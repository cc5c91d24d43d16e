"""Runs a series of matches between bot processes on an in-process referee (``arena match``).

The referee server listens on loopback, and each sandboxed bot gets a Unix socket of its own seat (its
only way out; arena/referee/server.py); each bot argument becomes a process with its own lease, kept
across the games of the series (a bot that crashed or disconnected is restarted for the next game).
Seats rotate between games, game ``g``'s seed is derived from the series seed by a hash
(``series_seed``: no game's seed tells another's), and every game writes its replay.

With ``SeriesConfig.duplicate``, each seed is played once per rotation of the seats (duplicate deals,
as in duplicate bridge): with two bots, games 2k and 2k+1 deal the same cards with the seats swapped,
so the luck of the deal cancels out within the pair. A ``stop`` predicate may end a series early
(``arena match --sprt``); the games played so far keep their replays and results.

Duplicate deals need fresh processes for every game (``retire_bots``), and starting a bot costs more
than playing a game. So, where this process may give a niced process its priority back
(``niceness.can_restore``), the next game's bots start while the current game plays, at a lower
priority, each with a lease of its own that admits it to its own game only, and get the referee's
priority when their game begins (``_prestart``, ``_take_prestarted``). Elsewhere they start after the
game, and each game costs a bot start more than in a plain series (docs/ladder.md gives the figures).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import tempfile
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from arena.games.base import Game
from arena.games.play import Step
from arena.games.rng import derive_seed
from arena.paths import state_dir
from arena.referee import niceness
from arena.referee.botlog import match_log_path, match_log_text, with_seat_lines
from arena.referee.branch import Branch
from arena.referee.leases import Lease, LeaseRegistry
from arena.referee.match import NEVER_CONNECTED, Match, MatchConfig, SeatState
from arena.referee.processes import DEFAULT_LIMITS, BotLimits, BotProcess, BotSpec, RefereeEndpoint
from arena.referee.record import MatchRecord
from arena.referee.replay import ReplayWriter, claim
from arena.referee.seat_names import join_name, table_names
from arena.referee.server import seat_endpoint, start_referee
from arena.seeds import series_seed

DEFAULT_JOIN_TIMEOUT = timedelta(seconds=15)
# Called with (bot name, referee address, token, seconds it may take) when a ``@wait`` seat waits for
# the bot the author starts by hand.
WaitAnnouncer = Callable[[str, str, str, float], None]


@dataclasses.dataclass
class GameResult:
    record: MatchRecord
    replay: Path | None
    notes: list[str]  # what went wrong with bots, for the person running the match
    replay_text: str = ""  # the replay's JSON Lines
    failures: dict[int, str] = dataclasses.field(default_factory=dict)  # seat: why its bot failed
    logs: tuple[Path | None, ...] = ()  # each seat's bot log, by seat
    match_log: Path | None = None  # where match_log_text was written, beside the replay
    match_log_text: str = ""  # the bots' output stamped per decision step, and think times (botlog)
    first_lines: tuple[str | None, ...] = ()  # each seat's process's first line of output, by seat

    @property
    def failed(self) -> bool:
        """Returns whether a bot never connected or crashed (its seat forfeited for that)."""
        return bool(self.failures)


@dataclasses.dataclass
class BotEntry:
    """One bot of a series or pool: its spec, its current process and lease, and what went wrong."""

    spec: BotSpec
    name: str  # unique display name
    index: int
    process: BotProcess | None = None
    lease: Lease | None = None
    problem: str = ""
    log: Path | None = None  # its log file, claimed when it first starts (never another run's)


@dataclasses.dataclass
class SeriesConfig:
    games: int = 1
    seed: int = 1
    match: MatchConfig = dataclasses.field(default_factory=MatchConfig)
    replay_dir: Path | None = None
    join_timeout: timedelta = DEFAULT_JOIN_TIMEOUT
    log_dir: Path | None = None
    match_id: str = ""  # the id in records and replays; default GAME-HASH of seed and seats (never the seed)
    bot_limits: BotLimits = DEFAULT_LIMITS  # resource limits of every bot process, and its sandbox
    duplicate: bool = False  # each seed played once per rotation of the seats (consecutive games)
    on_wait: WaitAnnouncer | None = None  # told where a ``@wait`` seat's bot connects, with which token
    branch: Branch | None = None  # start every game at a recorded position, its seed, seats unrotated
    on_game_start: Callable[[list[str]], None] | None = None  # told each game's bots by seat first
    on_names: Callable[[list[str]], None] | None = None  # told the bots' names (by argument) once fixed


def unique_names(specs: list[BotSpec]) -> list[str]:
    """Returns display names: each bot's name, with #2, #3... for repeats."""
    return table_names([spec.name for spec in specs])


def name_by_joins(entries: list[BotEntry], anonymous: bool) -> None:
    """Names each seat the person did not name by the name its bot sent in ``Join`` (cleaned, unique at
    the table: ``seat_names``), once its bots have joined; never in an ``anonymous`` (rated) match,
    whose seats are the registered bots."""
    if anonymous:
        return
    joined = [
        join_name(e.lease.bot_name) if e.spec.join_named and e.lease is not None and e.lease.claimed else ""
        for e in entries
    ]
    for entry, name in zip(entries, table_names([e.spec.name for e in entries], joined), strict=True):
        entry.problem = entry.problem.replace(f"bot {entry.name} ", f"bot {name} ", 1)
        entry.name = name
        if entry.lease is not None:
            entry.lease.name = name
        _rename_log(entry)


def _rename_log(entry: BotEntry) -> None:
    """Renames the entry's log file after its seat's name when its bot's Join named it (the log was
    claimed, under the file's name, before the bot started); its process keeps writing to it."""
    base = entry.name.partition("#")[0]
    if entry.log is None or base == entry.spec.name:
        return
    renamed = claim(entry.log.with_name(f"{entry.index}-{base}.log"))
    try:
        os.replace(entry.log, renamed)
    except OSError:
        renamed.unlink(missing_ok=True)
        return
    entry.log = renamed
    if entry.process is not None:
        entry.process.log_path = renamed


@dataclasses.dataclass(frozen=True)
class SharedReferee:
    """A referee server that several series share (each series then leaves it running)."""

    registry: LeaseRegistry
    endpoint: RefereeEndpoint


async def run_series(
    game: Game,
    specs: list[BotSpec],
    config: SeriesConfig,
    on_result: Callable[[GameResult], None] | None = None,
    on_step: Callable[[Step], None] | None = None,
    referee: SharedReferee | None = None,
    stop: Callable[[], bool] | None = None,
) -> list[GameResult]:
    """Plays ``config.games`` games between the bots; returns each game's result.

    Without ``referee``, the series starts its own server and stops it at the end. ``stop`` is asked
    after each game (after ``on_result``): True ends the series there, its bots stopped as at the end.
    """
    game.check_players(len(specs))
    async with contextlib.AsyncExitStack() as stack:
        if referee is None:
            registry = LeaseRegistry()
            endpoint = await stack.enter_async_context(start_referee(registry))
            referee = SharedReferee(registry, endpoint)
        return await _run_series(game, specs, config, referee, on_result, on_step, stop)


async def _run_series(
    game: Game,
    specs: list[BotSpec],
    config: SeriesConfig,
    referee: SharedReferee,
    on_result: Callable[[GameResult], None] | None,
    on_step: Callable[[Step], None] | None,
    stop: Callable[[], bool] | None,
) -> list[GameResult]:
    log_dir = config.log_dir or Path(tempfile.mkdtemp(prefix="arena-bots-"))
    private = tuple(p for p in (config.replay_dir, log_dir) if p is not None)
    entries = [
        BotEntry(spec, name, i) for i, (spec, name) in enumerate(zip(specs, unique_names(specs), strict=True))
    ]
    results: list[GameResult] = []
    seats: list[list[BotEntry]] = []  # each game's bots by seat, to add what they write as they stop
    early = config.duplicate and all(s.kind != "wait" for s in specs) and niceness.can_restore()
    upcoming: tuple[list[BotEntry], asyncio.Task] | None = None
    # bots being stopped, with the index of the game they played last (None: started, never played)
    retiring: list[tuple[int | None, list[BotEntry], asyncio.Task]] = []
    try:
        for number in range(config.games):
            if upcoming is not None:
                retiring.append(
                    (len(results) - 1, entries, asyncio.create_task(retire_bots(entries, referee.registry)))
                )
                entries = await _take_prestarted(upcoming)
                upcoming = None
            await connect_bots(
                entries,
                referee.registry,
                referee.endpoint,
                log_dir,
                config.join_timeout,
                config.bot_limits,
                private,
                config.on_wait,
            )
            if number == 0:  # the names are fixed once, for the whole series
                name_by_joins(entries, config.match.anonymous)
                if config.on_names is not None:
                    config.on_names([e.name for e in entries])
            if early and number + 1 < config.games:
                upcoming = _prestart(entries, referee, log_dir, config, private)
            result, seated = await play_game_of_series(game, entries, number, config, on_step)
            results.append(result)
            seats.append(seated)
            if on_result:
                on_result(result)
            if stop is not None and stop():
                break
            if config.duplicate and upcoming is None:
                await retire_bots(entries, referee.registry)
                results[-1] = with_output_of_ended(results[-1], seated, entries)
    finally:
        if upcoming is not None:
            upcoming[1].cancel()
            retiring.append((None, *upcoming))
        await asyncio.gather(*(task for _, _, task in retiring), return_exceptions=True)
        await stop_bots([e for _, bots, _ in retiring for e in bots] + entries, referee.registry)
        for index, bots, _ in retiring:  # what they wrote after their last decision, or at exit
            if index is not None:
                results[index] = with_output_of_ended(results[index], seats[index], bots)
        if results:  # the last game's processes ended with the series
            results[-1] = with_output_of_ended(results[-1], seats[-1], entries)
    return results


def _prestart(
    entries: list[BotEntry], referee: SharedReferee, log_dir: Path, config: SeriesConfig, private: tuple
) -> tuple[list[BotEntry], asyncio.Task]:
    """Starts the next game's bots now, niced (``connect_bots(..., niced=True)``), while this game
    plays: new processes with new leases, each seat's under its name and log; returns them and the
    task that waits for them to join."""
    fresh = [BotEntry(e.spec, e.name, e.index, log=e.log) for e in entries]
    joining = connect_bots(
        fresh,
        referee.registry,
        referee.endpoint,
        log_dir,
        config.join_timeout,
        config.bot_limits,
        private,
        niced=True,
    )
    return fresh, asyncio.create_task(joining)


async def _take_prestarted(upcoming: tuple[list[BotEntry], asyncio.Task]) -> list[BotEntry]:
    """Gives the prestarted bots the referee's priority, waits for them to join and returns them (a bot
    that failed to start or join is started again by the next ``connect_bots``). The caller stops the
    last game's bots meanwhile, off the next game's path.

    Design detail: the priority is given back before the wait, so that a bot still starting when the
    game before ends (a short game, a busy machine, where a niced start crawls) starts no slower than
    one started then; and again after it, for the threads a bot made while the first pass ran."""
    fresh, joining = upcoming
    roots = [e.process.pid for e in fresh if e.process is not None]
    await asyncio.to_thread(niceness.restore, roots)
    await joining
    await asyncio.to_thread(niceness.restore, roots)
    return fresh


async def stop_bots(entries: list[BotEntry], registry: LeaseRegistry) -> None:
    """Ends the bots' leases (their streams close with OK) and stops their processes, all at once."""
    for entry in entries:
        if entry.lease is not None:
            registry.forget(entry.lease)
    await asyncio.gather(*(asyncio.to_thread(e.process.stop) for e in entries if e.process))


async def retire_bots(entries: list[BotEntry], registry: LeaseRegistry) -> None:
    """Stops every bot so the next game starts fresh processes. Duplicate deals need it: a process that
    saw a deal would know the other hands when the same deal comes back with the seats rotated (as the
    queue's ``MatchJob.fresh_bots`` does for tournaments)."""
    await stop_bots(entries, registry)
    for entry in entries:
        entry.lease = None


async def connect_bots(
    entries: list[BotEntry],
    registry: LeaseRegistry,
    endpoint: RefereeEndpoint,
    log_dir: Path,
    timeout: timedelta,
    limits: BotLimits = DEFAULT_LIMITS,
    private: tuple[Path, ...] = (),
    on_wait: WaitAnnouncer | None = None,
    niced: bool = False,
) -> None:
    """(Re)starts every bot whose stream is not open and waits until each joined, exited or timed out.

    ``private`` names folders no bot may read (replays, logs), hidden from the sandbox. A sandboxed
    bot reaches the referee through a socket of its own seat (``seat_endpoint``), so no seat's streams
    can keep another out. A ``@wait`` entry starts no process: ``on_wait`` is told its address and
    token, and the bot started by hand has ``timeout`` to join. ``niced``: the processes start at a
    lower priority (``niceness.lower``; the next game's bots, started during a game).
    """
    starting = [e for e in entries if e.lease is None or not e.lease.connected]
    for entry in starting:
        if entry.lease:
            registry.forget(entry.lease)
        if entry.process:
            await asyncio.to_thread(entry.process.stop, 0.0)
        entry.lease = registry.create(entry.name)
        entry.problem = ""
        if entry.spec.kind == "wait":
            if on_wait is not None:
                on_wait(entry.name, endpoint.tcp, entry.lease.token, timeout.total_seconds())
            continue
        try:
            entry.log = entry.log or claim(log_dir / f"{entry.index}-{entry.spec.name}.log")
            way_in = await seat_endpoint(endpoint, entry.lease) if limits.sandbox else endpoint
            entry.process = BotProcess(
                entry.spec,
                {"ARENA_TOKEN": entry.lease.token},
                entry.log,
                limits,
                way_in,
                (*private, log_dir, state_dir()),
                slot=entry.index,
            )
            if niced:
                niceness.lower(entry.process.pid)
        except OSError as exc:
            entry.process = None
            entry.problem = f"bot {entry.name} could not be started: {exc}"
    joining = [e for e in starting if e.process or e.spec.kind == "wait"]
    await asyncio.gather(*(_await_join(e, timeout) for e in joining))


async def _await_join(entry: BotEntry, timeout: timedelta) -> None:
    """Waits until the entry's bot joined, its process exited, the referee cut its seat (a flood) or
    ``timeout`` passed (noted in ``entry.problem``); a ``@wait`` entry has no process, only the
    timeout."""
    assert entry.lease is not None
    loop = asyncio.get_running_loop()
    until = loop.time() + timeout.total_seconds()
    while not entry.lease.claimed:
        if entry.lease.problem:
            entry.problem = f"bot {entry.name} never joined: {entry.lease.problem}"
            return
        code = entry.process.exit_code if entry.process is not None else None
        if code is not None:
            assert entry.process is not None
            tail = entry.process.log_tail()
            entry.problem = f"bot {entry.name} exited with code {code} before joining" + (
                f": {tail}" if tail else ""
            )
            return
        if loop.time() > until:
            how = "attached by hand (@wait) " if entry.spec.kind == "wait" else ""
            entry.problem = f"bot {entry.name} {how}did not join within {timeout.total_seconds():g} s"
            return
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(entry.lease.joined.wait(), 0.05)


def _match_id(game: Game, config: SeriesConfig, number: int, seed: int, names: list[str]) -> str:
    """Returns the id of game ``number`` of the series: the configured id, else the game's name and
    a short hash of its seed and line-up (``ninjan-3f9c0a1b2c4d``): the same command with the same seed
    gives the same ids, and two runs' results never share one.

    Design detail: the id is sent to every bot, so it must not reveal the seed (from which every
    hidden card and future roll is drawn): 48 bits of a SHA-256 under a label of its own.
    """
    if not config.match_id:
        return f"{game.spec.name}-{derive_seed(seed, 'match id', *names) >> 16:012x}"
    return config.match_id if config.games == 1 else f"{config.match_id}-{number + 1}"


async def play_game_of_series(
    game: Game, entries: list[BotEntry], number: int, config: SeriesConfig, on_step: Callable | None
) -> tuple[GameResult, list[BotEntry]]:
    """Plays game ``number`` of the series; returns its result and its bots by seat."""
    n = len(entries)
    rotation = 0 if config.branch else number % n
    seated = [entries[(seat + rotation) % n] for seat in range(n)]  # seats rotate between games
    seed = series_seed(config.seed, number // n if config.duplicate else number)
    name = f"{game.spec.name}-{seed}" + (f"-rotation{rotation}" if config.duplicate else "")
    if config.branch:
        seed = config.branch.seed
        name = f"{game.spec.name}-{seed}-from{config.branch.step}"
    match_id = _match_id(game, config, number, seed, [e.name for e in seated])
    if config.on_game_start is not None:
        config.on_game_start([e.name for e in seated])
    path = config.replay_dir / f"{name}.jsonl" if config.replay_dir is not None else None
    result = await play_match(game, seated, seed, match_id, config.match, path, on_step, config.branch)
    return result, seated


async def play_match(
    game: Game,
    seated: list[BotEntry],
    seed: int,
    match_id: str,
    config: MatchConfig,
    replay_path: Path | None,
    on_step: Callable | None = None,
    branch: Branch | None = None,
) -> GameResult:
    """Plays one match between already connected bot entries (seat i = seated[i]), from the start or
    from ``branch``'s recorded position."""
    names = [e.name for e in seated]
    deadline_ms = int(config.deadline / timedelta(milliseconds=1))
    origin = branch.origin() if branch else None
    replay = ReplayWriter(
        ReplayWriter.header(match_id, game.spec.name, seed, names, deadline_ms, config.max_strikes, origin)
    )
    seats = [
        SeatState(
            seat,
            e.name,
            e.lease if e.lease is not None and e.lease.claimed else None,
            output=e.process.output if e.process is not None else None,
        )
        for seat, e in enumerate(seated)
    ]
    for seat in seats:  # what a bot wrote before this match stays in its log file only
        if seat.output is not None:
            seat.output.mark(None)
            seat.output.take()
    match = Match(game, seats, seed, match_id, config, replay, on_step, branch)
    record = await match.run()
    lines = {s.seat: s.output.take() for s in seats if s.output is not None}
    notes = [e.problem for e in seated if e.problem]
    failures = {}
    for seat in seats:
        if seat.forfeit and seat.forfeit_reason.startswith("disconnected"):
            notes.append(await _disconnect_note(seat, seated[seat.seat]))
            failures[seat.seat] = "crashed or disconnected during the game"
        elif seat.forfeit and seat.forfeit_reason == NEVER_CONNECTED:
            failures[seat.seat] = NEVER_CONNECTED
    path = replay.write(replay_path) if replay_path is not None else None
    log_text, log_path = match_log_text(replay.header_fields, lines, match.think), None
    if path is not None:
        log_path = claim(match_log_path(path))
        log_path.write_text(log_text, encoding="utf-8")
    logs = tuple(e.log for e in seated)
    first = tuple(e.process.output.first_line if e.process is not None else None for e in seated)
    return GameResult(record, path, notes, replay.text(), failures, logs, log_path, log_text, first)


async def _disconnect_note(seat: SeatState, entry: BotEntry) -> str:
    """Returns what to tell the person running the match about a bot that disconnected mid-game."""
    text = f"bot {seat.bot} {seat.forfeit_reason} during the game"
    if entry.process is None:
        return text
    for _ in range(20):  # the stream broke first; give the process a moment to be reaped
        if entry.process.exit_code is not None:
            break
        await asyncio.sleep(0.05)
    if entry.process.exit_code is not None:
        text += f" ({entry.process.exit_description()})"
    tail = entry.process.log_tail()
    return text + (f": {tail}" if tail else "")


def with_output_of_ended(result: GameResult, seated: list[BotEntry], ended: list[BotEntry]) -> GameResult:
    """Returns ``result`` whose match log holds all that the seats' processes stopped after the match
    wrote: what a bot wrote after its last decision, or at its exit (a buffer flushed), reached the
    pipe after the log was made, and a stopped process's output is all in its pipe.

    Design detail: a process kept warm for a later match gets no such wait: nothing in the protocol
    tells the referee when a bot is done writing about a match. What it wrote by the time the match
    ended is in the log; what reaches the pipe later and before the next match begins for it is in its
    log file only, not in the next match's log; what comes later still is read as the next match's
    (``arena.referee.botlog``).
    """
    stopped = {id(e) for e in ended}
    lines = {
        seat: e.process.output.take()
        for seat, e in enumerate(seated)
        if id(e) in stopped and e.process is not None
    }
    if not lines or not result.match_log_text:
        return result
    text = with_seat_lines(result.match_log_text, lines)
    if result.match_log is not None:
        result.match_log.write_text(text, encoding="utf-8")
    return dataclasses.replace(result, match_log_text=text)
