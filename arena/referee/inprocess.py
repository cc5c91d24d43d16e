"""Matches in this process between trusted Python bots (``arena match --in-process``): no sandbox,
no bot processes, no gRPC; the same games, rules, strikes and replays as the referee's.

For training and tuning: a game costs what its engine and its bots cost. It is for bots you trust
only: a bot here runs with this process's rights, reads its memory (the other bots, the game's state,
the seed) and can stop it; rated matches always go through the sandboxed referee.

What is shared with the referee, so that the same seed and bots give the same replay byte for byte:
the match loop itself (``arena.referee.match.Match``: the one driver, deadlines, strikes, the seeded
fallback, forfeits, the replay writer), the series (``arena.referee.runner``: seat rotation, game
seeds, match ids, replay and log files, duplicate deals) and the SDK's own handling of each message
(``arena.sdk.client``: the observation, legal actions and events a bot is handed are decoded by the
codec from the very messages the referee builds). Only the transport differs: each seat's lease is a
``LocalSeat``, which hands a message to its bot where a stream would carry it.

Design detail, deadlines: a bot is called on the referee's event loop, when the match waits for its
answer, and its think time is the time of that call. An answer that took longer than the deadline is
dropped as the referee drops a late one: the match's own timer then strikes the seat ("no answer
within N ms") and the seeded fallback moves for it. Unlike a bot process, a bot that never returns
cannot be cut off: its call holds the whole process (trusted bots only). A bot that raises ends its
"process": its seat forfeits as a crashed bot's does (the traceback goes to stderr), and the next
game of the series starts a fresh instance of it, as the referee restarts a crashed process. What a
bot prints goes to stderr (stdout carries ``--json``); it is not stamped into the match's log.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

from arena.bots import builtin_bots
from arena.games.base import Game
from arena.games.play import Step
from arena.referee.leases import INBOUND_LIMIT, Lease
from arena.referee.processes import BotSpec
from arena.referee.runner import (
    BotEntry,
    GameResult,
    SeriesConfig,
    name_by_joins,
    play_game_of_series,
    unique_names,
)
from arena.sdk import Bot
from arena.sdk.client import CLIENT, _handle, _Session, decide
from arena.v1 import arena_pb2 as pb

TRUST_WARNING = (
    "in-process: bots run inside this process, unsandboxed and unlimited, with its rights and its "
    "memory (the game's hidden state): for bots you trust only"
)


class InProcessError(ValueError):
    """A bot that cannot be played in-process; the message says why and what to do."""


@dataclasses.dataclass(frozen=True)
class LocalBot:
    """A seat's bot in an in-process series: how it is named (as ``arena match`` names it) and how a
    fresh instance is made (each "process" of it: the series' first game, and after a crash)."""

    spec: BotSpec
    make: Callable[[], Bot]


def local_bot(name: str, make: Callable[[], Bot]) -> LocalBot:
    """Returns a seat named ``name`` whose bot ``make`` makes (tests, benchmarks, training loops)."""
    return LocalBot(BotSpec(name, (), "python"), make)


def from_spec(game: str, spec: BotSpec) -> LocalBot:
    """Returns the in-process form of a bot argument resolved by ``resolve_bot``: a built-in, or a
    Python file defining one ``Bot`` subclass; raises InProcessError for anything else."""
    if spec.kind == "builtin":
        return LocalBot(spec, builtin_bots(game)[spec.argv[-1]])
    if spec.kind == "file":
        return LocalBot(spec, bot_class(Path(spec.argv[-1])))
    what = "@wait (a bot started by hand)" if spec.kind == "wait" else f"the {spec.kind} bot {spec.name}"
    raise InProcessError(
        f"--in-process plays Python bots only (built-ins and .py files), not {what}: "
        "run it without --in-process"
    )


def bot_class(path: Path) -> type[Bot]:
    """Returns the ``Bot`` subclass that the Python file ``path`` defines (the one no other class of
    the file extends); raises InProcessError. The file runs as a module, not as ``__main__`` (its
    ``run()`` is not called), with its folder first on ``sys.path`` for its own imports."""
    digest = hashlib.sha256(str(path).encode()).hexdigest()[:12]
    name = f"arena_inprocess_{path.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InProcessError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except Exception as exc:
        raise InProcessError(f"{path} failed to load: {type(exc).__name__}: {exc}") from None
    finally:
        sys.path.remove(str(path.parent))
    own = [
        cls
        for cls in vars(module).values()
        if inspect.isclass(cls) and issubclass(cls, Bot) and cls.__module__ == name
    ]
    leaves = [cls for cls in own if not any(other is not cls and issubclass(other, cls) for other in own)]
    if len(leaves) != 1:
        found = ", ".join(sorted(cls.__name__ for cls in leaves)) or "none"
        raise InProcessError(
            f"{path} must define one arena.sdk.Bot subclass to play in-process; found {found}"
        )
    return leaves[0]


class _Answers(asyncio.Queue[object]):
    """A seat's inbound queue that asks the bot when the match waits for its answer."""

    def __init__(self, seat: LocalSeat) -> None:
        super().__init__(INBOUND_LIMIT)
        self._seat = seat

    async def get(self) -> object:
        if self.empty():
            await self._seat.answer()
        return await super().get()


class LocalSeat(Lease):
    """A lease whose stream is a bot object in this process: what the referee sends is handed to the
    SDK's own message handling at once, and a DecisionRequest is answered when the match reads the
    answer (``_Answers.get``), timed against the deadline."""

    def __init__(self, name: str, bot: Bot, entry: BotEntry | None = None) -> None:
        super().__init__(name)
        self.bot = bot
        self.entry = entry  # where a crash is noted, for the person running the series
        self.session = _Session()
        self.request: pb.DecisionRequest | None = None  # the open request, answered when read
        self.inbound = _Answers(self)
        # the Join the SDK sends: claimed, naming itself, reading events in requests
        self.claimed, self.client, self.events_in_requests = True, CLIENT, True
        self.bot_name = str(bot.name)[:64]

    def send(self, message: pb.RefereeMessage) -> None:
        """Hands the message to the bot (a DecisionRequest: when its answer is read)."""
        if not self.connected:
            return
        if message.WhichOneof("kind") == "decision":
            self.request = message.decision
            return
        try:
            with contextlib.redirect_stdout(sys.stderr):
                _handle(self.bot, message, self.session)
        except Exception:
            self.crash()

    async def answer(self) -> None:
        """Asks the bot the open request: its answer goes on ``inbound`` unless it came after the
        deadline (then the match's timer, already past, strikes the seat while this waits)."""
        request, self.request = self.request, None
        if request is None:
            return
        loop = asyncio.get_running_loop()
        began = loop.time()
        try:
            with contextlib.redirect_stdout(sys.stderr):
                reply = decide(self.bot, request, self.session.game, self.session.reader)
        except Exception:
            self.crash(printed=True)
            return
        late = request.deadline_ms and (loop.time() - began) * 1000 > request.deadline_ms
        if late:
            await asyncio.sleep(request.deadline_ms / 1000)  # cancelled by the match's timer
        self.offer(reply)

    def crash(self, printed: bool = False) -> None:
        """Ends the seat as a bot process that died: it disconnects, its seat forfeits."""
        if not printed:
            traceback.print_exc()
        exc = sys.exc_info()[1]
        if self.entry is not None:
            self.entry.problem = f"bot {self.name} raised {type(exc).__name__}: {exc}"
        self.mark_disconnected()


def seat_bots(entries: list[BotEntry], bots: list[LocalBot], fresh: bool) -> None:
    """Gives each entry a new instance of its bot: all of them (``fresh``: the first game, or every
    game of duplicate deals), else only those whose bot crashed (as the referee restarts them)."""
    for entry, bot in zip(entries, bots, strict=True):
        if fresh or entry.lease is None or not entry.lease.connected:
            entry.problem = ""
            entry.lease = LocalSeat(entry.name, bot.make(), entry)


async def run_local_series(
    game: Game,
    bots: list[LocalBot],
    config: SeriesConfig,
    on_result: Callable[[GameResult], None] | None = None,
    on_step: Callable[[Step], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> list[GameResult]:
    """Plays ``config.games`` games between the bots in this process, as ``run_series`` plays them
    between bot processes (its options for processes, logs and ``@wait`` do not apply); returns
    each game's result."""
    game.check_players(len(bots))
    names = unique_names([bot.spec for bot in bots])
    entries = [BotEntry(bot.spec, name, i) for i, (bot, name) in enumerate(zip(bots, names, strict=True))]
    results: list[GameResult] = []
    for number in range(config.games):
        seat_bots(entries, bots, fresh=number == 0 or config.duplicate)
        if number == 0:  # named once for the series, by what each bot "sent in Join"
            name_by_joins(entries, config.match.anonymous)
            if config.on_names is not None:
                config.on_names([e.name for e in entries])
        result, _ = await play_game_of_series(game, entries, number, config, on_step)
        results.append(result)
        if on_result is not None:
            on_result(result)
        if stop is not None and stop():
            break
    for entry in entries:
        if entry.lease is not None:
            entry.lease.release()
    return results
