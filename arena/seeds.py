"""Match seeds that no bot can compute.

A match's seed decides every hidden card, every future roll and every fallback choice (the engines
are public and deterministic), so it is the one secret that protects all the others. Each match's seed
is therefore independent of every other match's: 64 random bits, or a keyed hash.

- ``arena match`` without ``--seed`` draws 64 random bits for the series; each game's seed is a hash
  of it (``series_seed``). With ``--seed S`` (local runs with trusted bots) the games' seeds are a
  hash of S: reproducible, but a bot can find a small S from its own hand, so it is not for play
  between strangers.
- A tournament's seeds are keyed (``keyed_seed``): HMAC-SHA256 of the organiser's chosen seed, the
  tournament and the match's place in it, under the platform's secret key (``platform_key``). The
  organiser reproduces a tournament with the same chosen seed on the same platform; a bot that knows
  the chosen seed, or every seed published with recorded matches, still cannot compute the next one.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
from pathlib import Path

from arena.games.rng import derive_seed
from arena.paths import state_dir

KEY_VARIABLE = "ARENA_SEED_KEY"  # hex; set the same key wherever tournaments are created
KEY_FILE_VARIABLE = "ARENA_SEED_KEY_FILE"  # a file holding it (a compose secret shared by server and workers)
KEY_FILE = "seed.key"


def fresh_seed() -> int:
    """Returns 64 random bits from the operating system's generator."""
    return secrets.randbits(64)


def series_seed(seed: int, number: int) -> int:
    """Returns the seed of game ``number`` of a series that starts from ``seed``: a 64-bit hash.

    Design detail: not ``seed + number``. A bot that learns one game's seed (from a replay, or by
    trying small seeds against its own hand) must not know the next game's.
    """
    return derive_seed(seed, "series", number)


def keyed_seed(key: bytes, chosen: int, *labels: object) -> int:
    """Returns a 64-bit seed: HMAC-SHA256 under ``key`` of the chosen seed and the labels."""
    text = "/".join([str(chosen), *map(str, labels)]).encode()
    return int.from_bytes(hmac.new(key, text, hashlib.sha256).digest()[:8], "big")


def platform_key(folder: Path | None = None) -> bytes:
    """Returns the platform's secret seed key: ``ARENA_SEED_KEY`` (hex), else the file named by
    ``ARENA_SEED_KEY_FILE``, else the key file in arena's state folder, made on first use (32 random
    bytes, readable by its owner only).

    Design detail: a hosted platform's server (which plans tournaments and ladders) and workers
    (which queue regression games) run as different users and must key seeds alike, so there the key
    is a secret file both can read, never a file one of them makes."""
    if os.environ.get(KEY_VARIABLE):
        return _hex_key(os.environ[KEY_VARIABLE], KEY_VARIABLE)
    if os.environ.get(KEY_FILE_VARIABLE):
        named = Path(os.environ[KEY_FILE_VARIABLE])
        try:
            return _hex_key(named.read_text(), f"{KEY_FILE_VARIABLE} ({named})")
        except OSError as exc:
            raise ValueError(f"{KEY_FILE_VARIABLE}: cannot read {named}: {exc.strerror}") from None
    path = (folder or state_dir()) / KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass  # another process made it first
        else:
            with os.fdopen(fd, "w") as file:
                file.write(secrets.token_hex(32))
    return bytes.fromhex(path.read_text().strip())


def _hex_key(text: str, where: str) -> bytes:
    """Returns the key written in hexadecimal in ``text``; raises ValueError naming ``where``."""
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        key = b""
    if len(key) < 16:
        raise ValueError(f"{where} must hold at least 32 hexadecimal digits (openssl rand -hex 32)")
    return key
