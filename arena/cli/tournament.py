"""The tournament commands of ``arena``: ``worker`` and ``tournament`` (and ``tournament status``,
``tournament standings ID``).

``app`` holds them; ``arena.cli.main`` adds it to its own app, so they are top-level commands.

Design detail: ``status`` and ``standings`` are values of the GAME argument, not subcommands of a
``tournament`` group: a click group parses its own positional arguments before it looks for a
subcommand, so ``arena tournament GAME --bots ...`` and ``arena tournament standings ID`` cannot both be
a group's without overriding click's parsing. No game is named ``status`` or ``standings``.

With ``--server URL`` (or ``$ARENA_SERVER``) the ``tournament`` commands talk to that ``arena server``
only: it checks the organiser token (``--organiser-token-file``) and the parameters, queues the matches
for its own workers, and the command follows the tournament over HTTP. A worker takes its Redis URL
from ``$ARENA_REDIS_URL`` or ``--redis-url-file``, never a password on the command line, and removes it
from its environment once read, so no process it starts inherits it.
"""

from __future__ import annotations

import asyncio
import functools
import json
import os
import secrets
import signal
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Annotated
from urllib.parse import quote

import redis
import typer

from arena.cli.connections import (
    command,
    forget_redis_url,
    organiser_token,
    reading,
    redis_url,
    redis_url_from,
    remote,
)
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
    RedisUrlFileOption,
    ServerOption,
)
from arena.cli.tables import format_standings
from arena.cli.workers import check_seed_key, start_worker, stop_workers, worker_limits
from arena.console import printable, say
from arena.malloc import few_arenas, trim_every
from arena.queue import keys
from arena.queue.connection import connect, retrying, shown_url, stream_reads
from arena.queue.jobs import MAX_ATTEMPTS
from arena.queue.worker import Worker, WorkerConfig
from arena.schedule import tournaments
from arena.schedule.plan import FORMATS, TournamentSpec
from arena.storage import fits
from arena.submissions.owners import never_meet, sharing

POLL_SECONDS = 1.0  # between two reads of a tournament's progress from a server

app = typer.Typer()


@app.command("worker")
def worker_command(
    redis_: RedisOption = None,
    redis_url_file: RedisUrlFileOption = None,
    idle_timeout: IdleOption = IDLE_DEFAULT,
    burst: Annotated[bool, typer.Option(help="Exit once no job is queued or pending.")] = False,
    max_jobs: Annotated[
        int | None, typer.Option(min=1, help="Exit after this many jobs.", show_default="no limit")
    ] = None,
    verbose: Annotated[
        bool,
        typer.Option(
            "--verbose/--quiet",
            "-v/-q",
            help="Print a line per job (the default); --quiet: only failures (the local workers of "
            "'arena tournament' and 'arena ladder', whose own line says how bots run).",
        ),
    ] = True,
    no_sandbox: NoSandboxOption = False,
) -> None:
    """Play queued matches from Redis and record their results, until stopped."""
    few_arenas()  # before any thread: bounded C heap for a worker that runs for weeks (arena.malloc)
    trim_every()  # and what a burst freed goes back to the system (arena.malloc)
    limits = worker_limits(no_sandbox, announce=verbose)
    check_seed_key()
    url = redis_url_from(redis_url_file, redis_)
    forget_redis_url()
    config = WorkerConfig(url, idle_timeout=timedelta(seconds=idle_timeout), bot_limits=limits)
    worker = Worker(connect(url), config, say, verbose)
    signal.signal(signal.SIGTERM, lambda *_: _stop(worker))  # run the finally blocks: stop the bots
    try:
        handled = worker.run(burst=burst, max_jobs=max_jobs)
    except asyncio.CancelledError:  # SIGTERM mid-match: the match unwound, the bots are stopped
        if not worker.stopping:
            raise
        sys.exit(0)
    if verbose:
        say(f"arena: worker {worker.consumer}: {handled} jobs handled")


def _stop(worker: Worker) -> None:
    """SIGTERM's handler: the match being played is cancelled (``Worker.stop_playing``), or, with
    none, the worker exits at once (``_exit_cleanly``)."""
    if not worker.stop_playing():
        _exit_cleanly()


def _exit_cleanly(*_: object) -> None:
    """SIGTERM's handler when no match is being played (``Worker.stop_playing`` handles one that is):
    exits through the finally blocks, which stop the bot processes.

    Design detail: a signal handler runs wherever the main thread is, and during a match that can be
    inside one of grpc's callbacks on the event loop, which catches the SystemExit and prints its
    traceback (seen by the dress rehearsal, issue 38). So while a loop runs, the exit is raised from a
    callback of the loop's own, scheduled thread-safely (waking a loop asleep in epoll)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # between matches: no loop, nothing of grpc's on the stack
        sys.exit(0)
    loop.call_soon_threadsafe(sys.exit, 0)


@app.command("tournament")
def tournament_command(
    game: Annotated[
        str,
        typer.Argument(
            help="Game name; or 'status' to show tournaments and the queue; or 'standings' followed by a "
            "tournament's id to show its standings and crosstable."
        ),
    ],
    tournament_id: Annotated[
        str | None,
        typer.Argument(help="With 'standings': the tournament's id (see 'arena tournament status')."),
    ] = None,
    bots: Annotated[
        str | None,
        typer.Option(
            help="Comma-separated bot names, submitted ('arena bots list') or built-in.",
            show_default="none, needed to start a tournament",
        ),
    ] = None,
    format_: Annotated[
        str, typer.Option("--format", help=f"Tournament format: {', '.join(FORMATS)} (challenger first).")
    ] = "round-robin",
    players: PlayersOption = 2,
    rounds: Annotated[int, typer.Option(min=1, help="Times every seating of every group is played.")] = 1,
    seed: Annotated[
        int | None,
        typer.Option(
            help="The tournament's seed, combined with this platform's secret key (so bots cannot "
            "compute the matches' seeds even from a small one) [default: a random one, shown; pass "
            "it to resume]."
        ),
    ] = None,
    duplicate_deals: Annotated[
        bool, typer.Option(help="Play each deal once per seating rotation, so luck cancels out.")
    ] = False,
    workers: Annotated[
        int | None,
        typer.Option(min=0, help="Local workers to start [default: cores]; 0 only enqueues."),
    ] = None,
    deadline_ms: DeadlineOption = 2000,
    idle_timeout: IdleOption = IDLE_DEFAULT,
    redis_: RedisOption = None,
    no_sandbox: NoSandboxOption = False,
    as_json: JsonOption = False,
    server_: ServerOption = None,
    organiser_token_file: OrganiserTokenOption = None,
) -> None:
    """Enqueue a tournament's matches, run them on local workers (or a server's workers, with
    --server), and print its standings."""
    if game == "standings" and tournament_id is None:
        raise CliError(
            "'arena tournament standings' needs a tournament id: see "
            + command("tournament", "status", server=server_)
        )
    if tournament_id is not None and game != "standings":
        raise CliError(f"unexpected argument {tournament_id!r} (only 'standings' takes a tournament id)")
    if server_:
        if redis_ or no_sandbox:
            raise CliError("--server talks to the server only: leave out --redis and --no-sandbox")
        on_server(
            server_,
            game,
            tournament_id,
            as_json,
            organiser_token_file,
            workers != 0,
            bots,
            format_,
            players,
            rounds,
            seed,
            duplicate_deals,
            deadline_ms,
        )
        return
    if game == "standings":
        show_standings(redis_url(redis_), str(tournament_id), as_json)
        return
    if game == "status":
        show_status(redis_url(redis_))
        return
    chosen = seed is not None
    # Hidden cards and rolls are drawn from the seeds: by default bots cannot guess them.
    seed = seed if seed is not None else secrets.randbits(40)
    spec = _spec(game, bots, format_, players, rounds, seed, duplicate_deals, deadline_ms)
    url = redis_url(redis_)
    spec = _with_versions(spec, url)
    if not chosen:
        say(f"arena: seed {seed} (run the same command with --seed {seed} to resume this tournament)")
    if shared := sharing(spec.bots, spec.owner_of):
        say(f"arena: {printable(never_meet(shared))}")
    count = os.cpu_count() or 1 if workers is None else workers
    if count:
        worker_limits(no_sandbox)  # fail before enqueueing if bots can't run; said once (workers: --quiet)
    run_tournament(spec, url, count, idle_timeout, no_sandbox)
    if count:
        show_standings(url, spec.tournament_id, as_json)


def on_server(
    url: str,
    game: str,
    tournament_id: str | None,
    as_json: bool,
    token_file: Path | None,
    wait: bool,
    *spec_args: object,
) -> None:
    """Runs ``tournament standings|status|GAME`` against the server at ``url`` (``spec_args``: bots,
    format, players, rounds, seed, duplicate deals, deadline in ms, as ``tournament_command`` has them)."""
    if game == "standings":
        path = f"/api/v1/tournaments/{quote(str(tournament_id), safe='')}"
        missing = (
            f"no tournament {tournament_id!r} on {url}: see {command('tournament', 'status', server=url)}"
        )
        standings = remote(url, lambda c: c.call("GET", path), missing)["standings"]
        typer.echo(json.dumps(standings, indent=2) if as_json else format_standings(standings))
    elif game == "status":
        typer.echo(format_status(remote(url, lambda c: c.call("GET", "/api/v1/tournaments")), url))
    else:
        tid = create_on_server(url, game, organiser_token(token_file), *spec_args)
        if not wait:
            say(
                "arena: --workers 0: not following it; the server's workers play the matches "
                f"(see {command('tournament', 'status', server=url)})"
            )
            return
        follow_on_server(url, tid)
        on_server(url, "standings", tid, as_json, token_file, wait)


def create_on_server(url: str, game: str, token: str, *spec_args: object) -> str:
    """Asks the server to queue the tournament; returns its id (the server checks every parameter)."""
    bots, format_, players, rounds, seed, duplicate, deadline_ms = spec_args
    names = [b.strip() for b in str(bots or "").split(",") if b.strip()]
    if len(names) < 2:
        raise CliError("--bots needs at least two comma-separated bot names, e.g. --bots greedy,random")
    body = {"game": game, "bots": names, "format": format_, "players": players, "rounds": rounds}
    body |= {"duplicate_deals": duplicate, "deadline_ms": deadline_ms}
    body |= {} if seed is None else {"seed": seed}
    answer = remote(url, lambda c: c.json("POST", "/api/v1/tournaments", body, token=token))
    say(
        f"arena: tournament {answer['id']}: {answer['matches']} matches of {answer['game']} "
        f"({answer['queued']} newly queued) on {url}, seed {answer['seed']}"
    )
    return str(answer["id"])


def follow_on_server(url: str, tid: str) -> None:
    """Shows a progress bar until every match of the tournament is recorded or dead-lettered."""
    from tqdm import tqdm

    path = f"/api/v1/tournaments/{quote(tid, safe='')}"
    with tqdm(unit="match", file=sys.stderr, disable=None) as bar:
        while True:
            progress = remote(url, lambda c: c.call("GET", path))["tournament"]
            bar.total = progress["total"]
            bar.update(progress["done"] - bar.n)
            if progress["done"] >= progress["total"]:
                break
            time.sleep(POLL_SECONDS)
    if progress["dead"]:
        say(f"arena: {progress['dead']} matches failed {MAX_ATTEMPTS} times and were dead-lettered")


def _spec(
    game: str,
    bots: str | None,
    format_: str,
    players: int,
    rounds: int,
    seed: int,
    duplicate: bool,
    deadline_ms: int,
) -> TournamentSpec:
    """Returns the validated tournament spec; raises ``CliError`` for bad input."""
    if len([b for b in (bots or "").split(",") if b.strip()]) < 2:
        raise CliError("--bots needs at least two comma-separated bot names, e.g. --bots greedy,random")
    try:
        return tournaments.make_spec(
            game, (bots or "").split(","), format_, players, rounds, seed, duplicate, deadline_ms
        )
    except tournaments.TournamentError as exc:
        raise CliError(str(exc)) from None


def _with_versions(spec: TournamentSpec, url: str) -> TournamentSpec:
    """Returns the spec with the version each bot plays (submitted, else built-in); raises
    ``CliError`` for a name that is neither."""
    client = connect(url)
    try:
        return retrying(url, lambda: tournaments.with_versions(client, spec), say)
    except tournaments.TournamentError as exc:
        raise CliError(str(exc)) from None


def run_tournament(
    spec: TournamentSpec,
    url: str,
    workers: int,
    idle_timeout: float,
    no_sandbox: bool = False,
) -> None:
    """Enqueues the plan, runs local workers and follows the progress until every match is done."""
    client = connect(url)
    tid = spec.tournament_id
    try:
        total, new = retrying(url, lambda: tournaments.start(client, spec), say)
    except tournaments.TournamentError as exc:  # a bot removed since its version was resolved
        raise CliError(str(exc)) from None
    say(f"arena: tournament {tid}: {total} matches of {spec.game} ({new} newly queued) on {shown_url(url)}")
    if workers == 0:
        say("arena: --workers 0: the matches are queued; 'arena worker' plays them")
        return
    procs = [start_worker(url, idle_timeout, no_sandbox) for _ in range(workers)]
    try:
        _follow(client, url, tid, total, lambda: all(p.poll() is not None for p in procs))
    except KeyboardInterrupt:
        say("arena: interrupted: unplayed matches stay queued; run the same command again to resume")
        raise
    finally:
        stop_workers(procs)
    dead = int(retrying(url, lambda: client.hget(keys.tournament(tid), "dead") or 0, say))
    if dead:
        say(
            f"arena: {dead} matches failed {MAX_ATTEMPTS} times and were dead-lettered: "
            "see 'arena tournament status'"
        )


def _follow(
    client: redis.Redis,
    url: str,
    tid: str,
    total: int,
    workers_gone: Callable[[], bool],
) -> None:
    """Shows a progress bar until every match of the tournament is recorded or dead-lettered.

    Design detail: the tournament's stream of finished matches only wakes the loop up; progress is
    read from the tournament's counters, which change in the same transaction as the results. So if
    Redis loses its last second of writes (a crash with ``appendfsync everysec``), the bar goes back
    with the lost results and the command waits until the rerun matches are recorded again.
    """
    from tqdm import tqdm

    last = "$"
    with tqdm(total=total, unit="match", file=sys.stderr, disable=None) as bar:
        while True:
            done = retrying(url, lambda: _done(client, tid), say)
            bar.update(done - bar.n)
            if done >= total:
                return
            wait = functools.partial(client.xread, {keys.tournament_done(tid): last}, count=500, block=1000)
            read = stream_reads(retrying(url, wait, say))
            for _, entries in read or []:
                last = entries[-1][0]
            if not read and workers_gone():
                raise CliError(f"every local worker exited with {total - done} matches left; see above")


def _done(client: redis.Redis, tid: str) -> int:
    """Returns how many of a tournament's matches are recorded or dead-lettered."""
    recorded, dead = client.hmget(keys.tournament(tid), ["recorded", "dead"])
    return int(recorded or 0) + int(dead or 0)


def show_standings(url: str, tournament_id: str, as_json: bool) -> None:
    """Prints a tournament's standings, fitted to its own results only, and its crosstable (as JSON,
    ``fits.tournament_standings``)."""
    client = connect(url)
    standings = reading(url, lambda: fits.tournament_standings(client, tournament_id))
    if standings is None:
        raise CliError(f"no tournament {tournament_id!r}: see 'arena tournament status'")
    if as_json:
        typer.echo(json.dumps(standings, indent=2))
    else:
        typer.echo(format_standings(standings))


def show_status(url: str) -> None:
    """Prints the recent tournaments, the queue's state and the newest dead letters."""
    client = connect(url)
    typer.echo(format_status(reading(url, lambda: tournaments.queue_status(client)), shown_url(url)))


def format_status(status: dict, where: str) -> str:
    """Returns the text of ``tournament status`` for ``tournaments.queue_status`` (every text read
    from Redis escaped by ``printable``: a dead letter's error can quote a bot's output)."""
    lines = [f"queue on {where}: {status['waiting']} waiting, {status['running']} running or unacknowledged"]
    if not status["tournaments"]:
        lines.append("no tournaments yet")
    for t in status["tournaments"]:
        t = {k: printable(str(v)) for k, v in t.items()}
        done = int(t.get("recorded", 0)) + int(t.get("dead", 0))
        lines.append(
            f"{t['id']}: {t.get('game')} {t.get('format')} {t.get('bots')} — {done}/{t.get('total')} done "
            f"({t.get('recorded', 0)} recorded, {t.get('dead', 0)} dead)"
        )
    if status["dead"]:
        lines.append("dead letters (newest first):")
        for d in status["dead"]:
            d = {k: printable(str(v)) for k, v in d.items()}
            lines.append(f"  {d['match_id']}: failed {d['attempts']} times: {d['error']}")
    if "retention" in status:  # a server of an older version does not say
        lines.append(printable(status["retention"]))
    return "\n".join(lines)
