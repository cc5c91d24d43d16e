"""``check_secrecy``: what the referee sends a seat never holds another seat's secrets.

Seeded games run through the real match loop (arena/referee/match.py) with in-process bots on leases,
so every message is exactly what the servicer would relay: each seat's DecisionRequests, Events,
Errors and MatchResult are recorded as serialized bytes together with the state at the moment they
were queued. Then:

- decoded back through the codec, no message to seat A contains an object of
  ``game.hidden_from(state, A)`` (other hands, hidden missions, decks, the draw pile...), and at every
  state a message was sent in, neither any seat's observation nor the events nor the public view
  shows what ``hidden_from`` hides from that seat (``check_state_secrecy``: cards that a view names by
  id, ``card_ids`` fields, are resolved through the game's catalogue first);
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

The bots answer at random, one answer in ten out of range (an Error goes to that seat), so decisions,
events and errors are all sent. A game needs its messages in proto/arena/v1 to be played this way.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import random
from collections.abc import Iterable
from datetime import timedelta
from typing import Any, cast

from arena import codec
from arena.games.base import CARD_KIND, Game
from arena.referee.leases import Lease
from arena.referee.match import Match, MatchConfig, SeatState
from arena.testing.playouts import walk
from arena.v1 import arena_pb2 as pb

SEED = 9_876_543_210  # large enough that its varint or digits cannot appear in a message by chance


class SecrecyError(AssertionError):
    """A seat was shown what it may not see; the message says where (game, players, seed, message)."""


def check_state_secrecy(game: Game, state: Any) -> None:
    """No seat's observation or the step's events show it, and the public view shows nobody, anything
    of ``hidden_from``; raises AssertionError naming the seat and what it sees."""
    for seat in range(len(game.scores(state))):
        hidden = game.hidden_from(state, seat)
        seen = shown(game, game.observe(state, seat)) | shown(game, game.events(state))
        leaked = hidden & seen
        assert not leaked, f"seat {seat} can see hidden {sorted(map(str, leaked))[:5]}"
    public = shown(game, game.public_view(state))
    for seat in range(len(game.scores(state))):
        leaked_public = sorted(map(str, game.hidden_from(state, seat) & public))
        assert not leaked_public, f"the public view shows what seat {seat} may not see: {leaked_public[:5]}"


def shown(game: Game, view: Any) -> set:
    """Returns every object in ``view``, with the cards it names by id (``card_ids`` fields) resolved
    through the game's catalogue, so that a hidden card shown as a bare id counts as shown."""
    objects = set(walk(view))
    for obj in list(objects):
        cls: type = type(obj)
        for name, kind in _card_fields(cls):
            value = getattr(obj, name)
            ids = value if isinstance(value, tuple) else (value,)
            objects.update(_cards_by_id(game, kind)[i] for i in ids if i is not None)
    return objects


@functools.cache
def _card_fields(cls: type) -> tuple[tuple[str, str], ...]:
    """Returns (field name, catalogue kind) of a view class's ``card_ids`` fields."""
    if not dataclasses.is_dataclass(cls):
        return ()
    return tuple((f.name, f.metadata[CARD_KIND]) for f in dataclasses.fields(cls) if CARD_KIND in f.metadata)


@functools.cache
def _cards_by_id(game: Game, kind: str) -> dict:
    return {card.id: card for card in game.catalogue()[kind]}


def check_secrecy(
    game: Game, seeds: Iterable[int] = (SEED,), players: int | Iterable[int] | None = None
) -> int:
    """Plays one match per seed and player count through the real match loop and checks everything
    each seat was sent (this module's docstring lists the checks); raises SecrecyError at the first
    failure, naming the game, player count, seed and the message. Returns how many messages were
    checked against a non-empty hidden set.

    ``players``: one count or several (default: the least, and the most up to 4). ``seeds`` should be
    large (over 2**32, as the default) so that the seed cannot appear in a message by chance. It runs
    its own event loop (``asyncio.run``): call it from synchronous code.
    """
    name = game.spec.name
    if players is None:
        counts = sorted({game.spec.min_players, min(game.spec.max_players, 4)})  # 6-seat games take long
    else:
        counts = [players] if isinstance(players, int) else list(players)
    checked = 0
    kinds_sent: set[str] = set()
    for seed in seeds:
        for num_players in counts:
            where = f"{name}, {num_players} players, seed {seed}"
            try:
                leases = asyncio.run(play_recorded(game, num_players, seed))
                checked += check_recorded(game, leases, seed, kinds_sent)
            except Exception as error:
                what = str(error) if isinstance(error, AssertionError) else f"{type(error).__name__}: {error}"
                raise SecrecyError(f"{where}: {what}") from error
    if not {"decision", "event", "error"} <= kinds_sent:
        sent = sorted(kinds_sent)
        raise SecrecyError(f"{name}: the matches sent only {sent}, not decisions, events and errors")
    if not checked and not game.spec.perfect_information:
        raise SecrecyError(f"{name}: hidden_from was empty at every message, yet the game hides something")
    return checked


def check_recorded(game: Game, leases: list[RecordingLease], seed: int, kinds_sent: set) -> int:
    """Checks what one recorded match sent each seat; adds the kinds of messages sent to
    ``kinds_sent``; returns how many messages were checked against a non-empty hidden set."""
    checked, views_checked = 0, set()
    for seat, lease in enumerate(leases):
        other_tokens = [other.token.encode() for other in leases if other is not lease]
        kinds = []
        for number, (data, state) in enumerate(lease.sent):
            message = pb.RefereeMessage.FromString(data)
            kinds.append(message.WhichOneof("kind"))
            at = f"seat {seat}'s message {number} ({_described(message)})"
            hidden = frozenset() if state is None else game.hidden_from(state, seat)  # None: match_start
            leaked = hidden & set(walk(decoded(game, message)))
            assert not leaked, f"{at}: seat {seat} was sent hidden {sorted(map(str, leaked))[:3]}"
            assert not any(token in data for token in other_tokens), f"{at}: another seat's token"
            assert varint(seed) not in data and str(seed).encode() not in data, f"{at}: the match seed"
            if state is not None and id(state) not in views_checked:
                views_checked.add(id(state))
                try:
                    check_state_secrecy(game, state)
                except AssertionError as error:
                    raise AssertionError(f"at {at}: {error}") from error
            checked += bool(hidden)
        for number, (data, state) in enumerate(lease.delivered):  # public events as they happened
            hidden = game.hidden_from(state, seat)
            event = pb.Event.FromString(data)
            leaked = hidden & set(walk([codec.event_from_proto(game, event)]))
            at = f"seat {seat}'s event {number} (step {event.step})"
            assert not leaked, f"{at}: seat {seat} was told hidden {sorted(map(str, leaked))[:3]}"
        assert kinds and kinds[0] == "match_start", f"seat {seat} was first sent {kinds[:1]}"
        assert kinds.count("result") == 1 and kinds[-1] == "result", f"seat {seat}: not one result, last"
        kinds_sent.update(kinds)
    received = [events_received(lease) for lease in leases]
    assert received[0][0], "the game had no events"
    for seat, (events, inside) in enumerate(received):
        assert events == received[0][0], f"seat {seat} received other events than seat 0"
        held = leases[seat].events_in_requests
        assert (inside > 0) == held, f"seat {seat}: {inside} events inside requests"
    return checked


def _described(message: pb.RefereeMessage) -> str:
    kind = message.WhichOneof("kind")
    step = getattr(getattr(message, kind), "step", None) if kind in ("decision", "event") else None
    return kind if step is None else f"{kind}, step {step}"


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
        tracked = cast(Tracked, match.game)  # play_recorded builds every match on a Tracked game
        acting = tracked.to_move(tracked.state)
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
    """Plays one match through the real match loop; returns the leases with everything they were sent.
    Seats 0, 2, ... join with ``events_in_requests``, the others without."""
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
    """Returns ``value`` as protobuf writes an unsigned varint."""
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


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
