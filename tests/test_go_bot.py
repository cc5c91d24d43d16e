"""The Go starter kit (bots/go): built as bots/go/README.md says, it plays every game through `arena
match`, sandboxed and as a submitted bot, with no strike, and its default strategy wins at least 60% of
its games outright against `random` at 2 seats in every game (200 seeded games each).

The bot is built once per module with bots/go/build.sh, which generates the Go code of proto/ outside
its output folder and compiles it against Debian's gRPC-Go in GOPATH mode (scripts/install-go-kit
installs the packages; scripts/test runs it). A cold Go build cache makes the first build take about a
minute on a busy machine.
"""

from __future__ import annotations

import os
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

BUILD = REPO / "bots" / "go" / "build.sh"
pytestmark = pytest.mark.e2e  # the toolchain is installed by scripts/test (scripts/install-go-kit): no skip


@pytest.fixture(scope="module")
def go_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("go-bot")
    proc = subprocess.run([str(BUILD), str(out)], capture_output=True, text=True, timeout=480)
    assert proc.returncode == 0, f"bots/go/build.sh failed:\n{proc.stderr}"
    return out / "bot"


def test_go_bot_is_a_stripped_static_binary_alone_in_its_folder(go_bot: Path) -> None:
    """OUT holds the binary and nothing else (the generated sources stay in the build's work folder),
    linked statically and stripped of its symbol tables."""
    assert [p.name for p in go_bot.parent.iterdir()] == ["bot"]
    ldd = subprocess.run(["ldd", str(go_bot)], capture_output=True, text=True, timeout=30)
    assert "not a dynamic executable" in ldd.stdout + ldd.stderr
    assert b".symtab" not in go_bot.read_bytes()  # section names: -s leaves neither .symtab
    assert go_bot.stat().st_size < 10_000_000  # 8.6 MB with Debian's gRPC-Go 1.33 (12.6 MB unstripped)


def test_go_bot_runs_with_nothing_but_its_folder(go_bot: Path) -> None:
    """No shared library, no loader, no /usr: what a worker without Go, gRPC or C++ runtimes offers."""
    check_runs_alone(go_bot)


@pytest.mark.parametrize("game", KIT_GAMES)
def test_go_bot_plays_every_game_sandboxed(go_bot: Path, game: str, tmp_path: Path) -> None:
    """Sandboxed (the default), the bot sees only its folder and reaches the referee on a Unix socket."""
    check_plays(go_bot, game, tmp_path)


def test_go_bot_connects_over_tcp_unconfined(go_bot: Path, tmp_path: Path) -> None:
    """Unconfined (or started by hand), ARENA_ADDRESS is host:port instead of a unix:// target."""
    check_plays(go_bot, "ninjan", tmp_path, "--no-sandbox")


def test_go_bot_says_what_is_missing_without_a_referee(go_bot: Path) -> None:
    proc = subprocess.run([str(go_bot)], capture_output=True, text=True, timeout=30, env={"PATH": "/usr/bin"})
    assert proc.returncode == 2
    assert "ARENA_ADDRESS" in proc.stderr


@pytest.mark.slow
@pytest.mark.timeout(STRENGTH_TIMEOUT)
@pytest.mark.parametrize("game", KIT_GAMES)
def test_go_bot_wins_most_games_against_random(go_bot: Path, game: str, tmp_path: Path) -> None:
    """200 seeded games at 2 seats, sandboxed: first alone in at least 60% of them, never a strike."""
    check_strength(go_bot, game, tmp_path)


@pytest.mark.slow
@pytest.mark.timeout(STRENGTH_TIMEOUT)
def test_go_bot_plays_every_game_as_a_submitted_bot(
    go_bot: Path, redis_url: str, client: object, tmp_path: Path
) -> None:
    check_submitted(go_bot, redis_url, client, tmp_path / "state")


def test_the_upgrade_note_for_the_go_package_options(tmp_path: Path) -> None:
    """bots/go/README.md: a client generated with M flags into a package of its own name sees
    `undefined: arenapb` since the options name the package arenav1; naming the import fixes it."""
    gopath = tmp_path / "gopath"
    (gopath / "src").mkdir(parents=True)
    protos = sorted((REPO / "proto" / "arena" / "v1").glob("*.proto"))
    flags = [f"--go_opt=M{p.relative_to(REPO / 'proto')}=example.com/bot/arenapb" for p in protos]
    generate = ["protoc", "-I", str(REPO / "proto"), f"--go_out={gopath / 'src'}", *flags, *map(str, protos)]
    subprocess.run(generate, check=True, capture_output=True, timeout=60)
    client = gopath / "src" / "example.com" / "bot" / "client"
    client.mkdir()
    source = 'package main\n\nimport {imported}\n\nfunc main() {{ _ = &arenapb.Join{{Token: "t"}} }}\n'
    env = {**os.environ, "GO111MODULE": "off", "GOPATH": f"{gopath}:/usr/share/gocode", "CGO_ENABLED": "0"}

    def build(imported: str) -> subprocess.CompletedProcess:
        (client / "main.go").write_text(source.format(imported=imported))
        argv = ["go", "build", "-o", os.devnull, "."]
        return subprocess.run(argv, cwd=client, env=env, capture_output=True, text=True, timeout=300)

    old = build('"example.com/bot/arenapb"')
    assert old.returncode != 0 and "undefined: arenapb" in old.stderr
    fixed = build('arenapb "example.com/bot/arenapb"')
    assert fixed.returncode == 0, fixed.stderr
