"""A bot in a second language: the Node.js example (bots/node) plays through the same .proto."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO, game_lines, json_lines, run_arena

NODE_DIR = REPO / "bots" / "node"
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
]


@pytest.fixture(scope="module")
def node_modules() -> Path:
    if not (NODE_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir() or not (NODE_DIR / "proto").is_dir():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("node is installed but npm is not: install npm to run the Node.js bot test")
        subprocess.run([npm, "install", "--no-audit", "--no-fund"], cwd=NODE_DIR, check=True, timeout=300)
    return NODE_DIR / "node_modules"


def test_node_bot_plays_full_matches(tmp_path: Path, node_modules: Path) -> None:
    proc = run_arena(
        "match",
        "ninjan",
        f"node {NODE_DIR / 'bot.js'}",
        "random",
        "--games",
        "4",
        "--json",
        "--replay-dir",
        str(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr
    games = game_lines(proc.stdout)
    assert len(games) == 4
    for game in games:
        node = next(p for p in game["players"] if p["bot"] == "node")  # its Join name
        assert not node["forfeit"] and node["strikes"] == 0
        replay = json_lines(Path(game["replay"]).read_text())
        assert any(x["type"] == "decision" and x["by"] == "bot" and x["seat"] == node["seat"] for x in replay)
    proc = run_arena("replay", games[0]["replay"], "-q")
    assert proc.returncode == 0, proc.stderr
