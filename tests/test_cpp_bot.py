"""The C++ starter kit (bots/cpp): built as bots/README.md says, a static binary that plays every game
through `arena match`.

The bot is built once per module with bots/cpp/build.sh, which generates the C++ code of proto/ with
protoc and grpc_cpp_plugin and links it statically against Debian's gRPC C++ archives
(scripts/install-go-kit installs libgrpc++-dev and protobuf-compiler-grpc; scripts/test runs it). The
build takes about 40 seconds on two cores.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import KIT_GAMES, REPO, play_kit_bot

BUILD = REPO / "bots" / "cpp" / "build.sh"
pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def cpp_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cpp-bot")
    proc = subprocess.run([str(BUILD), str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"bots/cpp/build.sh failed:\n{proc.stderr}"
    return out / "bot"


def test_cpp_bot_is_a_static_binary_alone_in_its_folder(cpp_bot: Path) -> None:
    """A worker has no gRPC shared library: the binary needs none, and the folder holds only it."""
    assert [p.name for p in cpp_bot.parent.iterdir()] == ["bot"]
    assert cpp_bot.read_bytes()[:4] == b"\x7fELF"
    ldd = subprocess.run(["ldd", str(cpp_bot)], capture_output=True, text=True, timeout=30)
    assert "not a dynamic executable" in ldd.stdout + ldd.stderr


@pytest.mark.parametrize("game", KIT_GAMES)
def test_cpp_bot_plays_every_game_sandboxed(cpp_bot: Path, game: str, tmp_path: Path) -> None:
    """Sandboxed (the default), the bot sees only /usr and its folder and reaches the referee on a Unix
    socket."""
    player = play_kit_bot(cpp_bot, game, tmp_path)
    assert not player["forfeit"] and player["strikes"] == 0


def test_cpp_bot_connects_over_tcp_unconfined(cpp_bot: Path, tmp_path: Path) -> None:
    """Unconfined (or started by hand), ARENA_ADDRESS is host:port instead of a unix:// target."""
    player = play_kit_bot(cpp_bot, "ninjan", tmp_path, "--no-sandbox")
    assert not player["forfeit"] and player["strikes"] == 0


def test_cpp_bot_says_what_is_missing_without_a_referee(cpp_bot: Path) -> None:
    proc = subprocess.run(
        [str(cpp_bot)], capture_output=True, text=True, timeout=30, env={"PATH": "/usr/bin"}
    )
    assert proc.returncode == 2
    assert "ARENA_ADDRESS" in proc.stderr
