"""Ninja Burger's standing table: what it counts, how it answers, and that its writer is reproducible."""

from __future__ import annotations

import subprocess
import sys

from arena.games.ninja_burger.bots.ninja import NinjaBot
from arena.games.ninja_burger.bots.standing import (
    MINE_NEXT,
    RIVAL_NEXT,
    ROUND_OVER,
    StandingTable,
    game_positions,
    situation_after,
    stored_table,
)
from arena.games.ninja_burger.engine import GAME, MissionEnded
from tests.conftest import REPO, play_bots


def test_an_ended_game_is_exact_and_a_tie_at_the_end_is_half_a_win():
    table = stored_table()
    assert table.chance(11, 9, ROUND_OVER) == 1.0  # total 20: over
    assert table.chance(10, 10, MINE_NEXT) == 0.5  # ninja's curve counted this as a loss
    assert table.chance(3, 5, RIVAL_NEXT) == 0.0  # total 8: over


def test_the_end_in_sight_raises_a_lead_and_an_empty_table_is_the_curve():
    table = stored_table()
    assert table.chance(9, 7, ROUND_OVER) > table.chance(7, 5, ROUND_OVER) > 0.5
    empty = StandingTable()
    assert empty.chance(9, 7, ROUND_OVER) == empty.chance(7, 5, ROUND_OVER) > 0.5


def test_a_well_seen_cell_answers_its_own_count():
    table = StandingTable({(7, 6, ROUND_OVER): (10_000, 3_000.0)})
    assert abs(table.chance(7, 6, ROUND_OVER) - 0.3) < 0.01


def test_situation_after_a_mission():
    assert situation_after((1, 0), active=1, seat=0) == MINE_NEXT
    assert situation_after((0, 1), active=0, seat=0) == RIVAL_NEXT
    assert situation_after((0, 1), active=1, seat=0) == ROUND_OVER


def test_a_game_passes_the_start_and_every_mission_that_did_not_end_it():
    events: list = []
    play_bots(GAME, [NinjaBot(), NinjaBot()], 31, on_step=lambda step: events.extend(step.events))
    cells = game_positions(events, 1, GAME.initial_state(2, 31).honor)
    missions = sum(isinstance(e, MissionEnded) for e in events)
    assert len(cells) == missions  # the start, and every mission but the last (which ended the game)
    assert cells[0] == (6, 6, ROUND_OVER)


def test_the_writer_writes_the_same_table_whatever_its_jobs(tmp_path):
    def write(jobs: int) -> str:
        out = tmp_path / f"{jobs}.json"
        args = ["--games", "24", "--first-seed", "5", "--jobs", str(jobs), "--out", str(out)]
        subprocess.run([sys.executable, "bench/ninja_burger_standing.py", *args], cwd=REPO, check=True)
        return out.read_text().split('"cells"')[1]

    cells = write(1)
    assert cells == write(2)
    assert StandingTable.from_json('{"cells"' + cells).cells  # it reads back
