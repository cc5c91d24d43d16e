"""A pool of warm bot processes for a long-lived process that plays many matches (a queue worker).

Starting a bot process costs far more than a match's decisions (hundreds of milliseconds for a Python
bot against a few milliseconds of play), and one Play stream can carry any number of matches. So the
pool keeps one referee server and, per bot spec, the processes that finished a match still connected,
and seats them again in the next match that needs that bot. A bot that disconnected or crashed is not
reused: the next match starts a fresh process for it. At most ``max_idle`` processes wait unused.
A match played ``fresh`` (a duplicate deal) gets new processes and stops them after it, so no bot
carries a memory of the deal into the other rotations.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from types import TracebackType

from arena.games.base import Game
from arena.referee.leases import LeaseRegistry
from arena.referee.match import MatchConfig
from arena.referee.processes import DEFAULT_LIMITS, BotLimits, BotSpec, RefereeEndpoint
from arena.referee.runner import (
    DEFAULT_JOIN_TIMEOUT,
    BotEntry,
    GameResult,
    connect_bots,
    play_match,
    stop_bots,
    with_output_of_ended,
)
from arena.referee.server import start_referee


@dataclasses.dataclass
class PoolStats:
    started: int = 0  # bot processes started
    reused: int = 0  # seats filled by a warm process


class BotPool:
    """Plays matches on one referee, reusing bot processes between them. Use ``async with``."""

    def __init__(
        self,
        log_dir: Path,
        max_idle: int = 16,
        join_timeout: timedelta = DEFAULT_JOIN_TIMEOUT,
        limits: BotLimits = DEFAULT_LIMITS,
        private: tuple[Path, ...] = (),
    ) -> None:
        self.log_dir = log_dir
        self.limits = limits
        self.private = private  # folders no bot may read (the bot cache, logs)
        self.max_idle = max_idle
        self.join_timeout = join_timeout
        self.registry = LeaseRegistry()
        self.stats = PoolStats()
        self._idle: list[BotEntry] = []  # oldest first
        self._stack = contextlib.AsyncExitStack()
        self._endpoint: RefereeEndpoint | None = None
        self._count = 0

    async def __aenter__(self) -> BotPool:
        self._endpoint = await self._stack.enter_async_context(start_referee(self.registry))
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._stop(self._idle)
        self._idle.clear()
        await self._stack.aclose()

    async def play(
        self,
        game: Game,
        specs: list[BotSpec],
        names: list[str],
        seed: int,
        match_id: str,
        config: MatchConfig,
        replay_path: Path | None = None,
        on_step: Callable | None = None,
        fresh: bool = False,
    ) -> GameResult:
        """Plays one match (seat i = specs[i], shown as names[i]) and returns its result; ``fresh``:
        with new bot processes, stopped after it."""
        game.check_players(len(specs))
        seated = [self._acquire(spec, name, fresh) for spec, name in zip(specs, names, strict=True)]
        assert self._endpoint is not None, "use the pool with 'async with'"
        await connect_bots(
            seated, self.registry, self._endpoint, self.log_dir, self.join_timeout, self.limits, self.private
        )
        try:
            result = await play_match(game, seated, seed, match_id, config, replay_path, on_step)
        finally:
            ended = seated if fresh else self._release(seated)
            await self._stop(ended)
        return with_output_of_ended(result, seated, ended)

    def _acquire(self, spec: BotSpec, name: str, fresh: bool) -> BotEntry:
        for i, entry in enumerate([] if fresh else self._idle):
            if entry.spec == spec and entry.lease is not None and entry.lease.connected:
                self.stats.reused += 1
                entry.name = name
                return self._idle.pop(i)
        self.stats.started += 1
        self._count += 1
        return BotEntry(spec, name, self._count)

    def _release(self, entries: list[BotEntry]) -> list[BotEntry]:
        """Keeps the entries still connected for later matches; returns those to stop (the broken
        ones, and the oldest idle ones past ``max_idle``)."""
        broken = [e for e in entries if e.lease is None or not e.lease.connected]
        self._idle.extend(e for e in entries if e not in broken)
        surplus = self._idle[: max(0, len(self._idle) - self.max_idle)]
        del self._idle[: len(surplus)]
        return broken + surplus

    async def _stop(self, entries: list[BotEntry]) -> None:
        await stop_bots(entries, self.registry)
