"""Shared fixtures and helpers for the test suite."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest

from arena.games import GAMES

# The harness shipped in arena.testing (bench/ uses it too); imported here for the tests that name them.
from arena.testing import (  # noqa: F401
    RedisServer,
    free_port,
    play_bots,
    random_playout,
    replay_of_random_game,
    walk,
)

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


def default_ctrl_c() -> None:
    """``preexec_fn`` of a child ``arena`` that a test sends Ctrl-C (SIGINT): puts SIGINT back to its
    default. A suite started in the background (a shell's ``&``, ``nohup``) runs with SIGINT ignored,
    the child inherits that, and ignored stays ignored through exec: the child would never stop.
    ``arena`` itself keeps an ignored SIGINT ignored (its ladder's workers rely on it)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def json_lines(text: str) -> list[dict]:
    """Returns the JSON objects of a JSON Lines text."""
    import json

    return [json.loads(line) for line in text.splitlines() if line.strip()]


def game_lines(text: str) -> list[dict]:
    """Returns the games of ``arena match --json``'s output: every line but the series' last ones
    (``{"summary": ...}`` after two or more games, ``{"sprt": ...}`` with --sprt)."""
    return [line for line in json_lines(text) if "match_id" in line]


KIT_GAMES = tuple(GAMES)  # every game a starter kit must play: all of the registry's
# The smallest table of each game: what a test plays when the number of seats is not its subject.
SMALLEST = {name: game.spec.min_players for name, game in GAMES.items()}


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


def secret_file(folder: Path, secret: str) -> str:
    """Returns the path of a file in ``folder`` holding ``secret``, for ``--secret-file`` (a secret is
    never given on the command line)."""
    path = folder / f"secret-{len(list(folder.glob('secret-*')))}"
    path.write_text(secret + "\n")
    return str(path)
