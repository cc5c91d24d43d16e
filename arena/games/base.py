"""The engine interface every game implements.

A game is a pure rules engine (OpenSpiel's and python-chess's model): immutable states, and functions
from a state (and the acting seats' actions) to the next state. Nothing here knows of gRPC, Redis or
the CLI; the referee (arena/referee) drives any game through this interface alone.

The flow of one match::

    state = game.initial_state(num_players, seed)
    while not game.is_terminal(state):
        seats = game.to_move(state)           # () while the game resolves by itself (a chance step),
                                              # one seat, or several for a simultaneous choice
        actions = {s: pick(game.observe(state, s), game.legal_actions(state, s)) for s in seats}
        state = game.apply(state, actions)    # all simultaneous choices arrive together
        broadcast(game.events(state))         # what every seat may see happened in that step
    game.scores(state), game.ranks(state)

Observations, actions and events are frozen dataclasses whose field names mirror the game's messages
in proto/arena/v1/<game>.proto; arena/codec.py converts between the two generically, so a game needs
no wire code of its own.

The game owns every view of a state: ``observe(state, seat)`` is what one seat may see, and
``public_view(state)`` what a spectator may see (a dataclass of the game's own, holding no hand, no
undrawn card, nothing that ``hidden_from`` names for any seat). Nothing outside a game's module
decides what is secret: the leaderboard's replay pages draw the table from ``public_view`` alone, plus
each seat's ``observe`` when asked to show that seat's hand. An engine builds both views from one
function of the state (the fields every seat sees alike), so they cannot disagree.
"""

from __future__ import annotations

import abc
import dataclasses
import enum
import importlib
import importlib.util
import sys
import typing
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar, cast

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

S = TypeVar("S")  # the game's state type
A = TypeVar("A")  # the game's action type (usually a union of dataclasses)
D = TypeVar("D")  # a frozen dataclass


class Termination(enum.StrEnum):
    """Why a game ended. The values are the strings replays and results have always carried (a
    ``StrEnum`` is written to JSON as its value), so recorded bytes do not change."""

    NORMAL = "normal"  # the rules' own end
    ROUND_CAP = "round_cap"  # a guard on the number of rounds stopped a game the rules did not end
    TURN_CAP = "turn_cap"  # the same guard counted in turns (PNRZ)


CARD_KIND = "card_kind"  # field metadata: the field holds ids of the ``catalogue()`` kind it names


def card_ids(kind: str) -> dict[str, str]:
    """Returns the field metadata, ``dataclasses.field(metadata=card_ids(kind))``, that declares a view
    field naming cards of the catalogue's ``kind`` by id (one id, an optional one or a tuple of them).
    The conformance suite resolves such ids to their cards before it checks that a seat sees nothing of
    ``hidden_from``: a hidden card cannot slip out as a bare integer. (The metadata rather than the
    field itself, so that type checkers see a ``dataclasses.field`` call: a field without a default.)"""
    return {CARD_KIND: kind}


def evolve(state: D, **changes: Any) -> D:
    """Returns a copy of the frozen dataclass ``state`` with ``changes`` to its fields.

    It does what ``dataclasses.replace`` does, and refuses a name that is not a field just as it does
    (TypeError), but fills the copy's ``__dict__`` at once instead of running the frozen ``__init__``,
    which sets every field through ``object.__setattr__``: with a dozen fields that was a tenth of a
    decision step. It is for states without ``__post_init__`` and without cached properties.
    """
    fields = type(state).__dataclass_fields__  # type: ignore[attr-defined]
    if not fields.keys() >= changes.keys():
        unknown = sorted(changes.keys() - fields.keys())
        raise TypeError(f"{type(state).__name__} has no field {', '.join(unknown)}")
    copy = object.__new__(type(state))
    copy.__dict__.update(state.__dict__, **changes)
    return copy


class GameError(ValueError):
    """Base of the errors a game raises for a bad request."""


class IllegalActionError(GameError):
    """A well-formed action that the rules do not allow now (or a seat that is not to move)."""


class InvalidPlayersError(GameError):
    """The number of players is outside the game's range."""


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """Declarative description of a game, shown by ``arena games``."""

    name: str  # CLI name, e.g. "ninjan"
    wire_name: str  # field name in the arena.v1 Observation/Action/Event oneofs
    title: str
    min_players: int
    max_players: int
    simultaneous: bool  # some decisions are taken by several seats at once
    chance: bool  # the game draws random numbers (always from the seed carried in the state)
    perfect_information: bool
    max_steps: int  # an upper bound on decision steps, a guard for runners
    description: str
    aliases: tuple[str, ...] = ()
    # The version of the rules as implemented: bumped when a change alters games. Stored replays kept
    # as their decisions are regenerated by these rules (arena.referee.compact): a release that bumps
    # it tells organisers to run 'arena storage expand' with their current version first.
    rules: int = 1


class Game(abc.ABC, Generic[S, A]):
    """One game's rules. Subclasses are stateless: all state lives in the ``S`` values."""

    spec: ClassVar[GameSpec]
    observation_type: ClassVar[type]  # dataclass mirrored by the <Game>Observation message
    public_view_type: ClassVar[type]  # dataclass of what a spectator sees (``public_view``)
    action_type: ClassVar[Any]  # dataclass or union of dataclasses, mirrored by <Game>Action
    event_type: ClassVar[Any]  # dataclass or union of dataclasses, mirrored by <Game>Event
    action_kinds: ClassVar[tuple[type, ...]] = ()  # the action dataclasses in union order (set below)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Lists the game's action kinds once, when its class is made (``action_order`` sorts by their
        place): a class constant, not a cache filled while games are played."""
        super().__init_subclass__(**kwargs)
        if "action_type" in vars(cls):
            cls.action_kinds = _kinds(cls.action_type)

    @abc.abstractmethod
    def initial_state(self, num_players: int, seed: int) -> S:
        """Returns the state at the start of a game, with every random draw derived from ``seed``."""

    @abc.abstractmethod
    def to_move(self, state: S) -> tuple[int, ...]:
        """Returns the seats that must act now, sorted; () when terminal or resolving by itself."""

    @abc.abstractmethod
    def legal_actions(self, state: S, seat: int) -> tuple[A, ...]:
        """Returns the seat's legal actions, distinct and sorted by ``action_order``; never empty for a
        seat in ``to_move``."""

    def action_order(self, action: A) -> tuple[Any, ...]:
        """Returns the key ``legal_actions`` is sorted by: the action's kind, in the order of the game's
        ``Action`` union, then its fields in declaration order.

        Bots rely on it (an index is an action's place in this order, the same in every language), and
        the conformance suite checks every engine against it. A game whose natural order differs for
        one kind (PNRZ lists positions row by row) overrides this and says so in its rules file.
        """
        # every game's actions are dataclasses, which A, a union of them, does not say to a type checker
        fields = dataclasses.astuple(cast("DataclassInstance", action))
        return (self.action_kinds.index(type(action)), fields)

    @abc.abstractmethod
    def apply_legal(self, state: S, actions: Mapping[int, A]) -> S:
        """Returns the next state after actions taken from ``legal_actions``: they are *not* checked
        again. The driver (``arena.games.play``) applies ``legal[i]`` this way; anyone else calls
        ``apply``, which checks."""

    @abc.abstractmethod
    def is_terminal(self, state: S) -> bool:
        """Returns whether the game is over."""

    @abc.abstractmethod
    def scores(self, state: S) -> tuple[int, ...]:
        """Returns each seat's score (final when terminal), in the game's own points."""

    @abc.abstractmethod
    def observe(self, state: S, seat: int) -> Any:
        """Returns what ``seat`` may see of ``state``, and nothing it may not."""

    @abc.abstractmethod
    def public_view(self, state: S) -> Any:
        """Returns what anyone watching the table may see of ``state``: a ``public_view_type``.

        It holds no seat's secret (the conformance tests check it against ``hidden_from`` of every
        seat), and it is all the leaderboard's replay pages know of the table besides the seats'
        observations. It may add what anyone at the table sees at a glance but the observations leave
        to the players to work out (PNRZ's scored regions).
        """

    @abc.abstractmethod
    def events(self, state: S) -> tuple[Any, ...]:
        """Returns the public events produced by the step that led to ``state``."""

    def apply(self, state: S, actions: Mapping[int, A]) -> S:
        """Returns the next state after the acting seats' actions; raises IllegalActionError.

        ``actions`` must hold exactly one action for every seat in ``to_move(state)`` (an empty
        mapping while the game resolves by itself), each one of ``legal_actions(state, seat)``.
        """
        if self.is_terminal(state):
            raise IllegalActionError("the game is over")
        expected = set(self.to_move(state))
        if set(actions) != expected:
            raise IllegalActionError(
                f"actions are for seats {sorted(actions)}, but seats {sorted(expected)} must act"
            )
        for seat, action in actions.items():
            if action not in self.legal_actions(state, seat):
                raise IllegalActionError(f"{action!r} is not a legal action for seat {seat}")
        return self.apply_legal(state, actions)

    def ranks(self, state: S) -> tuple[int, ...]:
        """Returns each seat's finishing rank (1 is best; equal scores share a rank)."""
        return ranks_from_scores(self.scores(state))

    def termination(self, state: S) -> Termination:
        """Returns why the game ended: ``NORMAL``, or a guard's reason such as ``ROUND_CAP``."""
        return Termination.NORMAL

    def hidden_from(self, state: S, seat: int) -> frozenset[Any]:
        """Returns the objects ``seat`` may not see now (other hands, undrawn cards, ...).

        It specifies the game's secrecy: the conformance tests check that no observation or event
        sent to ``seat`` contains any of them. Perfect-information games return an empty set.
        """
        return frozenset()

    def catalogue(self) -> Mapping[str, tuple[Any, ...]]:
        """Returns the cards the game's views name by id, per kind (Ninja Burger's ninjas and fortune
        cards); empty for a game whose views carry its cards whole. Every card of the game, so it
        tells nothing about where any card is."""
        return {}

    def render(self, state: S) -> str:
        """Returns a short human-readable description of the state, for play-by-play output."""
        return repr(state)

    def legend(self) -> str:
        """Returns what the symbols of ``render``'s table mean, in one line ("" when it needs no
        words): ``arena match -v`` prints it once per game, above the play."""
        return ""

    def describe_action(self, action: A, names: Sequence[str]) -> str:
        """Returns a seat's action in words, for ``arena match -v``, ``arena replay`` and the replay
        viewer's step panel: the game's own sentence (``action_words`` of the ``words`` module beside
        its engine), else ``plain_words``. ``names`` are the seats' names, by seat."""
        words = _words_module(type(self).__module__)
        if words is None or not hasattr(words, "action_words"):
            return plain_words(action, names)
        return str(words.action_words(action, names))

    def describe_event(self, event: Any, names: Sequence[str]) -> str:
        """Returns a public event in words, the board's own numbering and the seats' names (the
        ``event_words`` of the game's ``words`` module, else ``plain_words``). It may hold a newline
        or two for a long event; it reads the event alone, so it says nothing the event does not."""
        words = _words_module(type(self).__module__)
        if words is None or not hasattr(words, "event_words"):
            return plain_words(event, names)
        return str(words.event_words(event, names))

    def check_players(self, num_players: int) -> None:
        """Raises InvalidPlayersError unless the game can be played by ``num_players``."""
        spec = self.spec
        if not spec.min_players <= num_players <= spec.max_players:
            raise InvalidPlayersError(
                f"{spec.name} is for {spec.min_players} to {spec.max_players} players, not {num_players}"
            )


def _kinds(action_type: Any) -> tuple[type, ...]:
    """Returns the dataclasses of an action type: the members of a union, or the type itself."""
    return typing.get_args(action_type) or (action_type,)


def ranks_from_scores(scores: Sequence[float]) -> tuple[int, ...]:
    """Returns competition ranks: 1 + the number of seats with a strictly higher score.

    >>> ranks_from_scores([5, 9, 5, 1])
    (2, 1, 2, 4)
    """
    return tuple(1 + sum(other > mine for other in scores) for mine in scores)


def _words_module(engine_module: str) -> ModuleType | None:
    """Returns the ``words`` module of the game whose engine is ``engine_module`` (its package's
    ``words.py``), or None for a game without one.

    Design detail: found by its place, as the viewer's ``viewer.js`` is, rather than imported by the
    engine: the sentences import the engine's types, and the engine never needs them to play. The
    lookup keeps no cache of its own (engines hold no process-wide state): an imported module is the
    import system's, looked up in ``sys.modules`` first."""
    package = engine_module.rpartition(".")[0]
    name = f"{package}.words"
    if name in sys.modules:
        return sys.modules[name]
    if not package or importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)


def plain_words(value: Any, names: Sequence[str]) -> str:
    """Returns an action or event of a game without sentences of its own in plain words: its kind,
    then its fields (``CardPlaced(seat=1, pile=0)`` is "card placed: alice, pile 0"; a field named
    ``seat`` names the seat).

    >>> @dataclasses.dataclass(frozen=True)
    ... class CardPlaced:
    ...     seat: int
    ...     pile: int
    >>> plain_words(CardPlaced(1, 0), ["bob", "alice"])
    'card placed: alice, pile 0'
    """
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return _plain_value(value, names)
    kind = _spaced(type(value).__name__)
    fields = _plain_fields(value, names)
    return f"{kind}: {fields}" if fields else kind


def _plain_fields(value: Any, names: Sequence[str]) -> str:
    """Returns a dataclass's fields as "field value" parts, the seat's name for a ``seat`` field."""
    parts = []
    for field in dataclasses.fields(value):
        item = getattr(value, field.name)
        if item is None:
            continue
        if field.name == "seat" and isinstance(item, int) and 0 <= item < len(names):
            parts.append(names[item])
        else:
            parts.append(f"{field.name.replace('_', ' ')} {_plain_value(item, names)}")
    return ", ".join(parts)


def _plain_value(value: Any, names: Sequence[str]) -> str:
    """Returns a field's value in plain words: enums by their lower-case name, tuples listed."""
    if isinstance(value, enum.Enum):
        return value.name.lower().replace("_", " ")
    if isinstance(value, tuple | list):
        return "[" + "; ".join(_plain_value(v, names) for v in value) + "]"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _plain_fields(value, names)
    return str(value)


def _spaced(class_name: str) -> str:
    """Returns a class name as words: ``CardPlaced`` is "card placed"."""
    return "".join(f" {c.lower()}" if c.isupper() else c for c in class_name).strip()
