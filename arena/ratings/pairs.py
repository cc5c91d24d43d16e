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

Design detail: the serialized form is a flat ``dict[str, str]`` meant to be one Redis hash per game:
a field without ``|`` is a player's match count (``"greedy@3f2a9c01b7d4" -> "12"``), a field
``"a|b"`` with ``a < b`` is a pair record ``"wins_a draws wins_b"`` (``"a|b" -> "7 1 4"``). Bot
names and versions never contain ``|`` or spaces (``arena.queue.submissions`` patterns), and
``player_id`` refuses them anyway.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence

from arena.ratings.elo import Placement

SEPARATOR = "|"  # between the two players of a pair field
VERSION_MARK = "@"  # between a bot's name and its version in a player id


def player_id(bot: str, version: str = "") -> str:
    """Returns the id of a bot version: ``"bot@version"``, or ``"bot"`` when the version is empty.

    >>> player_id("greedy", "3f2a9c01b7d4")
    'greedy@3f2a9c01b7d4'
    """
    for part in (bot, version):
        if SEPARATOR in part or any(c.isspace() for c in part) or VERSION_MARK in part:
            raise ValueError(f"{part!r}: a bot name or version may not contain '|', '@' or spaces")
    if not bot:
        raise ValueError("a player needs a bot name")
    return f"{bot}{VERSION_MARK}{version}" if version else bot


def split_player(player: str) -> tuple[str, str]:
    """Returns ``(bot, version)`` of a player id (version ``""`` when it has none).

    >>> split_player("greedy@3f2a9c01b7d4")
    ('greedy', '3f2a9c01b7d4')
    """
    bot, _, version = player.partition(VERSION_MARK)
    return bot, version


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
        """Returns the flat serialized form (one Redis hash): player -> matches, ``"a|b"`` -> counts."""
        fields = {player: str(games) for player, games in sorted(self._games.items())}
        for a, b, r in self.pairs():
            fields[f"{a}{SEPARATOR}{b}"] = f"{r.wins} {r.draws} {r.losses}"
        return fields

    @staticmethod
    def from_fields(fields: Mapping[str, str]) -> PairTable:
        """Returns the table that ``to_fields`` (or the same counts kept in Redis) describes."""
        table = PairTable()
        for field, value in fields.items():
            a, sep, b = field.partition(SEPARATOR)
            if not sep:
                table._games[field] = int(value)
                continue
            if not a < b:
                raise ValueError(f"pair field {field!r}: players must be sorted and distinct")
            counts = [int(x) for x in value.split()]
            if len(counts) != 3 or min(counts) < 0:
                raise ValueError(f"pair field {field!r}: expected three counts, not {value!r}")
            table._pairs[(a, b)] = counts
        return table

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PairTable) and self.to_fields() == other.to_fields()

    __hash__ = None  # type: ignore[assignment]  # mutable


def match_records(placements: Sequence[Placement]) -> dict[tuple[str, str], Record]:
    """Returns the pairwise records one match adds, keyed by the sorted pair of players.

    This is what the recording script adds to the stored pair records (one increment per key).
    """
    return {key: Record(*counts) for key, counts in _outcomes(placements)}


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
