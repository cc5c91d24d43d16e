"""Who takes part in a rehearsal and with what: honest variants of the built-in bots, broken bots and
hostile ones, each with the verdict the platform owes it.

An honest bot is a built-in's variant (``variant_bot.py``): the game's middle built-in with a share
of random moves (its intended strength is ``1 - share``: the ladder should order them so), or the
game's searcher with a small budget, a larger one for each further searcher of the game, so that no two
honest bots of a game play alike and the ladder can tell every neighbour apart (searchers have no
intended place: they are left out of the order's check). A broken bot
must be refused at upload or fail its smoke match with a reason naming its fault; a hostile bot runs
the fair-play tests' probes (tests/bots/cheater.py), then plays the first legal action: it passes,
plays the ladder, and its probes find nothing (the fair-play tests check what; here it must only not
disturb anything).
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VARIANT = Path(__file__).with_name("variant_bot.py")
HOSTILE = REPO / "tests" / "bots" / "hostile.py"
CHEATER = REPO / "tests" / "bots" / "cheater.py"

# Each game's middle built-in (random moves mixed in make the chain) and its searcher with a budget.
MIDDLE = {"ninjan": "greedy", "ninja-burger": "ninja", "pnrz": "builder", "ninja-master": "master"}
SEARCHER = {"ninjan": ("search", 16), "ninja-burger": ("search", 2), "pnrz": ("search", 6)}
SEARCH_EVERY = 6  # every SEARCH_EVERY-th honest bot of a game (from the 6th) is its searcher
# The k-th searcher of a game (k = 1, 2, ...) searches k times the game's budget above.


@dataclasses.dataclass(frozen=True)
class Expect:
    """What the platform owes a bot: ``rated`` (plays the ladder), or refused at upload (``status``,
    words of its error) or failed smoke (words of its reason); ``words`` are alternatives, any one."""

    outcome: str  # "rated", "refused" (at upload) or "smoke-failed"
    words: tuple[str, ...] = ()
    status: int = 0


@dataclasses.dataclass(frozen=True)
class BotPlan:
    """One bot a participant submits: its files, entry, game, kind and what it should meet."""

    name: str
    game: str
    kind: str  # honest, broken, hostile
    files: tuple[tuple[str, bytes], ...]
    entry: str
    expect: Expect
    intended: float | None = None  # intended strength, higher stronger; None: not in the order's check
    language: str = "python"
    source: Path | None = None  # a folder to submit as it is (a kit), instead of ``files``
    build: str | None = None  # the build command the worker runs on the submitted folder (``--build``)

    def write(self, folder: Path) -> Path:
        """Writes the bot's files into a new ``folder`` (a copy of ``source``, links followed); returns it."""
        if self.source is not None:
            shutil.copytree(self.source, folder, symlinks=False)
            return folder
        folder.mkdir(parents=True)
        for name, content in self.files:
            (folder / name).write_bytes(content)
        return folder


RATED = Expect("rated")
OVERSIZE = 11 << 20  # bytes of noise in the oversized bot: past the server's default 10 MiB upload


def honest(name: str, game: str, index: int, count: int) -> BotPlan:
    """Returns the ``index``-th of ``count`` honest bots of ``game``: its searcher every
    ``SEARCH_EVERY``-th (the k-th with k times the budget), else a chain bot whose random share spreads
    the chain evenly from 0 to 1."""
    if is_searcher(game, index):
        base, budget = SEARCHER[game]
        iterations = budget * (1 + index // SEARCH_EVERY)
        spec = {"game": game, "base": base, "iterations": iterations, "random_share": 0.0, "seed": index}
        intended = None
    else:
        chain = [n for n in range(count) if not is_searcher(game, n)]
        share = round(chain.index(index) / max(1, len(chain) - 1), 3)
        spec = {"game": game, "base": MIDDLE[game], "iterations": 0, "random_share": share, "seed": index}
        intended = 1.0 - share
    return BotPlan(name, game, "honest", variant_files(spec), "python bot.py", RATED, intended)


def is_searcher(game: str, index: int) -> bool:
    return game in SEARCHER and index % SEARCH_EVERY == SEARCH_EVERY - 1


def variant_files(spec: Mapping[str, object]) -> tuple[tuple[str, bytes], ...]:
    """Returns a variant bot's files: the program and its ``variant.json``."""
    return (("bot.py", VARIANT.read_bytes()), ("variant.json", json.dumps(spec).encode()))


def new_version(bot: BotPlan) -> BotPlan:
    """Returns the bot with a new version of its files that plays the same (its ``variant.json``
    gains a revision number): what a participant uploads to check it did not regress."""
    files = dict(bot.files)
    spec = json.loads(files["variant.json"])
    spec["revision"] = int(spec.get("revision", 1)) + 1
    files["variant.json"] = json.dumps(spec).encode()
    return dataclasses.replace(bot, files=tuple(files.items()))


def broken(game: str = "ninjan") -> list[BotPlan]:
    """Returns the broken bots: each fault a participant's first upload commonly has."""
    hostile = (("hostile.py", HOSTILE.read_bytes()),)
    illegal = {"game": game, "base": "random", "fault": "illegal"}
    return [
        BotPlan(
            "broken-crash", game, "broken", hostile, "python hostile.py crash-start",
            Expect("smoke-failed", ("exited with code 3 before joining",)),
        ),
        BotPlan(
            "broken-timeout", game, "broken", hostile, "python hostile.py silent",
            Expect("smoke-failed", ("3 missed deadlines",)),
        ),
        BotPlan(
            "broken-illegal", game, "broken", variant_files(illegal),
            "python bot.py", Expect("smoke-failed", ("out of range", "illegal action")),
        ),
        BotPlan(
            "broken-oversize", game, "broken",
            (("bot.py", VARIANT.read_bytes()), ("noise.bin", os.urandom(OVERSIZE))),
            "python bot.py", Expect("refused", ("too large", "at most"), 413),
        ),
    ]  # fmt: skip


def hostile(count: int, game: str = "ninjan") -> list[BotPlan]:
    """Returns ``count`` hostile bots (at most 4): the fair-play probes, each then playing legally."""
    attacks = ["snoop /etc/shadow /proc/1/environ", "kill", "forkbomb", "diskfill"]
    files = (("cheater.py", CHEATER.read_bytes()),)
    return [
        BotPlan(f"hostile-{attack.split()[0]}", game, "hostile", files, f"python cheater.py {attack}", RATED)
        for attack in attacks[:count]
    ]


def plan(games: list[str], bots: int, hostiles: int, with_broken: bool = True) -> list[BotPlan]:
    """Returns the rehearsal's bots: ``bots`` honest ones spread over ``games`` in turn, then the broken
    and hostile ones."""
    made: list[BotPlan] = []
    dealt = [games[n % len(games)] for n in range(bots)]
    per_game = {game: 0 for game in games}
    for game in dealt:
        index = per_game[game]
        made.append(honest(f"{short(game)}-v{index:02d}", game, index, dealt.count(game)))
        per_game[game] += 1
    return made + (broken() if with_broken else []) + hostile(hostiles)


def short(game: str) -> str:
    """Returns a short tag of the game for bot names."""
    return {"ninjan": "nj", "ninja-burger": "nb", "pnrz": "pz", "ninja-master": "nm"}.get(game, game)
