"""``arena results GAME --format pgn|csv`` writes what BayesElo, Ordo and a spreadsheet read (the PGN
read back here with python-chess, every header and result intact), and ``arena leaderboard --los``
gives the fit's likelihood of superiority for every pair of bots."""

from __future__ import annotations

import csv
import io
import itertools
import json
import shutil
from datetime import UTC, datetime

import chess.pgn
import pytest
import redis

from arena.games.base import Termination
from arena.queue import keys, store
from arena.queue.jobs import MatchJob
from arena.referee.record import MatchRecord
from arena.results import PlayerResult
from arena.storage import fits
from tests.conftest import run_arena

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")

Seat = tuple[str, str, int, int]  # bot, version, rank, score


def record(client: redis.Redis, match_id: str, seats: list[Seat], seed: int = 7) -> None:
    """Records a ninjan match through the real recording path, seats in seat order."""
    players = tuple(
        PlayerResult(i, bot, score, rank, False, 0) for i, (bot, _, rank, score) in enumerate(seats)
    )
    match = MatchRecord(match_id, "ninjan", seed, players, Termination.NORMAL, 12)
    job = MatchJob(match_id, "ninjan", seed, tuple(s[0] for s in seats), versions=tuple(s[1] for s in seats))
    assert store.record(client, job, match, '{"type":"header"}\n', "0-1")


def stored(client: redis.Redis, match_id: str) -> dict:
    return store.result_fields(client.get(keys.result(match_id)))


TWO_SEATS: list[tuple[str, list[Seat], int, str]] = [
    ("m-white-wins", [("ann", "v1", 1, 30), ("bob", "v2", 2, 10)], 11, "1-0"),
    ("m-black-wins", [("bob", "v2", 1, 25), ("ann", "v1", 2, 5)], 12, "1-0"),
    ("m-draw", [("ann", "v1", 1, 20), ("bob", "v2", 1, 20)], 13, "1/2-1/2"),
    ("m-loss", [("cy", "", 2, 3), ("ann", "v1", 1, 9)], 14, "0-1"),
]


def test_the_pgn_reads_back_with_python_chess_every_header_and_result_intact(
    client: redis.Redis, redis_url: str
) -> None:
    for match_id, seats, seed, _ in TWO_SEATS:
        record(client, match_id, seats, seed)
    proc = run_arena("results", "ninjan", "--format", "pgn", "--redis", redis_url)
    assert proc.returncode == 0, proc.stderr
    text = io.StringIO(proc.stdout)
    games = []
    while (game := chess.pgn.read_game(text)) is not None:
        games.append(game)
    assert len(games) == len(TWO_SEATS)
    for number, (game, (match_id, seats, seed, result)) in enumerate(zip(games, TWO_SEATS, strict=True), 1):
        assert not game.errors and not list(game.mainline_moves())
        recorded = datetime.fromtimestamp(stored(client, match_id)["recorded_at"], UTC)
        white, black = (f"{bot}@{version}" if version else bot for bot, version, _, _ in seats)
        assert dict(game.headers) == {
            "Event": "arena ninjan",
            "Site": "arena",
            "Date": recorded.strftime("%Y.%m.%d"),
            "Round": str(number),
            "White": white,
            "Black": black,
            "Result": result,
            "ArenaMatch": match_id,
            "ArenaSeed": str(seed),
            "ArenaScore": f"{seats[0][3]} {seats[1][3]}",
        }
        assert game.end().board().is_valid()  # a game python-chess accepts, with no moves


def test_a_multi_seat_match_in_pgn_is_refused_before_anything_is_printed(
    client: redis.Redis, redis_url: str
) -> None:
    record(client, "m-two", [("ann", "", 1, 3), ("bob", "", 2, 1)])
    record(client, "m-three", [("ann", "", 1, 3), ("bob", "", 2, 1), ("cy", "", 3, 0)])
    proc = run_arena("results", "ninjan", "--format", "pgn", "--redis", redis_url)
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("arena: error: match m-three has 3 seats") and "use --format csv" in line, line


def test_the_csv_has_a_row_per_match_of_every_size_and_a_column_per_seat(
    client: redis.Redis, redis_url: str
) -> None:
    record(client, "m-two", [("ann", "v1", 2, 3), ("bob", "", 1, 8)], seed=5)
    record(client, "m-three", [("ann", "v1", 1, 9), ("bob", "", 2, 4), ("cy", "x", 2, 4)], seed=6)
    proc = run_arena("results", "ninjan", "--format", "csv", "--redis", redis_url)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    header = proc.stdout.splitlines()[0].split(",")
    seat_columns = [f"seat{i}_{f}" for i in range(5) for f in ("bot", "version", "rank", "score")]
    assert header == ["match_id", "round", "recorded_at", "seed", "seats", *seat_columns]  # ninjan: 2-5 seats
    stamp = datetime.fromtimestamp(stored(client, "m-two")["recorded_at"], UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert rows[0] == {
        "match_id": "m-two", "round": "1", "recorded_at": stamp, "seed": "5", "seats": "2",
        "seat0_bot": "ann", "seat0_version": "v1", "seat0_rank": "2", "seat0_score": "3",
        "seat1_bot": "bob", "seat1_version": "", "seat1_rank": "1", "seat1_score": "8",
    } | {c: "" for c in seat_columns[8:]}  # fmt: skip
    assert [rows[1][f"seat{i}_{f}"] for i in range(3) for f in ("bot", "version", "rank", "score")] == [
        "ann", "v1", "1", "9", "bob", "", "2", "4", "cy", "x", "2", "4",
    ]  # fmt: skip
    assert (rows[1]["round"], rows[1]["seats"], rows[1]["seat3_bot"]) == ("2", "3", "")


def test_json_and_another_format_are_refused_in_one_line(redis_url: str) -> None:
    proc = run_arena("results", "ninjan", "--json", "--format", "csv", "--redis", redis_url)
    assert proc.returncode == 2 and proc.stderr.strip() == (
        "arena: error: --json is --format json: give one of --json and --format csv"
    )


def test_the_leaderboard_gives_the_los_of_every_pair_from_the_fit(
    client: redis.Redis, redis_url: str
) -> None:
    results = [("ann", "bob")] * 6 + [("bob", "ann")] * 2 + [("bob", "cy")] * 5 + [("ann", "cy")] * 4
    for n, (first, second) in enumerate(results):
        record(client, f"m{n}", [(first, "", 1, 2), (second, "", 2, 1)])
    proc = run_arena("leaderboard", "ninjan", "--json", "--los", "--redis", redis_url)
    assert proc.returncode == 0, proc.stderr
    los = json.loads(proc.stdout)
    assert {a: sorted(row) for a, row in los.items()} == {
        "ann": ["bob", "cy"],
        "bob": ["ann", "cy"],
        "cy": ["ann", "bob"],
    }
    for a, row in los.items():
        for b, p in row.items():
            assert 0 < p < 1 and p + los[b][a] == pytest.approx(1, abs=0.0011)
    rows = json.loads(run_arena("leaderboard", "ninjan", "--json", "--redis", redis_url).stdout)
    for row, below in itertools.pairwise(rows):  # the table's "LOS next" is the matrix's cell
        assert los[row["bot"]][below["bot"]] == row["los_next"]
    text = run_arena("leaderboard", "ninjan", "--los", "--redis", redis_url).stdout
    assert "LOS: likelihood that the row's bot is stronger than the column's" in text


def test_a_view_cached_before_the_los_matrix_is_refitted_for_los(client: redis.Redis, redis_url: str) -> None:
    for n in range(3):
        record(client, f"m{n}", [("ann", "", 1, 2), ("bob", "", 2, 1)])
    board = fits.view(client, fits.game_source("ninjan"))
    assert board is not None and "los" in board
    del board["los"]  # as a view cached by an older arena holds it
    client.hset(keys.fit("ninjan"), fits.BOARD, json.dumps(board))
    proc = run_arena("leaderboard", "ninjan", "--json", "--los", "--redis", redis_url)
    assert proc.returncode == 0, proc.stderr
    assert set(json.loads(proc.stdout)) == {"ann", "bob"}
