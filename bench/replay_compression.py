"""Replay compression: zstd (PyPI ``zstandard``) against the standard library's zlib on real replays.

Each of the four games is played by seeded random policies through the referee's replay writer (the
very bytes a worker stores), at every player count; the table gives each codec's bytes per replay and
its compress/decompress time, ``store`` being what the replay store keeps (zstd with the game's
trained dictionary, ``arena.storage.dictionaries``). ``arena.storage.replays`` quotes the figures.

    .venv/bin/python bench/replay_compression.py [--games-per-count 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import zlib
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import zstandard

from arena.games import GAMES
from arena.storage import replays as replay_store
from arena.testing import replay_of_random_game

Codec = tuple[Callable[[bytes], bytes], Callable[[bytes], bytes]]


def codecs() -> dict[str, Codec]:
    """Returns the codecs to compare, by name; ``store`` is the replay store's own (zstd at its level
    with the game's newest dictionary, the tag byte counted)."""
    found: dict[str, Codec] = {
        f"zlib-{level}": (lambda b, lv=level: zlib.compress(b, lv), zlib.decompress) for level in (6, 9)
    }
    for level in (3, 9, 19):
        compressor, decompressor = zstandard.ZstdCompressor(level=level), zstandard.ZstdDecompressor()
        found[f"zstd-{level}"] = (compressor.compress, decompressor.decompress)
    found["store"] = (replay_store.compress, replay_store.decompress)
    return found


def replays(per_count: int) -> dict[str, list[bytes]]:
    """Returns ``per_count`` replays per game and player count, by game."""
    out: dict[str, list[bytes]] = {}
    for name, game in sorted(GAMES.items()):
        texts = []
        for players in range(game.spec.min_players, game.spec.max_players + 1):
            for seed in range(per_count):
                bots = [f"bot{i}" for i in range(players)]
                text, _ = replay_of_random_game(name, 1000 + seed, bots, f"t1-{name}-{players}-{seed}")
                texts.append(text.encode())
        out[name] = texts
    return out


def measure(texts: list[bytes], codec: Codec) -> tuple[float, float, float]:
    """Returns (mean compressed bytes, mean compress µs, mean decompress µs) over ``texts``."""
    compress, decompress = codec
    sizes, packs, unpacks = [], [], []
    for text in texts:
        start = time.perf_counter()
        packed = compress(text)
        middle = time.perf_counter()
        assert decompress(packed) == text
        packs.append(middle - start)
        unpacks.append(time.perf_counter() - middle)
        sizes.append(len(packed))
    return statistics.mean(sizes), statistics.mean(packs) * 1e6, statistics.mean(unpacks) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-per-count", type=int, default=10)
    args = parser.parse_args()
    found = codecs()
    print(f"{'game':<14}{'raw B':>9}" + "".join(f"{name + ' B/us/us':>26}" for name in found))
    for game, texts in replays(args.games_per_count).items():
        row = f"{game:<14}{statistics.mean(map(len, texts)):>9.0f}"
        for codec in found.values():
            size, pack, unpack = measure(texts, codec)
            row += f"{size:>12.0f} {pack:>6.0f} {unpack:>6.0f}"
        print(row)


if __name__ == "__main__":
    main()
