"""The pair table: everything the rating fit needs of the results, in one small, additive aggregate.

A *player* is a bot version, named by ``player_id(bot, version)``: ``"greedy@3f2a9c01b7d4"``, or just
``"greedy"`` when the version is not known. A match of 2 to 6 seats is read as one pairwise result for
every pair of seats: the seat with the better (lower) finishing rank won that pair, equal ranks drew.
The table keeps, for every unordered pair of players and table size, three integers (the first
player's wins, the draws, the second player's wins), and for every player the number of matches it
played.

Why this aggregate: the (weighted) Bradley-Terry likelihood depends on the results only through
these counts, so a fit on the table gives exactly the numbers a fit on the full list of matches
gives, while the table grows with the number of pairs met, not with the number of matches. Adding a
match touches at most 15 pair records and 6 player counters (a 6-seat match), and two tables merge
by adding counts, so a burst of results, or the results of several workers, can be folded in any order.

Design detail, the stored form: a flat ``dict[str, str]`` of counters, one Redis hash per game (and
one per tournament), in which recording a match is nothing but ``HINCRBY``s:

- ``"a"``: the number of matches player ``a`` played;
- ``"a>b"``: the number of pairwise results ``a`` won against ``b`` in two-seat matches (both orders
  occur);
- ``"a=b"`` with ``a < b``: the number of draws between them;
- ``"a>b/4"``, ``"a=b/4"``: the same for the results of ``k``-seat matches, ``k`` from 3 to 6 (the fit
  weighs them ``3 / (k + 1)``: ``arena.ratings.fit.match_weight``);
- ``"a>b/2/1.0"``: for a game that records seats (``arena.ratings.seating``), the seats the two held,
  ``a``'s first, whatever the table size.

Why tagged by table size (issue 37): the pairs of one match are not independent, and how much each
counts depends on the number of seats; a tag per size keeps that in the counts, at most 5 sizes per
pair, so the table stays bounded by the pairs met. A field without a size is a two-seat result, and
so, until ``arena storage migrate`` recounts a game's table, is every result recorded before sizes
were kept: old tables fit exactly as they did.

Why three counters per pair rather than one ``"wins draws losses"`` string: a match adds exactly one
pairwise result to each pair, so the recording script increments one field per pair and one per seat,
with no read, no parsing and no rewrite inside Lua, and increments commute, so concurrent recordings
need no ordering. The price is up to three fields per pair and table size instead of one,
read once per refit (bench/ratings_bench.py).

Player ids are made of the bot name and the version with every character outside ``[A-Za-z0-9_.~-]``
percent-encoded (``urllib.parse.quote``), so the marks ``@``, ``>`` and ``=`` never occur inside a
name. Submitted names and versions never need it (``arena.submissions.registry`` patterns); a hostile
string recorded as a bot name (the web page's tests do that) is still stored and shown unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from urllib.parse import quote, unquote

from arena.ratings.elo import Placement

VERSION_MARK = "@"  # between a bot's name and its version in a player id
WIN_MARK = ">"  # "a>b": a's wins over b
DRAW_MARK = "="  # "a=b" (a < b): their draws
TAG_MARK = "/"  # "a>b/4": a 4-seat match's result; "a>b/2/0.1": with the seats a and b held
SEAT_MARK = "."  # between the two seats of a seat tag
PLAIN = -1  # the seat of a result recorded without seats


def player_id(bot: str, version: str = "") -> str:
    """Returns the id of a bot version: ``"bot@version"``, or ``"bot"`` when the version is empty,
    each part percent-encoded outside ``[A-Za-z0-9_.~-]``.

    >>> player_id("greedy", "3f2a9c01b7d4"), player_id("a b@c")
    ('greedy@3f2a9c01b7d4', 'a%20b%40c')
    """
    if not bot:
        raise ValueError("a player needs a bot name")
    name = quote(bot, safe="")
    return f"{name}{VERSION_MARK}{quote(version, safe='')}" if version else name


def split_player(player: str) -> tuple[str, str]:
    """Returns ``(bot, version)`` of a player id (version ``""`` when it has none).

    >>> split_player("greedy@3f2a9c01b7d4"), split_player("a%20b%40c")
    (('greedy', '3f2a9c01b7d4'), ('a b@c', ''))
    """
    bot, _, version = player.partition(VERSION_MARK)
    return unquote(bot), unquote(version)


@dataclasses.dataclass(frozen=True)
class Record:
    """One pair's results seen from its first player: wins, draws, losses."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        """Returns the number of pairwise results."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Returns the first player's points (a draw is half a point)."""
        return self.wins + 0.5 * self.draws

    def flipped(self) -> Record:
        """Returns the same record seen from the second player."""
        return Record(self.losses, self.draws, self.wins)


Cell = tuple[str, str, int, int, int]  # (a, b, table size, a's seat, b's seat), a < b; seats PLAIN or 0..


class PairTable:
    """Wins/draws/losses per unordered pair of players and matches per player; add, merge, serialize.

    Each pair's results are kept per *cell*: the table size of the match they came from (2 for a
    two-seat match, and for results recorded before sizes were kept) and, for a game whose fit has
    a seat advantage, the two seats held. ``record`` and ``pairs`` sum a pair's cells.

    >>> table = PairTable()
    >>> table.add_match([Placement("a", 1), Placement("b", 2), Placement("c", 2)])
    >>> table.record("b", "a"), table.record("b", "c"), table.games("a")
    (Record(wins=0, draws=0, losses=1), Record(wins=0, draws=1, losses=0), 1)
    """

    def __init__(self) -> None:
        self._cells: dict[Cell, list[int]] = {}  # [wins, draws, losses] of the first player
        self._totals: dict[tuple[str, str], list[int]] = {}  # the same, summed over a pair's cells
        self._games: dict[str, int] = {}

    def _count(self, cell: Cell, slot: int, count: int) -> None:
        self._cells.setdefault(cell, [0, 0, 0])[slot] += count
        self._totals.setdefault(cell[:2], [0, 0, 0])[slot] += count

    def add_match(self, placements: Sequence[Placement], seats: bool = False) -> None:
        """Counts one match: a pairwise result for every pair of seats (in the cell of the match's
        size, and with ``seats`` of the seats held: ``placements`` in seat order), a game per seat."""
        for cell, outcome in _outcomes(placements, seats):
            self._count(cell, outcome, 1)
        for seat in placements:
            self._games[seat.bot] = self._games.get(seat.bot, 0) + 1

    def merge(self, other: PairTable) -> None:
        """Adds every count of ``other`` to this table (the order of merges never matters)."""
        for cell, theirs in other._cells.items():
            for slot in range(3):
                self._count(cell, slot, theirs[slot])
        for player, games in other._games.items():
            self._games[player] = self._games.get(player, 0) + games

    def players(self) -> list[str]:
        """Returns every player that played a match, sorted."""
        return sorted(self._games)

    def games(self, player: str) -> int:
        """Returns the number of matches ``player`` played."""
        return self._games.get(player, 0)

    def record(self, player: str, opponent: str) -> Record:
        """Returns ``player``'s results against ``opponent`` (all zero if they never met)."""
        if player <= opponent:
            return Record(*self._totals.get((player, opponent), (0, 0, 0)))
        return Record(*self._totals.get((opponent, player), (0, 0, 0))).flipped()

    def pairs(self) -> Iterator[tuple[str, str, Record]]:
        """Yields ``(a, b, record of a against b)`` for every pair that met, with ``a < b``, sorted."""
        for a, b in sorted(self._totals):
            yield a, b, Record(*self._totals[(a, b)])

    def counts(self) -> Iterator[tuple[Cell, list[int]]]:
        """Yields every cell and its ``[wins, draws, losses]``, in no set order (do not modify)."""
        yield from self._cells.items()

    def cells(self) -> Iterator[tuple[Cell, Record]]:
        """Yields every cell (pair, table size, seats) that holds a result, and its record, sorted."""
        for cell in sorted(self._cells):
            yield cell, Record(*self._cells[cell])

    def draw_ratio(self) -> float | None:
        """Returns the share of pairwise results that were draws (None before any result): for
        two-seat matches, the share of matches drawn."""
        draws = sum(c[1] for c in self._cells.values())
        results = sum(sum(c) for c in self._cells.values())
        return draws / results if results else None

    def subset(self, players: Iterable[str]) -> PairTable:
        """Returns the table restricted to ``players`` (their matches counted as before)."""
        keep = set(players)
        table = PairTable()
        for cell, counts in self._cells.items():
            if cell[0] in keep and cell[1] in keep:
                for slot in range(3):
                    table._count(cell, slot, counts[slot])
        table._games = {p: g for p, g in self._games.items() if p in keep}
        return table

    def to_fields(self) -> dict[str, str]:
        """Returns the stored form (one Redis hash of counters, see the module docstring)."""
        fields = {player: str(games) for player, games in sorted(self._games.items())}
        for (a, b, size, seat_a, seat_b), (wins, draws, losses) in sorted(self._cells.items()):
            flipped = (size, seat_b, seat_a)
            for field, count in (
                (_field(a, WIN_MARK, b, (size, seat_a, seat_b)), wins),
                (_field(a, DRAW_MARK, b, (size, seat_a, seat_b)), draws),
                (_field(b, WIN_MARK, a, flipped), losses),
            ):
                if count:
                    fields[field] = str(count)
        return fields

    @staticmethod
    def from_fields(fields: Mapping[str, str | bytes]) -> PairTable:
        """Returns the table that ``to_fields`` (or the counters kept in Redis) describes; raises
        ValueError for a field that is not a count, or a draw field whose players are not sorted."""
        table = PairTable()
        cells, totals = table._cells, table._totals
        for field, value in fields.items():
            count = int(value)
            if count < 0:
                raise ValueError(f"field {field!r}: a negative count {count}")
            if WIN_MARK not in field and DRAW_MARK not in field:
                table._games[field] = count
                continue
            pair, size, seat_a, seat_b = _parse_tag(field)
            if WIN_MARK in pair:
                winner, _, loser = pair.partition(WIN_MARK)
                if winner < loser:
                    cell, slot = (winner, loser, size, seat_a, seat_b), 0
                else:
                    cell, slot = (loser, winner, size, seat_b, seat_a), 2
            else:
                first, _, second = pair.partition(DRAW_MARK)
                cell, slot = (first, second, size, seat_a, seat_b), 1
                if not first < second:
                    raise ValueError(f"draw field {field!r}: players must be sorted and distinct")
            counts = cells.get(cell)
            if counts is None:
                counts = cells[cell] = [0, 0, 0]
            counts[slot] += count
            total = totals.get(cell[:2])
            if total is None:
                total = totals[cell[:2]] = [0, 0, 0]
            total[slot] += count
        return table

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PairTable) and self.to_fields() == other.to_fields()

    __hash__ = None  # type: ignore[assignment]  # mutable


def _field(first: str, mark: str, second: str, tag: tuple[int, int, int]) -> str:
    """Returns a stored field: ``first`` + mark + ``second``, then the size unless it is a plain
    two-seat result, then the seats if held (see the module docstring)."""
    size, seat_first, seat_second = tag
    if seat_first != PLAIN:
        return f"{first}{mark}{second}{TAG_MARK}{size}{TAG_MARK}{seat_first}{SEAT_MARK}{seat_second}"
    return f"{first}{mark}{second}{TAG_MARK}{size}" if size != 2 else f"{first}{mark}{second}"


def _parse_tag(field: str) -> tuple[str, int, int, int]:
    """Returns a result field's pair part, table size and seats (the size 2 and seats PLAIN when
    untagged); raises ValueError for a malformed tag. (Tags are few: each is parsed once.)"""
    pair, mark, tag = field.partition(TAG_MARK)
    if not mark:
        return field, 2, PLAIN, PLAIN
    parsed = _TAGS.get(tag)
    if parsed is None:
        parsed = _TAGS[tag] = _tag_of(tag, field)
    return pair, *parsed


_TAGS: dict[str, tuple[int, int, int]] = {}  # every well-formed tag met, parsed


def _tag_of(tag: str, field: str) -> tuple[int, int, int]:
    """Returns the table size and seats a tag (``"4"``, ``"4/0.2"``) gives; raises ValueError."""
    size_text, _, seats_text = tag.partition(TAG_MARK)
    try:
        size = int(size_text)
        seats = [int(s) for s in seats_text.split(SEAT_MARK)] if seats_text else []
    except ValueError:
        raise ValueError(f"field {field!r}: a malformed table size or seats") from None
    if not 2 <= size <= MAX_SEATS or (
        seats_text and (len(seats) != 2 or not all(0 <= s < size for s in seats))
    ):
        raise ValueError(f"field {field!r}: a malformed table size or seats")
    if not seats and size == 2:
        raise ValueError(f"field {field!r}: a malformed table size or seats (two seats take no size tag)")
    return (size, seats[0], seats[1]) if seats else (size, PLAIN, PLAIN)


MAX_SEATS = 6  # the largest table a game seats


def match_fields(placements: Sequence[Placement], seats: bool = False) -> list[str]:
    """Returns the stored fields one match increments by one: a field per pair (its winner's
    ``"a>b"``, or ``"a=b"`` for a draw, tagged with the table size from 3 seats up and with the seats
    held when ``seats``) and a field per seat (its match count). ``placements`` are in seat order.

    >>> match_fields([Placement("b", 1), Placement("a", 2), Placement("c", 2)])
    ['b>a/3', 'b>c/3', 'a=c/3', 'b', 'a', 'c']
    >>> match_fields([Placement("b", 1), Placement("a", 2)], seats=True)
    ['b>a/2/0.1', 'b', 'a']
    """
    fields = []
    for (a, b, size, seat_a, seat_b), outcome in _outcomes(placements, seats):
        if outcome == 2:
            fields.append(_field(b, WIN_MARK, a, (size, seat_b, seat_a)))
        else:
            fields.append(_field(a, WIN_MARK if outcome == 0 else DRAW_MARK, b, (size, seat_a, seat_b)))
    return fields + [seat.bot for seat in placements]


def _outcomes(placements: Sequence[Placement], seats: bool = False) -> list[tuple[Cell, int]]:
    """Returns, for every pair of seats, its cell (the sorted pair of players, the table size, and
    their seats when ``seats``) and the first player's outcome: 0 a win, 1 a draw, 2 a loss; the
    single reading of a match into pairwise results."""
    players = [p.bot for p in placements]
    if len(set(players)) != len(players):
        raise ValueError(f"a player holds two seats: {players}")
    size = len(placements)
    out = []
    for i, seat in enumerate(placements):
        for j in range(i + 1, size):
            other = placements[j]
            (a, sa), (b, sb) = sorted(((seat, i), (other, j)), key=lambda x: x[0].bot)
            outcome = 0 if a.rank < b.rank else 1 if a.rank == b.rank else 2
            tag = (sa, sb) if seats else (PLAIN, PLAIN)
            out.append(((a.bot, b.bot, size, *tag), outcome))
    return out


def table_of(matches: Iterable[Sequence[Placement]], seats: bool = False) -> PairTable:
    """Returns the pair table of a list of matches (each given by its placements, in seat order)."""
    table = PairTable()
    for placements in matches:
        table.add_match(placements, seats)
    return table
