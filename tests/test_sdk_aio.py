"""The SDK's stream on grpc.aio and its field-by-field observation reader (``arena.sdk.wire``): a bot
is handed exactly what ``codec.observation_from_proto`` would decode, fields that did not change
are not decoded again, and the stream's ends (the referee's OK, its error statuses) end the bot
as they did."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import threading
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from arena import codec
from arena.games import GAMES
from arena.games.play import Turn, play
from arena.referee.server import SERVICE_NAME
from arena.sdk import Bot
from arena.sdk.client import BotConnectionError, run_bot
from arena.sdk.wire import ObservationReader, field_runs
from arena.v1 import arena_pb2 as pb


def seeded_observations(name: str, games: int = 3) -> list[tuple[int, pb.Observation]]:
    """Returns (seat, wire observation) of every decision of a few seeded random games, as sent."""
    game = GAMES[name]
    seen: list[tuple[int, pb.Observation]] = []
    for seed in range(games):
        rng = random.Random(seed)
        players = game.spec.min_players + seed % (game.spec.max_players - game.spec.min_players + 1)

        def choose(turn: Turn, seat: int, rng: random.Random = rng) -> int:
            wire = codec.observation_to_proto(game, game.observe(turn.state, seat))
            seen.append((seat, pb.Observation.FromString(wire.SerializeToString())))
            return rng.randrange(len(turn.legal[seat]))

        for _ in play(game, game.initial_state(players, seed), choose):
            pass
    return seen


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_reader_decodes_what_the_codec_decodes(name: str) -> None:
    game = GAMES[name]
    reader = ObservationReader(game)
    for _, wire in seeded_observations(name):
        assert reader.read(wire) == codec.observation_from_proto(game, wire)


def mutable_parts(value: Any, path: str = "observation") -> list[str]:
    """Returns where ``value`` holds something a bot could change in place: a list, dict, set or
    bytearray, or a dataclass that is not frozen."""
    if isinstance(value, list | dict | set | bytearray):
        return [f"{path}: {type(value).__name__}"]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        found = [] if value.__dataclass_params__.frozen else [f"{path}: {type(value).__name__} not frozen"]  # type: ignore[attr-defined]
        for field in dataclasses.fields(value):
            found += mutable_parts(getattr(value, field.name), f"{path}.{field.name}")
        return found
    if isinstance(value, tuple):
        return [p for i, item in enumerate(value) for p in mutable_parts(item, f"{path}[{i}]")]
    return []


@pytest.mark.parametrize("name", sorted(GAMES))
def test_observations_are_immutable_so_a_reused_field_is_safe(name: str) -> None:
    """The reader hands a bot the very value of an earlier decision when a field's bytes did not
    change: that is safe only because no part of an observation can be changed in place (a bot
    that mutated its hand would otherwise see the change in its next observation)."""
    game = GAMES[name]
    for _, wire in seeded_observations(name, games=2):
        assert mutable_parts(codec.observation_from_proto(game, wire)) == []


def test_a_field_that_did_not_change_is_not_decoded_again() -> None:
    """Two decisions of one seat in one Ninjan round share their history: the second observation
    holds the very value of the first."""
    game = GAMES["ninjan"]
    reader = ObservationReader(game)
    by_seat: dict[int, Any] = {}
    shared = 0
    for seat, wire in seeded_observations("ninjan", games=1):
        observation = reader.read(wire)
        last = by_seat.get(seat)
        if last is not None and last.history == observation.history and observation.history:
            assert last.history is observation.history
            shared += 1
        by_seat[seat] = observation
    assert shared > 0


def test_field_runs_splits_a_message_into_its_fields_or_gives_up() -> None:
    message = pb.DecisionRequest(request_id=300, step=2, deadline_ms=5)
    message.legal_actions.add().ninjan.take_pile.pile = 1
    message.legal_actions.add().ninjan.take_pile.pile = 2
    data = message.SerializeToString()
    runs = field_runs(data)
    assert runs is not None and b"".join(runs.values()) == data
    legal_number = pb.DecisionRequest.DESCRIPTOR.fields_by_name["legal_actions"].number
    assert pb.DecisionRequest.FromString(runs[legal_number]).legal_actions == message.legal_actions
    step_number = pb.DecisionRequest.DESCRIPTOR.fields_by_name["step"].number
    # the same field twice, apart: legal protobuf, read whole by the codec instead
    assert field_runs(data + pb.DecisionRequest(step=3).SerializeToString()) is None
    assert step_number in runs
    assert field_runs(b"\x08") is None and field_runs(b"\x12\x05ab") is None  # cut short


def test_a_message_the_reader_cannot_split_is_decoded_whole() -> None:
    game = GAMES["ninjan"]
    _, wire = seeded_observations("ninjan", games=1)[5]
    data = wire.SerializeToString()
    payload = wire.ninjan.SerializeToString()
    again = pb.Observation.FromString(data)
    # the round field again after the others: not contiguous, still one valid message
    again.ninjan.MergeFromString(payload[:2])
    assert field_runs(again.ninjan.SerializeToString()) is not None  # upb writes fields in order
    assert ObservationReader(game).read(again) == codec.observation_from_proto(game, again)


# -- the stream -----------------------------------------------------------------------------------


class FirstBot(Bot):
    name = "first"

    def __init__(self) -> None:
        self.chosen = 0
        self.threads: set[str] = set()

    def choose(self, observation: Any, legal_actions: Any, deadline: Any) -> Any:
        self.chosen += 1
        self.threads.add(threading.current_thread().name)
        return legal_actions[0]


def fake_referee(script: Any) -> tuple[grpc.aio.Server, str]:
    """Returns a grpc.aio server whose Play is ``script(requests, context)`` and its address (not
    started)."""
    handler = grpc.method_handlers_generic_handler(
        SERVICE_NAME,
        {
            "Play": grpc.stream_stream_rpc_method_handler(
                script, pb.BotMessage.FromString, pb.RefereeMessage.SerializeToString
            )
        },
    )
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    return server, f"127.0.0.1:{port}"


def play_against(script: Any, bot: Bot) -> str:
    """Runs the fake referee here and the bot on a thread of its own, as in a bot process; returns
    the name of the thread that ran the bot."""
    ran: list[str] = []

    def run(address: str) -> None:
        ran.append(threading.current_thread().name)
        run_bot(bot, address=address, token="secret")

    async def main() -> None:
        server, address = fake_referee(script)
        await server.start()
        try:
            await asyncio.to_thread(run, address)
        finally:
            await server.stop(None)

    asyncio.run(main())
    return ran[0]


def decisions(count: int) -> list[pb.RefereeMessage]:
    game = GAMES["ninjan"]
    state = game.initial_state(2, 3)
    start = pb.MatchStart(match_id="m", game="ninjan", seat=0, num_players=2, players=["a", "b"])
    request = pb.DecisionRequest(
        observation=codec.observation_to_proto(game, game.observe(state, 0)),
        legal_actions=codec.legal_actions_to_proto(game, game.legal_actions(state, 0)),
        deadline_ms=1000,
    )
    messages = [pb.RefereeMessage(match_start=start)]
    for number in range(1, count + 1):
        request.request_id = number
        messages.append(pb.RefereeMessage(decision=request))
    return messages


def test_the_bot_joins_answers_every_request_on_its_own_thread_and_ends_with_the_stream() -> None:
    answers: list[pb.BotMessage] = []

    async def script(requests: AsyncIterator[pb.BotMessage], context: Any) -> AsyncIterator[Any]:
        join = await anext(aiter(requests))
        answers.append(join)
        for message in decisions(20):
            yield message
            if message.WhichOneof("kind") == "decision":
                answers.append(await anext(aiter(requests)))

    bot = FirstBot()
    thread = play_against(script, bot)
    assert answers[0].join.token == "secret" and answers[0].join.events_in_requests
    assert [a.answer.request_id for a in answers[1:]] == list(range(1, 21))
    assert all(a.answer.index == 0 for a in answers[1:])
    assert bot.chosen == 20 and bot.threads == {thread}


def test_an_error_status_ends_the_bot_with_the_referees_reason() -> None:
    async def script(requests: AsyncIterator[pb.BotMessage], context: Any) -> AsyncIterator[Any]:
        await anext(aiter(requests))
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, "unknown seat token")
        yield pb.RefereeMessage()  # not reached

    with pytest.raises(BotConnectionError, match=r"ended the connection \(UNAUTHENTICATED\): unknown seat"):
        play_against(script, FirstBot())


class AsyncioBot(FirstBot):
    """Runs an event loop of its own in ``choose``, as a bot written as a plain program may."""

    def choose(self, observation: Any, legal_actions: Any, deadline: Any) -> Any:
        async def think() -> int:
            await asyncio.sleep(0)
            return 0

        self.chosen += 1
        return asyncio.run(think())


def test_a_bot_may_run_asyncio_itself() -> None:
    answers: list[pb.BotMessage] = []

    async def script(requests: AsyncIterator[pb.BotMessage], context: Any) -> AsyncIterator[Any]:
        await anext(aiter(requests))
        for message in decisions(3):
            yield message
            if message.WhichOneof("kind") == "decision":
                answers.append(await anext(aiter(requests)))

    bot = AsyncioBot()
    play_against(script, bot)
    assert bot.chosen == 3 and [a.answer.request_id for a in answers] == [1, 2, 3]
