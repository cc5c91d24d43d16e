"""What readers are shown of a fit: JSON-ready views computed from a pair table, once per refit.

- ``leaderboard(table, latest)``: a row per bot for its latest version (``fit.standings``: every row by
  rating, provisional ones marked in place), the pairwise win-probability table among those rows, and per
  bot every version's rating and its head-to-head record against the other bots.
- ``tournament(table)``: the standings of every player of one tournament's table, and the crosstable
  (wins, draws, losses and score for every pair, as cutechess-cli prints it).

The CLI prints these views and the web page draws them, from the same cached copy (see
``arena.storage.fits``), so the two cannot disagree. Pure: no Redis, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.ratings.fit import Z95, Fit, fit, standings, win_table
from arena.ratings.pairs import PairTable, Record, player_id, split_player
from arena.ratings.summary import los_matrix

PROBABILITY_DIGITS = 3  # win probabilities are shown to 0.001


def leaderboard(
    table: PairTable, latest: Mapping[str, str], retired: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """Returns ``{"rows", "pairs", "bots"}`` for a game's table; ``latest`` maps each bot to the
    version it played last ("" when recorded without one); ``retired`` players (removed bots'
    versions) stay in the fit but are shown nowhere, so a name registered again starts fresh.

    ``rows`` are ``Standing.to_json()`` of each bot's latest version; ``pairs[a][b]`` is the expected
    score of bot ``a``'s row against bot ``b``'s; ``los[a][b]`` the fit's likelihood that bot ``a``'s row
    is stronger than bot ``b``'s (every pair of rows); ``draw_ratio`` is the share of pairwise results
    drawn (all versions); ``seat_advantage`` the fitted advantage of each seat (``seat_advantages``);
    ``bots[bot]`` holds ``versions`` (every version's standing, among that
    bot's versions) and ``head_to_head`` (its pairwise record against each other bot, every version
    of both counted).
    """
    if not table.players():
        return {"rows": [], "pairs": {}, "los": {}, "draw_ratio": None, "seat_advantage": [], "bots": {}}
    result = fit(table)
    shown = [
        p
        for p in (player_id(bot, v) for bot, v in sorted(latest.items()))
        if p in result.ratings and p not in retired
    ]
    rows = standings(result, shown)
    pairs = {
        split_player(a)[0]: {split_player(b)[0]: round(p, PROBABILITY_DIGITS) for b, p in against.items()}
        for a, against in win_table(result, [r.player for r in rows]).items()
    }
    los = {
        split_player(a)[0]: {split_player(b)[0]: round(p, PROBABILITY_DIGITS) for b, p in against.items()}
        for a, against in los_matrix(result, [r.player for r in rows]).items()
    }
    versions: dict[str, list[str]] = {}
    for player in (p for p in result.players if p not in retired):
        versions.setdefault(split_player(player)[0], []).append(player)
    records = head_to_head(table.subset(p for p in table.players() if p not in retired) if retired else table)
    bots = {
        bot: {
            "versions": [s.to_json() for s in standings(result, players)],
            "head_to_head": records.get(bot, []),
        }
        for bot, players in versions.items()
    }
    board = {"rows": [r.to_json() for r in rows], "pairs": pairs, "los": los}
    extra = {"draw_ratio": _ratio(table), "seat_advantage": seat_advantages(result)}
    return board | extra | {"bots": bots}


def seat_advantages(result: Fit) -> list[dict[str, Any]]:
    """Returns each seat's fitted advantage over seat 0 at each table size, in Elo with its 95%
    interval: ``{"players", "seat", "elo", "low", "high"}``, by table size then seat; empty for a
    game fitted without one (``arena.ratings.seating``). Seats count from 0, as everywhere."""
    shown = []
    for tag, (elo, sd) in result.seat_advantage.items():
        players, _, seat = tag.partition(":")
        half = Z95 * sd
        shown.append(
            {
                "players": int(players),
                "seat": int(seat),
                "elo": round(elo, 1),
                "low": round(elo - half, 1),
                "high": round(elo + half, 1),
            }
        )
    return sorted(shown, key=lambda a: (a["players"], a["seat"]))


def _ratio(table: PairTable) -> float | None:
    """Returns the table's draw ratio (pairwise results drawn) to 0.001, or None before any result."""
    ratio = table.draw_ratio()
    return None if ratio is None else round(ratio, PROBABILITY_DIGITS)


def head_to_head(table: PairTable) -> dict[str, list[dict[str, Any]]]:
    """Returns, per bot, its pairwise record against each other bot (all versions of both summed):
    ``opponent``, ``games``, ``ahead``, ``tied``, ``behind``, ``score_rate``; best score first.
    One pass over the pairs (versions of one bot that met are not listed against each other)."""
    totals: dict[str, dict[str, list[int]]] = {}
    for a, b, record in table.pairs():
        bot_a, bot_b = split_player(a)[0], split_player(b)[0]
        if bot_a == bot_b:
            continue
        for bot, opponent, mine in ((bot_a, bot_b, record), (bot_b, bot_a, record.flipped())):
            counts = totals.setdefault(bot, {}).setdefault(opponent, [0, 0, 0])
            counts[0] += mine.wins
            counts[1] += mine.draws
            counts[2] += mine.losses
    return {bot: _records(against) for bot, against in totals.items()}


def _records(against: Mapping[str, list[int]]) -> list[dict[str, Any]]:
    rows = []
    for opponent, (wins, draws, losses) in against.items():
        games = wins + draws + losses
        rows.append(
            {
                "opponent": opponent,
                "games": games,
                "ahead": wins,
                "tied": draws,
                "behind": losses,
                "score_rate": round((wins + 0.5 * draws) / games, 4),
            }
        )
    return sorted(rows, key=lambda r: (-r["score_rate"], r["opponent"]))


def tournament(table: PairTable) -> dict[str, Any]:
    """Returns ``{"rows", "crosstable", "draw_ratio"}``: the standings of every player of the table and,
    in the same order, each one's record against every other (``wins``, ``draws``, ``losses``,
    ``score``), and the share of pairwise results drawn."""
    if not table.players():
        return {"rows": [], "crosstable": [], "draw_ratio": None}
    result = fit(table)
    rows = standings(result)
    crosstable = cross_table(table, [r.player for r in rows])
    return {"rows": [r.to_json() for r in rows], "crosstable": crosstable, "draw_ratio": _ratio(table)}


def cross_table(table: PairTable, order: list[str]) -> list[dict[str, Any]]:
    """Returns, per player of ``order``, its total pairwise ``score`` and ``games`` and its record
    ``against`` every other player of ``order`` (pairs that never met included, at zero)."""
    out = []
    for player in order:
        against = [_cell(o, table.record(player, o)) for o in order if o != player]
        bot, version = split_player(player)
        out.append(
            {
                "bot": bot,
                "version": version,
                "score": sum(c["score"] for c in against),
                "games": sum(c["wins"] + c["draws"] + c["losses"] for c in against),
                "against": against,
            }
        )
    return out


def _cell(opponent: str, record: Record) -> dict[str, Any]:
    bot, version = split_player(opponent)
    return {
        "bot": bot,
        "version": version,
        "wins": record.wins,
        "draws": record.draws,
        "losses": record.losses,
        "score": record.score,
    }
