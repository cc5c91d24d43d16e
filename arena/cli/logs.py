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
from typing import Annotated, Any

import typer

from arena.cli.connections import on_redis
from arena.cli.errors import CliError
from arena.cli.options import RedisOption
from arena.console import printable
from arena.referee.botlog import (
    STORE_KIND,
    MatchLog,
    MatchLogError,
    Think,
    find_match_log,
    parse_match_log,
    read_match_log,
)

app = typer.Typer()


@app.command("logs")
def logs_command(
    match: Annotated[
        str,
        typer.Argument(
            metavar="REPLAY|MATCH_ID",
            help="A replay written by arena match (or the .log file beside it), or the id of a "
            "tournament's match (its log is kept with its results).",
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
    redis: RedisOption = None,
    think: Annotated[
        bool, typer.Option("--think", help="Also print each seat's think times against the deadline.")
    ] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object per line: seat, bot, step, text.")
    ] = False,
) -> None:
    """Print what the bots of a match wrote (stdout and stderr), each line stamped with the decision
    step during which it was written ('start': before the seat's first decision)."""
    log = load_log(match, redis)
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
    if log.cut:
        typer.echo(printable(log.cut), err=True)
    if think:
        for summary in think_summary(log, seat):
            typer.echo(summary, err=as_json)


def load_log(match: str, redis: str | None) -> MatchLog:
    """Returns the match log of a replay file, or of a tournament's match id from the replay store
    (when no such file exists); raises CliError saying what is missing."""
    path = Path(match)
    if path.exists() or find_match_log(path).exists() or path.suffix in (".jsonl", ".log") or "/" in match:
        try:
            return read_match_log(path)
        except MatchLogError as exc:
            raise CliError(str(exc)) from None

    def fetch(client: Any) -> bytes | None:
        from arena.storage import replays

        return replays.store_for(client).get(match, STORE_KIND)

    try:
        data = on_redis(redis, fetch)
    except ValueError as exc:  # ReplayStoreError: not a name a match can have
        raise CliError(f"{match!r} is neither a replay file nor a match id: {exc}") from None
    if data is None:
        raise CliError(
            f"no replay file {match} here, and no log of a match {match!r} is stored: give a replay "
            "written by arena match, or a match id from 'arena results GAME'"
        )
    try:
        return parse_match_log(data.decode("utf-8", errors="replace"), f"the stored log of {match}")
    except MatchLogError as exc:
        raise CliError(str(exc)) from None


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
