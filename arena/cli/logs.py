"""``arena logs``: a match's bot output, each line beside the decision step it was written during, and
each seat's think times against the deadline.

``arena match`` writes a match log (``arena.referee.botlog``) beside every replay: ``NAME.log``
for ``NAME.jsonl``. This command reads it, given the replay or the log itself. Everything a bot wrote
is printed escaped (``console.printable``): a bot's text never drives the terminal.

With ``--server URL`` (or ``$ARENA_SERVER``) a match id is read from that server instead: a bot's output there
is its owner's alone (docs/security.md), so the command reads the seats of one bot (``--bot``, or ``--seat``)
with its owner's credential: the account token, from ``$ARENA_ACCOUNT_TOKEN`` or ``--account-token-file``, or
a bot's owner secret, from ``$ARENA_BOT_SECRET`` or ``--secret-file`` (never the command line), through ``GET
/api/v1/matches/ID/log/SEAT``; the seats' bots come from the match's public result and, with ``--think``, the
think times from its public replay. The server's answers become a ``MatchLog`` printed by the same code as a
local one.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Collection
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

import typer

from arena.cli.connections import (
    ENV_ACCOUNT_TOKEN,
    ENV_BOT_SECRET,
    bot_credential,
    command,
    on_redis,
    remote,
    server,
    server_only,
)
from arena.cli.errors import CliError
from arena.cli.options import AccountTokenFileOption, RedisOption, ServerOption
from arena.client import ServerError
from arena.console import printable
from arena.referee.botlog import (
    STORE_KIND,
    Line,
    MatchLog,
    MatchLogError,
    Think,
    find_match_log,
    parse_match_log,
    read_match_log,
    step_label,
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
    bot: Annotated[
        str | None,
        typer.Option(
            "--bot",
            show_default="every bot",
            help="Only the seats this bot played (with --server: your bot, whose owner secret you hold).",
        ),
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
    server_: ServerOption = None,
    secret_file: Annotated[
        Path | None,
        typer.Option(
            "--secret-file",
            envvar="ARENA_BOT_SECRET_FILE",
            show_default=f"${ENV_BOT_SECRET}",
            help="With --server: a file holding your bot's owner secret (a bot's output is its owner's); "
            "a bot of your account takes your account token instead.",
        ),
    ] = None,
    account_token_file: AccountTokenFileOption = None,
) -> None:
    """Print what the bots of a match wrote (stdout and stderr), each line stamped with the decision
    step during which it was written ('start': before the match began, as the bot started and
    joined; a line written as the match began goes with the seat's first decision). With --server, the
    output of your own bot (--bot NAME, with your account token in $ARENA_ACCOUNT_TOKEN or
    --account-token-file, or the bot's owner secret in $ARENA_BOT_SECRET or --secret-file)."""
    server_only(server_, redis=redis)
    if server_ and not is_file(match):
        log = server_log(server_, match, seat, bot, (secret_file, account_token_file), think)
    else:
        log = load_log(match, redis)
    seats = chosen_seats(log, seat, bot)
    print_log(log, seats, step, think, as_json)


def print_log(
    log: MatchLog, seats: Collection[int] | None, step: int | None, think: bool, as_json: bool
) -> None:
    """Prints the lines of ``seats`` (None: every seat) and ``step`` (None: every step), then what was
    cut and, with ``think``, the seats' think times: the one printer of a local and a server's log."""
    for where, line in log.lines:
        if (seats is None or where in seats) and (step is None or line.step == step):
            if as_json:
                row = {"seat": where, "bot": log.bot(where), "step": line.step, "text": line.text}
                typer.echo(json.dumps(row))
            else:
                typer.echo(
                    f"step {step_label(line.step):>5}  seat {where} {printable(log.bot(where))}  "
                    f"| {printable(line.text)}"
                )
    if log.cut:
        typer.echo(printable(log.cut), err=True)
    if think:
        for summary in think_summary(log, seats):
            typer.echo(summary, err=as_json)


def chosen_seats(log: MatchLog, seat: int | None, bot: str | None) -> list[int] | None:
    """Returns the seats ``--seat`` and ``--bot`` choose (None: every seat); raises CliError for a seat
    the match does not have or a bot that did not play it."""
    players = len(log.header.get("players") or [])
    if seat is not None and seat >= players:
        raise CliError(f"--seat {seat}: the match has seats 0 to {players - 1}")
    if bot is None:
        return None if seat is None else [seat]
    played = [s for s in range(players) if log.bot(s) == bot]
    if seat is not None and seat not in played:
        raise CliError(
            f"--seat {seat} of the match was played by {printable(log.bot(seat))}, not {printable(bot)}"
        )
    if not played:
        raise CliError(f"{printable(bot)} did not play this match; its seats: {seat_list(log)}")
    return played if seat is None else [seat]


def seat_list(log: MatchLog) -> str:
    """Returns the match's seats and their bots as one phrase: ``0 alice, 1 random``."""
    players = log.header.get("players") or []
    return ", ".join(f"{s} {printable(log.bot(s))}" for s in range(len(players)))


def is_file(match: str) -> bool:
    """Returns whether ``match`` names a replay or match log file (rather than a recorded match's id)."""
    path = Path(match)
    return path.exists() or find_match_log(path).exists() or path.suffix in (".jsonl", ".log") or "/" in match


def load_log(match: str, redis: str | None) -> MatchLog:
    """Returns the match log of a replay file, or of a tournament's match id from the replay store
    (when no such file exists); raises CliError saying what is missing."""
    if is_file(match):
        try:
            return read_match_log(Path(match))
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
            "written by arena match, or a match id as arena results prints them (for a server's "
            "match, add --server with its URL)"
        )
    try:
        return parse_match_log(data.decode("utf-8", errors="replace"), f"the stored log of {match}")
    except MatchLogError as exc:
        raise CliError(str(exc)) from None


def server_log(
    url: str,
    match: str,
    seat: int | None,
    bot: str | None,
    files: tuple[Path | None, Path | None],
    think: bool,
) -> MatchLog:
    """Returns the part of a server's match ``match`` that the owner's credential may read (``files``:
    ``--secret-file`` and ``--account-token-file``, see ``bot_credential``): the lines of the
    seats of ``bot`` (or of ``seat``), the match's players and, with ``think``, every seat's think times
    (public); raises CliError for a refusal, saying why in one line."""
    path = f"/api/v1/matches/{quote(match, safe='')}"
    result = remote(
        url,
        lambda c: c.call("GET", path),
        missing=f"no match {match!r} is recorded on {url}: arena results, with the game's name and "
        f"--server {url}, lists the ids of a game's matches",
    )
    players = sorted(result.get("players") or [], key=lambda p: int(p["seat"]))
    header: dict[str, Any] = {"match_id": match, "game": result.get("game"), "players": players}
    public = MatchLog(header, (), ())
    if seat is None and bot is None:
        example = command("logs", match, "--bot", public.bot(0), server=url)
        raise CliError(
            f"a bot's output is its owner's: name your bot, e.g. {example} (seats: {seat_list(public)}), "
            f"with your account token in ${ENV_ACCOUNT_TOKEN} (or the bot's owner secret in "
            f"${ENV_BOT_SECRET})"
        )
    seats = chosen_seats(public, seat, bot) or []
    secret = bot_credential(*files)
    lines: list[tuple[int, Line]] = []
    cuts = []
    for where in seats:
        answer = seat_lines(url, path, where, public.bot(where), secret)
        lines += [(where, Line(x["step"], str(x["text"]))) for x in answer["lines"]]
        cuts += [str(answer["cut"])] if answer.get("cut") else []
    times: tuple[Think, ...] = ()
    if think:
        replay = remote(url, lambda c: c.call("GET", f"{path}/replay"))
        header["deadline_ms"] = replay.get("deadline_ms")
        times = tuple(
            Think(int(t["step"]), int(t["seat"]), float(t["ms"]), bool(t["answered"]))
            for t in replay.get("think") or []
        )
    return MatchLog(header, tuple(lines), times, " ".join(cuts))


def seat_lines(url: str, path: str, seat: int, bot: str, secret: str) -> dict[str, Any]:
    """Returns the server's answer for one seat's lines, read with the owner ``secret``; a refusal is
    a CliError saying whose seat it is (a bot's output is its owner's alone)."""
    try:
        return server(url).call("GET", f"{path}/log/{seat}", token=secret)
    except ServerError as exc:
        if exc.status in (401, 403):
            raise CliError(
                f"seat {seat} was played by {printable(bot)}, and a bot's output is its owner's alone: {exc}"
            ) from None
        raise CliError(str(exc)) from None


def think_summary(log: MatchLog, seats: Collection[int] | None) -> list[str]:
    """Returns one line per seat of ``seats`` (None: every seat): its decisions, mean, median and
    slowest think time, and the deadline."""
    deadline = log.header.get("deadline_ms")
    limit = f"deadline {deadline} ms" if deadline else "no deadline"
    by_seat: dict[int, list[Think]] = {}
    for entry in log.think:
        if seats is None or entry.seat in seats:
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
