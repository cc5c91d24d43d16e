"""The Go starter kit (bots/go): built as bots/README.md says, it plays every game through `arena match`.

The bot is built once per module with bots/go/build.sh, which generates the Go code of proto/ and
compiles it against Debian's gRPC-Go in GOPATH mode (scripts/install-go-kit installs the packages;
scripts/test runs it). A cold Go build cache makes the first build take about a minute.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import KIT_GAMES, REPO, play_kit_bot

BUILD = REPO / "bots" / "go" / "build.sh"
TOOLS = ("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc")
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        any(shutil.which(t) is None for t in TOOLS),
        reason=f"the Go starter kit needs {', '.join(TOOLS)}: run scripts/install-go-kit",
    ),
]


@pytest.fixture(scope="module")
def go_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("go-bot")
    proc = subprocess.run([str(BUILD), str(out)], capture_output=True, text=True, timeout=480)
    assert proc.returncode == 0, f"bots/go/build.sh failed:\n{proc.stderr}"
    return out / "bot"


@pytest.mark.parametrize("game", KIT_GAMES)
def test_go_bot_plays_every_game_sandboxed(go_bot: Path, game: str, tmp_path: Path) -> None:
    """Sandboxed (the default), the bot sees only its folder and reaches the referee on a Unix socket."""
    player = play_kit_bot(go_bot, game, tmp_path)
    assert not player["forfeit"] and player["strikes"] == 0


def test_go_bot_connects_over_tcp_unconfined(go_bot: Path, tmp_path: Path) -> None:
    """Unconfined (or started by hand), ARENA_ADDRESS is host:port instead of a unix:// target."""
    player = play_kit_bot(go_bot, "ninjan", tmp_path, "--no-sandbox")
    assert not player["forfeit"] and player["strikes"] == 0


def test_go_bot_says_what_is_missing_without_a_referee(go_bot: Path) -> None:
    proc = subprocess.run([str(go_bot)], capture_output=True, text=True, timeout=30, env={"PATH": "/usr/bin"})
    assert proc.returncode == 2
    assert "ARENA_ADDRESS" in proc.stderr
