"""``arena ladder GAME --bots a,b,c``: a ladder that never stops (``arena.queue.ladder``).

It keeps a few matches queued among the bots' latest versions, chosen where the ranking is least
certain (``arena.ratings.pairing``), runs local workers as ``arena tournament`` does, and shows the
game's leaderboard when it stops: after ``--matches N``, or at Ctrl-C or SIGTERM (exit code 130, as
``arena match``; the matches still queued stay queued, and the same command with the same ``--seed``
resumes the ladder). ``app`` holds the command; ``arena.cli`` adds it to its own app.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import sys
from typing import Annotated

import typer

from arena.cli_common import CliError, JsonOption, NoSandboxOption, RedisOption, redis_url, worker_limits
from arena.cli_tables import format_leaderboard
from arena.cli_tournament import IDLE_DEFAULT, IdleOption, start_worker, stop_workers
from arena.console import say
from arena.games import GameError, get_game
from arena.queue import fits, submissions
from arena.queue.connection import connect, retrying, shown_url
from arena.queue.ladder import Ladder, LadderError, LadderSpec, run
from arena.ratings.pairing import RANDOM_SHARE
from arena.ratings.pairs import split_player
from arena.seeds import platform_key

EXIT_INTERRUPTED = 130
app = typer.Typer()


@app.command("ladder")
def ladder_command(
    game: Annotated[str, typer.Argument(help="Game name: see 'arena games'.")],
    bots: Annotated[
        str,
        typer.Option(
            help="Comma-separated bot names, submitted ('arena bots list') or built-in; at least two."
        ),
    ],
    players: Annotated[int, typer.Option(min=2, help="Bots per match.")] = 2,
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
    deadline_ms: Annotated[int, typer.Option(min=1, help="Time allowed per decision, in ms.")] = 2000,
    idle_timeout: IdleOption = IDLE_DEFAULT,
    redis_: RedisOption = None,
    no_sandbox: NoSandboxOption = False,
    as_json: JsonOption = False,
) -> None:
    """Keep playing matches among the bots where their ranking is least certain, until stopped;
    the leaderboard ('arena leaderboard GAME', 'arena web') follows live."""
    chosen = seed is not None
    seed = seed if seed is not None else secrets.randbits(40)
    spec = _spec(game, bots, players, seed, deadline_ms, random_share)
    count = os.cpu_count() or 1 if workers is None else workers
    if count:
        worker_limits(no_sandbox, announce=False)  # fail before enqueueing: bots can't run
    url = redis_url(redis_)
    client = connect(url)
    ladder = Ladder(client, spec, platform_key(), lambda bot: submissions.resolve(client, spec.game, bot))
    retrying(url, lambda: _check_bots(ladder), say)
    if not chosen:
        say(f"arena: seed {seed} (run the same command with --seed {seed} to resume this ladder)")
    say(f"arena: ladder {ladder.id}: {spec.game}, {', '.join(spec.bots)} on {shown_url(url)}")
    signal.signal(signal.SIGTERM, _terminated)  # a service manager's stop: as Ctrl-C, workers stopped
    procs = _start_workers(count, url, idle_timeout, no_sandbox)
    before = None
    try:
        before = retrying(url, ladder.open, say)
        _play(ladder, url, ahead or max(2, 2 * count), matches, procs)
    except KeyboardInterrupt:
        stop_workers(procs)
        _summary(ladder, url, before, as_json, interrupted=True)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    except LadderError as exc:
        raise CliError(str(exc)) from None
    finally:
        stop_workers(procs)
    _summary(ladder, url, before, as_json, interrupted=False)


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
    try:
        name = get_game(game).spec.name
        get_game(name).check_players(players)
    except GameError as exc:
        raise CliError(str(exc)) from None
    names = tuple(b.strip() for b in bots.split(",") if b.strip())
    if len(names) < 2:
        raise CliError("--bots needs at least two comma-separated bot names, e.g. --bots greedy,random")
    try:
        return LadderSpec(name, names, players, seed, deadline_ms, random_share=share)
    except ValueError as exc:
        raise CliError(str(exc)) from None


def _check_bots(ladder: Ladder) -> None:
    """Raises ``CliError`` unless every bot of the ladder is submitted for its game or built in."""
    try:
        for bot in ladder.spec.bots:
            ladder.resolve(bot)
    except submissions.SubmissionError as exc:
        raise CliError(str(exc)) from None


def _play(ladder: Ladder, url: str, ahead: int, matches: int | None, procs: list) -> None:
    """Runs the ladder's loop with a progress bar (a count when it never stops)."""
    from tqdm import tqdm

    start = retrying(url, ladder.finished, say)
    gone = (lambda: all(p.poll() is not None for p in procs)) if procs else (lambda: False)
    with tqdm(total=matches, unit="match", file=sys.stderr, disable=None) as bar:

        def progress(finished: int) -> None:
            bar.update(finished - start - bar.n)
            if ladder.last is not None:
                bar.set_postfix_str(f"last pairing: {ladder.last.reason}", refresh=False)

        run(ladder, ahead, matches, gone, progress, lambda action: retrying(url, action, say))


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
    if as_json:
        typer.echo(json.dumps(view["rows"], indent=2))
    else:
        typer.echo(format_leaderboard(ladder.spec.game, view))
