"""``arena match``: play a series of games between bots on this machine and print the results.

``app`` holds the command; ``arena.cli.main`` adds it to its own. What it prints about a series is
``arena.cli.series``; its bot limits are one option group (``arena.cli.options.BotLimitOptions``).

``arena match A B --sprt elo0=..,elo1=..`` is a head-to-head test that stops as soon as it decides:
each seed is dealt twice with the seats swapped (``SeriesConfig.duplicate``), and each pair's score
feeds fishtest's pentanomial SPRT (``arena.ratings.sprt``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Annotated

import typer

from arena.cli import view as cli_view
from arena.cli.errors import CliError
from arena.cli.options import BotLimitOptions, GameArgument, takes_option_groups
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
    summary_json,
)
from arena.console import printable, say
from arena.games import GameError, get_game
from arena.games.base import Game
from arena.paths import state_dir
from arena.ratings.sprt import Sprt, SprtParams, SprtSpecError
from arena.referee.branch import Branch, branch_file
from arena.referee.inprocess import TRUST_WARNING, InProcessError, LocalBot, from_spec, run_local_series
from arena.referee.match import MatchConfig
from arena.referee.processes import BotLimits, BotSpec, BotSpecError, resolve_bot
from arena.referee.replay import ReplayError
from arena.referee.runner import GameResult, SeriesConfig, run_series, unique_names
from arena.referee.sandbox import SandboxError
from arena.referee.sandbox_check import check_sandbox
from arena.seeds import fresh_seed
from arena.wire_limits import DEADLINE_MS_MAX, MAX_STRIKES_MAX

SPRT_MAX_GAMES = 20000  # --games when --sprt is given without it
SPRT_REPORT_EVERY = 20  # games between progress lines when stderr is not a terminal
JOIN_TIMEOUT_MAX = 86400.0  # seconds: a day, for a bot started by hand in a debugger
JOIN_TIMEOUT_DEFAULT, JOIN_TIMEOUT_WAIT = 15.0, 600.0  # seconds; the second when a seat is @wait
EXIT_BOT_FAILED, EXIT_INTERRUPTED = 1, 130

app = typer.Typer()


def parse_sprt(text: str) -> SprtParams:
    """Returns the parameters of ``--sprt``; a bad text is a usage error with the parser's message."""
    try:
        return SprtParams.parse(text)
    except SprtSpecError as exc:
        raise typer.BadParameter(str(exc)) from None


# -- the options of arena match (its bot limits: BotLimitOptions) --------------------------------------

BotsArgument = Annotated[
    list[str],
    typer.Argument(
        help="One bot per seat: a built-in name, a .py file, a quoted shell command, or @wait[:NAME] "
        "for a bot you start yourself (the address and token to give it are printed). NAME:BOT names "
        "the seat (me:bots/python/first_bot.py); else the seat is named by what its bot sends in Join, "
        "else by its file's stem or folder (bots/node/bot.js: node); repeats get #2. A .py file starts "
        "in its folder and sees it. A shell command sees its own folder, its file's (or the one above "
        "a bin/, build/, src/...; the current one for sh -c '...'), and starts in the current folder: "
        "run from the bot's folder, sh bin/wrap.sh starts as it does on a worker when submitted with "
        "--dir . (in /bot). Folders are seen read-only at their own path (docs/bots.md)."
    ),
]
SeedOption = Annotated[
    int | None,
    typer.Option(
        help="Seed of the series, for reproducing local runs with trusted bots (each game's seed is a "
        "hash of it; a bot can guess a small one from its hand). Default: 64 random bits, shown."
    ),
]
GamesOption = Annotated[
    int | None,
    typer.Option(
        "--games",
        min=1,
        help="Number of games; seats rotate between games. With --sprt, the most to play, in pairs "
        f"(an odd number is rounded down). Default: 1; with --sprt, {SPRT_MAX_GAMES}.",
    ),
]
SprtOption = Annotated[
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
        '{"sprt": {"verdict": "H0"|"H1"|"none", "games", "llr", "lower", "upper"}}. Cost: every game '
        "starts fresh bot processes (a process must not remember a deal it plays again). Where arena "
        "may give a niced process its priority back (root, CAP_SYS_NICE), the next game's bots start, "
        "niced, while a game plays; elsewhere each game also waits for its bots to start (about half a "
        "second of CPU per Python bot): several times a plain series' time per game when games are "
        "short (docs/ladder.md has the figures).",
    ),
]
DeadlineMsOption = Annotated[
    int,
    typer.Option(
        min=0,
        max=DEADLINE_MS_MAX,
        help="Time allowed per decision, in milliseconds; 0: no deadline (for a @wait seat's bot "
        "stepped through in a debugger).",
    ),
]
MaxStrikesOption = Annotated[
    int, typer.Option(min=1, max=MAX_STRIKES_MAX, help="Bad or late answers before a seat forfeits.")
]
ReplayDirOption = Annotated[
    Path | None,
    typer.Option(
        help="Folder for the replays, and the bots' logs in its logs/ folder; a replay or log whose name "
        "is taken gets a new one (-2, -3...). Default: $XDG_STATE_HOME/arena/replays."
    ),
]
JoinTimeoutOption = Annotated[
    float | None,
    typer.Option(
        min=0.1,
        max=JOIN_TIMEOUT_MAX,
        help=f"Seconds a bot may take to connect. Default: {JOIN_TIMEOUT_DEFAULT:g}; "
        f"{JOIN_TIMEOUT_WAIT:g} when a seat is @wait.",
    ),
]
FromOption = Annotated[
    Path | None,
    typer.Option(
        "--from",
        metavar="REPLAY",
        show_default="none: from the start",
        help="Start at the position of --step K of this replay (its seed and history) with the bots "
        "given, one per recorded seat (GAME may then be left out); seats do not rotate.",
    ),
]
StepOption = Annotated[
    int | None,
    typer.Option(
        "--step",
        min=0,
        show_default="none",
        help="With --from: the recorded decision step to start at (0: the first).",
    ),
]
ViewOption = Annotated[
    bool,
    typer.Option("--view", help="Then serve the games played in the web replay viewer (as arena view does)."),
]
InProcessOption = Annotated[
    bool,
    typer.Option(
        "--in-process",
        help="Play the bots inside this process: no sandbox, no bot processes, no gRPC; built-in and "
        ".py bots only, the same rules, strikes and replays. Faster (no bot processes to start, no round "
        "trips), for training and tuning: "
        "trusted bots only (a bot reads the whole game's state and runs with your rights).",
    ),
]
VerboseOption = Annotated[bool, typer.Option("-v", "--verbose", help="Print a play-by-play.")]
JsonGamesOption = Annotated[
    bool,
    typer.Option(
        "--json",
        help='Print one JSON object per game on stdout; after two or more games, a last {"summary": '
        '{"game", "games", "pairs": [{"bot", "opponent", "wins", "draws", "losses", "elo", "elo_error", '
        '"los", "draw_ratio", ...}]}} (then --sprt\'s line).',
    ),
]


@app.command("match")
@takes_option_groups
def match_command(
    game: GameArgument,
    bots: BotsArgument,
    seed: SeedOption = None,
    games: GamesOption = None,
    sprt: SprtOption = None,
    deadline_ms: DeadlineMsOption = 2000,
    max_strikes: MaxStrikesOption = 3,
    replay_dir: ReplayDirOption = None,
    join_timeout: JoinTimeoutOption = None,
    from_replay: FromOption = None,
    step: StepOption = None,
    view: ViewOption = False,
    in_process: InProcessOption = False,
    verbose: VerboseOption = False,
    as_json: JsonGamesOption = False,
    *,
    limits: BotLimitOptions,
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
    engine = game_engine(game, len(bots))
    specs = bot_specs(engine.spec.name, bots)
    games = series_length(games, sprt, len(bots))
    replay_dir = writable_folder(replay_dir or state_dir() / "replays", "--replay-dir")
    bot_limits = limits.bot_limits()
    local = in_process_bots(engine.spec.name, specs) if in_process else None
    if local is None:
        announce_limits(bot_limits, verbose)
    config = SeriesConfig(
        games=games,
        # Design detail: every hidden card and future roll is drawn from the seed, so an unguessable
        # one is the default; a chosen seed is for reproducing a game.
        seed=fresh_seed() if seed is None else seed,
        match=MatchConfig(deadline=timedelta(milliseconds=deadline_ms), max_strikes=max_strikes),
        replay_dir=replay_dir,
        log_dir=writable_folder(replay_dir / "logs", "--replay-dir"),
        join_timeout=timedelta(seconds=join_timeout or default_join_timeout(specs)),
        bot_limits=bot_limits,
        duplicate=sprt is not None,
        on_wait=announce_wait,
        branch=branch,
    )
    test = None
    if sprt:
        bot, opponent = unique_names(specs)  # two: series_length refuses --sprt otherwise
        test = SprtRun(Sprt.pentanomial(sprt), bot, opponent)
    config = dataclasses.replace(config, on_names=named(test))
    played = play_series(engine, specs, config, test, verbose, as_json, local)
    finish(played, test, as_json, view)


def in_process_bots(game: str, specs: list[BotSpec]) -> list[LocalBot]:
    """Returns the bots to play in this process (saying so: trusted bots only); raises CliError for
    a bot that cannot (a shell command, @wait, a file without one Bot subclass)."""
    try:
        local = [from_spec(game, spec) for spec in specs]
    except InProcessError as exc:
        raise CliError(str(exc)) from None
    say(TRUST_WARNING)
    return local


def named(test: SprtRun | None) -> Callable[[list[str]], None]:
    """Returns what to do once the bots' names are fixed (after they joined: a bot's Join may name its
    seat): the SPRT scores its two bots by those names."""

    def on_names(names: list[str]) -> None:
        if test is not None:
            test.bot, test.opponent = names

    return on_names


def play_series(
    engine: Game,
    specs: list[BotSpec],
    config: SeriesConfig,
    test: SprtRun | None,
    verbose: bool,
    as_json: bool,
    local: list[LocalBot] | None = None,
) -> list[GameResult]:
    """Plays the series (``local``: in this process), printing each game as it ends (and a progress
    bar for a long series); returns the games played. Ctrl-C prints the summary of those and exits
    130."""
    from tqdm import tqdm

    games = config.games
    on_step = play_by_play(engine) if verbose else None
    if on_step is not None:
        config = dataclasses.replace(config, on_game_start=on_step.begin)
    bar = tqdm(total=games, unit="game", disable=None if games > 1 and not verbose else True, file=sys.stderr)
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

    stop: Callable[[], bool] | None = (lambda: test.test.verdict is not None) if test is not None else None
    try:
        if local is not None:
            asyncio.run(run_local_series(engine, local, config, on_result, on_step, stop=stop))
        else:
            asyncio.run(run_series(engine, specs, config, on_result, on_step, stop=stop))
    except KeyboardInterrupt:
        bar.close()
        report_interrupted(played, games, as_json, test)
        raise typer.Exit(EXIT_INTERRUPTED) from None
    bar.close()
    if not as_json and games > 1:
        typer.echo(format_summary(played))
        typer.echo(format_written(played))
    elif played and games > 1:
        typer.echo(json.dumps(summary_json(played)))  # cutechess-cli's estimate, as the last game line
    return played


def finish(played: list[GameResult], test: SprtRun | None, as_json: bool, view: bool) -> None:
    """Prints the SPRT's verdict and a line per bot that failed, serves the replays with ``view``,
    and exits 1 when a bot failed."""
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


def game_engine(game: str, players: int) -> Game:
    """Returns the game named ``game``; raises CliError for an unknown one or a player count it
    does not take."""
    try:
        engine = get_game(game)
        engine.check_players(players)
    except GameError as exc:
        raise CliError(str(exc)) from None
    return engine


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


def writable_folder(path: Path, option: str) -> Path:
    """Returns ``path``, created if missing; raises CliError naming ``option`` unless it is a folder
    this user can write in (checked before any game is played, so no game's replay is lost)."""
    if path.exists() and not path.is_dir():
        raise CliError(f"{option} {path} is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"{option} {path}: cannot create the folder: {exc.strerror}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise CliError(f"{option} {path}: this user cannot write in it")
    return path


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
