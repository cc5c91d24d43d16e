"""The starter kits' bots in the rehearsal: Node (bots/node as it is, its packages included), Go and
C++ (each built once by its kit's ``build.sh`` into a static binary, kept in a cache folder keyed by
the kit's and the contract's sources, and submitted as the binary alone, as
tests/test_kits_strength.py submits them; against compose, Go as its sources, built by the worker:
``kit_bots``). A kit plays its default strategy: one bot per game and language, with no intended
place in the order (a kit has no strength parameter).

A language whose toolchain is missing is left out with the reason (``missing``), never failing the run.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from .roster import RATED, REPO, BotPlan, short

ENTRIES = {"node": "node bot.js", "go": "./bot", "cpp": "./bot"}
TOOLS = {"node": "node", "go": "go", "cpp": "g++"}
GO_BUILD = "go build -o bot ."  # README's build command of a Go bot (GOPATH mode, in the worker image)


def cache_folder() -> Path:
    """Returns where built kits are kept: ``$XDG_CACHE_HOME/arena/rehearsal-kits``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "arena" / "rehearsal-kits"


def source_hash(kit: Path) -> str:
    """Returns a hash of a kit's files and the contract's (proto/): a change in either rebuilds."""
    digest = hashlib.sha256()
    for folder in (kit, REPO / "proto"):
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and "node_modules" not in p.parts):
            digest.update(str(path.relative_to(REPO)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def built(language: str, say: object = print) -> Path:
    """Returns the folder a language's bot is submitted from, building it first if needed; raises
    RuntimeError with the reason when it cannot be had."""
    kit = REPO / "bots" / language
    if shutil.which(TOOLS[language]) is None:
        raise RuntimeError(f"{TOOLS[language]} is not installed")
    if language == "node":
        if not (kit / "node_modules").is_dir():
            raise RuntimeError("bots/node/node_modules is missing (run scripts/setup with npm)")
        return kit
    out = cache_folder() / f"{language}-{source_hash(kit)}"
    if not (out / "bot").is_file():
        proc = subprocess.run([str(kit / "build.sh"), str(out)], capture_output=True, text=True, timeout=900)
        if proc.returncode != 0:
            raise RuntimeError(f"bots/{language}/build.sh failed: {proc.stderr.strip()[-300:]}")
    return out


def kit_bots(
    games: list[str], languages: list[str], missing: dict[str, str], build_go: bool = False
) -> list[BotPlan]:
    """Returns one bot per game for each kit language that can be had; notes the others in ``missing``.
    With ``build_go`` (the compose stack, whose worker image holds the contract's Go code and Debian's
    Go libraries under /usr, where a build's sandbox sees them) the Go bots are submitted as their
    sources with ``--build "go build -o bot ."`` and built by the worker, as README's participant
    does; otherwise (this machine's workers: the generated contract code lives outside /usr, out of a
    build's sight) as the binary the kit's build.sh makes."""
    plans = []
    for language in languages:
        if language == "go" and build_go:
            plans += [go_sources(game) for game in games]
            continue
        try:
            folder = built(language)
        except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
            missing[language] = str(exc)
            continue
        for game in games:
            name = f"{language}-{short(game)}"
            plans.append(BotPlan(name, game, "honest", (), ENTRIES[language], RATED, None, language, folder))
    return plans


def go_sources(game: str) -> BotPlan:
    """Returns the Go kit's bot of ``game`` as its sources, built on the worker (``GO_BUILD``)."""
    files = tuple((p.name, p.read_bytes()) for p in sorted((REPO / "bots" / "go").glob("*.go")))
    return BotPlan(
        f"go-{short(game)}", game, "honest", files, ENTRIES["go"], RATED, None, "go", build=GO_BUILD
    )
