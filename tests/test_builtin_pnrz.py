"""PNRZ's ``search`` bot against the ``builder`` it searches over, and the parts that make the margin.

A PNRZ game costs seconds of CPU with a search seat, so the head-to-head here is short, at a small
budget and on fixed seeds (deterministic: the bound sits below what the same games give); the
measurements over hundreds of games are in docs/rules/pnrz.md ("Strategy: the built-in bots").
"""

from __future__ import annotations

from datetime import timedelta

from arena.bots.search import Budget
from arena.games.pnrz.board import GAME_TILES, PICTURES, Faction, Picture, tile_cells
from arena.games.pnrz.bots import BuilderBot, SearchBot
from arena.games.pnrz.bots.search import exposed
from tests.test_builtin_bots import head_to_head

SMALL = Budget(iterations=24, cap=timedelta(seconds=30))  # a few tiles per candidate, never cut short


def small_search() -> SearchBot:
    """Returns the search bot at the test budget (stronger at its default budget)."""
    return SearchBot(SMALL)


def test_search_beats_builder_at_a_small_budget():
    wins, losses = head_to_head("pnrz", small_search, BuilderBot, 16, first_seed=7000)
    assert wins >= losses + 6, (wins, losses)  # 13:3 on these 16 games


def test_a_bonus_item_facing_a_free_position_is_exposed_until_covered():
    """A Pirate bonus item at a tile's north-west quadrant faces the free positions west and north of
    the tile; with tiles placed on both sides it faces none, and only counted points are exposed."""
    chest = next(t.id for t in GAME_TILES if PICTURES[t.id][0] is Picture.TREASURE_CHEST)
    cells = dict(tile_cells(chest, 0, 0, 0))
    assert exposed(cells, Faction.PIRATE) == 3
    plain = [t.id for t in GAME_TILES if Picture.KRAKEN not in PICTURES[t.id] and t.id != chest]
    for tile, (x, y) in zip(plain, ((-1, 0), (0, -1)), strict=False):
        cells.update(tile_cells(tile, x, y, 0))
    assert exposed(cells, Faction.PIRATE) == 0
