"""The zstd dictionaries stored replays are compressed with: one per game, data files beside this
module, each named by its tag (``TAG-GAME.zdict``).

A tag is the first byte of every stored entry compressed with that dictionary (``arena.queue.replays``),
so a shipped dictionary is never changed and never removed: an entry written with dictionary 3 years
ago needs dictionary 3 to be read. A better dictionary for a game is added under a new tag, and new
entries use the game's newest (highest) tag. ``DICTIONARIES`` keeps each file's sha256, checked when
it is loaded (and by the tests), so an edited file fails loudly instead of reading entries wrong.

How they were made: ``bench/train_replay_dictionaries.py --seed 18 --install`` (replays of built-in
bots, every player count; candidates measured on held-out replays; figures in ``arena.queue.replays``).
Tags 0 (zstd, no dictionary) and 0x78 (zlib's first byte: entries written before dictionaries) are
never dictionary tags.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import zstandard

FOLDER = Path(__file__).resolve().parent
RESERVED = frozenset({0x00, 0x78})  # zstd without a dictionary; zlib (the stored format before tags)

# tag -> (game, sha256 of the dictionary file). Append only: never edit or remove a shipped line.
DICTIONARIES: dict[int, tuple[str, str]] = {}


class DictionaryError(RuntimeError):
    """A dictionary file that is missing or not the one shipped under its tag."""


def file_name(tag: int, game: str) -> str:
    """Returns the file name of dictionary ``tag`` of ``game``."""
    return f"{tag:03d}-{game}.zdict"


def newest(game: str) -> int | None:
    """Returns the tag of ``game``'s newest dictionary, or None if it has none."""
    return max((tag for tag, (name, _) in DICTIONARIES.items() if name == game), default=None)


def next_tag() -> int:
    """Returns the first tag no dictionary uses yet (for adding one)."""
    tag = max(DICTIONARIES, default=0) + 1
    while tag in RESERVED:
        tag += 1
    if tag > 0xFF:
        raise DictionaryError("no free one-byte tag is left")
    return tag


@functools.cache
def load(tag: int) -> zstandard.ZstdCompressionDict:
    """Returns dictionary ``tag``, checked against its sha256; raises DictionaryError (an unknown tag,
    a missing file, a changed file)."""
    if tag not in DICTIONARIES:
        raise DictionaryError(f"no dictionary has tag {tag}: the entry was written by a newer arena")
    game, sha = DICTIONARIES[tag]
    path = FOLDER / file_name(tag, game)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DictionaryError(f"dictionary {tag} ({path}) cannot be read: {exc.strerror}") from None
    if hashlib.sha256(data).hexdigest() != sha:
        raise DictionaryError(f"dictionary {tag} ({path}) is not the file shipped under its tag")
    return zstandard.ZstdCompressionDict(data)
