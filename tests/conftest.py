"""Shared fixtures and helpers for the test suite."""

from __future__ import annotations

import dataclasses
import json
import os
import random
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from arena.games import get_game
from arena.games.base import Game
from arena.games.play import play
from arena.referee.replay import ReplayWriter


def random_playout(
    game: Game, num_players: int, seed: int, policy_seed: int = 0
) -> Iterator[tuple[Any, dict]]:
    """Yields (state, actions) for every step of a seeded random game, then (final state, {})."""
    rng = random.Random(f"{seed}/{policy_seed}")
    state = game.initial_state(num_players, seed)
    for step in play(game, state, lambda turn, seat: rng.randrange(len(turn.legal[seat]))):
        yield state, {d.seat: d.action for d in step.decisions}
        state = step.state
    yield state, {}


def replay_of_random_game(game_name: str, seed: int, bots: list[str], match_id: str) -> tuple[str, Any]:
    """Returns (replay text, MatchRecord) of a seeded random game, as the referee would write them."""
    from arena.referee.record import final_record

    game = get_game(game_name)
    writer = ReplayWriter(ReplayWriter.header(match_id, game.spec.name, seed, bots, 2000, 3))
    rng = random.Random(f"{seed}/0")
    state, steps = game.initial_state(len(bots), seed), 0
    for step in play(game, state, lambda turn, seat: rng.randrange(len(turn.legal[seat]))):
        writer.step(game, step)
        state, steps = step.state, step.number + (1 if step.decisions else 0)
    none = [False] * len(bots)
    record = final_record(game, state, match_id, seed, bots, none, [0] * len(bots), steps)
    writer.result(record)
    return writer.text(), record


def walk(value: Any) -> Iterator[Any]:
    """Yields every dataclass instance nested in ``value`` (itself included), depth first."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        yield value
        for field in dataclasses.fields(value):
            yield from walk(getattr(value, field.name))
    elif isinstance(value, tuple | list):
        for item in value:
            yield from walk(item)


def play_bots(
    game: Game,
    bots: list,
    seed: int,
    match_id: str | None = None,
    watch: Callable[[Any], None] | None = None,
    on_step: Callable[[Any], None] | None = None,
) -> Any:
    """Plays one game in-process between SDK bot instances (seat i = bots[i]); returns the final state.

    No referee, no gRPC: for rules tests and strength checks of built-in bots. ``watch`` sees the
    true state before each decision (a measurement's oracle; never a bot's view); ``on_step`` gets
    every ``Step`` (its events included) as it is played.
    """
    from datetime import timedelta

    from arena.sdk import MatchInfo

    names = tuple(type(b).name for b in bots)
    for seat, bot in enumerate(bots):
        bot.on_match_start(
            MatchInfo(
                match_id or f"local-{seed}", game.spec.name, seat, len(bots), names, timedelta(seconds=2), 3
            )
        )

    def choose(turn: Any, seat: int) -> int:
        if watch is not None:
            watch(turn.state)
        legal = turn.legal[seat]
        choice = bots[seat].choose(game.observe(turn.state, seat), legal, timedelta(seconds=2))
        return choice if isinstance(choice, int) else legal.index(choice)

    state = game.initial_state(len(bots), seed)
    for step in play(game, state, choose):
        state = step.state
        if on_step is not None:
            on_step(step)
    return state


REPO = Path(__file__).resolve().parent.parent


def run_arena(*args: str, env: dict | None = None, timeout: float = 240) -> Any:
    """Runs the arena CLI as a user would (a new process); returns the CompletedProcess."""
    import os
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
        cwd=REPO,
    )


def json_lines(text: str) -> list[dict]:
    """Returns the JSON objects of a JSON Lines text."""
    import json

    return [json.loads(line) for line in text.splitlines() if line.strip()]


KIT_GAMES = ("ninjan", "ninja-burger", "pnrz", "ninja-master")  # every game a starter kit must play


def play_kit_bot(bot: Path, game: str, replay_dir: Path, *options: str) -> dict:
    """Plays one game of a starter kit's built ``bot`` against the built-in random bot; returns the kit
    bot's player result, after checking that the replay records decisions it made."""
    proc = run_arena("match", game, str(bot), "random", "--json", "--replay-dir", str(replay_dir), *options)
    assert proc.returncode == 0, proc.stderr
    (result,) = json_lines(proc.stdout)
    player = next(p for p in result["players"] if p["bot"] == "bot")
    replay = json_lines(Path(result["replay"]).read_text())
    assert any(x["type"] == "decision" and x["by"] == "bot" and x["seat"] == player["seat"] for x in replay)
    return player


def reports_in_logs(folder: Path, prefix: str) -> list[dict]:
    """Returns the JSON of every ``PREFIX {json}`` line in the bot logs (``*.log``) under ``folder``.

    Test bots run sandboxed: they can write no file of the test's, so they report on their stdout,
    which the referee keeps in their log (``<replay-dir>/logs/<index>-<name>.log`` for ``arena match``,
    ``SeriesConfig.log_dir`` for ``run_series``). Logs are read in name order, each from its start.
    """
    start = f"{prefix} "
    reports = []
    for log in sorted(folder.rglob("*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith(start):
                reports.append(json.loads(line[len(start) :]))
    return reports


def processes_named(tag: str) -> list[int]:
    """Returns the pids of the host's processes whose command line contains ``tag``.

    A sandboxed bot's pids are those of its PID namespace; a tag in a child's command line is how the
    host finds that child.
    """
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if tag.encode() in Path(f"/proc/{name}/cmdline").read_bytes():
                    found.append(int(name))
            except OSError:
                continue
    return found


SEED_KEY = bytes(range(32))  # the platform's seed key in tests that run tournaments (arena.seeds)
SEED_KEY_ENV = {"ARENA_SEED_KEY": SEED_KEY.hex()}  # ... handed to the arena processes they start


def free_port() -> int:
    """Returns a TCP port on loopback that nothing listens on right now."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """A private redis-server on a free loopback port with its data in ``folder`` (never 6379).

    ``stop`` and ``start`` again keep the port and the data folder, so with ``appendonly`` a restart
    finds the data it had; ``kill`` stops it without the final write of a shutdown.
    """

    def __init__(self, folder: Any, appendonly: bool = False) -> None:
        self.folder = folder
        self.port = free_port()
        self.appendonly = appendonly
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: Any = None

    def start(self) -> None:
        """Starts the server and returns once it answers PING (loading its data included)."""
        import subprocess

        import redis

        argv = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.folder)]
        argv += ["--save", "", "--appendonly", "yes" if self.appendonly else "no"]
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_connect_timeout=1)
        for _ in range(400):
            try:
                if client.ping():
                    return
            except redis.RedisError:
                pass
            if self.proc.poll() is not None:
                break
            __import__("time").sleep(0.05)
        raise RuntimeError(f"redis-server on port {self.port} did not start")

    def stop(self) -> None:
        """Shuts the server down cleanly (SIGTERM: the append-only file is flushed)."""
        self.proc.terminate()
        self.proc.wait()

    def kill(self) -> None:
        """Kills the server at once (SIGKILL), as a crash would."""
        self.proc.kill()
        self.proc.wait()


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Returns the URL of a private redis-server for the module's tests."""
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    server.start()
    yield server.url
    server.kill()


@pytest.fixture
def client(redis_url: str) -> Any:
    """Returns a client of the module's private Redis, flushed, with the workers' group created."""
    from arena.queue.connection import connect
    from arena.queue.jobs import ensure_group

    c = connect(redis_url)
    c.flushall()
    ensure_group(c)
    return c


GATED_BOT = REPO / "tests" / "bots" / "gated.py"


class Gate:
    """The test's side of the gate that tests/bots/gated.py holds each of its matches at.

    A fault test grants a few permits (each lets one match through), waits until those matches are
    over and the next ones are held (``holds``), breaks something while they are held, then ``open``s
    the gate: nothing depends on how fast a match is. The folder is the bot's ``GATE`` variable; a
    sandboxed bot cannot see it, so gated bots run unconfined (``--no-sandbox``).
    """

    def __init__(self, folder: Path) -> None:
        """Creates the gate, closed, in ``folder`` (a new folder)."""
        self.folder = folder
        folder.mkdir(parents=True)
        self._granted = 0

    def grant(self, n: int) -> None:
        """Lets ``n`` more matches through, whichever bots claim the permits first."""
        for _ in range(n):
            self._granted += 1
            (self.folder / f"permit.{self._granted}").touch()

    def open(self) -> None:
        """Lets every match through, held ones and later ones."""
        (self.folder / "open").touch()

    def claimed_all(self) -> bool:
        """Returns True when every permit granted so far was claimed by a match."""
        return not any(self.folder.glob("permit.*"))

    def held(self) -> int:
        """Returns how many matches wait at the gate now (markers of bots that died are not counted)."""
        count = 0
        for marker in self.folder.glob("waiting.*"):
            try:
                alive = psutil.Process(int(marker.suffix[1:])).status() != psutil.STATUS_ZOMBIE
            except psutil.NoSuchProcess:
                alive = False
            count += alive
        return count

    def holds(self, n: int) -> bool:
        """Returns True when every permit was claimed and ``n`` matches wait at the gate: the granted
        matches are over and their workers moved on (a bot's next match starts after its last one)."""
        return self.claimed_all() and self.held() == n


def submit_gated(client: Any, gate: Gate, parent: Path, name: str = "gated") -> str:
    """Submits tests/bots/gated.py as the Ninjan bot ``name``, held at ``gate``; returns its version.

    The bot is copied alone into a new folder under ``parent``, and its entry declares ``GATE``.
    """
    from arena.submissions import registry

    folder = parent / f"{name}-bot"
    folder.mkdir()
    shutil.copy(GATED_BOT, folder / "bot.py")
    entry = f"GATE={gate.folder} python bot.py"
    submitted, _ = registry.submit(client, name, ["ninjan"], directory=folder, entry=entry)
    return submitted.version
