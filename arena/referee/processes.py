"""Bot processes: what a bot argument of ``arena match`` means, and how its process is run.

A bot is a built-in name (``random``), a path to a Python file that uses the SDK, or any shell command
(quoted, e.g. ``"node bots/node/bot.js"``). Each runs as its own process in its own process group,
with the referee address and its seat token in the environment; stopping it stops the whole group.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shlex
import signal
import subprocess
import sys
import time
from collections import deque
from pathlib import Path

from arena.bots import builtin_bots


class BotSpecError(ValueError):
    """A bot argument that names nothing runnable."""


@dataclasses.dataclass(frozen=True)
class BotSpec:
    name: str  # display name
    argv: tuple[str, ...]  # the command; for a shell command, ("/bin/sh", "-c", text)
    kind: str  # "builtin", "file", "command" or "submitted"
    cwd: Path | None = None  # the process's working directory; None: the referee's


def resolve_bot(game: str, text: str) -> BotSpec:
    """Returns how to run the bot that ``text`` names for ``game``; raises BotSpecError."""
    builtins = builtin_bots(game)
    if text in builtins:
        return BotSpec(text, (sys.executable, "-m", "arena.bots", game, text), "builtin")
    path = Path(text)
    if path.suffix == ".py" and " " not in text:
        if not path.is_file():
            raise BotSpecError(f"bot file {text} does not exist")
        return BotSpec(path.stem, (sys.executable, str(path.resolve())), "file")
    words = shlex.split(text) if text.strip() else []
    if len(words) > 1 or (words and (os.access(text, os.X_OK) and path.is_file())):
        return BotSpec(_command_name(words), ("/bin/sh", "-c", text), "command")
    valid = ", ".join(sorted(builtins)) or "none"
    raise BotSpecError(
        f"unknown bot {text!r} for {game}: built-in bots are {valid}; "
        "or give a path to a Python bot file (my_bot.py) or a quoted shell command ('node bots/node/bot.js')"
    )


def _command_name(words: list[str]) -> str:
    for word in reversed(words):
        if "/" in word or "." in word:
            return Path(word).stem or word
    return Path(words[0]).name


class BotProcess:
    """One running bot process. Its stdout and stderr go to ``log_path``."""

    def __init__(self, spec: BotSpec, env: dict[str, str], log_path: Path) -> None:
        self.spec = spec
        self.log_path = log_path
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(log_path, "ab") as log:
            self.popen = subprocess.Popen(
                spec.argv,
                env={**os.environ, **env},
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
                cwd=spec.cwd,
            )

    @property
    def exit_code(self) -> int | None:
        """Returns the exit code, or None while the process runs."""
        return self.popen.poll()

    def log_tail(self, lines: int = 5) -> str:
        """Returns the last lines the bot printed, joined by ' | '."""
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as log:
                tail = deque((line.rstrip() for line in log if line.strip()), maxlen=lines)
        except OSError:
            return ""
        return " | ".join(tail)

    def stop(self, grace: float = 2.0) -> None:
        """Lets the process exit by itself within ``grace`` seconds, then ends its whole process group."""
        deadline = time.monotonic() + grace
        while self.popen.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.popen.pid, sig)
            except (ProcessLookupError, PermissionError):
                break
            try:
                self.popen.wait(timeout=1.0)
            except subprocess.TimeoutExpired:
                continue
            if sig is signal.SIGTERM:
                # the leader is gone; make sure no child it left in the group survives
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.popen.pid, signal.SIGKILL)
                break
