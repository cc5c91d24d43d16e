"""``arena logs``: a match's bot output, each line beside the decision step it was written during, and
each seat's think times against the deadline.

``arena match`` writes a match log (``arena.referee.botlog``) beside every replay: ``NAME.log``
for ``NAME.jsonl``. This command reads it, given the replay or the log itself. Everything a bot wrote
is printed escaped (``console.printable``): a bot's text never drives the terminal.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Annotated

import typer

from arena.cli_common import CliError
from arena.console import printable
from arena.referee.botlog import MatchLog, MatchLogError, Think, read_match_log

app = typer.Typer()


@app.command("logs")
def logs_command(
    match: Annotated[
        Path,
        typer.Argument(
            metavar="REPLAY", help="A replay written by arena match (or the .log file beside it)."
        ),
    ],
    seat: Annotated[
        int | None, typer.Option("--seat", min=0, show_default="every seat", help="Only this seat's lines.")
    ] = None,
    step: Annotated[
        int | None,
        typer.Option(
            "--step", min=0, show_default="every step", help="Only the lines of this decision step."
        ),
    ] = None,
    think: Annotated[
        bool, typer.Option("--think", help="Also print each seat's think times against the deadline.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object per line: seat, bot, step, text.")
    ] = False,
) -> None:
    """Print what the bots of a match wrote (stdout and stderr), each line stamped with the decision
    step during which it was written ('start': before the seat's first decision)."""
    try:
        log = read_match_log(match)
    except MatchLogError as exc:
        raise CliError(str(exc)) from None
    players = len(log.header.get("players") or [])
    if seat is not None and seat >= players:
        raise CliError(f"--seat {seat}: the match has seats 0 to {players - 1}")
    for where, line in log.lines:
        if (seat is None or where == seat) and (step is None or line.step == step):
            if as_json:
                row = {"seat": where, "bot": log.bot(where), "step": line.step, "text": line.text}
                typer.echo(json.dumps(row))
            else:
                shown = "start" if line.step is None else str(line.step)
                typer.echo(
                    f"step {shown:>5}  seat {where} {printable(log.bot(where))}  | {printable(line.text)}"
                )
    if think:
        for line in think_summary(log, seat):
            typer.echo(line, err=as_json)


def think_summary(log: MatchLog, seat: int | None) -> list[str]:
    """Returns one line per seat: its decisions, mean, median and slowest think time, and the deadline."""
    deadline = log.header.get("deadline_ms")
    limit = f"deadline {deadline} ms" if deadline else "no deadline"
    by_seat: dict[int, list[Think]] = {}
    for entry in log.think:
        if seat is None or entry.seat == seat:
            by_seat.setdefault(entry.seat, []).append(entry)
    lines = []
    for where, entries in sorted(by_seat.items()):
        times = [t.ms for t in entries]
        slowest = max(entries, key=lambda t: t.ms)
        missed = sum(not t.answered for t in entries)
        lines.append(
            f"think: seat {where} {printable(log.bot(where))}: {len(entries)} decisions, mean "
            f"{statistics.fmean(times):.1f} ms, median {statistics.median(times):.1f} ms, slowest "
            f"{slowest.ms:.1f} ms at step {slowest.step} ({limit})"
            + (f", {missed} without a usable answer" if missed else "")
        )
    return lines
