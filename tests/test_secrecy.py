"""Secrecy per game (issue 8): what the referee sends a seat never holds another seat's secrets.

Seeded games run through the real match loop (arena/referee/match.py) with in-process bots on leases,
so every message is exactly what the servicer would relay: each seat's DecisionRequests, Events,
Errors and MatchResult are recorded as serialized bytes together with the state at the moment they
were queued. Then:

- decoded back through the codec, no message to seat A contains an object of
  ``game.hidden_from(state, A)`` (other hands, hidden missions, decks, the draw pile...);
- no message to A contains another seat's token, nor the match seed (from which future dice and
  draws could be computed) as text or as a varint, other than through the match id, which the
  caller chooses (see docs/security.md: ``arena match`` ids are "<game>-<seed>");
- public events are checked against what was hidden when they happened: half the seats join with
  ``events_in_requests`` and get them later, inside their next DecisionRequest, yet every seat receives
  the same events in the same order;
- the result comes once, last;
- simultaneous choices are committed before any is revealed: the seats of a simultaneous step answer
  one by one (in an order that alternates between steps), and each seat must have been sent nothing
  between its DecisionRequest and its own answer, even after every other seat had answered.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from datetime import timedelta
from typing import Any

import pytest

from arena import codec
from arena.games import GAMES, get_game
from arena.games.base import Game
from arena.referee.leases import Lease
from arena.referee.match import Match, MatchConfig, SeatState
from arena.v1 import arena_pb2 as pb
from tests.conftest import walk


class Tracked:
    """A game whose latest state is visible: ``state`` is what the referee holds at any moment."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.state: Any = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self.game, name)

    def initial_state(self, num_players: int, seed: int) -> Any:
        self.state = self.game.initial_state(num_players, seed)
        return self.state

    def apply_legal(self, state: Any, actions: Any) -> Any:
        self.state = self.game.apply_legal(state, actions)
        return self.state


@dataclasses.dataclass(eq=False)
class RecordingLease(Lease):
    """A lease that keeps every message queued for its bot, with the state at that moment."""

    sent: list[tuple[bytes, Any]] = dataclasses.field(default_factory=list)
    delivered: list[tuple[bytes, Any]] = dataclasses.field(default_factory=list)  # see RecordingSeat
    tracked: Any = None

    def send(self, message: pb.RefereeMessage) -> None:
        if self.connected:
            self.sent.append((message.SerializeToString(), self.tracked.state))
        super().send(message)


@dataclasses.dataclass
class RecordingSeat(SeatState):
    """A seat that notes each public event with the state it happened in: an event held for the next
    DecisionRequest must be checked against what was hidden when it happened, not when it is sent."""

    delivered: list[tuple[bytes, Any]] = dataclasses.field(default_factory=list)

    def deliver(self, events: list[pb.Event]) -> None:
        state = self.lease.tracked.state  # type: ignore[union-attr]
        self.delivered.extend((event.SerializeToString(), state) for event in events)
        super().deliver(events)


class Observed(Match):
    """The real match loop, noting when each seat's choice of a step is committed (its answer read
    and validated, or struck): from then on the other seats' messages may depend on it."""

    committed: set[tuple[int, int]]
    changed: asyncio.Event  # set (and replaced) whenever ``committed`` grows

    async def _ask(self, seat: SeatState, state: Any, legal: Any) -> Any:
        action = await super()._ask(seat, state, legal)
        self.committed.add((self.step, seat.seat))
        self.changed.set()
        self.changed = asyncio.Event()
        return action


async def play_seat(
    lease: RecordingLease, seat: int, match: Observed, orders: dict[int, list[int]], rng: random.Random
) -> None:
    """Answers the seat's decisions (sometimes badly), after the seats before it in this step's order;
    checks that nothing reached it while its own choice was open."""
    received = 0
    while (message := await asyncio.wait_for(lease.outbound.get(), 60)) is not None:
        received += 1
        if message.WhichOneof("kind") != "decision":
            continue
        step = message.decision.step
        acting = match.game.to_move(match.game.state)
        order = orders.setdefault(step, sorted(acting, reverse=step % 2 == 1))
        earlier = order[: order.index(seat)]
        while not all((step, other) in match.committed for other in earlier):
            await match.changed.wait()
        assert len(lease.sent) == received, (
            f"seat {seat} was sent {len(lease.sent) - received} message(s) while its choice at step "
            f"{step} was open, after seats {earlier} had answered"
        )
        request = message.decision
        index = rng.randrange(len(request.legal_actions))
        if rng.random() < 0.1:
            index = len(request.legal_actions) + 3  # a bad answer: an Error goes to this seat
        lease.offer(pb.Answer(request_id=request.request_id, index=index))


async def play_recorded(
    game: Game, num_players: int, seed: int, match_class: type[Observed] = Observed
) -> list[RecordingLease]:
    """Plays one match through the real match loop; returns the leases with everything they were sent."""
    tracked = Tracked(game)
    leases = [RecordingLease(f"seat{seat}") for seat in range(num_players)]
    for seat, lease in enumerate(leases):
        lease.tracked = tracked
        lease.claimed = True  # as if its stream had joined
        lease.events_in_requests = seat % 2 == 0  # both ways of receiving events, side by side
    seats = [RecordingSeat(seat, f"bot{seat}", lease) for seat, lease in enumerate(leases)]
    config = MatchConfig(deadline=timedelta(seconds=60), max_strikes=1000)
    match = match_class(tracked, seats, seed, f"secrecy-{num_players}", config)  # type: ignore[arg-type]
    match.committed, match.changed = set(), asyncio.Event()
    orders: dict[int, list[int]] = {}
    rng = random.Random(seed)
    bots = [
        asyncio.create_task(play_seat(lease, seat, match, orders, rng)) for seat, lease in enumerate(leases)
    ]
    running = asyncio.create_task(match.run())
    while not running.done():  # a bot's failed check ends the game at once, not at a deadline
        done, _ = await asyncio.wait([running, *bots], timeout=120, return_when=asyncio.FIRST_COMPLETED)
        assert done, "the match hung"
        for task in done:
            task.result()
    for lease, seat_state in zip(leases, seats, strict=True):
        lease.release()
        lease.delivered = seat_state.delivered
    await asyncio.wait_for(asyncio.gather(*bots), 60)
    return leases


def decoded(game: Game, message: pb.RefereeMessage) -> list[Any]:
    """Returns the engine objects a message carries, decoded as a bot's codec would."""
    kind = message.WhichOneof("kind")
    if kind == "decision":
        request = message.decision
        return [
            codec.observation_from_proto(game, request.observation),
            *(codec.action_from_proto(game, a) for a in request.legal_actions),
        ]
    if kind == "event":
        return [codec.event_from_proto(game, message.event)]
    return []


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


SEED = 9_876_543_210  # large enough that its varint or digits cannot appear by chance


@pytest.mark.parametrize("name", sorted(GAMES))
def test_no_message_to_a_seat_holds_another_seats_secret(name: str) -> None:
    game = get_game(name)
    counts = sorted({game.spec.min_players, min(game.spec.max_players, 4)})  # 6-seat games take long
    checked = 0
    kinds_sent = set()
    for number, num_players in enumerate(counts):
        seed = SEED + number
        leases = asyncio.run(play_recorded(game, num_players, seed))
        for seat, lease in enumerate(leases):
            other_tokens = [other.token.encode() for other in leases if other is not lease]
            kinds = []
            for data, state in lease.sent:
                message = pb.RefereeMessage.FromString(data)
                kinds.append(message.WhichOneof("kind"))
                hidden = frozenset() if state is None else game.hidden_from(state, seat)  # None: match_start
                leaked = hidden & set(walk(decoded(game, message)))
                assert not leaked, f"{name}: seat {seat} was sent hidden {sorted(map(str, leaked))[:3]}"
                assert not any(token in data for token in other_tokens)
                assert varint(seed) not in data and str(seed).encode() not in data
                checked += bool(hidden)
            for data, state in lease.delivered:  # public events, as they happened, also those held
                hidden = game.hidden_from(state, seat)
                leaked = hidden & set(walk([codec.event_from_proto(game, pb.Event.FromString(data))]))
                assert not leaked, f"{name}: seat {seat} was told hidden {sorted(map(str, leaked))[:3]}"
            assert kinds[0] == "match_start" and kinds.count("result") == 1 and kinds[-1] == "result"
            kinds_sent.update(kinds)
    assert {"decision", "event", "error"} <= kinds_sent
    assert checked or game.spec.perfect_information  # the hidden sets were not all empty


def events_received(lease: RecordingLease) -> tuple[list[bytes], int]:
    """Returns the events a seat received, in order, whether as Event messages or inside
    DecisionRequests and the MatchResult, and how many came inside those."""
    events, inside = [], 0
    for data, _ in lease.sent:
        message = pb.RefereeMessage.FromString(data)
        if message.WhichOneof("kind") == "event":
            events.append(message.event.SerializeToString())
        elif message.WhichOneof("kind") in ("decision", "result"):
            held = getattr(message, message.WhichOneof("kind")).events
            events.extend(e.SerializeToString() for e in held)
            inside += len(held)
    return events, inside


@pytest.mark.parametrize("name", sorted(GAMES))
def test_events_in_requests_deliver_the_same_events_in_the_same_order(name: str) -> None:
    """Seats 0 and 2 joined with events_in_requests, 1 and 3 did not: all receive the same events."""
    game = get_game(name)
    leases = asyncio.run(play_recorded(game, min(game.spec.max_players, 4), SEED + 7))
    received = [events_received(lease) for lease in leases]
    assert received[0][0], "the game had no events"
    for seat, (events, inside) in enumerate(received):
        assert events == received[0][0], f"seat {seat} received other events than seat 0"
        assert (inside > 0) == (seat % 2 == 0), f"seat {seat}: {inside} events inside requests"


def test_the_commit_check_catches_an_early_reveal() -> None:
    """The check above can fail: a referee that told seat 1 about seat 0's answer is caught."""

    class Leaky(Observed):
        async def _ask(self, seat: SeatState, state: Any, legal: Any) -> Any:
            action = await super()._ask(seat, state, legal)
            for other in self.seats:
                if other is not seat:
                    self._error(other, pb.ERROR_CODE_UNSPECIFIED, f"seat {seat.seat} chose {action}")
            return action

    with pytest.raises(AssertionError, match="while its choice at step 0 was open"):
        asyncio.run(play_recorded(get_game("ninjan"), 2, 1, Leaky))
