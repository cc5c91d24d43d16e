"""The replay store: where each recorded match's replay (and, by ``kind``, its bot logs and think
times) lives, compressed, out of the Redis memory the queue and the leaderboard need.

One small interface, ``ReplayStore``, with two implementations:

* ``FolderStore(root)``: one file per match and kind under ``root`` (local disk, or a volume every
  worker and the web app mount), written atomically (a temporary file renamed into place), in
  fan-out folders (two levels of 256, from the sha256 of the match id) so no folder grows large.
* ``RedisStore(client)``: one Redis hash per match, kind -> compressed bytes: the single-machine
  default, when ``ARENA_REPLAY_STORE`` is unset (``store_from_env``).

``put`` takes and ``get`` returns the plain bytes; what is kept is ``encode``'s: a replay as its
decisions where the engine regenerates it byte for byte (``arena.referee.compact``; checked when it is
put), then compressed (``compress``). Bytes a match of built-in bots keeps, compressed, whole replay ->
decisions (``bench/record_memory.py``): pnrz 2 players 1629 -> 469, 4 players 1532 -> 445;
ninja-burger 1062 -> 260 and 4096 -> 1109; ninjan at 4 players 784 -> 246; ninja-master 826 -> 213.
The decisions form costs one engine re-run when put (2-20 ms) and one when read.

Design detail, the codec: zstd (PyPI ``zstandard``) at level 15 with a dictionary per game, trained
on replays of built-in bots (``arena.storage.dictionaries``, made by
``bench/train_replay_dictionaries.py``). Without a dictionary zstd kept only 8-17% fewer bytes than
zlib-9; a replay is small and its vocabulary (field names, cards, tiles, the header) is the same in
every match of a game, which is what a dictionary holds. Held-out replays of built-in bots (random
and heuristic seats, every player count), mean bytes (``train_replay_dictionaries.py --seed 18``):

    game           raw B   zlib-9  zstd-19   16k@19  32k@19  64k@19   64k@9  (trained dictionary, level)
    ninja-burger   68841     5562     4662     3712    3635    3520    4048
    ninja-master   14143     1643     1510      705     668     634     770
    ninjan         12869     1381     1271      696     675     643     789
    pnrz           27679     3092     2676     1779    1631    1566    1873

Raw-content dictionaries (the end of the training replays) did 1-31% worse. On replays of seeded
random play (``bench/replay_compression.py``, longer games: random play does not finish them), the
store keeps ninja-burger 4458 B (zlib-9 6670), ninja-master 4221 (6378), ninjan 671 (1372), pnrz
1689 (3186): random choices are what no dictionary predicts. Levels, on the golden replays (mean
43.5 kB raw) with a warm compressor on a quiet machine: level 9 2489 B in 0.5 ms, 12 2296 B in 1.9
ms, 15 2102 B in 6.3 ms, 19 2086 B in 12.5 ms. Level 15 keeps within 1% of 19's bytes at half its
cost (once per match, on the worker that just spent seconds playing it); reading back is well under
1 ms at every level.

The stored value's first byte says how it was compressed, so every entry ever written stays
readable: 0x78 is a zlib stream (the whole value: what this store wrote before tags, zlib's own first
byte), 0x00 a zstd frame without a dictionary (entries that are not replays, such as bot logs), N a
zstd frame with dictionary N (never changed once shipped; a game's newest is used for new entries).
Frames carry their content size, checked against ``MAX_PLAIN`` before anything is allocated (a
corrupt or hostile entry cannot inflate without limit), and a checksum.
"""

from __future__ import annotations

import abc
import contextlib
import hashlib
import json
import os
import re
import tempfile
import threading
import weakref
import zlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import NamedTuple, cast

import redis
import zstandard

from arena.queue import keys
from arena.referee import compact
from arena.referee.replay import OtherVersion, ReplayError
from arena.storage import dictionaries

ENV_STORE = "ARENA_REPLAY_STORE"  # a folder path: FolderStore there; unset or empty: RedisStore
REPLAY = "replay"  # the kind of a match's replay (JSON Lines); bot logs use e.g. "log-0"
_FORM = compact.PREFIX.encode()  # how a replay kept as its decisions starts
LEVEL = 15  # zstd level: see the module docstring
MAX_PLAIN = 32 * 1024 * 1024  # bytes of one entry, plain: more is refused (put) or corrupt (get)
PLAIN = 0x00  # tag of a zstd entry without a dictionary
ZLIB = 0x78  # first byte of a zlib entry: the stored format before tags
MAX_ID = 200  # characters of a match id (a file name is at most 255 bytes)
_KIND = re.compile(r"[a-z][a-z0-9-]{0,31}")
_SUFFIX = ".z"
# A folder store's entry: the writer's group reads it. In compose the workers (uid 10002) write
# and the server (uid 10001) reads, both of group 10000, the folder setgid to it (the Dockerfile).
ENTRY_MODE = 0o640


class ReplayStoreError(ValueError):
    """A match id or kind the store cannot name safely, or a store that cannot be opened."""


_MATCH_ID = re.compile(r"[A-Za-z0-9_:-][A-Za-z0-9_.:-]*")


def check_match_id(match_id: str) -> str:
    """Returns ``match_id`` if it is one the platform could have made: 1 to MAX_ID ASCII letters,
    digits and ``-_.:``, not starting with '.'; raises ReplayStoreError saying what is wrong.

    Design detail: the one rule for every match id arena reads from outside (the store, the API, a
    replay file to verify): an id with an invisible or look-alike character (a trailing zero-width
    space) would name a match that looks like a recorded one and is not."""
    if not match_id or len(match_id) > MAX_ID:
        raise ReplayStoreError(f"match id must have 1 to {MAX_ID} characters, got {len(match_id)}")
    if not _MATCH_ID.fullmatch(match_id):
        raise ReplayStoreError(
            f"match id {match_id!r} may hold only ASCII letters, digits and '-_.:' and may not start with '.'"
        )
    return match_id


def check_kind(kind: str) -> str:
    """Returns ``kind`` if it is a lowercase name (``replay``, ``log-0``); raises ReplayStoreError."""
    if not _KIND.fullmatch(kind):
        raise ReplayStoreError(f"kind {kind!r} must be lowercase letters, digits and '-', 1 to 32")
    return kind


def compress(data: bytes, game: str | None = None) -> bytes:
    """Returns ``data`` as stored: its tag byte, then a zstd frame made with ``game``'s newest
    dictionary (``game`` defaults to the one a replay's header names), or with none (tag 0) for a game
    without one and for anything that is not a replay. Raises ReplayStoreError past MAX_PLAIN bytes."""
    if len(data) > MAX_PLAIN:
        raise ReplayStoreError(f"an entry of {len(data)} bytes is more than the store keeps ({MAX_PLAIN})")
    tag = dictionaries.newest(game or header_game(data) or "") or PLAIN
    return bytes([tag]) + _codec(tag).compressor.compress(data)


def encode(kind: str, data: bytes) -> bytes:
    """Returns an entry as stored: a replay as its decisions where the engine regenerates it exactly
    (``compact.pack``: 2.5-4 times fewer bytes once compressed), every entry compressed."""
    if kind == REPLAY:
        with contextlib.suppress(UnicodeDecodeError):
            data = compact.pack(data.decode()).encode()
    return compress(data)


def decode(kind: str, stored: bytes) -> bytes:
    """Returns the plain bytes of a stored entry (``encode``'s input); raises ReplayStoreError if it
    is corrupt, or a replay kept as its decisions that this arena's rules cannot regenerate."""
    return whole(kind, decompress(stored))


def whole(kind: str, plain: bytes) -> bytes:
    """Returns an entry's plain bytes with a replay kept as its decisions regenerated whole (an
    engine re-run: ``get(..., whole=False)`` leaves it to the caller, who may do it elsewhere);
    raises ReplayStoreError as ``decode`` does."""
    if kind != REPLAY or not plain.startswith(_FORM):
        return plain
    try:
        return compact.expand(plain.decode()).encode()
    except OtherVersion as exc:
        raise ReplayStoreError(
            f"a replay kept as its decisions cannot be regenerated by this arena: {exc} (run "
            "'arena storage expand' with the version that recorded it to keep its replays whole)"
        ) from None
    except (ReplayError, UnicodeDecodeError) as exc:
        raise ReplayStoreError(f"a stored replay is corrupt: {exc}") from None


def is_decisions_form(stored: bytes) -> bool:
    """Returns whether a stored entry holds a replay kept as its decisions (``compact``)."""
    return decompress(stored).startswith(_FORM)


def decompress(stored: bytes) -> bytes:
    """Returns the plain bytes of a stored value, read as its first byte says (zlib, zstd, zstd with
    dictionary N), never more than MAX_PLAIN of them; raises ReplayStoreError if it is corrupt."""
    if not stored:
        raise ReplayStoreError("a stored entry is corrupt: it is empty")
    if stored[0] == ZLIB:
        return _inflate(stored)
    try:
        codec = _codec(stored[0])
        size = zstandard.frame_content_size(stored[1:])
        if not 0 <= size <= MAX_PLAIN:
            raise ReplayStoreError(f"a stored entry is corrupt: it claims {size} bytes (at most {MAX_PLAIN})")
        return codec.decompressor.decompress(stored[1:], max_output_size=MAX_PLAIN)
    except (zstandard.ZstdError, dictionaries.DictionaryError) as exc:
        raise ReplayStoreError(f"a stored entry is corrupt or unreadable: {exc}") from None


def _inflate(stored: bytes) -> bytes:
    """Returns the plain bytes of a zlib entry (written before tags), at most MAX_PLAIN of them."""
    inflater = zlib.decompressobj()
    try:
        plain = inflater.decompress(stored, MAX_PLAIN)
    except zlib.error as exc:
        raise ReplayStoreError(f"a stored entry is corrupt: {exc}") from None
    if inflater.unconsumed_tail:
        raise ReplayStoreError(f"a stored entry is corrupt: it inflates past {MAX_PLAIN} bytes")
    if not inflater.eof:
        raise ReplayStoreError("a stored entry is corrupt: its zlib stream is cut short")
    return plain


def header_game(data: bytes) -> str | None:
    """Returns the game a replay's header line names (or that of a replay kept as its decisions,
    ``arena.referee.compact``, whose first line holds the same fields), or None if ``data`` starts
    with neither."""
    if not data.startswith((b'{"type":"header"', _FORM)):
        return None
    end = data.find(b"\n", 0, 65536)
    try:
        game = json.loads(data[: end if end >= 0 else 65536]).get("game")
    except ValueError:
        return None
    return game if isinstance(game, str) else None


def zstd_compressor(
    dictionary: zstandard.ZstdCompressionDict | None, level: int = LEVEL
) -> zstandard.ZstdCompressor:
    """Returns a compressor of the stored frames: content size (to bound reading), checksum (to catch
    corruption), no dictionary id (the tag byte says which)."""
    return zstandard.ZstdCompressor(
        level=level, dict_data=dictionary, write_checksum=True, write_content_size=True, write_dict_id=False
    )


class _Codec(NamedTuple):
    compressor: zstandard.ZstdCompressor
    decompressor: zstandard.ZstdDecompressor


_CODECS = threading.local()  # zstandard's (de)compressors are not thread safe: one set per thread


def _codec(tag: int) -> _Codec:
    """Returns this thread's compressor and decompressor for ``tag`` (0: no dictionary); raises
    DictionaryError for a tag no shipped dictionary has."""
    cache: dict[int, _Codec] = _CODECS.__dict__.setdefault("by_tag", {})
    if tag not in cache:
        dictionary = None if tag == PLAIN else dictionaries.load(tag)
        reader = zstandard.ZstdDecompressor(dict_data=dictionary, max_window_size=MAX_PLAIN)
        cache[tag] = _Codec(zstd_compressor(dictionary), reader)
    return cache[tag]


def digest(text: str) -> str:
    """Returns the sha256 hex digest of a replay's text (UTF-8), as its recorded result keeps it."""
    return hashlib.sha256(text.encode()).hexdigest()


class ReplayStore(abc.ABC):
    """Compressed bytes per (match id, kind). Every method validates its names first.

    ``put`` and ``get`` take and give plain bytes (``encode``, ``decode``); an implementation keeps
    the stored bytes (``write``, ``read``), which ``expand_stored`` rewrites in place.
    """

    def put(self, match_id: str, kind: str, data: bytes) -> None:
        """Stores ``data`` (plain) for the match and kind, replacing what was there."""
        self.write(match_id, kind, encode(kind, data))

    def get(self, match_id: str, kind: str = REPLAY, whole: bool = True) -> bytes | None:
        """Returns the plain bytes stored for the match and kind, or None. ``whole=False`` gives a
        replay kept as its decisions as it is kept (``whole`` regenerates it): the server hands it
        to the process that re-runs replays rather than re-run it in its own interpreter too."""
        stored = self.read(match_id, kind)
        if stored is None:
            return None
        return decode(kind, stored) if whole else decompress(stored)

    @abc.abstractmethod
    def write(self, match_id: str, kind: str, stored: bytes) -> None:
        """Keeps ``stored`` (an entry as ``encode`` made it) for the match and kind."""

    @abc.abstractmethod
    def read(self, match_id: str, kind: str) -> bytes | None:
        """Returns the stored bytes of the match's entry of ``kind``, or None."""

    @abc.abstractmethod
    def delete(self, match_id: str, kind: str | None = None) -> int:
        """Deletes one kind of the match's entries (every kind when None); returns how many went."""

    @abc.abstractmethod
    def entries(self) -> Iterator[tuple[str, str, int]]:
        """Yields (match id, kind, stored bytes) of every entry, in no order (a full scan: for
        usage figures and audits, never per request)."""

    def describe(self) -> str:
        """Returns where the store keeps its entries, for messages."""
        return type(self).__name__


class FolderStore(ReplayStore):
    """Entries as files ``ROOT/ab/cd/MATCH_ID/KIND.z`` (``abcd``: the start of the id's sha256);
    staged candidates as ``KIND~TAG.z`` beside them (``stage``, ``commit``)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def folder(self, match_id: str) -> Path:
        """Returns the folder of a match's entries."""
        hashed = hashlib.sha256(check_match_id(match_id).encode()).hexdigest()
        return self.root / hashed[:2] / hashed[2:4] / match_id

    def write(self, match_id: str, kind: str, stored: bytes) -> None:
        """Design detail: written to a temporary file in the same folder, flushed, then renamed over
        the entry: a reader sees the old entry or the new one, never a part, and a rerun of the match
        simply writes the same entry again."""
        self._write(self.folder(match_id), check_kind(kind) + _SUFFIX, stored)

    def stage(self, match_id: str, kind: str, data: bytes, tag: str) -> None:
        """Stores ``data`` beside the entry, as a candidate named by ``tag`` (hex digits) that ``get``
        does not see until ``commit``: two workers that played the same match differently (a stale job
        rerun while its first worker still ran) each stage their own, and only the recorded one is
        committed."""
        name = f"{check_kind(kind)}~{_check_tag(tag)}{_SUFFIX}"
        self._write(self.folder(match_id), name, encode(kind, data))

    def commit(self, match_id: str, tag: str) -> int:
        """Makes every candidate staged under ``tag`` its kind's entry and deletes the other
        candidates; returns how many were committed (0: committed already, or never staged)."""
        folder = self.folder(match_id)
        marker = f"~{_check_tag(tag)}{_SUFFIX}"
        committed = 0
        for staged in sorted(folder.glob(f"*{marker}")):
            with contextlib.suppress(FileNotFoundError):
                os.replace(staged, folder / (staged.name.removesuffix(marker) + _SUFFIX))
                committed += 1
        for other in folder.glob(f"*~*{_SUFFIX}"):
            other.unlink(missing_ok=True)
        return committed

    @staticmethod
    def _write(folder: Path, name: str, packed: bytes) -> None:
        """Writes ``folder/name`` atomically (temporary file, fsync, rename); ``packed``: the entry
        as stored (``encode``: first, so an entry the store refuses leaves no folder behind)."""
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".put-")
        try:
            os.fchmod(handle, ENTRY_MODE)  # mkstemp's 0600 would keep the server from reading it
            with os.fdopen(handle, "wb") as out:
                out.write(packed)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, folder / name)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise

    def read(self, match_id: str, kind: str) -> bytes | None:
        try:
            return (self.folder(match_id) / (check_kind(kind) + _SUFFIX)).read_bytes()
        except FileNotFoundError:
            return None

    def delete(self, match_id: str, kind: str | None = None) -> int:
        folder = self.folder(match_id)
        paths = [folder / (check_kind(kind) + _SUFFIX)] if kind else list(_files(folder, everything=True))
        gone = 0
        for path in paths:
            try:
                path.unlink()
                gone += 1
            except FileNotFoundError:
                continue
        if kind is None or not any(_files(folder)):
            _remove_empty(folder)
        return gone

    def discard_older(self, match_id: str, before: float) -> int:
        """Deletes the match's entries and candidates last written before ``before`` (Unix seconds),
        for a match never recorded; returns how many went. A rerun's fresh entries stay."""
        folder = self.folder(match_id)
        gone = 0
        for path in _files(folder, everything=True):
            with contextlib.suppress(FileNotFoundError):
                if path.stat().st_mtime < before:
                    path.unlink()
                    gone += 1
        _remove_empty(folder)
        return gone

    def entries(self) -> Iterator[tuple[str, str, int]]:
        for folder in self.root.glob("[0-9a-f][0-9a-f]/[0-9a-f][0-9a-f]/*"):
            for path in _files(folder):
                yield folder.name, path.name.removesuffix(_SUFFIX), path.stat().st_size

    def describe(self) -> str:
        return f"the folder {self.root}"


def _check_tag(tag: str) -> str:
    """Returns ``tag`` if it is 1 to 64 lowercase hex digits; raises ReplayStoreError."""
    if not re.fullmatch(r"[0-9a-f]{1,64}", tag):
        raise ReplayStoreError(f"a staged entry's tag must be hex digits, got {tag!r}")
    return tag


def _files(folder: Path, everything: bool = False) -> Iterator[Path]:
    """Yields the entry files of a match's folder (none if it does not exist); ``everything``: the
    temporary files a writer that died left behind too."""
    try:
        found = list(folder.iterdir())
    except FileNotFoundError:
        return
    yield from (p for p in found if everything or (p.name.endswith(_SUFFIX) and not p.name.startswith(".")))


def _remove_empty(folder: Path) -> None:
    """Removes a match's folder and its fan-out parents while they are empty."""
    for path in (folder, folder.parent, folder.parent.parent):
        try:
            path.rmdir()
        except OSError:  # not empty, or gone already
            return


class RedisStore(ReplayStore):
    """Entries as one Redis hash per match, ``arena:stored:MATCH_ID``, kind -> compressed bytes.

    Design detail: a hash per match rather than a string per match and kind, so that deleting all
    of a match's entries (retention, orphans) is one DEL of a key whose name is known, never a scan;
    measured, it costs about 100 bytes more than a string for a 1.4 KB replay. The store has its own
    client on the same server with ``decode_responses`` off: the values are bytes, not text.
    """

    def __init__(self, client: redis.Redis) -> None:
        pool = client.connection_pool
        kwargs = {**pool.connection_kwargs, "decode_responses": False}
        self.client = redis.Redis(connection_pool=redis.ConnectionPool(pool.connection_class, **kwargs))

    @staticmethod
    def put_command(match_id: str, entries: Mapping[str, bytes]) -> list[str | bytes]:
        """Returns the Redis command that puts ``entries`` (kind -> plain bytes) at once, for a caller
        that runs it in a script (``arena.queue.store`` stores a match's entries in the recording's
        own transaction)."""
        fields = [x for kind, data in entries.items() for x in (check_kind(kind), encode(kind, data))]
        return ["HSET", keys.stored(check_match_id(match_id)), *fields]

    def write(self, match_id: str, kind: str, stored: bytes) -> None:
        self.client.hset(keys.stored(check_match_id(match_id)), check_kind(kind), stored)

    def read(self, match_id: str, kind: str) -> bytes | None:
        # this client keeps bytes (decode_responses off); redis-py's signature says bytes | str for any
        return cast("bytes | None", self.client.hget(keys.stored(check_match_id(match_id)), check_kind(kind)))

    def delete(self, match_id: str, kind: str | None = None) -> int:
        key = keys.stored(check_match_id(match_id))
        if kind is not None:
            return int(self.client.hdel(key, check_kind(kind)))
        with self.client.pipeline() as pipe:
            pipe.hlen(key)
            pipe.delete(key)
            return int(pipe.execute()[0])

    def entries(self) -> Iterator[tuple[str, str, int]]:
        for key in self.client.scan_iter(match=keys.stored("*"), count=1000):
            match_id = key.decode().removeprefix(keys.stored(""))
            for kind in cast("list[bytes]", self.client.hkeys(key)):  # bytes, as in ``read``
                yield match_id, kind.decode(), int(self.client.hstrlen(key, kind))

    def describe(self) -> str:
        return "Redis (compressed, one hash per match)"


def store_from_env(client: redis.Redis) -> ReplayStore:
    """Returns the configured store: ``FolderStore`` at ``$ARENA_REPLAY_STORE`` when it is set,
    else ``RedisStore`` on ``client``'s server. Raises ReplayStoreError if the folder is unusable."""
    root = os.environ.get(ENV_STORE, "")
    if not root:
        return RedisStore(client)
    path = Path(root)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReplayStoreError(f"{ENV_STORE}={root}: cannot create the folder: {exc.strerror}") from None
    if not path.is_dir() or not os.access(path, os.W_OK | os.X_OK):
        raise ReplayStoreError(f"{ENV_STORE}={root}: not a folder this user can write in")
    return FolderStore(path)


_STORES: weakref.WeakKeyDictionary[redis.Redis, tuple[str, ReplayStore]] = weakref.WeakKeyDictionary()


def store_for(client: redis.Redis) -> ReplayStore:
    """Returns ``store_from_env(client)``, made once per client while the setting stays the same (a
    RedisStore opens its own connection pool: a web app must not open one per request)."""
    setting = os.environ.get(ENV_STORE, "")
    cached = _STORES.get(client)
    if cached is None or cached[0] != setting:
        cached = setting, store_from_env(client)
        _STORES[client] = cached
    return cached[1]
