"""The C++ starter kit (bots/cpp): built as bots/cpp/README.md says, a static binary that plays every
game through `arena match`, sandboxed and as a submitted bot, with no strike, and whose default strategy
wins at least 60% of its games outright against `random` at 2 seats in every game (200 seeded games
each).

The bot is built once per module with bots/cpp/build.sh, which generates the C++ code of proto/ with
protoc and grpc_cpp_plugin and links it statically against Debian's gRPC C++ archives
(scripts/install-go-kit installs libgrpc++-dev and protobuf-compiler-grpc; scripts/test runs it). The
build takes about a minute on two idle cores (the generated code is most of it).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import KIT_GAMES, REPO
from tests.test_kits_strength import (
    STRENGTH_TIMEOUT,
    check_plays,
    check_runs_alone,
    check_strength,
    check_submitted,
)

BUILD = REPO / "bots" / "cpp" / "build.sh"
pytestmark = pytest.mark.e2e  # the toolchain is installed by scripts/test (scripts/install-go-kit): no skip


@pytest.fixture(scope="module")
def cpp_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cpp-bot")
    proc = subprocess.run([str(BUILD), str(out)], capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"bots/cpp/build.sh failed:\n{proc.stderr}"
    return out / "bot"


def test_cpp_bot_is_a_static_binary_alone_in_its_folder(cpp_bot: Path) -> None:
    """A worker has no gRPC shared library: the binary needs none, and the folder holds only it."""
    assert [p.name for p in cpp_bot.parent.iterdir()] == ["bot"]
    assert cpp_bot.read_bytes()[:4] == b"\x7fELF"
    ldd = subprocess.run(["ldd", str(cpp_bot)], capture_output=True, text=True, timeout=30)
    assert "not a dynamic executable" in ldd.stdout + ldd.stderr
    assert b".symtab" not in cpp_bot.read_bytes()  # stripped
    assert cpp_bot.stat().st_size < 10_000_000  # 8.1 MB with Debian 12's gRPC 1.51 (grpc++_unsecure)


def test_cpp_bot_runs_with_nothing_but_its_folder(cpp_bot: Path) -> None:
    """No shared library, no loader, no /usr: what a worker without Go, gRPC or C++ runtimes offers."""
    check_runs_alone(cpp_bot)


@pytest.mark.parametrize("game", KIT_GAMES)
def test_cpp_bot_plays_every_game_sandboxed(cpp_bot: Path, game: str, tmp_path: Path) -> None:
    """Sandboxed (the default), the bot sees only /usr and its folder and reaches the referee on a Unix
    socket."""
    check_plays(cpp_bot, game, tmp_path)


def test_cpp_bot_connects_over_tcp_unconfined(cpp_bot: Path, tmp_path: Path) -> None:
    """Unconfined (or started by hand), ARENA_ADDRESS is host:port instead of a unix:// target."""
    check_plays(cpp_bot, "ninjan", tmp_path, "--no-sandbox")


def test_cpp_bot_says_what_is_missing_without_a_referee(cpp_bot: Path) -> None:
    proc = subprocess.run(
        [str(cpp_bot)], capture_output=True, text=True, timeout=30, env={"PATH": "/usr/bin"}
    )
    assert proc.returncode == 2
    assert "ARENA_ADDRESS" in proc.stderr


@pytest.mark.slow
@pytest.mark.timeout(STRENGTH_TIMEOUT)
@pytest.mark.parametrize("game", KIT_GAMES)
def test_cpp_bot_wins_most_games_against_random(cpp_bot: Path, game: str, tmp_path: Path) -> None:
    """200 seeded games at 2 seats, sandboxed: first alone in at least 60% of them, never a strike."""
    check_strength(cpp_bot, game, tmp_path)


@pytest.mark.slow
@pytest.mark.timeout(STRENGTH_TIMEOUT)
def test_cpp_bot_plays_every_game_as_a_submitted_bot(
    cpp_bot: Path, redis_url: str, client: object, tmp_path: Path
) -> None:
    check_submitted(cpp_bot, redis_url, client, tmp_path / "state")
