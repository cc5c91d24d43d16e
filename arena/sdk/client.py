"""The SDK's connection loop: one Play stream, decoded into the game's own types for the bot."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import traceback
from collections.abc import Sequence
from datetime import timedelta
from typing import Any, Protocol

import grpc

import arena
from arena import codec
from arena.games import get_game
from arena.sdk.legal import LegalActions
from arena.sdk.match import MatchInfo, MatchResult, PlayerResult, deadline_from_ms
from arena.sdk.wire import ObservationReader
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc


class BotLike(Protocol):
    """What the client needs of a bot: ``arena.sdk.bot.Bot`` is one. Declared here, not imported, so
    the bot class that ``run()``s this client and the client do not import each other."""

    @property
    def name(self) -> str: ...  # read only: Bot's is a class variable

    match: MatchInfo | None

    def on_match_start(self, match: MatchInfo) -> None: ...
    def choose(self, observation: Any, legal_actions: Sequence[Any], deadline: timedelta) -> Any: ...
    def on_event(self, event: Any) -> None: ...
    def on_error(self, code: str, message: str) -> None: ...
    def on_result(self, result: MatchResult) -> None: ...


CLIENT = f"arena-python/{arena.__version__}"
CONNECT_TIMEOUT = timedelta(seconds=30)  # a bot whose referee never comes up gives up, never hangs


class BotConnectionError(SystemExit):
    """The referee refused or dropped the connection; the message says why."""


def connection_settings(
    address: str | None, token: str | None, argv: list[str] | None = None
) -> tuple[str, str]:
    """Returns (address, token) from the arguments, then --address/--token flags, then the environment."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--address")
    parser.add_argument("--token")
    flags, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    address = address or flags.address or os.environ.get("ARENA_ADDRESS")
    token = token or flags.token or os.environ.get("ARENA_TOKEN")
    if not address or not token:
        raise BotConnectionError(
            "arena bot: no referee to connect to. Set ARENA_ADDRESS and ARENA_TOKEN (arena match does this "
            "for the bots it starts), or pass --address HOST:PORT --token TOKEN."
        )
    return address, token


def run_bot(bot: BotLike, address: str | None = None, token: str | None = None) -> None:
    """Plays every match the referee sends over one stream, until the referee ends it."""
    address, token = connection_settings(address, token)
    asyncio.run(_play(bot, address, token))


async def _play(bot: BotLike, address: str, token: str) -> None:
    """The stream itself (grpc.aio): reads a message, hands it to the bot, writes its answer.

    Design detail: grpc.aio, not the sync API. A sync bidi stream takes its requests from an
    iterator that gRPC drains on a thread of its own, so every answer crossed a queue and two threads
    before it left (bench/run.py measured that at 1.3-1.45 bare round trips); here the bot is called
    on the thread that read the message, and its answer is written from there. The bot's callbacks
    are plain calls with the loop set aside (``_outside_the_loop``): nothing else runs on it while
    the bot thinks, and the bot sees no running loop.
    """
    join = pb.BotMessage(join=pb.Join(token=token, bot_name=bot.name, client=CLIENT, events_in_requests=True))
    session = _Session()
    loop = asyncio.get_running_loop()
    async with grpc.aio.insecure_channel(address) as channel:
        try:
            await asyncio.wait_for(channel.channel_ready(), CONNECT_TIMEOUT.total_seconds())
        except TimeoutError:
            raise BotConnectionError(
                f"arena bot: cannot reach the referee at {address} within "
                f"{CONNECT_TIMEOUT.total_seconds():g} s; is it running, and is ARENA_ADDRESS right?"
            ) from None
        call = arena_pb2_grpc.RefereeStub(channel).Play()
        try:
            await call.write(join)
            while (message := await call.read()) is not grpc.aio.EOF:
                answer = _outside_the_loop(loop, bot, message, session)
                if answer is not None:
                    await call.write(pb.BotMessage(answer=answer))
        except asyncio.InvalidStateError:
            return  # the referee ended the stream (OK) as this answer was written: nothing to send
        except grpc.aio.AioRpcError as exc:
            code = exc.code()
            if code == grpc.StatusCode.CANCELLED:
                return
            raise BotConnectionError(
                f"arena bot: the referee ended the connection ({code.name}): {exc.details()}"
            ) from None


def _outside_the_loop(
    loop: asyncio.AbstractEventLoop, bot: BotLike, message: pb.RefereeMessage, session: _Session
) -> pb.Answer | None:
    """Handles a message with no event loop running, so the bot's code runs as in a plain program:
    it may call ``asyncio.run`` itself, as it could with the sync client. (Setting the running loop
    is how asyncio's own runners do it; it costs a function call.)"""
    asyncio._set_running_loop(None)
    try:
        return _handle(bot, message, session)
    finally:
        asyncio._set_running_loop(loop)


class _Session:
    """What the SDK remembers between messages of one stream: the game being played, and its
    observation reader (which keeps the fields of recent observations, ``arena.sdk.wire``)."""

    def __init__(self) -> None:
        self.game: Any = None
        self.reader: ObservationReader | None = None


def _handle(bot: BotLike, message: pb.RefereeMessage, session: _Session) -> pb.Answer | None:
    """Dispatches one referee message to the bot; returns the Answer to send, if any."""
    kind = message.WhichOneof("kind")
    if kind == "match_start":
        start = message.match_start
        info = MatchInfo(
            match_id=start.match_id,
            game=start.game,
            seat=start.seat,
            num_players=start.num_players,
            players=tuple(start.players),
            deadline=deadline_from_ms(start.deadline_ms),
            max_strikes=start.max_strikes,
        )
        if session.game is None or session.game.spec.name != start.game:
            session.game = get_game(start.game)
            session.reader = ObservationReader(session.game)
        bot.match = info
        bot.on_match_start(info)
    elif kind == "decision":
        return decide(bot, message.decision, session.game, session.reader)
    elif kind == "event":
        _events(bot, [message.event], session.game)
    elif kind == "error":
        error = message.error
        name = pb.ErrorCode.Name(error.code).removeprefix("ERROR_CODE_")
        print(f"arena bot {bot.name}: referee says {name}: {error.message}", file=sys.stderr, flush=True)
        bot.on_error(name, error.message)
    elif kind == "result":
        result = message.result
        _events(bot, result.events, session.game)
        players = tuple(
            PlayerResult(p.seat, p.bot, p.score, p.rank, p.forfeit, p.strikes) for p in result.players
        )
        bot.on_result(MatchResult(result.match_id, players, result.termination))
    return None


def _events(bot: BotLike, events: Sequence[pb.Event], game: Any) -> None:
    """Hands public events to the bot; a bot that does not override ``on_event`` skips their decoding."""
    if getattr(bot, "hears_events", True):  # a duck-typed bot gets every event
        for event in events:
            bot.on_event(codec.event_from_proto(game, event))


def decide(
    bot: BotLike, request: pb.DecisionRequest, game: Any, reader: ObservationReader | None = None
) -> pb.Answer:
    """Asks the bot to choose; returns the Answer. ``reader``: the stream's, reusing the fields of
    earlier observations (the observation is decoded whole without it)."""
    if request.events:
        _events(bot, request.events, game)
    if reader is None:
        observation = codec.observation_from_proto(game, request.observation)
    else:
        observation = reader.read(request.observation)
    legal = LegalActions(game, request.legal_actions)  # decodes only what the bot reads
    try:
        choice = bot.choose(observation, legal, deadline_from_ms(request.deadline_ms))
    except Exception:
        # A bug in the bot: say so loudly, then let the process end (the seat forfeits).
        traceback.print_exc()
        raise
    if isinstance(choice, int) and not isinstance(choice, bool):
        return pb.Answer(request_id=request.request_id, index=choice)
    index = legal.find(choice)  # by identity for an action the bot read from ``legal``
    if index is not None:
        return pb.Answer(request_id=request.request_id, index=index)
    # Not a legal action: sent as it is, for the referee to judge (it answers with an Error).
    return pb.Answer(request_id=request.request_id, action=codec.action_to_proto(game, choice))
