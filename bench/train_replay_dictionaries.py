"""Trains the zstd dictionaries that ``arena.storage.replays`` compresses stored replays with, one per
game, and measures them on replays not used for training.

The corpus: replays of built-in bots (random and each game's cheap heuristic bots, seats drawn at
random, every player count in turn) played in-process with the engines and written by the referee's
replay writer, the very bytes a worker stores. Everything follows from ``--seed``: the same seed gives
the same replays and the same dictionaries, byte for byte (the trainer's parameters are fixed, one
thread). Candidates: zstd-trained (fastcover) and raw-content dictionaries of 16, 32 and 64 KiB, each
at compression levels 9 and 19; the table gives mean bytes per held-out replay, zlib-9 and zstd-19
without a dictionary as references. ``--install`` adds the chosen candidate of each game to
``arena/storage/dictionaries`` under the next free tag (a shipped dictionary is never changed).

    .venv/bin/python bench/train_replay_dictionaries.py [--seed 18] [--train 240] [--test 60] [--install]

The search bots are left out: one pnrz game between two of them takes 17 s, and their replays have
the same vocabulary as the heuristic bots' (the dictionary learns field names, card and tile names,
the header; not strategy).
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import sys
import time
import zlib
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import zstandard

from arena.bots import builtin_bots
from arena.games import GAMES, get_game
from arena.referee.record import MatchRecord
from arena.sdk import MatchInfo
from arena.storage import dictionaries, replays
from arena.testing import replay_of_game

# The built-in bots a corpus draws its seats from, per game: random and the fast heuristic ones.
BOTS = {
    "ninjan": ("random", "greedy"),
    "pnrz": ("random", "builder"),
    "ninja-burger": ("random", "ninja"),
    "ninja-master": ("random", "master", "planner"),
}
SIZES = (16 * 1024, 32 * 1024, 64 * 1024)
LEVELS = (9, 19)
DEADLINE = timedelta(seconds=2)


def replay_of_bots(
    game_name: str, seed: int, lineup: list[str], match_id: str, names: list[str] | None = None
) -> tuple[str, MatchRecord]:
    """Returns (replay text, record) of a game between built-in bots, seat i = ``lineup[i]`` shown as
    ``names[i]`` (default: the lineup), as the referee writes them."""
    game, classes = get_game(game_name), builtin_bots(game_name)
    bots = names or lineup
    players = [classes[name]() for name in lineup]
    for seat, bot in enumerate(players):
        bot.on_match_start(MatchInfo(match_id, game_name, seat, len(bots), tuple(bots), DEADLINE, 3))

    def choose(turn: object, seat: int) -> int:
        legal = turn.legal[seat]  # type: ignore[attr-defined]
        choice = players[seat].choose(game.observe(turn.state, seat), legal, DEADLINE)  # type: ignore[attr-defined]
        return choice if isinstance(choice, int) else legal.index(choice)

    return replay_of_game(game_name, seed, bots, match_id, choose)


def lineup(game_name: str, players: int, rng: random.Random) -> list[str]:
    """Returns ``players`` built-in bot names of ``game_name`` drawn from ``BOTS`` (repeats allowed)."""
    return [rng.choice(BOTS[game_name]) for _ in range(players)]


def corpus(game_name: str, count: int, seed: int) -> list[bytes]:
    """Returns ``count`` replays of ``game_name``: player counts in turn, seats drawn from ``BOTS``,
    game seeds and match ids from ``seed``."""
    spec = get_game(game_name).spec
    counts = range(spec.min_players, spec.max_players + 1)
    rng = random.Random(f"{game_name}/{seed}")
    out = []
    for i in range(count):
        players = counts[i % len(counts)]
        bots = lineup(game_name, players, rng)
        match_id = f"t{seed}-r{i // 4 + 1}-g{i % 4 + 1}-s1"
        out.append(replay_of_bots(game_name, rng.randrange(2**31), bots, match_id)[0].encode())
    return out


def candidates(train: list[bytes]) -> dict[str, bytes]:
    """Returns the candidate dictionaries by label (``trained-16k``, ``raw-32k``...)."""
    found = {}
    for size in SIZES:
        trained = zstandard.train_dictionary(size, train, k=1024, d=8, f=20, accel=1, threads=1, level=19)
        found[f"trained-{size // 1024}k"] = trained.as_bytes()
        found[f"raw-{size // 1024}k"] = b"".join(train)[-size:]  # the end is what zstd reaches first
    return found


def mean_size(test: list[bytes], compress: Callable[[bytes], bytes]) -> tuple[float, float]:
    """Returns the mean length of ``compress(replay)`` over ``test`` and its mean time in µs."""
    start = time.perf_counter()
    sizes = [len(compress(text)) for text in test]
    return statistics.mean(sizes), (time.perf_counter() - start) / len(test) * 1e6


def evaluate(test: list[bytes], found: dict[str, bytes]) -> dict[str, tuple[float, float]]:
    """Returns (mean bytes, mean µs to compress) per held-out replay by codec label, references
    first; a dictionary's bytes count the tag byte."""
    plain = zstandard.ZstdCompressor(level=19)
    table = {"zlib-9": mean_size(test, lambda b: zlib.compress(b, 9))}
    table["zstd-19"] = mean_size(test, plain.compress)
    for label, data in found.items():
        for level in LEVELS:
            compressor = replays.zstd_compressor(zstandard.ZstdCompressionDict(data), level)
            size, micros = mean_size(test, compressor.compress)
            table[f"{label}@{level}"] = size + 1, micros
    return table


def install(game_name: str, data: bytes) -> str:
    """Writes ``data`` as the game's next dictionary; returns the registry line to add."""
    tag = dictionaries.next_tag()
    path = dictionaries.path_of(tag, game_name)
    path.write_bytes(data)
    return f'    {tag}: ("{game_name}", "{hashlib.sha256(data).hexdigest()}"),'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--train", type=int, default=240, help="replays per game to train on")
    parser.add_argument("--test", type=int, default=60, help="held-out replays per game to measure on")
    parser.add_argument("--games", default=",".join(sorted(GAMES)))
    parser.add_argument("--install", action="store_true", help="add each game's best dictionary")
    args = parser.parse_args()
    lines = []
    for game_name in args.games.split(","):
        train = corpus(game_name, args.train, args.seed)
        test = corpus(game_name, args.test, args.seed + 1)
        found = candidates(train)
        table = evaluate(test, found)
        raw = statistics.mean(map(len, test))
        print(f"{game_name}: {len(test)} held-out replays, {raw:.0f} B raw; mean bytes per replay:")
        for label, (size, micros) in table.items():
            print(f"    {label:<16}{size:>8.0f} B {micros:>8.0f} µs")
        best = min((label for label in table if "@" in label), key=lambda label: table[label][0])
        chosen = found[best.split("@")[0]]
        print(f"    best: {best}, sha256 {hashlib.sha256(chosen).hexdigest()}", flush=True)
        if args.install:
            lines.append(install(game_name, chosen))
    if lines:
        print("add to arena/storage/dictionaries.py DICTIONARIES:", *lines, sep="\n")


if __name__ == "__main__":
    main()
