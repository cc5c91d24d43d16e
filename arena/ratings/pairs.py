"""The pair table: everything the rating fit needs of the results, in one small, additive aggregate.

A *player* is a bot version, named by ``player_id(bot, version)``: ``"greedy@3f2a9c01b7d4"``, or just
``"greedy"`` when the version is not known. A match of 2 to 6 seats is read as one pairwise result for
every pair of seats: the seat with the better (lower) finishing rank won that pair, equal ranks drew.
The table keeps, for every unordered pair of players, three integers (the first player's wins, the
draws, the second player's wins) and the weight those results lack (below), and for every player the
number of matches it played.

Why this aggregate: the (weighted) Bradley-Terry likelihood depends on the results only through
these counts, so a fit on the table gives exactly the numbers a fit on the full list of matches
gives, while the table grows with the number of pairs met, not with the number of matches. Adding a
match touches at most 15 pair records and 6 player counters (a 6-seat match), and two tables merge
by adding counts, so a burst of results, or the results of several workers, can be folded in any order.

Design detail, the stored form: a flat ``dict[str, str]`` of counters, one Redis hash per game (and
one per tournament), in which recording a match is nothing but ``HINCRBY``s:

- ``"a"``: the number of matches player ``a`` played;
- ``"a>b"``: the number of pairwise results ``a`` won against ``b``, at any table size (both orders
  occur);
- ``"a=b"`` with ``a < b``: the number of draws between them;
- ``"a>b/w"``, ``"a=b/w"``: the weight those results lack, in 1/140 (``WEIGHT_UNITS``): the fit weighs
  a ``k``-seat match's pairwise results ``3 / (k + 1)`` (``match_weight``), which is 140, 105, 84, 70
  and 60 units for 2 to 6 seats, so each result of a ``k``-seat match adds ``weight_deficit(k)`` (0, 35,
  56, 70, 80) here;
- ``"a>b/2/1.0"``: for a game that records seats (``arena.ratings.seating``), a result with the table
  size and the seats the two held (``a``'s first), weighed by its size, in place of ``"a>b"``.

Why a deficit rather than a field per table size (issue 37): the pairs of one match are not
independent, and how much each counts depends on the number of seats. The fit needs only each pair's
weighted games and points; counting what the results lack of a full weight, as an integer, adds at
most three fields to a pair that met at 3 seats or more and none to a two-seat game's, so a refit
reads about twice the fields it read before, not five times. A result without its deficit weighs 1:
every result recorded before the weights reads as before (the fit of an old table is the old fit)
until ``arena storage migrate`` recounts a game's table from its list of results.

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


Cell = tuple[str, str, int, int, int]  # (a, b, table size, a's seat, b's seat), a < b
ANY_SIZE = 0  # the size of a cell without seats: its results from every table size, summed
DEFICIT_TAG = "w"  # "a>b/w": the weight those results lack, in 1/WEIGHT_UNITS (see the module docstring)
WEIGHT_UNITS = 140  # 3 / (k + 1) for k = 2..6 is 140, 105, 84, 70, 60 of these units: exact integers


def match_weight(size: int) -> float:
    """Returns the weight of each pairwise result of a ``size``-seat match in the fit: 3 / (size +
    1), 1 for two seats (``arena.ratings.fit``: the pairs of one match are not independent)."""
    return 3.0 / (size + 1)


def weight_deficit(size: int) -> int:
    """Returns what a ``size``-seat match's pairwise result lacks of a full weight, in 1/WEIGHT_UNITS:
    0 for two seats, 35, 56, 70 and 80 for three to six."""
    return WEIGHT_UNITS - WEIGHT_UNITS * 3 // (size + 1)


class PairTable:
    """Wins/draws/losses per unordered pair of players and matches per player; add, merge, serialize.

    Each pair's results are counted in one cell (all table sizes together, with the weight they
    lack beside it: ``deficits``), or, for a game whose fit has a seat advantage, in one cell per
    table size and two seats held. ``record`` and ``pairs`` sum a pair's cells.

    >>> table = PairTable()
    >>> table.add_match([Placement("a", 1), Placement("b", 2), Placement("c", 2)])
    >>> table.record("b", "a"), table.record("b", "c"), table.games("a")
    (Record(wins=0, draws=0, losses=1), Record(wins=0, draws=1, losses=0), 1)
    """

    def __init__(self) -> None:
        self._cells: dict[Cell, list[int]] = {}  # [wins, draws, losses] of the first player
        self._deficits: dict[tuple[str, str], list[int]] = {}  # the same's missing weight (units)
        self._totals: dict[tuple[str, str], list[int]] = {}  # a pair's counts, summed over its cells
        self._games: dict[str, int] = {}

    def _count(self, cell: Cell, slot: int, count: int) -> None:
        self._cells.setdefault(cell, [0, 0, 0])[slot] += count
        self._totals.setdefault(cell[:2], [0, 0, 0])[slot] += count

    def _lack(self, pair: tuple[str, str], slot: int, units: int) -> None:
        self._deficits.setdefault(pair, [0, 0, 0])[slot] += units

    def add_match(self, placements: Sequence[Placement], seats: bool = False) -> None:
        """Counts one match: a pairwise result for every pair of seats (with ``seats``, in the cell of
        the match's size and the seats held: ``placements`` in seat order), a game for every seat."""
        for (a, b, size, seat_a, seat_b), outcome in _outcomes(placements, seats):
            if seat_a != PLAIN:
                self._count((a, b, size, seat_a, seat_b), outcome, 1)
                continue
            self._count((a, b, ANY_SIZE, PLAIN, PLAIN), outcome, 1)
            if weight_deficit(size):
                self._lack((a, b), outcome, weight_deficit(size))
        for seat in placements:
            self._games[seat.bot] = self._games.get(seat.bot, 0) + 1

    def merge(self, other: PairTable) -> None:
        """Adds every count of ``other`` to this table (the order of merges never matters)."""
        for cell, theirs in other._cells.items():
            for slot in range(3):
                self._count(cell, slot, theirs[slot])
        for pair, lacking in other._deficits.items():
            for slot in range(3):
                self._lack(pair, slot, lacking[slot])
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

    def deficit(self, a: str, b: str) -> tuple[int, int, int]:
        """Returns the weight ``a``'s wins, the draws and ``a``'s losses against ``b`` (``a < b``) lack
        in the pair's cell without seats, in 1/WEIGHT_UNITS."""
        lacking = self._deficits.get((a, b), (0, 0, 0))
        return lacking[0], lacking[1], lacking[2]

    def cells(self) -> Iterator[tuple[Cell, Record]]:
        """Yields every cell that holds a result, and its record, sorted."""
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
        for pair, lacking in self._deficits.items():
            if pair[0] in keep and pair[1] in keep:
                table._deficits[pair] = list(lacking)
        table._games = {p: g for p, g in self._games.items() if p in keep}
        return table

    def to_fields(self) -> dict[str, str]:
        """Returns the stored form (one Redis hash of counters, see the module docstring)."""
        fields = {player: str(games) for player, games in sorted(self._games.items())}
        for (a, b, size, seat_a, seat_b), (wins, draws, losses) in sorted(self._cells.items()):
            tag = "" if seat_a == PLAIN else f"{TAG_MARK}{size}{TAG_MARK}{seat_a}{SEAT_MARK}{seat_b}"
            flipped = "" if seat_a == PLAIN else f"{TAG_MARK}{size}{TAG_MARK}{seat_b}{SEAT_MARK}{seat_a}"
            for field, count in (
                (f"{a}>{b}{tag}", wins),
                (f"{a}={b}{tag}", draws),
                (f"{b}>{a}{flipped}", losses),
            ):
                if count:
                    fields[field] = str(count)
        for (a, b), (wins, draws, losses) in sorted(self._deficits.items()):
            tag = f"{TAG_MARK}{DEFICIT_TAG}"
            for field, count in (
                (f"{a}>{b}{tag}", wins),
                (f"{a}={b}{tag}", draws),
                (f"{b}>{a}{tag}", losses),
            ):
                if count:
                    fields[field] = str(count)
        return fields

    @staticmethod
    def from_fields(fields: Mapping[str, str | bytes]) -> PairTable:
        """Returns the table that ``to_fields`` (or the counters kept in Redis) describes; raises
        ValueError for a field that is not a count, a malformed tag, or a draw field whose players are
        not sorted."""
        table = PairTable()
        cells, totals, deficits = table._cells, table._totals, table._deficits
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
            if size == DEFICIT:
                deficits.setdefault(cell[:2], [0, 0, 0])[slot] += count
                continue
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


DEFICIT = -1  # _parse_tag's size of a deficit field


def _parse_tag(field: str) -> tuple[str, int, int, int]:
    """Returns a result field's pair part, and its cell's size and seats: ANY_SIZE and PLAIN
    untagged, DEFICIT for a deficit field; raises ValueError for a malformed tag. (Tags are few:
    each is parsed once.)"""
    pair, mark, tag = field.partition(TAG_MARK)
    if not mark:
        return field, ANY_SIZE, PLAIN, PLAIN
    parsed = _TAGS.get(tag)
    if parsed is None:
        parsed = _TAGS[tag] = _tag_of(tag, field)
    return pair, *parsed


_TAGS: dict[str, tuple[int, int, int]] = {}  # every well-formed tag met, parsed


def _tag_of(tag: str, field: str) -> tuple[int, int, int]:
    """Returns the size and seats a tag gives (``"w"``: a deficit; ``"4/0.2"``: seats 0 and 2 of
    four); raises ValueError."""
    if tag == DEFICIT_TAG:
        return DEFICIT, PLAIN, PLAIN
    size_text, _, seats_text = tag.partition(TAG_MARK)
    try:
        size = int(size_text)
        seats = [int(s) for s in seats_text.split(SEAT_MARK)]
    except ValueError:
        raise ValueError(f"field {field!r}: a malformed table size or seats") from None
    if not 2 <= size <= MAX_SEATS or len(seats) != 2 or not all(0 <= s < size for s in seats):
        raise ValueError(f"field {field!r}: a malformed table size or seats")
    return size, seats[0], seats[1]


MAX_SEATS = 6  # the largest table a game seats


def match_fields(placements: Sequence[Placement], seats: bool = False) -> list[str]:
    """Returns the counted fields one match increments by one: a field per pair (its winner's
    ``"a>b"``, or ``"a=b"`` for a draw; with ``seats``, tagged with the table size and the seats held)
    and a field per seat (its match count). ``placements`` are in seat order. (Without the weight
    deficits: ``match_increments`` gives every write.)

    >>> match_fields([Placement("b", 1), Placement("a", 2), Placement("c", 2)])
    ['b>a', 'b>c', 'a=c', 'b', 'a', 'c']
    >>> match_fields([Placement("b", 1), Placement("a", 2)], seats=True)
    ['b>a/2/0.1', 'b', 'a']
    """
    fields = []
    for (a, b, size, seat_a, seat_b), outcome in _outcomes(placements, seats):
        tag = "" if seat_a == PLAIN else f"{TAG_MARK}{size}{TAG_MARK}{seat_a}{SEAT_MARK}{seat_b}"
        flipped = "" if seat_a == PLAIN else f"{TAG_MARK}{size}{TAG_MARK}{seat_b}{SEAT_MARK}{seat_a}"
        if outcome == 2:
            fields.append(f"{b}{WIN_MARK}{a}{flipped}")
        else:
            fields.append(f"{a}{WIN_MARK if outcome == 0 else DRAW_MARK}{b}{tag}")
    return fields + [seat.bot for seat in placements]


def match_increments(placements: Sequence[Placement], seats: bool = False) -> list[tuple[str, int]]:
    """Returns every ``(field, increment)`` recording one match writes (``HINCRBY``): its
    ``match_fields`` by one, and for a match of 3 seats or more without ``seats`` each pair's weight
    deficit (``"b>a/w"`` by 35 at three seats).

    >>> match_increments([Placement("b", 1), Placement("a", 2), Placement("c", 2)])[-3:]
    [('b>a/w', 35), ('b>c/w', 35), ('a=c/w', 35)]
    """
    fields = match_fields(placements, seats)
    increments = [(field, 1) for field in fields]
    lacking = weight_deficit(len(placements))
    if seats or not lacking:
        return increments
    pairs = fields[: -len(placements)]  # a field per pair, then one per seat
    return increments + [(f"{f}{TAG_MARK}{DEFICIT_TAG}", lacking) for f in pairs]


def _outcomes(placements: Sequence[Placement], seats: bool = False) -> list[tuple[Cell, int]]:
    """Returns, for every pair of seats, its cell (the sorted pair of players, the table size, and
    their seats when ``seats``, else PLAIN) and the first player's outcome: 0 a win, 1 a draw, 2 a
    loss; the single reading of a match into pairwise results."""
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
