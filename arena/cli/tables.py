"""The terminal tables of the ratings' views (``arena.ratings.views``): a game's leaderboard and its
win-probability table (``arena leaderboard``), a tournament's standings and crosstable (``arena
tournament standings``). Every name and version read from Redis goes through ``printable``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.console import printable
from arena.ratings.fit import MIN_GAMES, PROVISIONAL_HALF_WIDTH

METHOD = (
    "Elo fitted to all results at once (Bradley-Terry on every pair of seats, a k-seat match's pairs\n"
    "  weighing 3/(k+1); maximum a posteriori, prior: two draws of every bot against a virtual 1500, not\n"
    "  BayesElo's); 95% interval from the fit's curvature, relative to the pool; LOS next: likelihood of\n"
    "  superiority over the next row"
)
PROVISIONAL_MARK = "*"
PROVISIONAL = (
    f"{PROVISIONAL_MARK} provisional: fewer than {MIN_GAMES} matches, or 95% interval wider than "
    f"+/-{PROVISIONAL_HALF_WIDTH:.0f}; ranked by its rating like\n    every row, but its rank is uncertain"
)


def _draws(view: Mapping[str, Any]) -> str:
    """Returns ", draw ratio X%" (the share of pairwise results drawn), or "" for a view cached
    before views had it."""
    ratio = view.get("draw_ratio")
    return "" if ratio is None else f", draw ratio {100 * ratio:.1f}%"


def _seat_lines(view: Mapping[str, Any]) -> list[str]:
    """Returns the line of the game's fitted seat advantages (each seat against seat 0, by table
    size), or none for a game fitted without them (or a view cached before views had them)."""
    sizes: dict[int, list[str]] = {}
    for a in view.get("seat_advantage") or []:
        sizes.setdefault(a["players"], []).append(
            f"seat {a['seat']} {a['elo']:+.1f} [{a['low']:+.1f}, {a['high']:+.1f}]"
        )
    if not sizes:
        return []
    shown = "; ".join(f"{n} players: {', '.join(seats)}" for n, seats in sorted(sizes.items()))
    return [f"  seat advantage over seat 0 (Elo, 95% interval), fitted with the ratings: {shown}"]


def _row_line(row: Mapping[str, Any]) -> str:
    mark = PROVISIONAL_MARK if row["provisional"] else " "
    interval = f"{row['low']:.0f}..{row['high']:.0f}"
    los = "-" if row["los_next"] is None else f"{100 * row['los_next']:.1f}%"
    return (
        f"  {row['rank']:>4}{mark} {printable(row['bot']):<20} {printable(row['version'] or '-'):<20} "
        f"{row['elo']:>7.1f}  {interval:<13} {row['games']:>6} {los:>8}"
    )


def format_rows(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Returns the lines of a standings table, in the rows' order (by rating): a provisional row is
    marked where its rating puts it, and a legend under the table says what the mark means."""
    lines = [
        f"  {'rank':>4}  {'bot':<20} {'version':<20} {'Elo':>7}  {'95% interval':<13} {'games':>6} "
        f"{'LOS next':>8}"
    ]
    lines += [_row_line(r) for r in rows]
    if any(r["provisional"] for r in rows):
        lines.append(f"  {PROVISIONAL}")
    return lines


def format_leaderboard(game: str, view: Mapping[str, Any], pairs: bool = False, los: bool = False) -> str:
    """Returns a game's leaderboard (each bot's latest version) as a terminal table; with ``pairs``,
    followed by the win-probability table, with ``los`` by the likelihood-of-superiority table."""
    game = printable(game)
    if not view["rows"]:
        return f"no recorded matches of {game} yet"
    lines = [
        f"{game} leaderboard: {view['matches']} matches recorded{_draws(view)}",
        f"  {METHOD}",
        *_seat_lines(view),
        *format_rows(view["rows"]),
    ]
    if pairs:
        lines += ["", *format_win_table(view["rows"], view["pairs"])]
    if los:
        caption = (
            "LOS: likelihood that the row's bot is stronger than the column's, from the fit (columns by rank)"
        )
        lines += ["", *_pair_grid(caption, view["rows"], view["los"], percent=True)]
    return "\n".join(lines)


def format_win_table(
    rows: Sequence[Mapping[str, Any]], pairs: Mapping[str, Mapping[str, float]]
) -> list[str]:
    """Returns the lines of the pairwise table: the row bot's expected score against the column's
    (columns numbered by rank)."""
    caption = "expected score of the row's bot against the column's (win 1, draw 1/2; columns by rank)"
    return _pair_grid(caption, rows, pairs)


def _pair_grid(
    caption: str,
    rows: Sequence[Mapping[str, Any]],
    cells: Mapping[str, Mapping[str, float]],
    percent: bool = False,
) -> list[str]:
    """Returns the lines of a table with a cell for every two rows (row bot, column bot), columns
    numbered by rank: a probability to 0.001, or as a percentage to 0.1."""
    lines = [caption, f"  {'rank':>4}  {'bot':<20} " + " ".join(f"{r['rank']:>6}" for r in rows)]
    for row in rows:
        shown = ["-" if c is row else _probability(cells[row["bot"]][c["bot"]], percent) for c in rows]
        lines.append(f"  {row['rank']:>4}  {printable(row['bot']):<20} " + " ".join(f"{c:>6}" for c in shown))
    return lines


def _probability(p: float, percent: bool) -> str:
    return f"{100 * p:.1f}%" if percent else f"{p:.3f}"


def format_standings(view: Mapping[str, Any]) -> str:
    """Returns a tournament's standings (fitted on its results only) and its crosstable, from
    ``arena.storage.fits.tournament_standings``."""
    name, game = printable(view["tournament"]), printable(str(view["game"]))
    if not view["rows"]:
        return f"tournament {name} ({game}): no recorded matches yet"
    lines = [
        f"tournament {name}: {game}, {view['matches']} of {view['total']} matches recorded{_draws(view)}",
        f"  {METHOD}",
        *format_rows(view["rows"]),
        "",
        *format_crosstable(view["rows"], view["crosstable"]),
    ]
    return "\n".join(lines)


def format_crosstable(rows: Sequence[Mapping[str, Any]], cross: Sequence[Mapping[str, Any]]) -> list[str]:
    """Returns the lines of the crosstable: wins-draws-losses of the row against each column (columns
    numbered by rank), with each row's pairwise score and results."""
    width = max(7, *(len(f"{c['wins']}-{c['draws']}-{c['losses']}") for r in cross for c in r["against"]))
    lines = [
        "crosstable: wins-draws-losses of the row against the column (a match of n seats gives every\n"
        "  pair of seats a result); score = wins + draws/2",
        f"  {'rank':>4}  {'bot':<20} {'score':>7} {'games':>6}  "
        + " ".join(f"{r['rank']:>{width}}" for r in rows),
    ]
    for row, line in zip(rows, cross, strict=True):
        cells = iter(f"{c['wins']}-{c['draws']}-{c['losses']}" for c in line["against"])
        shown = ["-" if r is row else next(cells) for r in rows]
        lines.append(
            f"  {row['rank']:>4}  {printable(line['bot']):<20} {line['score']:>7.1f} {line['games']:>6}  "
            + " ".join(f"{c:>{width}}" for c in shown)
        )
    return lines
