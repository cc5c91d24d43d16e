"""Ninja Master: roll 9 dice, grab the ninja tokens and the sword, call the number of ninjas.

Rules as implemented: docs/rules/ninja-master.md. In short: every round the shuriken holder rolls 9
dice showing ninjas (1, 2 or 3 of a colour), smoke of a colour, swords and shurikens. Then the grab
phase runs in *ticks*: in each tick every player makes one sealed choice at the same time (grab a free
component, call the total number of ninja symbols, or wait); grabs of one component in the same tick
go to one grabber by a seeded lottery. Calling is a matter of voice, not hands: a seat may call with
both hands full. A round ends with a call (a round in which nobody calls ends after 6 ticks: a guard).
A ninja token scores the ninjas of its colour (a penalty with exactly one smoke of that colour), the
sword steals half the holder's VP when swords outnumber shurikens (else it cuts: -3), the shuriken
holder scores its shurikens, a correct call +1 and a wrong one -3. The game ends when a player has
20 VP after a tally; a tie at the top is played off in further rounds among the tied players.

=====================  =========================================================
players                2 to 5
decisions              simultaneous (every contending seat, every tick)
chance                 a seeded roll per round; seeded lotteries per (round, tick)
information            perfect: dice, holders and scores are public; choices
                       are sealed only until the tick resolves
length                 at most 40 rounds of 1 roll + at most 6 ticks (both guards)
config                 none (2 to 5 players; start 3 VP, win at 20 VP)
=====================  =========================================================

Design Detail: speed is modelled by ticks of simultaneous choices, not by arrival order, so the game
is replayable and latency does not matter (issue 3). The roll is a chance step: ``to_move`` returns
() and the runner calls ``apply(state, {})``. A state in the grab phase carries its ``dice``, so a test
can build any position with chosen dice (``with_roll``).

Why it is long: a round's phases (roll, ticks of sealed choices, lotteries, tally, play-off) share
one state and read in the order docs/rules/ninja-master.md gives them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from enum import IntEnum
from typing import Any, NamedTuple

from arena.games.base import Game, GameSpec, IllegalActionError, Termination, evolve, ranks_from_scores
from arena.games.rng import derive

START_VP = 3
WIN_VP = 20
MAX_TICKS = 6  # a guard: a round in which nobody calls ends after this many ticks ("TICK_LIMIT")
MAX_ROUNDS = 40  # a guard: a game still running after this many rounds ends ("round_cap")
HANDS = 2  # components a player may hold
CALL_PENALTY = 3
CALL_BONUS = 1
CUT_PENALTY = 3


class Colour(IntEnum):
    ORANGE = 1
    PINK = 2
    BLUE = 3
    GREEN = 4
    PURPLE = 5


class Symbol(IntEnum):
    NINJA = 1  # 1, 2 or 3 ninjas of a colour
    SMOKE = 2  # smoke of a colour
    SWORD = 3
    SHURIKEN = 4


class Component(IntEnum):
    """What can be grabbed: the 5 ninja tokens and the sword (the shuriken cannot be grabbed)."""

    ORANGE_NINJA = 1
    PINK_NINJA = 2
    BLUE_NINJA = 3
    GREEN_NINJA = 4
    PURPLE_NINJA = 5
    SWORD = 6

    @property
    def colour(self) -> Colour | None:
        """Returns the token's colour, None for the sword."""
        return None if self is Component.SWORD else COLOURS[self - 1]


class Phase(IntEnum):
    ROLL = 1  # the dice are about to be rolled (a chance step)
    GRAB = 2  # the grab phase: every contending seat chooses, tick by tick
    OVER = 3


class RoundEnd(IntEnum):
    """Why a round ended. A round ends with a call; TICK_LIMIT is only a guard. NO_GRAB is no longer
    produced (it stays for the wire and older replays): when no grab is possible the seats may still
    call, so the round goes on."""

    CALL = 1  # someone called a number
    NO_GRAB = 2  # not produced: no contending player could grab anything more
    TICK_LIMIT = 3  # the guard: MAX_TICKS ticks were played and nobody called


COMPONENTS: tuple[Component, ...] = tuple(Component)
COLOURS: tuple[Colour, ...] = tuple(Colour)
MAX_CALL = 27  # the most ninja symbols 9 dice can show (9 x 3); calls are 0..MAX_CALL
NO_HOLDERS: tuple[None, ...] = (None,) * len(COMPONENTS)


@dataclasses.dataclass(frozen=True)
class Face:
    """One die face. ``colour`` is set for ninja and smoke faces; ``ninjas`` is 1..3 for ninja faces."""

    symbol: Symbol
    colour: Colour | None = None
    ninjas: int = 0

    def __str__(self) -> str:
        if self.symbol is Symbol.SWORD:
            return "sword"
        if self.symbol is Symbol.SHURIKEN:
            return "shuriken"
        assert self.colour is not None
        name = self.colour.name.lower()
        return f"{name}{self.ninjas}" if self.symbol is Symbol.NINJA else f"smoke-{name}"


# The dice, as data (issue 3: die k has ninja(colour k, 1), ninja(k+1, 2), ninja(k+2, 3), smoke(k+3),
# sword and shuriken, colours mod 5). Codes: <colour letter><ninjas>, ~<colour letter> for smoke,
# X for the sword, * for the shuriken. Colour letters: O orange, K pink, B blue, G green, U purple.
DICE_TABLE: tuple[tuple[str, ...], ...] = (
    ("O1", "K2", "B3", "~G", "X", "*"),
    ("K1", "B2", "G3", "~U", "X", "*"),
    ("B1", "G2", "U3", "~O", "X", "*"),
    ("G1", "U2", "O3", "~K", "X", "*"),
    ("U1", "O2", "K3", "~B", "X", "*"),
    ("O1", "K2", "B3", "~G", "X", "*"),
    ("K1", "B2", "G3", "~U", "X", "*"),
    ("B1", "G2", "U3", "~O", "X", "*"),
    ("G1", "U2", "O3", "~K", "X", "*"),
)
_LETTERS = {"O": Colour.ORANGE, "K": Colour.PINK, "B": Colour.BLUE, "G": Colour.GREEN, "U": Colour.PURPLE}


def parse_face(code: str) -> Face:
    """Returns the face a DICE_TABLE code stands for.

    >>> str(parse_face("K2")), str(parse_face("~O")), str(parse_face("X"))
    ('pink2', 'smoke-orange', 'sword')
    """
    if code == "X":
        return Face(Symbol.SWORD)
    if code == "*":
        return Face(Symbol.SHURIKEN)
    if code.startswith("~"):
        return Face(Symbol.SMOKE, _LETTERS[code[1]])
    return Face(Symbol.NINJA, _LETTERS[code[0]], int(code[1:]))


DICE: tuple[tuple[Face, ...], ...] = tuple(tuple(parse_face(c) for c in die) for die in DICE_TABLE)


# Observation ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Holding:
    component: Component
    holder: int | None  # the seat holding it, None while it is free


@dataclasses.dataclass(frozen=True)
class Player:
    seat: int
    score: int
    contending: bool  # takes part in the rounds (False for seats outside a tie play-off)


@dataclasses.dataclass(frozen=True)
class Observation:
    seat: int
    round: int
    phase: Phase
    tick: int  # ticks already resolved in this round, 0..MAX_TICKS
    dice: tuple[Face, ...]  # this round's roll, die 0 first; empty before the roll
    components: tuple[Holding, ...]  # the 5 ninja tokens and the sword, in Component order
    players: tuple[Player, ...]
    sword_holder: int
    shuriken_holder: int  # the roller; scores the shurikens
    playoff: bool  # the rounds are a tie play-off among the contending seats


@dataclasses.dataclass(frozen=True)
class PublicView:
    """What a spectator sees: everything a seat sees (the game has no hidden state), without ``seat``."""

    round: int
    phase: Phase
    tick: int
    dice: tuple[Face, ...]
    components: tuple[Holding, ...]
    players: tuple[Player, ...]
    sword_holder: int
    shuriken_holder: int
    playoff: bool


# Actions ----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Wait:
    pass


@dataclasses.dataclass(frozen=True)
class Grab:
    component: Component


@dataclasses.dataclass(frozen=True)
class Call:
    number: int  # the total number of ninja symbols rolled, all colours


Action = Wait | Grab | Call  # the order legal actions are listed in

WAIT = Wait()
GRABS: dict[Component, Grab] = {c: Grab(c) for c in COMPONENTS}
CALLS: tuple[Call, ...] = tuple(Call(n) for n in range(MAX_CALL + 1))

# Events -----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class DiceRolled:
    round: int
    roller: int
    dice: tuple[Face, ...]


@dataclasses.dataclass(frozen=True)
class Choice:
    seat: int
    action: Action


@dataclasses.dataclass(frozen=True)
class GrabResult:
    component: Component
    grabbers: tuple[int, ...]  # every seat that grabbed it this tick
    winner: int  # the one who got it (by the seeded lottery when there were several)


@dataclasses.dataclass(frozen=True)
class CallResult:
    seat: int
    number: int
    correct: bool


@dataclasses.dataclass(frozen=True)
class TickResolved:
    round: int
    tick: int  # 1..MAX_TICKS
    choices: tuple[Choice, ...]  # every contending seat's choice, by seat
    grabs: tuple[GrabResult, ...]
    calls: tuple[CallResult, ...]
    call_winner: int | None  # the correct caller who gets +1 (lottery among several)


@dataclasses.dataclass(frozen=True)
class TallyLine:
    seat: int
    before: int
    sword: int  # steal (+), stolen (-), cut (-3) or 0
    ninjas: int  # the captured tokens
    shuriken: int  # the roller's shurikens
    call: int  # +1, -3 or 0
    after: int  # max(0, before + the rest)


@dataclasses.dataclass(frozen=True)
class RoundTallied:
    round: int
    ended_by: RoundEnd
    ninja_total: int
    swords: int
    shurikens: int
    thief: int | None  # the seat that stole the sword, if any
    lines: tuple[TallyLine, ...]  # contending seats, the thief first
    game_over: bool
    contenders: tuple[int, ...]  # seats that play the next round (the play-off group), or the last ones
    sword_holder: int
    shuriken_holder: int
    sword_draw: tuple[int, ...]  # the seats tied for the most VP when the sword was drawn, else empty


Event = DiceRolled | TickResolved | RoundTallied


# State ------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class NinjaMasterState:
    """The whole table. ``dice`` is () until the round's roll; ``holders`` is by Component order."""

    seed: int
    scores: tuple[int, ...]
    sword_holder: int
    shuriken_holder: int
    contenders: tuple[int, ...]
    depth: tuple[int, ...]  # per seat: how many tie play-offs it reached (ranks the play-off first)
    round: int = 1
    dice: tuple[Face, ...] = ()
    holders: tuple[int | None, ...] = NO_HOLDERS
    tick: int = 0
    over: bool = False
    capped: bool = False
    last_events: tuple[Event, ...] = ()
    # What follows from ``holders``, and from ``scores`` and ``contenders`` (derived: not compared).
    # The engine passes the new ones to ``evolve`` (which skips ``__post_init__``) with those; a state
    # made any other way (tests, ``dataclasses.replace``) has them made in ``__post_init__``.
    table: _Table = dataclasses.field(default=None, compare=False, repr=False)  # type: ignore[assignment]
    shown_players: tuple[Player, ...] = dataclasses.field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "table", _table(self.holders))
        object.__setattr__(self, "shown_players", _players(self.scores, self.contenders))

    @property
    def num_players(self) -> int:
        return len(self.scores)

    @property
    def playoff(self) -> bool:
        """Returns whether the rounds are a tie play-off."""
        return any(self.depth)

    def held_by(self, seat: int) -> tuple[Component, ...]:
        """Returns the components ``seat`` holds."""
        return tuple(c for c, h in zip(COMPONENTS, self.holders, strict=True) if h == seat)

    def free(self) -> tuple[Component, ...]:
        """Returns the components nobody holds."""
        return self.table.free


class _Table(NamedTuple):
    """What follows from who holds what, carried by the state (``NinjaMasterState.table``) and made
    when the holders change, so a decision step does not rebuild it for every ``legal_actions`` and
    ``observe`` call. (A named tuple: made at every tick with a grab.)"""

    holders: tuple[int | None, ...]
    free: tuple[Component, ...]
    full: frozenset[int]  # the seats whose hands are full
    open_actions: tuple[Action, ...]  # the legal actions of a contending seat with a free hand
    full_actions: tuple[Action, ...]  # ... and of one with both hands full: Wait, then the calls
    holdings: tuple[Holding, ...]  # the observation's components


def _by_free(free: tuple[Component, ...]) -> tuple[tuple[Action, ...], tuple[Action, ...]]:
    """Returns the legal actions of a seat with a free hand, and of one with both hands full, while
    ``free`` are the components nobody holds."""
    calls = CALLS if len(free) < len(COMPONENTS) else ()  # only once a component has been captured
    return (WAIT, *(GRABS[c] for c in free), *calls), (WAIT, *calls)  # full hands may still call


# Made once, at import: by the bits of the free components (bit i: COMPONENTS[i]), and each holding.
_FREE = {
    mask: tuple(c for i, c in enumerate(COMPONENTS) if mask >> i & 1) for mask in range(1 << len(COMPONENTS))
}
_ACTIONS = {mask: _by_free(free) for mask, free in _FREE.items()}
_HOLDINGS = {(c, h): Holding(c, h) for c in COMPONENTS for h in (None, *range(8))}


def _table(holders: tuple[int | None, ...]) -> _Table:
    mask = 0
    for i, h in enumerate(holders):
        if h is None:
            mask |= 1 << i
    full = frozenset([s for s in holders if s is not None and holders.count(s) >= HANDS])
    holdings = tuple(
        [_HOLDINGS.get((c, h)) or Holding(c, h) for c, h in zip(COMPONENTS, holders, strict=True)]
    )
    return _Table(holders, _FREE[mask], full, *_ACTIONS[mask], holdings)


_NO_HOLDERS_TABLE = _table(NO_HOLDERS)


_PLAYERS = {  # made once, at import: the players of the scores a game mostly sees
    (s, score, contending): Player(s, score, contending)
    for s in range(8)
    for score in range(2 * WIN_VP)
    for contending in (False, True)
}


def _players(scores: tuple[int, ...], contenders: tuple[int, ...]) -> tuple[Player, ...]:
    """Returns the observation's players (carried by the state: they change only when a round is
    tallied)."""
    return tuple(
        [
            _PLAYERS.get((s, score, s in contenders)) or Player(s, score, s in contenders)
            for s, score in enumerate(scores)
        ]
    )


# Scoring (pure functions of the dice, shared with the bots) -------------------------------------


@dataclasses.dataclass(frozen=True)
class RollSummary:
    ninjas: tuple[int, ...]  # ninja symbols per colour, in Colour order
    smokes: tuple[int, ...]  # smoke symbols per colour
    swords: int
    shurikens: int

    @property
    def ninja_total(self) -> int:
        return sum(self.ninjas)

    @property
    def sword_wins(self) -> bool:
        """Returns whether the sword can be captured (more swords than shurikens)."""
        return self.swords > self.shurikens

    def token_value(self, colour: Colour) -> int:
        """Returns what the token of ``colour`` scores: its ninjas, negated by exactly one smoke."""
        n = self.ninjas[colour - 1]
        return -n if self.smokes[colour - 1] == 1 else n


def summarize(dice: Iterable[Face]) -> RollSummary:
    """Returns the symbol counts of a roll."""
    ninjas = [0] * len(COLOURS)
    smokes = [0] * len(COLOURS)
    swords = shurikens = 0
    for face in dice:
        if face.symbol is Symbol.NINJA:
            assert face.colour is not None
            ninjas[face.colour - 1] += face.ninjas
        elif face.symbol is Symbol.SMOKE:
            assert face.colour is not None
            smokes[face.colour - 1] += 1
        elif face.symbol is Symbol.SWORD:
            swords += 1
        else:
            shurikens += 1
    return RollSummary(tuple(ninjas), tuple(smokes), swords, shurikens)


def tally(
    state: NinjaMasterState,
    calls: tuple[CallResult, ...],
    call_winner: int | None,
    roll: RollSummary | None = None,
) -> tuple[int | None, tuple[TallyLine, ...], tuple[int, ...]]:
    """Returns (thief, tally lines, new scores) for the round in ``state`` (holders after the grabs);
    ``roll`` is ``summarize(state.dice)`` when the caller has it already."""
    if roll is None:
        roll = summarize(state.dice)
    holder = state.sword_holder
    sword_taker = state.holders[COMPONENTS.index(Component.SWORD)]
    thief = sword_taker if roll.sword_wins and sword_taker is not None and sword_taker != holder else None
    steal = state.scores[holder] // 2 if thief is not None else 0
    wrong = {c.seat for c in calls if not c.correct}
    order = ([thief] if thief is not None else []) + [s for s in state.contenders if s != thief]
    scores = list(state.scores)
    lines = []
    for seat in order:  # the thief first: the steal is half the holder's VP before its own tally
        sword = 0
        if seat == thief:
            sword = steal
        elif seat == holder and thief is not None:
            sword = -steal
        if sword_taker == seat and not roll.sword_wins:
            sword -= CUT_PENALTY
        # the 5 tokens come first in Component order, one per colour; zip leaves the sword out
        ninjas = sum(roll.token_value(c) for c, h in zip(COLOURS, state.holders, strict=False) if h == seat)
        shuriken = roll.shurikens if seat == state.shuriken_holder else 0
        call = CALL_BONUS if seat == call_winner else -CALL_PENALTY if seat in wrong else 0
        before = state.scores[seat]
        after = max(0, before + sword + ninjas + shuriken + call)
        scores[seat] = after
        lines.append(TallyLine(seat, before, sword, ninjas, shuriken, call, after))
    return thief, tuple(lines), tuple(scores)


def with_roll(state: NinjaMasterState, dice: Iterable[Face]) -> NinjaMasterState:
    """Returns ``state`` at the start of its grab phase with the given dice (for tests and analysis)."""
    return evolve(
        state, dice=tuple(dice), holders=NO_HOLDERS, table=_NO_HOLDERS_TABLE, tick=0, last_events=()
    )


class NinjaMaster(Game[NinjaMasterState, Action]):
    spec = GameSpec(
        name="ninja-master",
        wire_name="ninja_master",
        title="Ninja Master",
        min_players=2,
        max_players=5,
        simultaneous=True,
        chance=True,
        perfect_information=True,
        max_steps=MAX_ROUNDS * (1 + MAX_TICKS),
        description="Roll 9 dice, grab ninja tokens and the sword tick by tick, call the ninja count.",
    )
    observation_type = Observation
    public_view_type = PublicView
    action_type = Action
    event_type = Event

    def initial_state(self, num_players: int, seed: int) -> NinjaMasterState:
        """Returns the table before the first roll: 3 VP each, sword and shuriken to a random seat."""
        self.check_players(num_players)
        first = derive(seed, "first").randrange(num_players)
        return NinjaMasterState(
            seed=seed,
            scores=(START_VP,) * num_players,
            sword_holder=first,
            shuriken_holder=first,
            contenders=tuple(range(num_players)),
            depth=(0,) * num_players,
        )

    def phase(self, state: NinjaMasterState) -> Phase:
        """Returns what the game waits for now."""
        if state.over:
            return Phase.OVER
        return Phase.GRAB if state.dice else Phase.ROLL

    def to_move(self, state: NinjaMasterState) -> tuple[int, ...]:
        return state.contenders if state.dice and not state.over else ()

    def legal_actions(self, state: NinjaMasterState, seat: int) -> tuple[Action, ...]:
        """Returns Wait, the grabs of free components (with a free hand), then the calls 0..27 (once
        a component has been captured, full hands or not)."""
        if seat not in self.to_move(state):
            return ()
        table = state.table
        return table.full_actions if seat in table.full else table.open_actions

    def apply_legal(self, state: NinjaMasterState, actions: Mapping[int, Action]) -> NinjaMasterState:
        if self.phase(state) is Phase.ROLL:
            return self._roll(state)
        return self._tick(state, actions)

    def _roll(self, state: NinjaMasterState) -> NinjaMasterState:
        rng = derive(state.seed, "roll", state.round)
        dice = tuple(rng.choice(die) for die in DICE)
        event = DiceRolled(state.round, state.shuriken_holder, dice)
        return evolve(
            state, dice=dice, holders=NO_HOLDERS, table=_NO_HOLDERS_TABLE, tick=0, last_events=(event,)
        )

    def _tick(self, state: NinjaMasterState, actions: Mapping[int, Action]) -> NinjaMasterState:
        tick = state.tick + 1
        choices = tuple(Choice(seat, actions[seat]) for seat in sorted(actions))
        grabbers: dict[Component, list[int]] = {}
        called: list[tuple[int, int]] = []
        for choice in choices:
            action = choice.action
            if isinstance(action, Grab):
                grabbers.setdefault(action.component, []).append(choice.seat)
            elif isinstance(action, Call):
                called.append((choice.seat, action.number))
            elif not isinstance(action, Wait):
                raise IllegalActionError(f"seat {choice.seat} cannot play {action!r}")
        holders = list(state.holders)
        grabs = []
        for component in sorted(grabbers):
            seats = grabbers[component]
            winner = seats[0]
            if len(seats) > 1:  # Design Detail: the lottery is labelled by round, tick and component
                winner = derive(state.seed, "grab", state.round, tick, component.name).choice(seats)
            holders[COMPONENTS.index(component)] = winner
            grabs.append(GrabResult(component, tuple(seats), winner))
        roll = summarize(state.dice)
        total = roll.ninja_total
        calls = tuple(CallResult(seat, number, number == total) for seat, number in called)
        correct = [c.seat for c in calls if c.correct]
        call_winner = None
        if len(correct) == 1:
            call_winner = correct[0]
        elif correct:
            call_winner = derive(state.seed, "call", state.round, tick).choice(correct)
        event = TickResolved(state.round, tick, choices, tuple(grabs), calls, call_winner)
        table = _table(tuple(holders)) if grabs else state.table
        state = evolve(state, holders=table.holders, table=table, tick=tick, last_events=(event,))
        # Design Detail: a round ends with a call. When no grab is possible any more (no free
        # component, or every contending seat's hands full) the round goes on, since the seats may
        # still call; only the tick guard ends a round in which nobody calls.
        if calls:
            return self._end_round(state, RoundEnd.CALL, calls, call_winner, roll)
        if tick >= MAX_TICKS:
            return self._end_round(state, RoundEnd.TICK_LIMIT, calls, call_winner, roll)
        return state

    def _end_round(
        self,
        state: NinjaMasterState,
        ended_by: RoundEnd,
        calls: tuple[CallResult, ...],
        call_winner: int | None,
        roll: RollSummary,
    ) -> NinjaMasterState:
        """Tallies the round, then ends the game, starts a play-off, or passes sword and shuriken."""
        thief, lines, scores = tally(state, calls, call_winner, roll)
        contenders, depth = state.contenders, state.depth
        over = False
        if state.playoff or max(scores) >= WIN_VP:
            top = max(scores[s] for s in contenders)
            leaders = tuple(s for s in contenders if scores[s] == top)
            if len(leaders) == 1:
                over = True
            else:  # a tie at the top: the tied players play further rounds among themselves
                contenders = leaders
                depth = tuple(d + (s in leaders) for s, d in enumerate(depth))
        capped = not over and state.round >= MAX_ROUNDS
        sword_holder, shuriken_holder = state.sword_holder, state.shuriken_holder
        draw: tuple[int, ...] = ()
        if not (over or capped):
            most = max(scores[s] for s in contenders)
            richest = [s for s in contenders if scores[s] == most]
            sword_holder = richest[0]
            if len(richest) > 1:
                sword_holder = derive(state.seed, "sword", state.round).choice(richest)
                draw = tuple(richest)
            shuriken_holder = self._next_clockwise(state.shuriken_holder, contenders, len(scores))
        event = RoundTallied(
            round=state.round,
            ended_by=ended_by,
            ninja_total=roll.ninja_total,
            swords=roll.swords,
            shurikens=roll.shurikens,
            thief=thief,
            lines=lines,
            game_over=over or capped,
            contenders=contenders,
            sword_holder=sword_holder,
            shuriken_holder=shuriken_holder,
            sword_draw=draw,
        )
        return evolve(
            state,
            scores=scores,
            contenders=contenders,
            depth=depth,
            sword_holder=sword_holder,
            shuriken_holder=shuriken_holder,
            round=state.round if over or capped else state.round + 1,
            dice=() if not (over or capped) else state.dice,
            holders=NO_HOLDERS if not (over or capped) else state.holders,
            table=_NO_HOLDERS_TABLE if not (over or capped) else state.table,
            shown_players=_players(scores, contenders),
            tick=0 if not (over or capped) else state.tick,
            over=over or capped,
            capped=capped,
            last_events=(*state.last_events, event),
        )

    @staticmethod
    def _next_clockwise(seat: int, contenders: tuple[int, ...], num_players: int) -> int:
        for step in range(1, num_players + 1):
            if (seat + step) % num_players in contenders:
                return (seat + step) % num_players
        raise AssertionError("no contender")

    def is_terminal(self, state: NinjaMasterState) -> bool:
        return state.over

    def scores(self, state: NinjaMasterState) -> tuple[int, ...]:
        return state.scores

    def ranks(self, state: NinjaMasterState) -> tuple[int, ...]:
        """Returns ranks by (play-offs reached, VP): the play-off winner ranks first even when a seat
        outside the play-off has more VP by then."""
        keys = [(d, s) for d, s in zip(state.depth, state.scores, strict=True)]
        if not state.playoff:
            return ranks_from_scores(state.scores)
        return tuple(1 + sum(other > mine for other in keys) for mine in keys)

    def termination(self, state: NinjaMasterState) -> Termination:
        return Termination.ROUND_CAP if state.capped else Termination.NORMAL

    def observe(self, state: NinjaMasterState, seat: int) -> Observation:
        return Observation(seat=seat, **self._shared(state))

    def public_view(self, state: NinjaMasterState) -> PublicView:
        return PublicView(**self._shared(state))

    def _shared(self, state: NinjaMasterState) -> dict[str, Any]:
        """Returns the fields every seat's observation and the public view have alike (all of them)."""
        return {
            "round": state.round,
            "phase": self.phase(state),
            "tick": state.tick,
            "dice": state.dice,
            "components": state.table.holdings,
            "players": state.shown_players,
            "sword_holder": state.sword_holder,
            "shuriken_holder": state.shuriken_holder,
            "playoff": state.playoff,
        }

    def events(self, state: NinjaMasterState) -> tuple[Event, ...]:
        return state.last_events

    def hidden_from(self, state: NinjaMasterState, seat: int) -> frozenset[object]:
        """Returns the empty set: dice, holders and scores are public. The only secret is a tick's
        choices before all are in, and no state holds them: they exist only inside one ``apply``."""
        return frozenset()

    def legend(self) -> str:
        return "dice: the dice in play; held: the seat holding each ninja; sword and shuriken: their holders"

    def render(self, state: NinjaMasterState) -> str:
        dice = " ".join(map(str, state.dice)) or "-"
        held = " ".join(
            f"{c.name.lower().removesuffix('_ninja')}=seat{h}"
            for c, h in zip(COMPONENTS, state.holders, strict=True)
            if h is not None
        )
        scores = " ".join(f"seat{s}={v}" for s, v in enumerate(state.scores))
        return (
            f"round {state.round} tick {state.tick}  dice: {dice}  held: {held or '-'}  "
            f"sword=seat{state.sword_holder} shuriken=seat{state.shuriken_holder}  scores: {scores}"
        )


GAME = NinjaMaster()
