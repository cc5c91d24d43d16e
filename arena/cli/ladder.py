"""``arena ladder GAME --bots a,b,c``: a ladder that never stops (``arena.schedule.ladder``).

It keeps a few matches queued among the bots' latest versions, chosen where the ranking is least
certain (``arena.ratings.pairing``), runs local workers as ``arena tournament`` does, and shows the
game's leaderboard when it stops: after ``--matches N``, or at Ctrl-C or SIGTERM (exit code 130, as
``arena match``; the matches still queued stay queued, and the same command with the same ``--seed``
resumes the ladder). While it runs it shows the matches finished and the current order with 95%
intervals (a bar on a terminal; ``--progress`` off one: a line at most every few seconds). With
``--until-confident [--los 0.95]`` it also stops, exit code 0, once every bot stands ahead of the next
in the fit's order with that LOS, none provisional (``arena.ratings.confidence``), and says so. ``app``
holds the command; ``arena.cli.main`` adds it to its own app.

With ``--server URL`` (or ``$ARENA_SERVER``) and ``--organiser-token-file`` it asks that ``arena
server`` to start (or resume) the ladder instead, and returns: the server keeps it fed and its workers
play it, until ``arena ladder stop ID --server URL --organiser-token-file F``
(``arena.schedule.ladder_runner``), the command it prints; ``arena ladder status --server URL`` lists the
server's ladders with their match counts. With ``--until-confident`` the server's ladder also stops by
itself once confident, and is then listed ``confident``. As with ``arena tournament``,
``stop`` and ``status`` are values of the GAME argument (no game has those names).
"""

from __future__ import annotations

import json
import math
import os
import secrets
import signal
import sys
import time
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

import typer

from arena.cli.connections import command, organiser_token, redis_url, remote
from arena.cli.errors import CliError
from arena.cli.options import (
    IDLE_DEFAULT,
    DeadlineOption,
    IdleOption,
    JsonOption,
    NoSandboxOption,
    OrganiserTokenOption,
    PlayersOption,
    RedisOption,
    ServerOption,
)
from arena.cli.tables import format_leaderboard
from arena.cli.workers import start_worker, stop_workers, worker_limits
from arena.console import printable, say
from arena.queue.connection import connect, retrying, shown_url
from arena.ratings.confidence import LOS_DEFAULT, check_los
from arena.ratings.pairing import RANDOM_SHARE
from arena.ratings.pairs import split_player
from arena.schedule.ladder import Ladder, LadderError, LadderSpec, make_spec, run
from arena.seeds import platform_key
from arena.storage import fits
from arena.submissions import registry
from arena.submissions.owners import never_meet, owners, sharing

EXIT_INTERRUPTED = 130
PROGRESS_LINE_SECONDS = 5.0  # between two progress lines when stderr is not a terminal
app = typer.Typer()


@app.command("ladder")
def ladder_command(
    game: Annotated[
        str,
        typer.Argument(
            help="Game name: see 'arena games'; with --server also 'status' (the server's ladders) or "
            "'stop' followed by a ladder's id."
        ),
    ],
    ladder_id: Annotated[
        str | None, typer.Argument(help="With 'stop': the ladder's id (see 'arena ladder status').")
    ] = None,
    bots: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated bot names, submitted ('arena bots list') or built-in; at least two.",
            show_default="none, needed to start a ladder",
        ),
    ] = None,
    players: PlayersOption = 2,
    matches: Annotated[
        int | None,
        typer.Option(
            min=1, help="Stop once this many more matches are played.", show_default="none: until Ctrl-C"
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            help="The ladder's seed, combined with this platform's secret key for the matches' seeds "
            "[default: a random one, shown; pass it to resume the ladder]."
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(min=0, help="Local workers to start [default: cores]; 0: 'arena worker' plays them."),
    ] = None,
    ahead: Annotated[
        int | None,
        typer.Option(min=1, help="Matches kept queued or playing [default: twice the workers, at least 2]."),
    ] = None,
    random_share: Annotated[
        float, typer.Option(min=0.0, max=1.0, help="Share of uniformly random pairings, so no bot starves.")
    ] = RANDOM_SHARE,
    until_confident: Annotated[
        bool,
        typer.Option(
            "--until-confident",
            help="Stop once every bot stands ahead of the next in the fit's order with LOS of at least "
            "--los, none provisional (then exit 0 with the summary; with --server, the server's ladder "
            "stops and is listed 'confident').",
        ),
    ] = False,
    los: Annotated[
        float | None,
        typer.Option(
            show_default="0.95 with --until-confident",
            help="With --until-confident: the LOS every neighbour must reach, above 0.5 and below 1.",
        ),
    ] = None,
    deadline_ms: DeadlineOption = 2000,
    idle_timeout: IdleOption = IDLE_DEFAULT,
    redis_: RedisOption = None,
    no_sandbox: NoSandboxOption = False,
    as_json: JsonOption = False,
    progress: Annotated[
        bool | None,
        typer.Option(
            "--progress/--no-progress",
            help="Show the matches finished and the current order with 95% intervals as the ladder "
            "runs, on stderr: a bar on a terminal, else a line at most every "
            f"{PROGRESS_LINE_SECONDS:g} s.",
            show_default="on a terminal only",
        ),
    ] = None,
    server_: ServerOption = None,
    organiser_token_file: OrganiserTokenOption = None,
) -> None:
    """Keep playing matches among the bots where their ranking is least certain, until stopped;
    the leaderboard ('arena leaderboard GAME', 'arena web') follows live. With --server, the server
    runs the ladder until 'arena ladder stop ID --server URL --organiser-token-file F' (or, with
    --until-confident, until it is confident: 'arena ladder status' then lists it 'confident')."""
    if ladder_id is not None and game != "stop":
        raise CliError(f"unexpected argument {ladder_id!r} (only 'stop' takes a ladder id)")
    stop_at = _stop_at(until_confident, los)
    if server_:
        local = {"--redis": redis_, "--no-sandbox": no_sandbox, "--workers": workers, "--matches": matches}
        given = [name for name, value in local.items() if value]
        if given:
            raise CliError(f"--server runs the ladder on the server, with its workers: leave out {given[0]}")
        body = {"players": players, "deadline_ms": deadline_ms, "random_share": random_share}
        body |= {} if seed is None else {"seed": seed}
        body |= {} if ahead is None else {"ahead": ahead}
        body |= {} if stop_at is None else {"until_los": stop_at}
        on_server(server_, game, ladder_id, bots, body, organiser_token_file, as_json)
        return
    if game in ("stop", "status"):
        raise CliError(
            f"'arena ladder {game}' is for a server's ladders: add --server URL (a local ladder stops "
            "with Ctrl-C and shows in 'arena tournament status')"
        )
    if bots is None:
        raise CliError("--bots needs at least two comma-separated bot names, e.g. --bots greedy,random")
    chosen = seed is not None
    seed = seed if seed is not None else secrets.randbits(40)
    spec = _spec(game, bots, players, seed, deadline_ms, random_share)
    count = os.cpu_count() or 1 if workers is None else workers
    if count:
        worker_limits(no_sandbox)  # fail before enqueueing if bots can't run; said once (workers: --quiet)
    url = redis_url(redis_)
    client = connect(url)
    ladder = Ladder(client, spec, platform_key(), lambda bot: registry.resolve(client, spec.game, bot))
    retrying(url, lambda: _check_bots(ladder), say)
    if shared := sharing(spec.bots, retrying(url, lambda: owners(client, spec.bots), say)):
        say(f"arena: {printable(never_meet(shared))}")
    if not chosen:
        say(f"arena: seed {seed} (run the same command with --seed {seed} to resume this ladder)")
    say(f"arena: ladder {ladder.id}: {spec.game}, {', '.join(spec.bots)} on {shown_url(url)}")
    signal.signal(signal.SIGTERM, _terminated)  # a service manager's stop: as Ctrl-C, workers stopped
    procs = _start_workers(count, url, idle_timeout, no_sandbox)
    before = None
    try:
        before = retrying(url, ladder.open, say)
        done = _play(ladder, url, ahead or max(2, 2 * count), matches, procs, progress, stop_at)
    except KeyboardInterrupt:
        stop_workers(procs)
        _summary(ladder, url, before, as_json, interrupted=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except LadderError as exc:
        raise CliError(str(exc)) from None
    finally:
        stop_workers(procs)
    if done and stop_at is not None:
        finished = retrying(url, ladder.finished, say)
        say(f"arena: ladder confident: every neighbour's LOS >= {stop_at * 100:g}% after {finished} matches")
    _summary(ladder, url, before, as_json, interrupted=False)


def _stop_at(until_confident: bool, los: float | None) -> float | None:
    """Returns the LOS ``--until-confident`` stops at (None: the ladder runs until stopped); raises
    ``CliError`` for ``--los`` out of range or without ``--until-confident``."""
    if not until_confident:
        if los is not None:
            raise CliError("--los is the LOS --until-confident stops at: add --until-confident")
        return None
    try:
        return check_los(LOS_DEFAULT if los is None else los)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def on_server(
    url: str,
    game: str,
    ladder_id: str | None,
    bots: str | None,
    body: dict,
    token_file: Path | None,
    as_json: bool,
) -> None:
    """Runs ``ladder status|stop ID|GAME`` against the server at ``url`` (``body``: the ladder's other
    parameters, as the API takes them; the server checks each)."""
    if game == "status":
        ladders = remote(url, lambda c: c.call("GET", "/api/v1/ladders"))["ladders"]
        typer.echo(json.dumps(ladders, indent=2) if as_json else format_ladders(ladders, url))
        return
    if token_file is None:
        raise CliError(
            f"{'stopping' if game == 'stop' else 'starting'} a ladder on a server needs "
            "--organiser-token-file (the organiser's token)"
        )
    token = organiser_token(token_file)
    if game == "stop":
        if ladder_id is None:
            raise CliError(
                f"'arena ladder stop' needs a ladder's id: see {command('ladder', 'status', server=url)}"
            )
        path = f"/api/v1/ladders/{quote(ladder_id, safe='')}"
        missing = f"no ladder {ladder_id!r} runs on {url}: see {command('ladder', 'status', server=url)}"
        shown = remote(url, lambda c: c.call("DELETE", path, token=token), missing)
        say(f"arena: ladder {shown['id']} stopped: {_counts(shown)}; the queued ones are still played")
    else:
        if len(bot_names(bots)) < 2:
            raise CliError("--bots needs at least two comma-separated bot names, e.g. --bots greedy,random")
        request = {"game": game, "bots": bot_names(bots), **body}
        shown = remote(url, lambda c: c.json("POST", "/api/v1/ladders", request, token=token))
        stop = command("ladder", "stop", shown["id"], "--organiser-token-file", str(token_file), server=url)
        until = shown.get("until_los")
        ends = "" if until is None else f"; it stops by itself once every neighbour's LOS >= {100 * until:g}%"
        say(
            f"arena: ladder {shown['id']} runs on {url}: {shown['game']}, {', '.join(shown['bots'])}, seed "
            f"{shown['seed']} ({_counts(shown)}){ends}; stop it with {stop}"
        )
    typer.echo(json.dumps(shown, indent=2) if as_json else shown["id"])


def _counts(ladder: dict) -> str:
    """Returns a ladder's match counts as one phrase."""
    return (
        f"{ladder['total']} matches scheduled, {ladder['recorded']} recorded, {ladder['dead']} dead, "
        f"{ladder['queued']} queued"
    )


def format_ladders(ladders: list[dict], url: str) -> str:
    """Returns the text of ``ladder status``: one line per ladder of the server (its texts escaped:
    a failure's reason can quote a bot's name)."""
    if not ladders:
        return f"no ladders run on {url}"
    lines = []
    for ladder in ladders:
        error = f": {printable(str(ladder['error']))}" if ladder.get("error") else ""
        bots = printable(",".join(ladder.get("bots") or []))
        lines.append(
            f"{ladder['id']}: {ladder.get('game')} {bots} — {ladder['state']}{error}; {_counts(ladder)}"
        )
    return "\n".join(lines)


def _start_workers(count: int, url: str, idle_timeout: float, no_sandbox: bool) -> list:
    """Starts the local workers with Ctrl-C ignored (they inherit it), so that the terminal's Ctrl-C
    reaches the ladder alone, which then stops them with SIGTERM, their clean exit, instead of every
    worker dying mid-match with a traceback."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return [start_worker(url, idle_timeout, no_sandbox) for _ in range(count)]
    finally:
        signal.signal(signal.SIGINT, previous)


def _terminated(*_: object) -> None:
    """Turns SIGTERM into KeyboardInterrupt, so that stopping the ladder stops its workers too."""
    raise KeyboardInterrupt


def _spec(game: str, bots: str, players: int, seed: int, deadline_ms: int, share: float) -> LadderSpec:
    """Returns the validated ladder spec; raises ``CliError`` for bad input."""
    if len(bot_names(bots)) < 2:
        raise CliError("--bots needs at least two comma-separated bot names, e.g. --bots greedy,random")
    try:
        return make_spec(game, bot_names(bots), players, seed, deadline_ms, share)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def bot_names(bots: str | None) -> list[str]:
    """Returns the names of a comma-separated ``--bots``, blanks left out."""
    return [b.strip() for b in (bots or "").split(",") if b.strip()]


def _check_bots(ladder: Ladder) -> None:
    """Raises ``CliError`` unless every bot of the ladder is submitted for its game or built in."""
    try:
        ladder.check_bots()
    except LadderError as exc:
        raise CliError(str(exc)) from None


def _play(
    ladder: Ladder,
    url: str,
    ahead: int,
    matches: int | None,
    procs: list,
    progress: bool | None,
    stop_at: float | None,
) -> bool:
    """Runs the ladder's loop showing its progress (``progress``: None on a terminal only): a bar on a
    terminal (a count when it never stops), else a line at most every ``PROGRESS_LINE_SECONDS``;
    with ``stop_at``, until the ladder is confident at that LOS. Returns whether that ended it."""
    from tqdm import tqdm

    start = retrying(url, ladder.finished, say)
    gone = (lambda: all(p.poll() is not None for p in procs)) if procs else (lambda: False)
    lines = bool(progress) and not sys.stderr.isatty()
    shown: dict[str, Any] = {"line": "", "at": -math.inf}
    hidden = True if progress is False or lines else None  # None: tqdm shows it on a terminal only
    with tqdm(total=matches, unit="match", file=sys.stderr, disable=hidden) as bar:

        def on_progress(finished: int) -> None:
            order = format_standing(ladder.standing())
            if not bar.disable:
                bar.update(finished - start - bar.n)
                bar.set_postfix_str(order, refresh=False)
            line = f"arena: ladder {ladder.id}: {finished - start} matches finished in this run; {order}"
            if lines and line != shown["line"] and time.monotonic() - shown["at"] >= PROGRESS_LINE_SECONDS:
                shown.update(line=line, at=time.monotonic())
                say(line)

        done = None if stop_at is None else (lambda: ladder.confident(stop_at))
        return run(
            ladder, ahead, matches, gone, on_progress, lambda action: retrying(url, action, say), done=done
        )


def format_standing(standing: list[tuple[str, float, float, float]]) -> str:
    """Returns the ladder's current order in one line, best first, each bot with its Elo and 95%
    interval (names escaped: a bot's name is its owner's text).

    >>> format_standing([("greedy", 1726.0, 1683.2, 1768.8), ("random", 1274.0, 1231.2, 1316.8)])
    'greedy 1726 (1683..1769) > random 1274 (1231..1317)'
    """
    if not standing:
        return "no result yet"
    shown = (f"{printable(bot)} {elo:.0f} ({low:.0f}..{high:.0f})" for bot, elo, low, high in standing)
    return " > ".join(shown)


def _summary(ladder: Ladder, url: str, before: int | None, as_json: bool, interrupted: bool) -> None:
    """Prints what the ladder did in this run and the game's leaderboard (JSON rows with ``--json``)."""
    finished = retrying(url, ladder.finished, say)
    queued = ladder.scheduled - finished
    ran = "" if before is None else f"{ladder.scheduled - before} matches scheduled in this run, "
    say(
        f"arena: ladder {ladder.id}{' interrupted' if interrupted else ''}: {ran}{finished} finished in "
        f"all, {max(queued, 0)} still queued (the same command with --seed {ladder.spec.seed} resumes it)"
    )
    left_out = sorted(split_player(p)[0] for p in ladder.failing())
    if left_out:
        say(f"arena: left out of the pairing after failing matches: {', '.join(left_out)}")
    view = retrying(url, lambda: fits.view(ladder.client, fits.game_source(ladder.spec.game)), say)
    assert view is not None  # every view has its board part
    if as_json:
        typer.echo(json.dumps(view["rows"], indent=2))
    else:
        typer.echo(format_leaderboard(ladder.spec.game, view))
