"""``arena results GAME --format pgn|csv``: a game's recorded matches in the formats other rating tools
read, so that BayesElo, Ordo or a spreadsheet can refit the data arena's ratings are fitted to.

PGN (two-seat matches only): one game per recorded match, oldest first, with the Seven Tag Roster PGN
requires and arena's own tags::

    [Event "arena ninjan"]        the game
    [Site "arena"]
    [Date "2026.12.07"]           when the match was recorded (UTC); ????.??.?? when not known
    [Round "17"]                  the match's place in the game's results, from 1
    [White "greedy@3f2a9c01b7d4"] seat 0's player: the id the fit rates (bot@version, or bot)
    [Black "random"]              seat 1's player
    [Result "1-0"]                seat 0 ranked ahead: 1-0; behind: 0-1; level: 1/2-1/2
    [ArenaMatch "ninjan-..."]     arena's match id (arena replay, arena logs, the web page take it)
    [ArenaSeed "1234"]            the match's seed, when known
    [ArenaScore "31 12"]          each seat's score in the game, seat order, when known

    1-0

and no moves: the rating tools read the tags and the result. A match of more seats has no colours to
give: a PGN export of a game that has one is refused before anything is printed (use CSV).

CSV (every table size): a header line, then one row per recorded match, oldest first::

    match_id, round, recorded_at (ISO 8601 UTC, empty when not known), seed, seats (the match's
    number of seats), then for every seat i from 0 to the game's largest table less one:
    seat<i>_bot, seat<i>_version, seat<i>_rank (1 is best; equal ranks are a tie; a forfeit ranks
    last), seat<i>_score (the game's score, when known); empty for a seat the match did not have.

Both read every match's placements (``arena results --json``); the date, seed and scores come from the
stored result of each match, read from Redis a page at a time. A server's results API gives the
placements only, so with ``--server`` those fields are unknown.
"""

from __future__ import annotations

import csv
import io
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import redis

from arena.queue import keys, store
from arena.queue.connection import maybe_text_list
from arena.ratings.pairs import player_id

DETAILS_PAGE = 500  # matches whose stored results are read in one round trip
UNKNOWN_DATE = "????.??.??"
PGN_RESULTS = {-1: "1-0", 0: "1/2-1/2", 1: "0-1"}  # by the sign of seat 0's rank minus seat 1's

Details = Mapping[str, Any] | None  # a match's stored result (``store.result_fields``), None if unknown
Lookup = Callable[[Sequence[str]], list[Details]]


class MultiSeatError(ValueError):
    """A PGN export met a match of more (or fewer) than two seats."""


def redis_lookup(client: redis.Redis) -> Lookup:
    """Returns a lookup of stored results in ``client``'s Redis (one round trip per call)."""

    def lookup(match_ids: Sequence[str]) -> list[Details]:
        texts = maybe_text_list(client.mget([keys.result(m) for m in match_ids])) if match_ids else []
        return [None if text is None else store.result_fields(text) for text in texts]

    return lookup


def no_details(match_ids: Sequence[str]) -> list[Details]:
    """The lookup of a source that keeps no details (a server's results API)."""
    return [None] * len(match_ids)


def with_details(matches: Iterable[dict], lookup: Lookup) -> Iterator[tuple[dict, Details]]:
    """Yields each match with its stored result, looked up ``DETAILS_PAGE`` matches at a time (so a
    reader that stops early costs at most one page more)."""
    found = iter(matches)
    while chunk := list(itertools.islice(found, DETAILS_PAGE)):
        yield from zip(chunk, lookup([m["match_id"] for m in chunk]), strict=True)


def check_two_seats(match: Mapping[str, Any]) -> None:
    """Raises MultiSeatError unless the match had exactly two seats (a white and a black)."""
    seats = len(match["players"])
    if seats != 2:
        raise MultiSeatError(
            f"match {match['match_id']} has {seats} seats: PGN holds two-player games only; "
            "use --format csv, which has a column per seat"
        )


def pgn_game(game: str, number: int, match: Mapping[str, Any], details: Details) -> str:
    """Returns one recorded two-seat match as a PGN game (its tags and its result; no moves), ending
    with a blank line; raises MultiSeatError for another number of seats."""
    check_two_seats(match)
    white, black = match["players"]
    result = PGN_RESULTS[(white["rank"] > black["rank"]) - (white["rank"] < black["rank"])]
    tags = [
        ("Event", f"arena {game}"),
        ("Site", "arena"),
        ("Date", _date(details)),
        ("Round", str(number)),
        ("White", player_id(white["bot"], white["version"])),
        ("Black", player_id(black["bot"], black["version"])),
        ("Result", result),
        ("ArenaMatch", match["match_id"]),
    ]
    if details is not None:
        tags.append(("ArenaSeed", str(details["seed"])))
        tags.append(("ArenaScore", " ".join(str(p["score"]) for p in details["players"])))
    return "".join(f'[{name} "{_pgn_string(value)}"]\n' for name, value in tags) + f"\n{result}\n\n"


def _pgn_string(value: str) -> str:
    """Returns a PGN tag value: backslash and quote escaped, control characters as spaces."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return "".join(c if c.isprintable() else " " for c in escaped)


def _recorded(details: Details) -> datetime | None:
    """Returns when the match was recorded (UTC), None when not known."""
    if details is None or "recorded_at" not in details:
        return None
    return datetime.fromtimestamp(int(details["recorded_at"]), UTC)


def _date(details: Details) -> str:
    recorded = _recorded(details)
    return recorded.strftime("%Y.%m.%d") if recorded else UNKNOWN_DATE


def csv_header(seats: int) -> str:
    """Returns the CSV header line for a game whose largest table has ``seats`` seats."""
    columns = ["match_id", "round", "recorded_at", "seed", "seats"]
    columns += [f"seat{i}_{field}" for i in range(seats) for field in ("bot", "version", "rank", "score")]
    return _csv_line(columns)


def csv_row(number: int, match: Mapping[str, Any], details: Details, seats: int) -> str:
    """Returns one recorded match as a CSV line (columns as ``csv_header(seats)``)."""
    stamp = _recorded(details)
    cells: list[str] = [
        match["match_id"],
        str(number),
        stamp.strftime("%Y-%m-%dT%H:%M:%SZ") if stamp else "",
        str(details["seed"]) if details is not None else "",
        str(len(match["players"])),
    ]
    scores = [p["score"] for p in details["players"]] if details is not None else []
    for seat in range(seats):
        if seat < len(match["players"]):
            p = match["players"][seat]
            score = str(scores[seat]) if seat < len(scores) else ""
            cells += [p["bot"], p["version"], str(p["rank"]), score]
        else:
            cells += ["", "", "", ""]
    return _csv_line(cells)


def _csv_line(cells: Sequence[str]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(cells)
    return out.getvalue()
