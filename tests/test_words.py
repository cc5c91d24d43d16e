"""Each game's actions and public events in words (``arena/games/<pkg>/words.py``, through
``Game.describe_action`` / ``describe_event``): what ``arena match -v``, ``arena replay`` and the replay
viewer's step panel show.

Seeded random games of every game at every player count: every action and event kind gets a
sentence (the few a random game rarely or never plays are built by hand), no sentence is a
``key=value`` dump or names an enum in capitals, Ninjan's piles are numbered 1 to 3 as its board
shows them, a Ninja Master round reads as a few short lines, and no event's sentence names a card
that some seat may not see at that moment. A game without a ``words`` module gets ``plain_words``.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import sys
import typing
from collections.abc import Iterator
from typing import Any

import pytest

from arena.games import GAMES, get_game
from arena.games.base import Game, GameSpec, plain_words
from arena.games.ninja_burger.cards import Skill
from arena.games.ninja_burger.engine import ChooseSkills
from arena.games.ninja_master.engine import DiceRolled, RoundTallied, TickResolved
from arena.games.ninjan.engine import PileTaken, PlacePile, TakePile
from arena.games.play import Step, play
from arena.games.pnrz.engine import PassTurn, TurnPassed
from arena.testing.playouts import random_policy

SEEDS = range(3)
# Kinds a seeded random game seldom or never plays: a retired action (never legal) and PNRZ's pass
# (legal only with no tile in hand and no base to move).
RARE: dict[str, tuple[Any, ...]] = {
    "ninja-burger": (ChooseSkills((Skill.STEALTH, Skill.DRIVING)),),
    "pnrz": (PassTurn(), TurnPassed(1)),
}
DUMP = re.compile(r"\w=\S|[{}\[\]]")  # key=value, JSON


def enum_names(game: Game) -> re.Pattern[str]:
    """Returns a pattern of the game's enum members' names as an engine spells them (ROCK, PINK_NINJA)."""
    package = type(game).__module__.rpartition(".")[0]
    found = {
        member.name
        for module_name, module in list(sys.modules.items())
        if module_name.startswith(package + ".")
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, enum.Enum) and value.__module__ == module_name
        for member in value
    }
    return re.compile(r"\b(" + "|".join(sorted(found)) + r")\b")


def steps(game: Game, players: int, seed: int) -> Iterator[Step]:
    """Yields the steps of a seeded random game."""
    yield from play(game, game.initial_state(players, seed), random_policy(seed))


def names_for(players: int) -> list[str]:
    """Returns seat names unlike any word of a sentence."""
    return [f"Seat{chr(ord('A') + s)}name" for s in range(players)]


@pytest.mark.parametrize("game_name", list(GAMES))
def test_every_action_and_event_kind_of_every_game_reads_as_a_sentence(game_name: str) -> None:
    game = get_game(game_name)
    said: dict[type, list[str]] = {}
    for players in range(game.spec.min_players, game.spec.max_players + 1):
        names = names_for(players)
        for seed in SEEDS:
            for step in steps(game, players, seed):
                for d in step.decisions:
                    said.setdefault(type(d.action), []).append(game.describe_action(d.action, names))
                for e in step.events:
                    said.setdefault(type(e), []).append(game.describe_event(e, names))
    names = names_for(2)
    for value in RARE.get(game_name, ()):
        describe = (
            game.describe_event if type(value) in typing.get_args(game.event_type) else game.describe_action
        )
        said.setdefault(type(value), []).append(describe(value, names))
    kinds = {*game.action_kinds, *(typing.get_args(game.event_type) or (game.event_type,))}
    assert kinds <= said.keys(), f"no sentence for {sorted(k.__name__ for k in kinds - said.keys())}"
    shouted = enum_names(game)
    for kind, sentences in said.items():
        for sentence in sentences:
            assert sentence.strip(), kind
            assert not DUMP.search(sentence), f"{kind.__name__}: {sentence!r}"
            assert not shouted.search(sentence), f"{kind.__name__} names an enum: {sentence!r}"
            assert "seat " not in sentence, f"{kind.__name__} names a seat by number: {sentence!r}"


def test_ninjan_numbers_its_piles_1_to_3_as_the_board_does() -> None:
    game = get_game("ninjan")
    names = ["ann", "bob", "cy"]
    seen = set()
    for seed in SEEDS:
        for step in steps(game, 3, seed):
            for d in step.decisions:
                if isinstance(d.action, TakePile | PlacePile):
                    words = game.describe_action(d.action, names)
                    assert words.endswith(f"pile {d.action.pile + 1}"), words
                    seen.add(d.action.pile)
            for e in step.events:
                if isinstance(e, PileTaken):
                    assert f"takes pile {e.pile + 1} " in game.describe_event(e, names)
                    assert game.describe_event(e, names).startswith(names[e.seat])
    assert seen == {0, 1, 2}
    assert "pile 0" not in " ".join(game.describe_action(TakePile(p), names) for p in range(3))


def test_a_ninja_master_round_reads_as_a_few_short_lines() -> None:
    game = get_game("ninja-master")
    for players in (3, 5):
        names = names_for(players)
        rounds: dict[int, list[str]] = {}
        ticks: dict[int, int] = {}
        for seed in SEEDS:
            rounds.clear()
            for step in steps(game, players, seed):
                for e in step.events:
                    assert isinstance(e, DiceRolled | TickResolved | RoundTallied)
                    rounds.setdefault(e.round, []).extend(game.describe_event(e, names).splitlines())
                    ticks[e.round] = e.tick if isinstance(e, TickResolved) else ticks.get(e.round, 0)
            for number, lines in rounds.items():
                assert len(lines) <= ticks[number] + 4, lines  # the roll, a line a tick, a 3-line tally
                assert all(len(line) <= 220 for line in lines), lines
                assert lines[0].startswith(f"Round {number}: ") and " rolls " in lines[0]


def said_hidden(game_name: str, hidden: frozenset, sentence: str) -> list[str]:
    """Returns what ``sentence`` says of the hidden cards: a Ninjan card's suit and value, a PNRZ tile's
    number, a Ninja Burger card's whole name (the longest names found first, so that "Spare Tabi
    Boots" is not "Tabi Boots"; a name some other card shares is left out: saying one copy's name
    tells nothing of the other)."""
    if game_name == "ninjan":
        words = [f"{c.suit.name.lower()} {c.value}" for c in hidden]
        return [w for w in words if re.search(rf"(?<![\w-]){w}\b", sentence)]
    if game_name == "pnrz":
        return [f"tile {t.id}" for t in hidden if re.search(rf"\btile {t.id}\b", sentence)]
    from arena.games.ninja_burger.cards import fortune_cards, mission_cards, ninja_cards

    every = [c.name for c in (*fortune_cards(), *mission_cards(), *ninja_cards())]
    named = []
    for name in sorted(set(every), key=len, reverse=True):
        if name in sentence:
            named.append(name)
            sentence = sentence.replace(name, "…")
    return [c.name for c in hidden if hasattr(c, "name") and every.count(c.name) == 1 and c.name in named]


def secrets(game: Game, state: Any, players: int) -> frozenset:
    """Returns every object some seat may not see in ``state``."""
    return frozenset().union(*(game.hidden_from(state, seat) for seat in range(players)))


@pytest.mark.parametrize("game_name", list(GAMES))
def test_no_event_sentence_names_a_card_some_seat_may_not_see(game_name: str) -> None:
    game = get_game(game_name)
    players = game.spec.max_players
    names = names_for(players)
    checked = 0
    for seed in SEEDS:
        before = game.initial_state(players, seed)
        for step in steps(game, players, seed):
            sentences = [game.describe_event(e, names) for e in step.events]
            # secret throughout the step: hidden from some seat before it and after it (a mission
            # revealed, then shuffled back into the deck, was seen by all and may be named)
            hidden = secrets(game, before, players) & secrets(game, step.state, players)
            before = step.state
            checked += len(hidden) if sentences else 0
            for sentence in sentences:
                assert not said_hidden(game_name, hidden, sentence), sentence
    assert checked or game.spec.perfect_information


@dataclasses.dataclass(frozen=True)
class CoinTossed:
    seat: int
    heads: bool


class WordlessGame(Game[int, int]):
    """A game in a package without a ``words`` module (this test's): its events get plain words. Only
    what describing needs is here; the rules are stubs."""

    spec = GameSpec("wordless", "wordless", "Wordless", 2, 2, False, False, True, 1, "a test stub")
    initial_state = to_move = legal_actions = apply_legal = is_terminal = scores = None  # type: ignore[assignment]
    observe = public_view = events = None  # type: ignore[assignment]


def test_a_game_without_words_of_its_own_gets_plain_words() -> None:
    game = WordlessGame()
    assert game.describe_event(CoinTossed(1, True), ["ann", "bob"]) == "coin tossed: bob, heads True"
    plain = plain_words(CoinTossed(0, False), ["ann"])
    assert (
        game.describe_action(CoinTossed(0, False), ["ann", "bob"]) == plain == "coin tossed: ann, heads False"
    )
