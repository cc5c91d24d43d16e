"""Where arena keeps its files on this machine."""

from __future__ import annotations

import os
from pathlib import Path


def state_dir() -> Path:
    """Returns arena's state folder ($XDG_STATE_HOME/arena): replays, bot logs, the bot cache, the
    private Redis and the platform's seed key. No bot may read it (the sandbox hides it)."""
    base = os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "arena"
