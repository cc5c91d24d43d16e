"""Fuzzing (issue 8, hypothesis): random bytes and wrong messages to the referee, random actions to
the engines.

- Random byte strings on a Play stream (as the first message, or after a valid Join): the stream
  ends with a status the protocol names (never UNKNOWN or INTERNAL, which would mean an exception
  escaped the servicer), and the same server keeps serving a normal stream afterwards.
- Random well-typed but wrong BotMessages (stray Joins, unknown request ids, huge indexes, actions of
  any game, empty actions) as one seat's answers in a real match over gRPC: the match ends with a
  record whose replay reproduces; nothing raises.
- Random action sequences, legal and not, to every engine through ``apply``: each call raises
  IllegalActionError or returns a state that keeps the engine contract, and a refused call leaves
  the state as it was.
"""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena import codec
from arena.games import GAMES, get_game
from arena.games.base import IllegalActionError
from arena.referee.leases import LeaseRegistry
from arena.referee.match import Match, MatchConfig, SeatState
from arena.referee.replay import ReplayWriter, first_difference, reproduce
from arena.referee.server import RefereeServicer, start_server
from arena.v1 import arena_pb2 as pb
from tests.conftest import walk

PLAY = "/arena.v1.Referee/Play"
EXPECTED_STATUSES = {"OK", "INVALID_ARGUMENT", "UNAUTHENTICATED", "RESOURCE_EXHAUSTED", "CANCELLED"}
FUZZ = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- bytes on the wire ----------------------------------------------------------------------------


async def send_raw(port: int, registry: LeaseRegistry, join_first: bool, blobs: list[bytes]) -> str:
    """Sends ``blobs`` on one Play stream (after a valid Join if ``join_first``); returns the status."""
    lease = registry.create("fuzz")
    first = [pb.BotMessage(join=pb.Join(token=lease.token)).SerializeToString()] if join_first else []

    async def requests() -> Any:  # the call stops sending by itself once the server ended it
        for blob in [*first, *blobs]:
            yield blob
        await asyncio.sleep(0.05)
        registry.forget(lease)

    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = channel.stream_stream(PLAY, request_serializer=None, response_deserializer=None)(requests())
        try:
            async for _ in call:
                pass
        except grpc.aio.AioRpcError as exc:
            return f"{exc.code().name}: {exc.details()}"
        return (await asyncio.wait_for(call.code(), 30)).name


async def a_normal_stream_works(port: int, registry: LeaseRegistry) -> bool:
    lease = registry.create("after")
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = channel.stream_stream(PLAY, request_serializer=None, response_deserializer=None)()
        await call.write(pb.BotMessage(join=pb.Join(token=lease.token)).SerializeToString())
        await asyncio.wait_for(lease.joined.wait(), 30)
        lease.send(pb.RefereeMessage(error=pb.Error(message="hello")))
        data = await asyncio.wait_for(call.read(), 30)
        registry.forget(lease)
        await call.done_writing()
        return pb.RefereeMessage.FromString(data).error.message == "hello" and lease.claimed


def watched(raised: list[BaseException]) -> Any:
    """Returns RefereeServicer.Play wrapped to record any exception that escapes it (an abort with a
    status is the servicer's way to refuse a stream, not an escape, and GeneratorExit is gRPC closing
    the stream's generator when the client went away while a message waited to be sent)."""
    original = RefereeServicer.Play

    async def play(self: RefereeServicer, requests: Any, context: Any) -> Any:
        try:
            async for message in original(self, requests, context):
                yield message
        except (asyncio.CancelledError, grpc.aio.AbortError, GeneratorExit):
            raise
        except BaseException as exc:
            raised.append(exc)
            raise

    return play


@FUZZ
@given(join_first=st.booleans(), blobs=st.lists(st.binary(max_size=300), min_size=1, max_size=6))
def test_random_bytes_never_break_the_servicer(join_first: bool, blobs: list[bytes]) -> None:
    raised: list[BaseException] = []

    async def scenario() -> tuple[str, bool]:
        registry = LeaseRegistry()
        server, port = await start_server(registry)
        try:
            status = await send_raw(port, registry, join_first, blobs)
            return status, await a_normal_stream_works(port, registry)
        finally:
            await server.stop(None)

    original = RefereeServicer.Play
    RefereeServicer.Play = watched(raised)  # type: ignore[method-assign]
    try:
        status, still_serving = asyncio.run(scenario())
    finally:
        RefereeServicer.Play = original  # type: ignore[method-assign]
    assert raised == []
    # The client may fail its own write once the server ended the stream ("Internal error from Core").
    assert status.split(":")[0] in EXPECTED_STATUSES or status == "INTERNAL: Internal error from Core", status
    assert still_serving


# -- wrong messages during a match ----------------------------------------------------------------


def any_game_action(data: st.DataObject) -> pb.Action:
    """Returns an Action of a random game: a legal one from a random state, or an empty payload."""
    name = data.draw(st.sampled_from(sorted(GAMES)))
    game = get_game(name)
    if data.draw(st.booleans()):
        action = pb.Action()
        getattr(action, game.spec.wire_name).SetInParent()
        return action
    state = game.initial_state(game.spec.min_players, data.draw(st.integers(0, 50)))
    while not game.to_move(state):
        state = game.apply(state, {})
    legal = game.legal_actions(state, game.to_move(state)[0])
    return codec.action_to_proto(game, data.draw(st.sampled_from(legal)))


def wrong_message(data: st.DataObject) -> pb.BotMessage:
    kind = data.draw(st.sampled_from(["join", "stale", "index", "action", "empty"]))
    if kind == "join":
        return pb.BotMessage(join=pb.Join(token=data.draw(st.text(max_size=40)), bot_name="x" * 200))
    request_id = data.draw(st.integers(0, 2**64 - 1))
    if kind == "stale":
        return pb.BotMessage(answer=pb.Answer(request_id=request_id, index=0))
    if kind == "index":
        return pb.BotMessage(answer=pb.Answer(request_id=0, index=data.draw(st.integers(0, 2**32 - 1))))
    if kind == "action":
        return pb.BotMessage(answer=pb.Answer(request_id=0, action=any_game_action(data)))
    return pb.BotMessage(answer=pb.Answer(request_id=0))


async def good_seat(lease: Any) -> None:
    while (message := await lease.outbound.get()) is not None:
        if message.WhichOneof("kind") == "decision":
            lease.offer(pb.Answer(request_id=message.decision.request_id, index=0))


async def fuzzed_seat(port: int, token: str, messages: list[pb.BotMessage]) -> None:
    """Joins, then answers each decision with the next fuzzed message (its request id filled in
    when it has 0), and index 0 once they run out."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = channel.stream_stream(
            PLAY, request_serializer=None, response_deserializer=pb.RefereeMessage.FromString
        )()
        await call.write(pb.BotMessage(join=pb.Join(token=token)).SerializeToString())
        pending = list(messages)
        try:
            while (message := await call.read()) is not grpc.aio.EOF:
                if message.WhichOneof("kind") != "decision":
                    continue
                answer = pending.pop(0) if pending else pb.BotMessage(answer=pb.Answer(index=0))
                if answer.WhichOneof("kind") == "answer" and answer.answer.request_id == 0:
                    answer.answer.request_id = message.decision.request_id
                await call.write(answer.SerializeToString())
        except grpc.aio.AioRpcError:
            pass


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_wrong_messages_in_a_match_end_in_a_replayable_result(data: st.DataObject) -> None:
    messages = data.draw(st.lists(st.builds(lambda: None), min_size=1, max_size=5))
    messages = [wrong_message(data) for _ in messages]
    game = get_game("ninjan")

    async def scenario() -> tuple[Any, ReplayWriter]:
        registry = LeaseRegistry()
        server, port = await start_server(registry)
        fuzzed, good = registry.create("fuzzed"), registry.create("good")
        good.claimed = True  # an in-process seat, no stream
        client = asyncio.create_task(fuzzed_seat(port, fuzzed.token, messages))
        helper = asyncio.create_task(good_seat(good))
        await asyncio.wait_for(fuzzed.joined.wait(), 30)
        config = MatchConfig(deadline=timedelta(milliseconds=150))
        replay = ReplayWriter(ReplayWriter.header("fuzz", "ninjan", 3, ["fuzzed", "good"], 150, 3))
        seats = [SeatState(0, "fuzzed", fuzzed), SeatState(1, "good", good)]
        record = await asyncio.wait_for(Match(game, seats, 3, "fuzz", config, replay).run(), 60)
        registry.forget(fuzzed)
        registry.forget(good)
        await asyncio.wait_for(asyncio.gather(client, helper), 30)
        await server.stop(None)
        return record, replay

    record, replay = asyncio.run(scenario())
    assert record.players[1].strikes == 0 and not record.players[1].forfeit
    assert first_difference(replay.text(), reproduce(replay_lines(replay)).text) is None


def replay_lines(replay: ReplayWriter) -> list[dict]:
    import json

    return [json.loads(line) for line in replay.text().splitlines()]


# -- engines --------------------------------------------------------------------------------------


def check_state(game: Any, state: Any, num_players: int) -> None:
    """The engine contract at one state (as in tests/test_conformance.py)."""
    to_move = game.to_move(state)
    assert list(to_move) == sorted(set(to_move))
    for seat in range(num_players):
        legal = game.legal_actions(state, seat)
        assert (len(legal) > 0) == (seat in to_move)
        assert len(set(legal)) == len(legal)
        observation = game.observe(state, seat)
        assert (
            codec.observation_from_proto(game, codec.observation_to_proto(game, observation)) == observation
        )
        hidden = game.hidden_from(state, seat)
        assert not hidden & (set(walk(observation)) | set(walk(game.events(state))))


@pytest.mark.parametrize("name", sorted(GAMES))
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_random_action_sequences_keep_every_invariant(name: str, data: st.DataObject) -> None:
    game = get_game(name)
    num_players = data.draw(st.integers(game.spec.min_players, game.spec.max_players))
    state = game.initial_state(num_players, data.draw(st.integers(0, 2**32)))
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    seen: list[Any] = []  # actions legal somewhere earlier: often illegal now
    for _ in range(game.spec.max_steps + 1):
        if game.is_terminal(state):
            break
        check_state(game, state, num_players)
        acting = game.to_move(state)
        legal = {seat: game.legal_actions(state, seat) for seat in acting}
        seen.extend(a for actions in legal.values() for a in actions[:3])
        attempt = {seat: rng.choice(actions) for seat, actions in legal.items()}
        kind = rng.choice(["legal", "legal", "seen", "foreign", "seats"])
        if kind == "seen" and acting:
            attempt[acting[0]] = rng.choice(seen)
        elif kind == "foreign" and acting:
            attempt[acting[0]] = rng.choice([None, 42, "pass", object(), *other_game_actions(name)])
        elif kind == "seats":
            attempt = {seat: a for seat, a in attempt.items() if seat != acting[0]} if acting else {0: None}
        before = state
        try:
            state = game.apply(state, attempt)
        except IllegalActionError:
            assert state == before
            assert kind != "legal"
            state = game.apply(state, {seat: rng.choice(actions) for seat, actions in legal.items()})
    check_state(game, state, num_players)
    assert game.is_terminal(state)
    assert len(game.scores(state)) == num_players and min(game.ranks(state)) == 1


def other_game_actions(name: str) -> list[Any]:
    """Returns a few legal actions of the other games (foreign objects to this one)."""
    out = []
    for other in sorted(GAMES):
        if other != name:
            game = get_game(other)
            state = game.initial_state(game.spec.min_players, 1)
            while not game.to_move(state):
                state = game.apply(state, {})
            out.extend(game.legal_actions(state, game.to_move(state)[0])[:2])
    return out
