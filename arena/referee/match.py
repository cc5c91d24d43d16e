"""The match loop: drives one game between N leased seats, enforcing deadlines and strikes.

Design detail: a bad answer (illegal, malformed, out of range, late) is never retried. The seat gets an
Error naming the problem and a strike, and a seeded fallback (a random legal action drawn from the
match seed, step and seat) moves for it, so one slow or broken bot cannot stall the others and the
game stays reproducible. At ``max_strikes`` strikes, or on a disconnect, the seat forfeits: it is
ranked last and the fallback plays it to the end.

An ``anonymous`` match (every rated match a worker plays: tournaments and ladders) tells the bots
seat labels (``seat_labels``: "seat 0", "seat 1", ...) where it would name bots, in ``MatchStart``
and in the ``MatchResult`` each seat is sent, so two bots of one person cannot find each other at a
table by name; the record and the replay keep the bots' names. Its match id is told as a label too
(``told_id``, a hash of the match's secret seed and its id: the same on a rerun, unrelated to the
plan): a tournament's match id names its group's place in the published plan, which gives the bots
at the table away as surely as their names.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

from arena import codec
from arena.games.base import Game
from arena.games.play import Driver, Step, Turn
from arena.games.rng import derive, derive_seed
from arena.referee.botlog import StampedLog, Think
from arena.referee.branch import Branch
from arena.referee.leases import DISCONNECTED, Lease, Malformed
from arena.referee.record import MatchRecord, final_record
from arena.referee.replay import ReplayWriter
from arena.v1 import arena_pb2 as pb

DEFAULT_DEADLINE = timedelta(seconds=2)
DEFAULT_MAX_STRIKES = 3
NEVER_CONNECTED = "never connected"  # the forfeit reason of a seat whose bot never joined


@dataclasses.dataclass
class SeatState:
    """One seat's standing in one match."""

    seat: int
    bot: str
    lease: Lease | None
    strikes: int = 0
    forfeit: bool = False
    forfeit_reason: str = ""
    pending_events: list[pb.Event] = dataclasses.field(default_factory=list)
    requests: int = 0  # DecisionRequests sent to this seat: its request ids count its own decisions only
    output: StampedLog | None = None  # the bot's output, stamped with the step being decided

    @property
    def playing(self) -> bool:
        """Returns whether the bot itself is still asked for decisions."""
        return not self.forfeit and self.lease is not None and self.lease.connected

    def deliver(self, events: list[pb.Event]) -> None:
        """Sends public events: held for the next DecisionRequest (or the MatchResult) when the bot reads
        them there (one message instead of many), else one Event message each, after any still held."""
        if self.lease is None:
            return
        self.pending_events.extend(events)
        if not (self.playing and self.lease.events_in_requests):
            self.flush_events()

    def take_events(self) -> list[pb.Event]:
        """Returns the held events (for a DecisionRequest) and forgets them."""
        events, self.pending_events = self.pending_events, []
        return events

    def flush_events(self) -> None:
        """Sends the held events as Event messages (for a bot that does not read them in requests, or
        once the seat forfeits and is asked nothing more)."""
        if self.lease is not None:
            for event in self.take_events():
                self.lease.send(pb.RefereeMessage(event=event))


@dataclasses.dataclass(frozen=True)
class MatchConfig:
    deadline: timedelta = DEFAULT_DEADLINE  # per decision; zero: none (a bot stepped through by hand)
    max_strikes: int = DEFAULT_MAX_STRIKES
    anonymous: bool = False  # bots are told seat labels, not each other's names (rated matches)


def seat_labels(seats: int) -> list[str]:
    """Returns what an anonymous match calls its seats when it talks to the bots.

    >>> seat_labels(3)
    ['seat 0', 'seat 1', 'seat 2']
    """
    return [f"seat {seat}" for seat in range(seats)]


class ObservationWriter:
    """Writes a game's observations and legal actions into DecisionRequests, as bytes that are
    reused for what did not change.

    Design detail: encoding each seat's observation afresh cost the referee more than the round
    trip to its bot (a late Ninjan observation carries the whole history of the game). Most of it
    is shared: the seats acting in one step see the same table and history, and from one step to
    the next most fields stay as they were. So each top-level field is encoded on its own
    (``codec.field_encoders``) and its bytes kept with its value: a field whose value is the same
    object as, or equal to, one of the last few of that field reuses their bytes. The bytes are
    merged into the request in C, and each legal action's bytes are made once per action.
    """

    def __init__(self, game: Game, seats: int) -> None:
        self.wire_name = game.spec.wire_name
        payload = type(getattr(pb.Observation(), self.wire_name))
        names = [field.name for field in dataclasses.fields(game.observation_type)]
        self.fields = list(zip(names, codec.field_encoders(game.observation_type, payload), strict=True))
        self.keep = seats + 1  # values kept per field: each seat's, and one more
        self.recent: list[list[tuple[Any, bytes]]] = [[] for _ in names]
        self.game = game

    def write(self, request: pb.DecisionRequest, observation: Any, legal: Sequence[Any]) -> None:
        """Sets the request's observation and legal actions."""
        parts = [
            self._field(getattr(observation, name), encode, recent)
            for (name, encode), recent in zip(self.fields, self.recent, strict=True)
        ]
        payload = getattr(request.observation, self.wire_name)
        payload.SetInParent()
        payload.MergeFromString(b"".join(parts))
        game = self.game
        request.MergeFromString(b"".join([_action_entry(game, action) for action in legal]))

    def _field(self, value: Any, encode: Callable[[Any], bytes], recent: list[tuple[Any, bytes]]) -> bytes:
        """Returns the field's bytes: those of an identical or equal recent value, else new ones."""
        for kept, data in recent:
            if kept is value:
                return data
        for kept, data in recent:
            if kept == value:
                return data
        data = encode(value)
        recent.insert(0, (value, data))
        del recent[self.keep :]
        return data


@functools.lru_cache(maxsize=16384)
def _action_entry(game: Game, action: Any) -> bytes:
    """Returns an action's bytes as an entry of DecisionRequest.legal_actions (cached: the same
    actions are legal over and over, game after game)."""
    return pb.DecisionRequest(legal_actions=[codec.action_to_proto(game, action)]).SerializeToString()


async def _receive(lease: Lease, until: float | None) -> Any:
    """Returns the lease's next inbound item, or None once the loop's clock passes ``until`` (None:
    wait as long as it takes).

    Design detail: ``asyncio.timeout_at`` rather than ``wait_for``, which wraps every wait in a new
    task; this runs once per decision.
    """
    try:
        async with asyncio.timeout_at(until):
            return await lease.inbound.get()
    except TimeoutError:
        return None


class Match:
    """One match in progress. ``run()`` plays it to the end and returns its MatchRecord."""

    def __init__(
        self,
        game: Game,
        seats: Sequence[SeatState],
        seed: int,
        match_id: str,
        config: MatchConfig = MatchConfig(),
        replay: ReplayWriter | None = None,
        on_step: Callable[[Step], None] | None = None,
        branch: Branch | None = None,
    ) -> None:
        self.game = game
        self.branch = branch  # a recorded game's position to start from (arena match --from)
        self.seats = list(seats)
        self.seed = seed
        self.match_id = match_id
        # the id the bots are told: in an anonymous match a label derived from the match's (secret,
        # keyed) seed and its id, so it gives nothing away and a rerun tells the same (see the docstring)
        told = derive_seed(seed, "told id", match_id)
        self.told_id = f"match-{told:016x}" if config.anonymous else match_id
        self.config = config
        self.replay = replay
        self.on_step = on_step
        self.step = 0
        self.think: list[Think] = []  # each decision's think time, in the order the answers came
        self.unwritten: Step | None = None  # the last step, its replay lines not written yet
        self.unsent = 0  # acting seats of this step not sent their request yet
        self.writer = ObservationWriter(game, len(self.seats))

    async def run(self) -> MatchRecord:
        """Plays the match to the end; returns its record."""
        game = self.game
        self._start(self._told())
        if self.branch is None:
            driver = Driver(game, game.initial_state(len(self.seats), self.seed))
        else:
            driver = self.branch.driver()
            for step in self.branch.history:  # the recorded steps: in the replay, their events told
                self._record_step(step)
        while (turn := driver.turn()) is not None:
            self.step = turn.step
            acting = list(turn.legal)
            self.unsent = len(acting)
            if len(acting) == 1:  # most steps: no task for the one seat
                choices = [await self._decide(turn, acting[0])]
            else:
                choices = await asyncio.gather(*(self._decide(turn, seat) for seat in acting))
            self._write_unwritten()  # a step where no seat was asked
            step = driver.advance(turn, dict(zip(acting, choices, strict=True)))
            self._deliver(step)
            self.unwritten = step
        self.step = driver.step
        return self._finish(driver.state)

    def _sent(self) -> None:
        """Notes that one more acting seat has been sent its request (or will not be asked); once
        all have, the last step is written while they think."""
        self.unsent -= 1
        if self.unsent <= 0:
            self._write_unwritten()

    def _write_unwritten(self) -> None:
        """Writes the last step's replay lines and calls ``on_step`` with it, if not done yet.

        Design detail: a step is written once the next step's requests are out (``_sent``), so
        the bots think while the referee writes; anything else the replay is told first writes it
        (a strike, a forfeit, the result), so the lines come in the order they always did.
        """
        step, self.unwritten = self.unwritten, None
        if step is not None:
            if self.replay:
                self.replay.step(self.game, step)
            if self.on_step:
                self.on_step(step)

    # -- decisions --------------------------------------------------------------------------------

    async def _decide(self, turn: Turn, seat: int) -> tuple[int, str]:
        """Returns the index of the seat's action and who chose it ("bot" or "fallback")."""
        legal = turn.legal[seat]
        seat_state = self.seats[seat]
        self._forfeit_if_gone(seat_state)
        if seat_state.playing:
            index = await self._ask(seat_state, turn.state, legal)
            if index is not None:
                return index, "bot"
        else:
            self._sent()  # not asked
        return self._fallback(seat, legal), "fallback"

    async def _ask(self, seat: SeatState, state: Any, legal: Sequence[Any]) -> int | None:
        """Sends one DecisionRequest and returns the index of the bot's legal action, or None after a
        strike."""
        lease = seat.lease
        assert lease is not None
        seat.requests += 1
        request_id = seat.requests
        deadline_ms = int(self.config.deadline / timedelta(milliseconds=1))
        if seat.output is not None:
            seat.output.mark(self.step)
        lease.drain_inbound()
        message = pb.RefereeMessage(
            decision=pb.DecisionRequest(
                request_id=request_id, step=self.step, deadline_ms=deadline_ms, events=seat.take_events()
            )
        )
        self.writer.write(message.decision, self.game.observe(state, seat.seat), legal)
        lease.send(message)
        self._sent()
        loop = asyncio.get_running_loop()
        started = loop.time()
        index = await self._answer(seat, legal, request_id, deadline_ms)
        self.think.append(Think(self.step, seat.seat, (loop.time() - started) * 1000, index is not None))
        if seat.output is not None:
            seat.output.drain()  # what the bot wrote before answering is stamped with this step
        return index

    async def _answer(
        self, seat: SeatState, legal: Sequence[Any], request_id: int, deadline_ms: int
    ) -> int | None:
        """Returns the index of the bot's legal answer to request ``request_id``, or None after a
        strike or a disconnect."""
        lease = seat.lease
        assert lease is not None
        loop = asyncio.get_running_loop()
        # Design detail: a zero deadline is no deadline (--deadline-ms 0), for stepping through a bot in
        # a debugger; the bot still forfeits when its stream ends.
        until = loop.time() + self.config.deadline.total_seconds() if self.config.deadline else None
        stale_reported = False  # one Error per request: a flood of stale answers must not flood back
        while True:
            answer = await _receive(lease, until)
            if answer is None:
                self._strike(seat, pb.ERROR_CODE_TIMEOUT, f"no answer within {deadline_ms} ms", request_id)
                return None
            if answer is DISCONNECTED:
                self._forfeit(seat, f"disconnected: {lease.problem}" if lease.problem else "disconnected")
                return None
            if isinstance(answer, Malformed):
                self._strike(
                    seat, pb.ERROR_CODE_MALFORMED, f"malformed message: {answer.problem}", request_id
                )
                return None
            if answer.request_id != request_id:
                if not stale_reported:
                    self._error(
                        seat,
                        pb.ERROR_CODE_STALE_ANSWER,
                        f"answer to request {answer.request_id} ignored: "
                        f"request {request_id} is the open one",
                        answer.request_id,
                    )
                stale_reported = True
                continue
            index, code, problem = self._validate(answer, legal)
            if index is None:
                self._strike(seat, code, problem, request_id)
            return index

    def _validate(self, answer: pb.Answer, legal: Sequence[Any]) -> tuple[int | None, pb.ErrorCode, str]:
        """Returns (the index of the legal action, ERROR_CODE_UNSPECIFIED (0), "") or (None, error code,
        what was wrong)."""
        choice = answer.WhichOneof("choice")
        if choice == "index":
            if answer.index < len(legal):
                return answer.index, pb.ERROR_CODE_UNSPECIFIED, ""
            return (
                None,
                pb.ERROR_CODE_BAD_INDEX,
                (
                    f"index {answer.index} is out of range: "
                    f"there are {len(legal)} legal actions (0..{len(legal) - 1})"
                ),
            )
        if choice == "action":
            try:
                action = codec.action_from_proto(self.game, answer.action)
            except codec.CodecError as exc:
                return None, pb.ERROR_CODE_MALFORMED, f"malformed action: {exc}"
            if action in legal:
                return legal.index(action), pb.ERROR_CODE_UNSPECIFIED, ""
            shown = codec.to_json(action, self.game.action_type)
            return None, pb.ERROR_CODE_ILLEGAL_ACTION, f"illegal action {shown}: answer one of legal_actions"
        return None, pb.ERROR_CODE_MALFORMED, "the answer has neither an index nor an action"

    def _fallback(self, seat: int, legal: Sequence[Any]) -> int:
        return derive(self.seed, "fallback", self.step, seat).randrange(len(legal))

    # -- strikes and forfeits ---------------------------------------------------------------------

    def _error(self, seat: SeatState, code: pb.ErrorCode, message: str, request_id: int = 0) -> None:
        if seat.lease is not None:
            seat.lease.send(
                pb.RefereeMessage(
                    error=pb.Error(
                        code=code,
                        message=message,
                        request_id=request_id,
                        strikes=seat.strikes,
                        max_strikes=self.config.max_strikes,
                        forfeited=seat.forfeit,
                    )
                )
            )

    def _strike(self, seat: SeatState, code: pb.ErrorCode, problem: str, request_id: int) -> None:
        self._write_unwritten()
        seat.strikes += 1
        last = seat.strikes >= self.config.max_strikes
        if last:
            seat.forfeit = True
            seat.forfeit_reason = f"{seat.strikes} strikes"
        suffix = f"; strike {seat.strikes} of {self.config.max_strikes}: " + (
            "the seat forfeits, a random legal action plays for it"
            if last
            else "a random legal action was played"
        )
        self._error(seat, code, problem + suffix, request_id)
        if self.replay:
            self.replay.strike(self.step, seat.seat, pb.ErrorCode.Name(code), problem, seat.strikes)
            if last:
                self.replay.forfeit(self.step, seat.seat, seat.forfeit_reason)

    def _forfeit_if_gone(self, seat: SeatState) -> None:
        """Forfeits a seat whose stream ended while it was not being asked (it hung up between its
        decisions, or the referee cut it: a flood of streams, messages left unread), as if it had
        been asked."""
        lease = seat.lease
        if not seat.forfeit and lease is not None and lease.claimed and lease.disconnected:
            self._forfeit(seat, f"disconnected: {lease.problem}" if lease.problem else "disconnected")

    def _forfeit(self, seat: SeatState, reason: str) -> None:
        if seat.forfeit:
            return
        self._write_unwritten()
        seat.forfeit = True
        seat.forfeit_reason = reason
        if self.replay:
            self.replay.forfeit(self.step, seat.seat, reason)

    # -- start, steps, end ------------------------------------------------------------------------

    def _told(self) -> list[str]:
        """Returns the names the bots are told, by seat: seat labels in an anonymous match."""
        if self.config.anonymous:
            return seat_labels(len(self.seats))
        return [s.bot for s in self.seats]

    def _start(self, names: list[str]) -> None:
        for seat in self.seats:
            if seat.lease is None or not seat.lease.connected:
                self._forfeit(
                    seat,
                    NEVER_CONNECTED if seat.lease is None or not seat.lease.claimed else "disconnected",
                )
                continue
            seat.lease.drain_inbound()
            seat.lease.send(
                pb.RefereeMessage(
                    match_start=pb.MatchStart(
                        match_id=self.told_id,
                        game=self.game.spec.name,
                        seat=seat.seat,
                        num_players=len(self.seats),
                        players=names,
                        deadline_ms=int(self.config.deadline / timedelta(milliseconds=1)),
                        max_strikes=self.config.max_strikes,
                    )
                )
            )

    def _record_step(self, step: Step) -> None:
        """Writes a recorded step of a branched game (its replay lines) and tells its events."""
        if self.replay:
            self.replay.step(self.game, step)
        self._deliver(step)

    def _deliver(self, step: Step) -> None:
        """Tells every seat the step's public events (held for its next request, if it reads them
        there)."""
        if step.events:
            protos = [codec.event_to_proto(self.game, event, step.number) for event in step.events]
            for seat in self.seats:
                seat.deliver(protos)

    def _finish(self, state: Any) -> MatchRecord:
        self._write_unwritten()
        seats = self.seats
        for seat in seats:  # cut by the referee after its last decision: it forfeits all the same
            if seat.lease is not None and seat.lease.problem:
                self._forfeit_if_gone(seat)
        record = final_record(
            self.game,
            state,
            self.match_id,
            self.seed,
            [s.bot for s in seats],
            [s.forfeit for s in seats],
            [s.strikes for s in seats],
            self.step,
        )
        absent = tuple(s.seat for s in seats if s.forfeit_reason == NEVER_CONNECTED)
        record = dataclasses.replace(record, absent=absent)
        if self.replay:
            self.replay.result(record)
        told = self._told()
        result = pb.MatchResult(
            match_id=self.told_id,
            termination=record.termination,
            players=[
                pb.PlayerResult(**{**dataclasses.asdict(p), "bot": told[p.seat]}) for p in record.players
            ],
        )
        for seat in self.seats:
            if seat.lease is not None:
                message = pb.RefereeMessage(result=result)
                message.result.events.extend(seat.take_events())  # held only for leases that read them
                seat.lease.send(message)
        return record
