"""What ``arena match`` prints about a series: each game's table or JSON object, the play-by-play, the
summary (each bot's record, then cutechess-cli's Elo difference, LOS and draw ratio of the first bot
against each other: ``arena.ratings.summary``), where the replays and bot logs were written, where a
``@wait`` seat's bot connects, which bots never connected or crashed, what a Ctrl-C leaves, and the
running SPRT of ``--sprt``.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import typer

from arena.console import printable, say
from arena.games.play import Step
from arena.ratings.sprt import Sprt
from arena.ratings.summary import Score, head_to_head
from arena.referee.record import MatchRecord
from arena.referee.runner import GameResult


def report_interrupted(played: list[GameResult], games: int, as_json: bool, test: SprtRun | None) -> None:
    """Prints what a Ctrl-C leaves: the summary of the games played (on stderr with --json, so stdout
    stays one JSON object per game), where they were written, and the SPRT's standing."""
    if played:
        typer.echo(format_summary(played), err=as_json)
        typer.echo(format_written(played), err=as_json)
    if test is not None:
        typer.echo(f"sprt: {test.test.games} games, {test.progress()}: no verdict", err=True)
    typer.echo(f"arena: interrupted after {len(played)} of {games} games", err=True)


def bot_failures(results: list[GameResult]) -> list[str]:
    """Returns one line per bot that never connected or crashed: its seats, why, in how many of the
    games, and its log."""
    failed: dict[str, tuple[set[int], set[str], list[Path | None]]] = {}
    for result in results:
        for seat, why in result.failures.items():
            seats, reasons, logs = failed.setdefault(result.record.players[seat].bot, (set(), set(), []))
            seats.add(seat)
            reasons.add(why)
            logs.append(result.logs[seat] if seat < len(result.logs) else None)
    lines = []
    for bot, (seats, reasons, logs) in failed.items():
        where = "seat" + ("s" if len(seats) > 1 else "") + " " + ", ".join(map(str, sorted(seats)))
        log = next((f"; its log: {p}" for p in logs if p is not None), "")
        lines.append(
            f"arena: bot {bot} ({where}) {' / '.join(sorted(reasons))}: forfeited {len(logs)} of "
            f"{len(results)} games{log}"
        )
    return lines


def game_score(record: MatchRecord, bot: str) -> float:
    """Returns ``bot``'s score in a two-player game: 1 ranked first alone, 0.5 for equal ranks, else 0.

    The record ranks a forfeited seat last, so a forfeit is a loss (two forfeits, a draw).
    """
    mine = next(p.rank for p in record.players if p.bot == bot)
    theirs = next(p.rank for p in record.players if p.bot != bot)
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


@dataclasses.dataclass
class SprtRun:
    """An ``arena match --sprt`` test: the tested bot (the first) and its opponent (display names), the
    test so far, and the score of the pair being played (games 2k and 2k+1 share a seed, seats swapped)."""

    test: Sprt
    bot: str
    opponent: str
    pending: list[float] = dataclasses.field(default_factory=list)
    score: Score = dataclasses.field(default_factory=Score)  # the tested bot's W/D/L, for the estimate

    def add(self, record: MatchRecord) -> bool:
        """Counts one game; returns whether it completed a pair (and so moved the test)."""
        self.pending.append(game_score(record, self.bot))
        self.score = self.score.add(*(_rank(record, bot) for bot in (self.bot, self.opponent)))
        if len(self.pending) < 2:
            return False
        self.test = self.test.with_pair(sum(self.pending))
        self.pending.clear()
        return True

    def progress(self) -> str:
        """Returns the LLR and its bounds."""
        t = self.test
        return f"LLR {t.llr:.2f} ({t.params.lower:.2f}, {t.params.upper:.2f})"

    def verdict_line(self) -> str:
        """Returns the one-line result of the test."""
        t, p = self.test, self.test.params
        hypotheses = f"H0: elo {p.elo0:g}, H1: elo {p.elo1:g}, alpha {p.alpha:g}, beta {p.beta:g}"
        if t.verdict == "H1":
            outcome = f"H1 accepted (LLR {t.llr:.2f} >= {p.upper:.2f})"
        elif t.verdict == "H0":
            outcome = f"H0 accepted (LLR {t.llr:.2f} <= {p.lower:.2f})"
        else:
            outcome = f"no verdict, --games ran out (LLR {p.lower:.2f} < {t.llr:.2f} < {p.upper:.2f})"
        s = self.score
        estimate = f"W - L - D: {s.wins} - {s.losses} - {s.draws}, {s.elo_line()}"
        head = f"SPRT {self.bot} vs {self.opponent} ({hypotheses}) after {t.games} games"
        return f"{head}: {outcome}; {estimate}"


def _rank(record: MatchRecord, bot: str) -> int:
    return next(p.rank for p in record.players if p.bot == bot)


def result_json(result: GameResult) -> dict[str, Any]:
    """Returns the --json object of one game: the record, its replay and each seat's bot log."""
    return result.record.to_json() | {
        "replay": str(result.replay) if result.replay else None,
        "logs": [str(p) if p else None for p in result.logs],
        "match_log": str(result.match_log) if result.match_log else None,
    }


def format_game(result: GameResult) -> str:
    """Returns one game's result as a table."""
    record = result.record
    lines = [f"{record.match_id}  (seed {record.seed}, {record.steps} decisions, {record.termination})"]
    lines.append(f"  {'rank':>4}  {'seat':>4}  {'bot':<20} {'score':>6}  notes")
    for p in sorted(record.players, key=lambda p: (p.rank, p.seat)):
        notes = ", ".join(
            x for x in ("forfeit" if p.forfeit else "", f"{p.strikes} strikes" if p.strikes else "") if x
        )
        lines.append(f"  {p.rank:>4}  {p.seat:>4}  {p.bot:<20} {p.score:>6}  {notes}")
    lines.append(f"  winner: {record.winner or 'tie'}")
    if result.replay:
        lines.append(f"  replay: {result.replay}")
    if any(result.logs):
        lines.append(f"  logs:   {', '.join(str(p) for p in result.logs if p)}")
    if result.match_log:
        lines.append(f"  by step: arena logs {result.replay or result.match_log}")
    return "\n".join(lines)


def format_written(results: list[GameResult]) -> str:
    """Returns where a series' replays and bot logs were written."""
    replays = [r.replay for r in results if r.replay]
    logs = sorted({str(p) for r in results for p in r.logs if p})
    lines = [f"replays: {len(replays)} files in {replays[0].parent}"] if replays else []
    return "\n".join(lines + ([f"bot logs: {', '.join(logs)}"] if logs else []))


def format_summary(results: list[GameResult]) -> str:
    """Returns the per-bot summary table of a series."""
    stats: dict[str, dict[str, float]] = {}
    for result in results:
        for p in result.record.players:
            s = stats.setdefault(
                p.bot, {"games": 0, "wins": 0, "ties": 0, "score": 0, "rank": 0, "forfeits": 0}
            )
            s["games"] += 1
            s["score"] += p.score
            s["rank"] += p.rank
            s["forfeits"] += p.forfeit
            if p.rank == 1:
                s["wins" if result.record.winner == p.bot else "ties"] += 1
    lines = [
        f"{len(results)} games of {results[0].record.game}",
        f"  {'bot':<20} {'games':>5} {'wins':>5} "
        f"{'ties':>5} {'win %':>6} {'avg score':>9} {'avg rank':>8} {'forfeits':>8}",
    ]
    for bot, s in sorted(stats.items(), key=lambda kv: (-kv[1]["wins"], kv[0])):
        g = s["games"]
        lines.append(
            f"  {bot:<20} {g:>5.0f} {s['wins']:>5.0f} {s['ties']:>5.0f} {100 * s['wins'] / g:>5.1f}% "
            f"{s['score'] / g:>9.2f} {s['rank'] / g:>8.2f} {s['forfeits']:>8.0f}"
        )
    return "\n".join(lines + format_estimates(results))


def head_to_heads(results: list[GameResult]) -> list[tuple[str, str, Score]]:
    """Returns the first bot's score against each other bot of the series (bots in the first game's
    seat order, which is the command's): ahead of it in a game's finishing order is a win, level a
    draw, behind a loss (``arena.ratings.summary.head_to_head``; a forfeit ranks last)."""
    first, *others = [p.bot for p in results[0].record.players]
    games = [[(p.bot, p.rank) for p in r.record.players] for r in results]
    return [(first, other, head_to_head(games, first, other)) for other in others]


def format_estimates(results: list[GameResult]) -> list[str]:
    """Returns cutechess-cli's two lines per opponent of the first bot: ``Score of A vs B: W - L - D
    [ratio] N`` and ``Elo difference: X +/- Y, LOS: Z %, DrawRatio: W %`` (what they mean for more
    than two seats is said on a line above them)."""
    pairs = head_to_heads(results)
    seats = max(len(r.record.players) for r in results)
    lines = []
    if seats > 2:
        lines.append(
            f"  {pairs[0][0]} against each other bot, pair by pair: W - L - D counts the {seats}-seat "
            "games it finished ahead of, behind and level with that bot"
        )
    for bot, opponent, score in pairs:
        lines += [score.score_line(bot, opponent), score.elo_line()]
    return lines


def summary_json(results: list[GameResult]) -> dict[str, Any]:
    """Returns the last line of ``arena match --games N --json``: ``{"summary": {"game", "games",
    "pairs": [{"bot", "opponent", "games", "wins", "draws", "losses", "score", "elo", "elo_error",
    "los", "draw_ratio"}]}}``, one pair per opponent of the first bot (as ``format_estimates``)."""
    pairs = [{"bot": a, "opponent": b} | score.to_json() for a, b, score in head_to_heads(results)]
    return {"summary": {"game": results[0].record.game, "games": len(results), "pairs": pairs}}


_SEAT = re.compile(r"\bseat ?(\d+)\b")


class PlayByPlay:
    """The -v play-by-play: who did what and the public events in the game's words
    (``Game.describe_action`` / ``describe_event``: bot names, the board's numbering),
    and the game's table with its legend. ``begin`` names the seats of the next game; the table is
    drawn after each step, except while one seat goes on with its own turn (a PNRZ turn is several
    decisions: its grid is drawn once, when the turn passes)."""

    def __init__(self, game: Any) -> None:
        self.game = game
        self.names: list[str] = []

    def begin(self, names: list[str]) -> None:
        """Starts a game: prints who sits where and the table's legend."""
        self.names = list(names)
        seats = ", ".join(f"seat {i}: {printable(name)}" for i, name in enumerate(names))
        typer.echo(f"-- {self.game.spec.name}: {seats}")
        legend = self.game.legend()
        if legend:
            typer.echo(f"   legend: {legend}")

    def name(self, seat: int) -> str:
        return printable(self.names[seat]) if seat < len(self.names) else f"seat {seat}"

    def __call__(self, step: Step) -> None:
        game = self.game
        for decision in step.decisions:
            action = game.describe_action(decision.action, self.names)
            by = "  (the referee's fallback move)" if decision.by == "fallback" else ""
            typer.echo(f"  {step.number:>4}  {self.name(decision.seat)}: {printable(action)}{by}")
        for event in step.events:
            lines = game.describe_event(event, self.names).splitlines() or [""]
            typer.echo(
                "\n".join(f"        {'*' if k == 0 else ' '} {printable(x)}" for k, x in enumerate(lines))
            )
        acted = {d.seat for d in step.decisions}
        going_on = (
            not game.is_terminal(step.state) and len(acted) == 1 and set(game.to_move(step.state)) == acted
        )
        if step.decisions and not going_on:
            table = _SEAT.sub(lambda m: self.name(int(m.group(1))), game.render(step.state))
            typer.echo(
                "\n".join("        " + line for line in printable(table, keep_newlines=True).splitlines())
            )


def play_by_play(game: Any) -> PlayByPlay:
    """Returns the -v play-by-play of ``game``: call ``begin(names)`` before each game's steps."""
    return PlayByPlay(game)


def announce_wait(bot: str, address: str, token: str, seconds: float) -> None:
    """Tells the author how to attach the bot of a ``@wait`` seat (on stderr, before every game whose
    stream is not open): the referee's address and the seat's token, as variables and as flags."""
    say(
        f"arena: seat {bot} waits for your bot: start it with ARENA_ADDRESS={address} ARENA_TOKEN={token} "
        f"(or --address {address} --token {token}); it has {seconds:g} s to join"
    )
