"""The pair table: everything the rating fit needs of the results, in one small, additive aggregate.

A *player* is a bot version, named by ``player_id(bot, version)``: ``"greedy@3f2a9c01b7d4"``, or just
``"greedy"`` when the version is not known. A match of 2 to 6 seats is read as one pairwise result for
every pair of seats: the seat with the better (lower) finishing rank won that pair, equal ranks drew.
The table keeps, for every unordered pair of players, three integers (the first player's wins, the
draws, the second player's wins), and for every player the number of matches it played.

Why this aggregate: the Bradley-Terry likelihood depends on the results only through these counts, so
a fit on the table gives exactly the numbers a fit on the full list of matches gives, while the table
grows with the number of pairs met, not with the number of matches. Adding a match touches at most
15 pair records and 6 player counters (a 6-seat match), and two tables merge by adding counts, so a
burst of results, or the results of several workers, can be folded in any order.

Design detail, the stored form: a flat ``dict[str, str]`` of counters, one Redis hash per game (and
one per tournament), in which recording a match is nothing but ``HINCRBY``s:

- ``"a"``: the number of matches player ``a`` played;
- ``"a>b"``: the number of pairwise results ``a`` won against ``b`` (both orders occur);
- ``"a=b"`` with ``a < b``: the number of draws between them.

Why three counters per pair rather than one ``"wins draws losses"`` string: a match adds exactly one
pairwise result to each pair, so the recording script increments one field per pair and one per seat,
with no read, no parsing and no rewrite inside Lua, and increments commute, so concurrent recordings
need no ordering. The price is up to three fields per pair instead of one (about 2.2 on average with
no draws, bench/ratings_bench.py), read once per refit.

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


class PairTable:
    """Wins/draws/losses per unordered pair of players and matches per player; add, merge, serialize.

    >>> table = PairTable()
    >>> table.add_match([Placement("a", 1), Placement("b", 2), Placement("c", 2)])
    >>> table.record("b", "a"), table.record("b", "c"), table.games("a")
    (Record(wins=0, draws=0, losses=1), Record(wins=0, draws=1, losses=0), 1)
    """

    def __init__(self) -> None:
        self._pairs: dict[tuple[str, str], list[int]] = {}  # [wins, draws, losses] of the first
        self._games: dict[str, int] = {}

    def add_match(self, placements: Sequence[Placement]) -> None:
        """Counts one match: a pairwise result for every pair of seats, a game for every seat."""
        for key, (wins, draws, losses) in _outcomes(placements):
            counts = self._pairs.setdefault(key, [0, 0, 0])
            counts[0] += wins
            counts[1] += draws
            counts[2] += losses
        for seat in placements:
            self._games[seat.bot] = self._games.get(seat.bot, 0) + 1

    def merge(self, other: PairTable) -> None:
        """Adds every count of ``other`` to this table (the order of merges never matters)."""
        for key, theirs in other._pairs.items():
            counts = self._pairs.setdefault(key, [0, 0, 0])
            for k in range(3):
                counts[k] += theirs[k]
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
            return Record(*self._pairs.get((player, opponent), (0, 0, 0)))
        return Record(*self._pairs.get((opponent, player), (0, 0, 0))).flipped()

    def pairs(self) -> Iterator[tuple[str, str, Record]]:
        """Yields ``(a, b, record of a against b)`` for every pair that met, with ``a < b``, sorted."""
        for a, b in sorted(self._pairs):
            yield a, b, Record(*self._pairs[(a, b)])

    def subset(self, players: Iterable[str]) -> PairTable:
        """Returns the table restricted to ``players`` (their matches counted as before)."""
        keep = set(players)
        table = PairTable()
        table._pairs = {k: list(c) for k, c in self._pairs.items() if k[0] in keep and k[1] in keep}
        table._games = {p: g for p, g in self._games.items() if p in keep}
        return table

    def to_fields(self) -> dict[str, str]:
        """Returns the stored form (one Redis hash of counters, see the module docstring)."""
        fields = {player: str(games) for player, games in sorted(self._games.items())}
        for (a, b), (wins, draws, losses) in sorted(self._pairs.items()):
            for field, count in ((f"{a}>{b}", wins), (f"{a}={b}", draws), (f"{b}>{a}", losses)):
                if count:
                    fields[field] = str(count)
        return fields

    @staticmethod
    def from_fields(fields: Mapping[str, str | bytes]) -> PairTable:
        """Returns the table that ``to_fields`` (or the counters kept in Redis) describes; raises
        ValueError for a field that is not a count, or a draw field whose players are not sorted."""
        table = PairTable()
        for field, value in fields.items():
            count = int(value)
            if count < 0:
                raise ValueError(f"field {field!r}: a negative count {count}")
            if WIN_MARK in field:
                winner, _, loser = field.partition(WIN_MARK)
                key, slot = ((winner, loser), 0) if winner < loser else ((loser, winner), 2)
            elif DRAW_MARK in field:
                first, second = field.split(DRAW_MARK, 1)
                key, slot = (first, second), 1
                if not key[0] < key[1]:
                    raise ValueError(f"draw field {field!r}: players must be sorted and distinct")
            else:
                table._games[field] = count
                continue
            table._pairs.setdefault(key, [0, 0, 0])[slot] += count
        return table

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PairTable) and self.to_fields() == other.to_fields()

    __hash__ = None  # type: ignore[assignment]  # mutable


def match_fields(placements: Sequence[Placement]) -> list[str]:
    """Returns the stored fields one match increments by one: a field per pair (its winner's
    ``"a>b"``, or ``"a=b"`` for a draw) and a field per seat (its match count).

    >>> match_fields([Placement("b", 1), Placement("a", 2), Placement("c", 2)])
    ['b>a', 'b>c', 'a=c', 'b', 'a', 'c']
    """
    fields = []
    for (a, b), (wins, draws, _) in _outcomes(placements):
        fields.append(f"{a}{WIN_MARK}{b}" if wins else f"{a}{DRAW_MARK}{b}" if draws else f"{b}{WIN_MARK}{a}")
    return fields + [seat.bot for seat in placements]


def _outcomes(placements: Sequence[Placement]) -> list[tuple[tuple[str, str], tuple[int, int, int]]]:
    """Returns, for every pair of seats, the sorted pair of players and the first one's
    (wins, draws, losses): the single reading of a match into pairwise results."""
    players = [p.bot for p in placements]
    if len(set(players)) != len(players):
        raise ValueError(f"a player holds two seats: {players}")
    out = []
    for i, seat in enumerate(placements):
        for other in placements[i + 1 :]:
            a, b = (seat, other) if seat.bot < other.bot else (other, seat)
            outcome = (1, 0, 0) if a.rank < b.rank else (0, 1, 0) if a.rank == b.rank else (0, 0, 1)
            out.append(((a.bot, b.bot), outcome))
    return out


def table_of(matches: Iterable[Sequence[Placement]]) -> PairTable:
    """Returns the pair table of a list of matches (each given by its placements)."""
    table = PairTable()
    for placements in matches:
        table.add_match(placements)
    return table
