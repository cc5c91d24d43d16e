"""A pool of warm bot processes for a long-lived process that plays many matches (a queue worker).

Starting a bot process costs far more than a match's decisions (hundreds of milliseconds for a Python
bot against a few milliseconds of play), and one Play stream can carry any number of matches. So the
pool keeps one referee server and, per bot spec, the processes that finished a match still connected,
and seats them again in the next match that needs that bot. A bot that disconnected or crashed is not
reused: the next match starts a fresh process for it. At most ``max_idle`` processes wait unused.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from types import TracebackType

import grpc

from arena.games.base import Game
from arena.referee.leases import LeaseRegistry
from arena.referee.match import MatchConfig
from arena.referee.processes import DEFAULT_LIMITS, BotLimits, BotSpec
from arena.referee.runner import (
    DEFAULT_JOIN_TIMEOUT,
    BotEntry,
    GameResult,
    connect_bots,
    play_match,
    stop_bots,
)
from arena.referee.server import start_server


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
    ) -> None:
        self.log_dir = log_dir
        self.limits = limits
        self.max_idle = max_idle
        self.join_timeout = join_timeout
        self.registry = LeaseRegistry()
        self.stats = PoolStats()
        self._idle: list[BotEntry] = []  # oldest first
        self._server: grpc.aio.Server | None = None
        self._port = 0
        self._count = 0

    async def __aenter__(self) -> BotPool:
        self._server, self._port = await start_server(self.registry)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self._stop(self._idle)
        self._idle.clear()
        if self._server is not None:
            await self._server.stop(grace=0.5)

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
    ) -> GameResult:
        """Plays one match (seat i = specs[i], shown as names[i]) and returns its result."""
        game.check_players(len(specs))
        seated = [self._acquire(spec, name) for spec, name in zip(specs, names, strict=True)]
        address = f"127.0.0.1:{self._port}"
        await connect_bots(seated, self.registry, address, self.log_dir, self.join_timeout, self.limits)
        try:
            return await play_match(game, seated, seed, match_id, config, replay_path, on_step)
        finally:
            await self._release(seated)

    def _acquire(self, spec: BotSpec, name: str) -> BotEntry:
        for i, entry in enumerate(self._idle):
            if entry.spec == spec and entry.lease is not None and entry.lease.connected:
                self.stats.reused += 1
                entry.name = name
                return self._idle.pop(i)
        self.stats.started += 1
        self._count += 1
        return BotEntry(spec, name, self._count)

    async def _release(self, entries: list[BotEntry]) -> None:
        broken = [e for e in entries if e.lease is None or not e.lease.connected]
        self._idle.extend(e for e in entries if e not in broken)
        surplus = self._idle[: max(0, len(self._idle) - self.max_idle)]
        del self._idle[: len(surplus)]
        await self._stop(broken + surplus)

    async def _stop(self, entries: list[BotEntry]) -> None:
        await stop_bots(entries, self.registry)
