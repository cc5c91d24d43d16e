"""PNRZ's layout (``arena.games.pnrz.scoring.Layout``), kept tile by tile in the state, against a
from-scratch recomputation of the whole board at every step of seeded random games: the sections and
their scores, the frontier, the positions a base may move to, the board as observed.

The oracle is the slow reference code: ``pnrz_board.sections`` (a flood fill of the whole picture grid),
``pnrz_board.frontier`` and ``pnrz_board.is_connected``, and the observed board made tile by tile.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from arena.games.play import Driver
from arena.games.pnrz.board import (
    BASE_OF,
    TILES,
    Faction,
    Placement,
    frontier,
    is_connected,
    picture_cells,
    sections,
)
from arena.games.pnrz.engine import GAME, Phase, PlacedTile, PnrzState
from arena.games.pnrz.scoring import EMPTY, Layout, faction_scores, key, xy

GAMES_DIR = Path(__file__).resolve().parent.parent / "arena" / "games"


def cell_of(k: int) -> tuple[int, int]:
    """Returns the (cx, cy) of a picture cell key (the same integer form as a position key)."""
    return xy(k)


def check_layout(layout: Layout, board: tuple[Placement, ...]) -> None:
    """Asserts that ``layout`` is what a from-scratch recomputation of ``board`` gives."""
    assert layout.board == board
    assert {xy(k): p for k, p in layout.tiles.items()} == {(p.x, p.y): p for p in board}
    assert layout.where == {p.tile_id: p for p in board}
    cells = picture_cells(board)
    assert {cell_of(k): int(v) for k, v in layout.pics.items()} == {c: int(p) for c, p in cells.items()}
    # sections: the same cells grouped the same way (by their labels), each with the same score
    grouped: dict[int, set[tuple[int, int]]] = {}
    for c, sid in layout.label.items():
        grouped.setdefault(sid, set()).add(cell_of(c))
    for f in Faction:
        expected = {(s.cells, s.score) for s in sections(cells, f)}
        kept = {
            (frozenset(grouped[sid]), points + (5 if bases else 0))
            for sid, (points, bases, _size) in layout.secs[f].items()
        }
        assert kept == expected, f
        for sid, (_points, bases, size) in layout.secs[f].items():
            assert size == len(grouped[sid])
            assert bases == sum(
                cells[c].name in ("PIRATE_SHIP", "CASTLE", "FACTORY", "GRAVEYARD") for c in grouped[sid]
            )
        assert layout.best[f] == max((s.score for s in sections(cells, f)), default=0)
    assert set(grouped) == {sid for f in Faction for sid in layout.secs[f]}
    # the frontier, row by row
    taken = {(p.x, p.y) for p in board}
    assert [xy(k) for k in layout.frontier] == frontier(taken)
    assert list(layout.frontier) == sorted(layout.frontier)
    # moving any tile (the engine asks for bases): whether the rest stays joined, and where it may go
    for x, y in taken:
        rest = taken - {(x, y)}
        joined = bool(rest) and is_connected(rest)
        assert layout.stays_joined(key(x, y)) == joined, (sorted(taken), (x, y))
        if joined:
            spots = [s for s in frontier(rest) if s != (x, y)]
            assert [xy(k) for k in layout.spots_without(key(x, y))] == spots


def check_state(state: PnrzState) -> None:
    check_layout(state.layout, state.board)
    shown = tuple(
        PlacedTile(
            p.tile_id,
            p.x,
            p.y,
            p.rotation,
            "".join(TILES[p.tile_id].pictures[(q - p.rotation) % 4] for q in range(4)),
        )
        for p in state.board
    )
    assert state.shown == shown
    assert GAME.faction_scores(state) == {f: state.layout.best[f] for f in Faction}
    if state.phase is Phase.PLAY:
        taken = {(p.x, p.y) for p in state.board}
        movable = []
        for p in state.board:
            if BASE_OF[p.tile_id] in state.factions[state.current]:
                rest = taken - {(p.x, p.y)}
                if rest and is_connected(rest):
                    movable.append(p.tile_id)
        assert GAME.movable_bases(state, state.current) == sorted(movable)


def playout(players: int, seed: int, moves: float) -> list[PnrzState]:
    """Returns the states of a seeded random game; ``moves``: how often a seat that may move a base
    does so (a uniform pick rarely does; a move both takes a tile away and puts it down elsewhere)."""
    rng = random.Random(seed)
    driver = Driver(GAME, GAME.initial_state(players, seed))
    states = [driver.state]
    while (turn := driver.turn()) is not None:
        choices = {}
        for seat, legal in turn.legal.items():
            bases = [i for i, a in enumerate(legal) if type(a).__name__ == "MoveBase"]
            index = rng.choice(bases) if bases and rng.random() < moves else rng.randrange(len(legal))
            choices[seat] = (index, "bot")
        driver.advance(turn, choices)
        states.append(driver.state)
    return states


@pytest.mark.parametrize(
    ("players", "seed", "moves"),
    [(2, 1, 0.0), (2, 2, 0.5), (3, 3, 0.3), (4, 4, 0.2), (3, 5, 0.6), (2, 6, 0.8)],
)
def test_the_layout_kept_step_by_step_equals_a_recomputation_of_the_board(
    players: int, seed: int, moves: float
) -> None:
    states = playout(players, seed, moves)
    assert states[-1].phase is Phase.OVER
    kinds = set()
    for before, state in itertools.pairwise(states):
        kinds.update(type(e).__name__ for e in state.last_events)
        if state.board is before.board:
            assert state.layout is before.layout  # nothing to do while the board stays
        check_state(state)
    # every way the board changes was met: placed, moved, turned, swapped (and oriented), replaced
    assert {"TilePlaced", "BaseMoved", "TileRotated", "TilesSwapped", "TileReplaced"} <= kinds


def test_more_seeded_games_agree_on_scores_frontier_and_moves() -> None:
    """Cheaper checks over more games: the scores, the frontier and the base moves at every step."""
    for seed in range(10, 22):
        for state in playout(2 + seed % 3, seed, 0.3):
            cells = picture_cells(state.board)
            best = {f: max((s.score for s in sections(cells, f)), default=0) for f in Faction}
            assert state.layout.scores == best
            taken = {(p.x, p.y) for p in state.board}
            assert [xy(k) for k in state.layout.frontier] == frontier(taken)


def test_a_layout_derived_from_any_earlier_board_equals_one_built_from_scratch() -> None:
    """The bots make the layouts of imagined boards from the observed board's, however far apart."""
    states = playout(3, 7, 0.3)
    boards = [s.board for s in states if s.board]
    rng = random.Random(7)
    for _ in range(40):
        i, j = sorted(rng.sample(range(len(boards)), 2))
        start = Layout.build(boards[i])
        check_layout(start.derive(boards[j]), boards[j])
        check_layout(Layout.build(boards[j]).derive(boards[i]), boards[i])
    assert faction_scores(boards[-1]) == states[-1].layout.scores


def test_making_the_next_layout_leaves_the_one_it_came_from_unchanged() -> None:
    states = playout(2, 9, 0.4)
    snapshots = []
    for state in states:
        layout = state.layout
        snapshots.append(
            (
                layout,
                dict(layout.tiles),
                dict(layout.pics),
                dict(layout.label),
                [dict(s) for s in layout.secs],
                layout.frontier,
                layout.best,
            )
        )
    for layout, tiles, pics, label, secs, fr, best in snapshots:
        assert (layout.tiles, layout.pics, layout.label, list(layout.secs), layout.frontier, layout.best) == (
            tiles,
            pics,
            label,
            secs,
            fr,
            best,
        )
    assert EMPTY.board == () and not EMPTY.pics and EMPTY.best == (0,) * 5


def test_a_state_made_with_another_board_gets_that_boards_layout() -> None:
    """``dataclasses.replace`` and direct construction (tests, tools) make the layout from the board."""
    import dataclasses

    states = playout(2, 11, 0.0)
    early, late = states[40], states[-1]
    state = dataclasses.replace(early, board=late.board)
    check_state(dataclasses.replace(state, phase=late.phase, current=late.current))
    assert dataclasses.replace(early, turn=early.turn + 1).layout is early.layout  # same board: kept


def test_no_process_wide_cache_in_any_engine() -> None:
    """Derived data lives on the states (or in an object made per call): no memo, no lock, in any
    module of the game layer but a game's bots (each bot is a process of its own)."""
    engines = [
        p for p in GAMES_DIR.rglob("*.py") if "bots" not in p.relative_to(GAMES_DIR).with_suffix("").parts
    ]
    assert GAMES_DIR / "pnrz" / "scoring.py" in engines and len(engines) >= 14
    for path in engines:
        text = path.read_text()
        for word in ("lru_cache", "functools.cache", "IdentityMemo", "threading", "Lock("):
            assert word not in text, (path, word)
    assert not (GAMES_DIR / "memo.py").exists()
