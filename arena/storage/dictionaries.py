"""The zstd dictionaries stored replays are compressed with: one or more per game, each a data file in
its game's folder named by its tag (``arena/games/<game>/replays-TAG.zdict``), registered here.

A tag is the first byte of every stored entry compressed with that dictionary (``arena.storage.replays``),
so a shipped dictionary is never changed and never removed: an entry written with dictionary 3 years
ago needs dictionary 3 to be read. A better dictionary for a game is added under a new tag, and new
entries use the game's newest (highest) tag. ``DICTIONARIES`` keeps each file's sha256, checked when
it is loaded (and by the tests), so an edited file fails loudly instead of reading entries wrong.

How they were made: ``bench/train_replay_dictionaries.py --seed 18 --install`` (replays of built-in
bots, every player count; candidates measured on held-out replays; figures in ``arena.storage.replays``).
Tags 0 (zstd, no dictionary) and 0x78 (zlib's first byte: entries written before dictionaries) are
never dictionary tags.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import zstandard

from arena.games import GAMES, folder_of

RESERVED = frozenset({0x00, 0x78})  # zstd without a dictionary; zlib (the stored format before tags)

# tag -> (game, sha256 of the dictionary file). Append only: never edit or remove a shipped line.
DICTIONARIES: dict[int, tuple[str, str]] = {
    1: ("ninja-burger", "430bc8f275b22fb105c98637c7a03bc54a61546c60374930644b73cce5377aa4"),
    2: ("ninja-master", "b906fecd4bf819f77fafe776ba2d2a9e72a5ca4bac11abfa63584954529431e1"),
    3: ("ninjan", "3f7b779f9b6ccfe2dd83688dda83a93f5fd3d541e6da26e6e92bc5b2ca4d3fb1"),
    4: ("pnrz", "7e43506c2bbfb00f4ee8837e645c931dd5d1a76fe90ff1a28907adc0d1825372"),
}


class DictionaryError(RuntimeError):
    """A dictionary file that is missing or not the one shipped under its tag."""


def path_of(tag: int, game: str) -> Path:
    """Returns the file of dictionary ``tag`` of ``game``: in the game's folder, named by the tag."""
    return folder_of(game) / f"replays-{tag:03d}.zdict"


def newest(game: str) -> int | None:
    """Returns the tag of ``game``'s newest dictionary, or None if it has none."""
    return max((tag for tag, (name, _) in DICTIONARIES.items() if name == game), default=None)


def next_tag() -> int:
    """Returns the first tag above every registered dictionary and every dictionary file (for adding
    one: a file written but not registered yet counts)."""
    folders = {folder_of(game) for game in GAMES}
    files = (int(p.stem.split("-", 1)[1]) for f in folders for p in f.glob("replays-[0-9][0-9][0-9].zdict"))
    tag = max([*DICTIONARIES, *files], default=0) + 1
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
    path = path_of(tag, game)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DictionaryError(f"dictionary {tag} ({path}) cannot be read: {exc.strerror}") from None
    if hashlib.sha256(data).hexdigest() != sha:
        raise DictionaryError(f"dictionary {tag} ({path}) is not the file shipped under its tag")
    return zstandard.ZstdCompressionDict(data)
