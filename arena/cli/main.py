"""The ``arena`` command line: run matches and list games. Its app adds the module-level apps of
``arena.cli.replay`` (``arena replay``), ``arena.cli.logs``, ``arena.cli.view``, ``arena.cli.tournament``
(tournaments, workers), ``arena.cli.ladder``, ``arena.cli.leaderboard`` (the table, the web page,
screenshots), ``arena.cli.bots`` (``arena bots ...``), ``arena.cli.server`` and ``arena.cli.storage``;
what they share is ``arena.cli.common``, and what ``arena match`` prints about a series is
``arena.cli.series``.

``arena match A B --sprt elo0=..,elo1=..`` is a head-to-head test that stops as soon as it decides:
each seed is dealt twice with the seats swapped (``SeriesConfig.duplicate``), and each pair's score
feeds fishtest's pentanomial SPRT (``arena.ratings.sprt``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
from datetime import timedelta
from pathlib import Path
from typing import Annotated

import typer

import arena
from arena.cli import bots as cli_bots
from arena.cli import ladder as cli_ladder
from arena.cli import leaderboard as cli_leaderboard
from arena.cli import logs as cli_logs
from arena.cli import replay as cli_replay
from arena.cli import server as cli_server
from arena.cli import storage as cli_storage
from arena.cli import tournament as cli_tournament
from arena.cli import view as cli_view
from arena.cli.common import CliError, writable_folder
from arena.cli.series import (
    SprtRun,
    announce_wait,
    bot_failures,
    format_game,
    format_summary,
    format_written,
    play_by_play,
    report_interrupted,
    result_json,
)
from arena.console import printable, say
from arena.games import GAMES, GameError, get_game
from arena.paths import state_dir
from arena.ratings.sprt import Sprt, SprtParams, SprtSpecError
from arena.referee.branch import Branch, branch_file
from arena.referee.match import MatchConfig
from arena.referee.processes import DEFAULT_LIMITS, BotLimits, BotSpec, BotSpecError, resolve_bot
from arena.referee.replay import ReplayError
from arena.referee.runner import GameResult, SeriesConfig, run_series, unique_names
from arena.referee.sandbox import SandboxError
from arena.referee.sandbox_check import check_sandbox
from arena.seeds import fresh_seed
from arena.wire_limits import DEADLINE_MS_MAX, MAX_STRIKES_MAX

# Typer's usage errors, found through its public BadParameter (newer typer vendors click, older uses it).
UsageError = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
ClickException = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")

SPRT_MAX_GAMES = 20000  # --games when --sprt is given without it
SPRT_REPORT_EVERY = 20  # games between progress lines when stderr is not a terminal
JOIN_TIMEOUT_MAX = 86400.0  # seconds: a day, for a bot started by hand in a debugger
JOIN_TIMEOUT_DEFAULT, JOIN_TIMEOUT_WAIT = 15.0, 600.0  # seconds; the second when a seat is @wait
# The largest bot limits accepted: past what the kernel takes (RLIMIT_* are C longs, NOFILE stops at
# fs.nr_open's ceiling, NPROC at pid_max's) a bot could not even start.
TIB_IN_MIB, YEAR_SECONDS, MAX_OPEN_FILES, MAX_PROCESSES, MAX_CPUS = 2**20, 366 * 86400, 2**20, 2**22, 1024
EXIT_BOT_FAILED, EXIT_INTERRUPTED = 1, 130

# Design detail: no rich markup in help texts. Rich reads "[default: ...]" in a help text as a markup
# tag and drops it ("Redis URL ."); plain click help keeps every text as written, and wraps it in the
# terminal's width rather than a narrow column.
app = typer.Typer(
    name="arena",
    help="An AI tournament platform: bots play tabletop games through a gRPC referee.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def show_version(value: bool) -> None:
    """Prints arena's version (the one replays record) and exits, for ``--version``."""
    if value:
        typer.echo(f"arena {arena.__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=show_version, is_eager=True, help="Print arena's version and exit."
        ),
    ] = False,
) -> None:
    """An AI tournament platform: bots play tabletop games through a gRPC referee."""


@app.command("games")
def games_command() -> None:
    """List the games and their player counts."""
    for name in sorted(GAMES):
        spec = GAMES[name].spec
        aliases = f" (also: {', '.join(spec.aliases)})" if spec.aliases else ""
        typer.echo(f"{name:<14} {spec.min_players}-{spec.max_players} players  {spec.title}{aliases}")


def parse_sprt(text: str) -> SprtParams:
    """Returns the parameters of ``--sprt``; a bad text is a usage error with the parser's message."""
    try:
        return SprtParams.parse(text)
    except SprtSpecError as exc:
        raise typer.BadParameter(str(exc)) from None


@app.command("match")
def match_command(
    game: Annotated[str, typer.Argument(help="Game name: see 'arena games'.")],
    bots: Annotated[
        list[str],
        typer.Argument(
            help="One bot per seat: a built-in name, a .py file, a quoted shell command, or @wait[:NAME] "
            "for a bot you start yourself (the address and token to give it are printed)."
        ),
    ],
    seed: Annotated[
        int | None,
        typer.Option(
            help="Seed of the series, for reproducing local runs with trusted bots (each game's seed is a "
            "hash of it; a bot can guess a small one from its hand). Default: 64 random bits, shown."
        ),
    ] = None,
    games: Annotated[
        int | None,
        typer.Option(
            "--games",
            min=1,
            help="Number of games; seats rotate between games. With --sprt, the most to play, in pairs "
            f"(an odd number is rounded down). Default: 1; with --sprt, {SPRT_MAX_GAMES}.",
        ),
    ] = None,
    sprt: Annotated[
        SprtParams | None,
        typer.Option(
            "--sprt",
            parser=parse_sprt,
            metavar="elo0=A,elo1=B[,alpha=0.05,beta=0.05]",
            show_default="none: a plain series",
            help="Two bots only: play until the SPRT accepts H0 (the first bot is elo0 Elo stronger than "
            "the second) or H1 (elo1 stronger), or --games runs out; LLR and bounds shown as it goes. Each "
            "seed is played twice with the seats swapped (game seeds are otherwise all different), so "
            "pairs of games score 0..2 and the test uses fishtest's pentanomial model. A win is being "
            "ranked first alone, a draw equal ranks; a forfeit is a loss. With --json, the last line is "
            '{"sprt": {"verdict": "H0"|"H1"|"none", "games", "llr", "lower", "upper"}}.',
        ),
    ] = None,
    deadline_ms: Annotated[
        int,
        typer.Option(
            min=0,
            max=DEADLINE_MS_MAX,
            help="Time allowed per decision, in milliseconds; 0: no deadline (for a @wait seat's bot "
            "stepped through in a debugger).",
        ),
    ] = 2000,
    max_strikes: Annotated[
        int, typer.Option(min=1, max=MAX_STRIKES_MAX, help="Bad or late answers before a seat forfeits.")
    ] = 3,
    replay_dir: Annotated[
        Path | None,
        typer.Option(
            help="Folder for the replays, and the bots' logs in its logs/ folder; a replay or log whose name "
            "is taken gets a new one (-2, -3...). Default: $XDG_STATE_HOME/arena/replays."
        ),
    ] = None,
    join_timeout: Annotated[
        float | None,
        typer.Option(
            min=0.1,
            max=JOIN_TIMEOUT_MAX,
            help=f"Seconds a bot may take to connect. Default: {JOIN_TIMEOUT_DEFAULT:g}; "
            f"{JOIN_TIMEOUT_WAIT:g} when a seat is @wait.",
        ),
    ] = None,
    from_replay: Annotated[
        Path | None,
        typer.Option(
            "--from",
            metavar="REPLAY",
            show_default="none: from the start",
            help="Start at the position of --step K of this replay (its seed and history) with the bots "
            "given, one per recorded seat (GAME may then be left out); seats do not rotate.",
        ),
    ] = None,
    step: Annotated[
        int | None,
        typer.Option(
            "--step",
            min=0,
            show_default="none",
            help="With --from: the recorded decision step to start at (0: the first).",
        ),
    ] = None,
    view: Annotated[
        bool,
        typer.Option(
            "--view", help="Then serve the games played in the web replay viewer (as arena view does)."
        ),
    ] = False,
    verbose: Annotated[bool, typer.Option("-v", "--verbose", help="Print a play-by-play.")] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object per game on stdout.")
    ] = False,
    bot_memory_mb: Annotated[
        int,
        typer.Option(
            min=0,
            max=TIB_IN_MIB,
            help="Memory per bot, in MiB (its cgroup, and RLIMIT_DATA per process); 0: no limit.",
        ),
    ] = DEFAULT_LIMITS.memory_mb or 0,
    bot_cpu_seconds: Annotated[
        int,
        typer.Option(
            min=0,
            max=YEAR_SECONDS,
            help="CPU seconds per bot process over its life (RLIMIT_CPU); 0: no limit.",
        ),
    ] = DEFAULT_LIMITS.cpu_seconds or 0,
    bot_open_files: Annotated[
        int,
        typer.Option(
            min=0, max=MAX_OPEN_FILES, help="Open files per bot process (RLIMIT_NOFILE); 0: no limit."
        ),
    ] = DEFAULT_LIMITS.open_files or 0,
    bot_processes: Annotated[
        int,
        typer.Option(
            min=0,
            max=MAX_PROCESSES,
            help="Processes of the bots' user (RLIMIT_NPROC; root is exempt); 0: no limit.",
        ),
    ] = DEFAULT_LIMITS.processes or 0,
    bot_log_kb: Annotated[
        int,
        typer.Option(
            min=1,
            max=TIB_IN_MIB * 1024,
            help="KiB of a bot's stdout and stderr kept in its log; the rest is dropped.",
        ),
    ] = DEFAULT_LIMITS.log_bytes // 1024,
    bot_cpus: Annotated[
        float,
        typer.Option(
            min=0, max=MAX_CPUS, help="CPU cores' worth of time per bot at most (cgroup quota); 0: no cap."
        ),
    ] = DEFAULT_LIMITS.cpus or 0,
    bot_disk_mb: Annotated[
        int,
        typer.Option(
            min=0, max=TIB_IN_MIB, help="Size of each sandboxed bot's private /tmp, in MiB; 0: no cap."
        ),
    ] = DEFAULT_LIMITS.disk_mb or 0,
    no_sandbox: Annotated[
        bool,
        typer.Option(
            "--no-sandbox",
            help="Run the bots unconfined, with your user's files, network and processes: trusted bots only.",
        ),
    ] = False,
) -> None:
    """Play GAME between bots through the gRPC referee, and print the results.

    \b
    Exit status:
      0    every game was played by bots that connected and stayed
      1    a bot never connected or crashed: its seat forfeited, the results are printed, and a last
           line per bot says which seat and why
      2    bad input (one line on stderr)
      130  interrupted (Ctrl-C): the summary of the games played so far is printed first
    """
    branch, game, bots = branch_start(from_replay, step, game, bots, sprt)
    try:
        engine = get_game(game)
        engine.check_players(len(bots))
    except GameError as exc:
        raise CliError(str(exc)) from None
    specs = bot_specs(engine.spec.name, bots)
    games = series_length(games, sprt, len(bots))
    replay_dir = writable_folder(replay_dir or state_dir() / "replays", "--replay-dir")
    limits = BotLimits(
        memory_mb=bot_memory_mb or None,
        cpu_seconds=bot_cpu_seconds or None,
        open_files=bot_open_files or None,
        processes=bot_processes or None,
        log_bytes=bot_log_kb * 1024,
        cpus=bot_cpus or None,
        disk_mb=bot_disk_mb or None,
        sandbox=not no_sandbox,
    )
    announce_limits(limits, verbose)
    if seed is None:
        # Design detail: every hidden card and future roll is drawn from the seed, so an unguessable
        # one is the default; a chosen seed is for reproducing a game.
        seed = fresh_seed()
    config = SeriesConfig(
        games=games,
        seed=seed,
        match=MatchConfig(deadline=timedelta(milliseconds=deadline_ms), max_strikes=max_strikes),
        replay_dir=replay_dir,
        log_dir=writable_folder(replay_dir / "logs", "--replay-dir"),
        join_timeout=timedelta(seconds=join_timeout or default_join_timeout(specs)),
        bot_limits=limits,
        duplicate=sprt is not None,
        on_wait=announce_wait,
        branch=branch,
    )
    on_step = play_by_play(engine) if verbose else None
    if on_step is not None:
        config = dataclasses.replace(config, on_game_start=on_step.begin)
    from tqdm import tqdm

    bar = tqdm(total=games, unit="game", disable=None if games > 1 and not verbose else True, file=sys.stderr)
    test = SprtRun(Sprt.pentanomial(sprt), *unique_names(specs)) if sprt else None
    played: list[GameResult] = []

    def on_result(result: GameResult) -> None:
        played.append(result)
        bar.update(1)
        for note in result.notes:
            bar.write(f"arena: {result.record.match_id}: {printable(note)}", file=sys.stderr)
        if as_json:
            bar.write(json.dumps(result_json(result)), file=sys.stdout)
            sys.stdout.flush()  # a line per game as it ends, for a reader following the pipe
        elif verbose or games == 1:
            bar.write(format_game(result), file=sys.stdout)
        if test is not None and test.add(result.record):
            bar.set_postfix_str(test.progress(), refresh=False)
            if bar.disable and test.test.games % SPRT_REPORT_EVERY == 0:
                typer.echo(f"sprt: {test.test.games} games, {test.progress()}", err=True)

    stop = (lambda: test.test.verdict is not None) if test is not None else None
    try:
        asyncio.run(run_series(engine, specs, config, on_result, on_step, stop=stop))
    except KeyboardInterrupt:
        bar.close()
        report_interrupted(played, games, as_json, test)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    bar.close()
    if not as_json and games > 1:
        typer.echo(format_summary(played))
        typer.echo(format_written(played))
    if test is not None:
        typer.echo(test.verdict_line(), err=as_json)
        if as_json:
            typer.echo(json.dumps({"sprt": test.test.to_json()}))
    failures = bot_failures(played)
    for line in failures:
        typer.echo(printable(line), err=True)
    if view and any(r.replay for r in played):
        cli_view.serve(cli_view.replay_files([r.replay for r in played if r.replay]), "127.0.0.1", 0, True)
    if failures:
        raise typer.Exit(EXIT_BOT_FAILED)


def branch_start(
    replay: Path | None, step: int | None, game: str, bots: list[str], sprt: SprtParams | None
) -> tuple[Branch | None, str, list[str]]:
    """Returns the position ``--from``/``--step`` name (or None), the game and the bot arguments.

    With ``--from`` the game is the replay's, so GAME may be left out: the first argument is then a
    bot. Raises CliError for a replay that does not re-run to that step, or a bot count that differs.
    """
    if replay is None:
        if step is not None:
            raise CliError("--step needs --from REPLAY: the replay whose step to start at")
        return None, game, bots
    if step is None:
        raise CliError("--from needs --step K: the recorded decision step to start at (0: the first)")
    if sprt is not None:
        raise CliError("--sprt plays fresh deals; --from starts at a recorded one: give one of them")
    try:
        branch = branch_file(replay, step)
    except ReplayError as exc:
        raise CliError(str(exc)) from None
    name = branch.game.spec.name
    try:
        game_given = get_game(game).spec.name == name
    except GameError:
        game_given = False  # GAME left out: the first argument is a bot
    bots = bots if game_given else [game, *bots]
    if len(bots) != branch.players:
        raise CliError(f"{replay} was played by {branch.players} bots: give {branch.players}, one per seat")
    return branch, name, bots


def bot_specs(game: str, bots: list[str]) -> list[BotSpec]:
    """Returns how to run each bot argument; raises CliError naming the one that cannot be read."""
    specs = []
    for bot in bots:
        try:
            specs.append(resolve_bot(game, bot))
        except BotSpecError as exc:
            raise CliError(str(exc)) from None
        except ValueError as exc:  # shlex: an unclosed quote, a trailing backslash
            raise CliError(f"cannot read the bot command {bot!r}: {exc}") from None
    return specs


def default_join_timeout(specs: list[BotSpec]) -> float:
    """Returns the seconds bots may take to join: longer when a seat waits for a bot started by hand."""
    return JOIN_TIMEOUT_WAIT if any(spec.kind == "wait" for spec in specs) else JOIN_TIMEOUT_DEFAULT


def series_length(games: int | None, sprt: SprtParams | None, bots: int) -> int:
    """Returns the number of games to play (at most, with ``sprt``: a whole number of pairs), or
    raises CliError when ``--sprt`` cannot apply."""
    if sprt is None:
        return games or 1
    if bots != 2:
        raise CliError(f"--sprt compares two bots, not {bots}: give exactly two")
    games = SPRT_MAX_GAMES if games is None else games
    if games < 2:
        raise CliError("--sprt plays pairs of games (one seed, seats swapped): give --games 2 or more")
    return games - games % 2


def announce_limits(limits: BotLimits, verbose: bool) -> None:
    """Checks that the sandbox can start here (raises CliError saying why not and what to do), then
    says how bots run: always when they run unconfined, else with ``verbose``."""
    if limits.sandbox:
        try:
            check_sandbox(limits)
        except SandboxError as exc:
            raise CliError(str(exc)) from None
    if verbose or not limits.sandbox:
        say(limits.describe())


app.add_typer(cli_replay.app)
app.add_typer(cli_tournament.app)
app.add_typer(cli_logs.app)
app.add_typer(cli_view.app)
app.add_typer(cli_ladder.app)
app.add_typer(cli_leaderboard.app)
app.add_typer(cli_bots.app, name="bots")
app.add_typer(cli_server.app)
app.add_typer(cli_storage.app, name="storage")


def main() -> None:
    """Entry point of the ``arena`` console script: one-line errors with exit code 2 for bad input."""
    try:
        code = app(standalone_mode=False, prog_name="arena")
    except CliError as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except UsageError as exc:
        if type(exc).__name__ == "NoArgsIsHelpError" and exc.ctx is not None:
            print(exc.ctx.get_help())
            sys.exit(0)
        hint = f" (see '{exc.ctx.command_path if exc.ctx else 'arena'} --help')"
        print(f"arena: error: {exc.format_message()}{hint}", file=sys.stderr)
        sys.exit(2)
    except ClickException as exc:
        print(f"arena: error: {exc.format_message()}", file=sys.stderr)
        sys.exit(exc.exit_code)
    except (typer.Abort, KeyboardInterrupt):
        print("arena: interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
