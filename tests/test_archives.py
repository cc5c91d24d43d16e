"""Hostile bot archives (issue 16): each is refused with a clear message, and none is inflated or
written past a limit. Every archive is built here, in the test; no network, no Redis.

"Past a limit" is checked without timing: the memory Python allocates while a bomb is inspected
(``tracemalloc``), the bytes read from an upload, and the files written before a refusal (a
counting wrapper around the writer), with the target folder gone afterwards.
"""

from __future__ import annotations

import io
import os
import stat
import tarfile
import tracemalloc
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

from arena.submissions import archives
from arena.submissions.archives import (
    ArchiveError,
    ArchiveLimits,
    extract_archive,
    inspect_archive,
    read_upload,
)

MiB = 2**20


def member(name: str, data: bytes = b"", mode: int = 0o644, kind: bytes = tarfile.REGTYPE) -> tuple:
    """Returns a (TarInfo, data) pair for ``targz``."""
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.size = kind, mode, len(data) if kind == tarfile.REGTYPE else 0
    return info, data


def targz(members: Iterable[tuple], fmt: int = tarfile.PAX_FORMAT) -> bytes:
    """Returns a tar.gz of the members, written by tarfile itself."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=fmt) as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return buffer.getvalue()


def header_bomb(kind: bytes, size: int) -> bytes:
    """Returns a tar.gz whose first header is an extended header (PAX or GNU long name) of ``size``
    bytes, streamed through the compressor so the test never holds it: a few hundred KB packed."""
    info = tarfile.TarInfo("././@PaxHeader" if kind == tarfile.XHDTYPE else "././@LongLink")
    info.type, info.size = kind, size
    gz = zlib.compressobj(9, wbits=31)
    out = [gz.compress(info.tobuf(format=tarfile.USTAR_FORMAT))]
    prefix = f"{size} comment=".encode() if kind == tarfile.XHDTYPE else b""
    out.append(gz.compress(prefix))
    remaining, chunk = size - len(prefix) - 1, b"A" * MiB
    while remaining > 0:
        out.append(gz.compress(chunk[: min(remaining, MiB)]))
        remaining -= MiB
    pad = (-size) % 512
    out.append(gz.compress(b"\n" + b"\0" * pad))
    bot, data = member("bot.py", b"print(1)\n")
    out.append(gz.compress(bot.tobuf(format=tarfile.USTAR_FORMAT) + data.ljust(512, b"\0") + b"\0" * 1024))
    return b"".join(out) + gz.flush()


def count_writes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Wraps the archive writer so the test sees every member written; returns the list it fills."""
    written: list[str] = []
    real: Callable = archives._write

    def counting(tar: tarfile.TarFile, info: tarfile.TarInfo, path: Path) -> None:
        written.append(info.name)
        real(tar, info, path)

    monkeypatch.setattr(archives, "_write", counting)
    return written


def writing_alone_stops(
    archive: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limits: ArchiveLimits | None = None
) -> int:
    """Returns how many members extract_archive writes before refusing when the inspection that
    precedes the writing is skipped (so the checks made while writing are tested on their own)."""
    monkeypatch.setattr(archives, "inspect_archive", lambda archive, limits: None)
    written = count_writes(monkeypatch)
    with pytest.raises(ArchiveError, match="too big"):
        extract_archive(archive, tmp_path / "alone", limits or ArchiveLimits())
    assert not (tmp_path / "alone").exists()
    return len(written)


def refused(archive: bytes, tmp_path: Path, pattern: str, limits: ArchiveLimits | None = None) -> None:
    """Asserts both inspect_archive and extract_archive refuse with ``pattern``, leaving no folder."""
    limits = limits or ArchiveLimits()
    with pytest.raises(ArchiveError, match=pattern):
        inspect_archive(archive, limits)
    folder = tmp_path / "out"
    with pytest.raises(ArchiveError, match=pattern):
        extract_archive(archive, folder, limits)
    assert not folder.exists()


def test_a_good_archive_unpacks_read_only_with_its_execute_bits(tmp_path: Path) -> None:
    archive = targz(
        [
            member(".", kind=tarfile.DIRTYPE, mode=0o755),
            member("./bot", b"#!/bin/sh\n", mode=0o755),
            member("./lib/notes.txt", b"notes\n"),
        ]
    )
    summary = inspect_archive(archive)
    assert summary.files == 2 and summary.unpacked_bytes == 16
    assert summary.members == {"bot", "lib/notes.txt"} and summary.executables == {"bot"}
    assert summary.folders == {"lib"}
    folder = tmp_path / "out"
    assert extract_archive(archive, folder) == summary
    modes = {p.relative_to(folder).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in folder.rglob("*")}
    assert modes == {"bot": 0o555, "lib": 0o555, "lib/notes.txt": 0o444}
    assert stat.S_IMODE(folder.stat().st_mode) == 0o555
    assert (folder / "lib" / "notes.txt").read_bytes() == b"notes\n"
    if os.geteuid() != 0:  # root writes anyway; the modes above are what a bot's user meets
        with pytest.raises(PermissionError):
            (folder / "new.txt").write_text("x")
    archives.remove_tree(folder)
    assert not folder.exists()


@pytest.mark.parametrize("kind", [tarfile.XHDTYPE, tarfile.GNUTYPE_LONGNAME])
def test_an_extended_header_bomb_is_cut_off_before_it_is_read(kind: bytes, tmp_path: Path) -> None:
    bomb = header_bomb(kind, 256 * MiB)
    assert len(bomb) < 1 * MiB  # a few hundred KB that would inflate to 256 MiB
    tracemalloc.start()
    try:
        with pytest.raises(ArchiveError, match=r"268,435,456-byte extended tar header \(at most 65,536\)"):
            inspect_archive(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < len(bomb) + 4 * MiB  # the archive itself, a few buffers: never the header's body
    refused(bomb, tmp_path, "extended tar header")


def test_many_medium_extended_headers_stop_at_the_inflated_limit(tmp_path: Path) -> None:
    limits = ArchiveLimits(files=100, unpacked_bytes=MiB)  # inflated limit: about 2.2 MiB
    padded = []
    for i in range(60):  # 60 members of 10 bytes, each behind a 60 KB PAX header: 3.6 MB inflated
        info, data = member(f"f{i}.txt", b"0123456789")
        info.pax_headers = {"comment": "x" * 60_000}
        padded.append((info, data))
    archive = targz(padded)
    assert len(archive) < 100_000
    refused(archive, tmp_path, "inflates past the unpacked limit", limits)


def test_thirty_thousand_empty_files_are_refused_after_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = targz((member(f"f{i}") for i in range(30_000)), fmt=tarfile.USTAR_FORMAT)
    written = count_writes(monkeypatch)
    refused(archive, tmp_path, r"more than 10,000 files and folders")
    assert written == []  # refused by the whole inspection that comes before any write
    fewer = ArchiveLimits(files=1_000)  # the writer's own check, at a limit quicker to reach
    assert writing_alone_stops(archive, tmp_path, monkeypatch, fewer) == 1_000


@pytest.mark.parametrize(
    ("hostile", "pattern"),
    [
        (member("bot.py", kind=tarfile.SYMTYPE), "bot.py is a symbolic link"),
        (member("bot.py", kind=tarfile.LNKTYPE), "bot.py is a hard link"),
        (member("tty", kind=tarfile.CHRTYPE), "tty is a device or a fifo"),
        (member("pipe", kind=tarfile.FIFOTYPE), "pipe is a device or a fifo"),
        (member("holes", kind=tarfile.GNUTYPE_SPARSE), "holes is a sparse file"),
        (member("../x", b"x"), "'../x' points outside the bot folder"),
        (member("lib/../../x", b"x"), "points outside the bot folder"),
        (member("/etc/x", b"x"), "'/etc/x' points outside the bot folder"),
        (member("notes.txt", b"again"), "notes.txt is in the archive twice"),
        (member("notes.txt/x", b"x"), "notes.txt/x is inside something the archive holds as a file"),
        (member(".", b"x"), "'.' is a file named like the folder itself"),
    ],
)
def test_links_devices_escapes_and_duplicates_are_refused(
    hostile: tuple, pattern: str, tmp_path: Path
) -> None:
    info, data = hostile
    if info.issym() or info.islnk():
        info.linkname = "/etc/passwd"
    archive = targz([member("notes.txt", b"notes"), (info, data)])
    refused(archive, tmp_path, pattern)


def test_a_file_where_a_folder_was_implied_is_refused(tmp_path: Path) -> None:
    archive = targz([member("lib/notes.txt", b"x"), member("lib", b"a file now")])
    refused(archive, tmp_path, "lib is a file, but other members are inside it")


def test_unpacked_bytes_over_the_limit_are_never_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limits = ArchiveLimits(unpacked_bytes=MiB)
    archive = targz([member("a.bin", b"\0" * (MiB // 2 + 1)), member("b.bin", b"\0" * (MiB // 2))])
    assert len(archive) < 10_000
    written = count_writes(monkeypatch)
    refused(archive, tmp_path, r"its files add up to more than 1 MiB", limits)
    assert written == []
    assert writing_alone_stops(archive, tmp_path, monkeypatch, limits) == 1  # b.bin: not a byte


def test_a_packed_archive_over_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    archive = targz([member("weights.bin", os.urandom(64 * 1024))])
    refused(archive, tmp_path, r"it is over 32 KiB packed", ArchiveLimits(packed_bytes=32 * 1024))


def corrupt_crc(archive: bytes) -> bytes:
    """Returns the archive with its gzip trailer's CRC-32 changed (the tar inside intact)."""
    return archive[:-8] + bytes([archive[-8] ^ 0xFF]) + archive[-7:]


class EndlessUpload(io.RawIOBase):
    """An upload that never ends, counting the bytes the reader took."""

    def __init__(self) -> None:
        self.taken = 0

    def read(self, size: int = -1) -> bytes:
        size = 1 << 20 if size is None or size < 0 else size
        self.taken += size
        return b"x" * size


def test_an_oversized_upload_stops_one_byte_past_the_limit() -> None:
    limits = ArchiveLimits(packed_bytes=MiB)
    upload = EndlessUpload()
    with pytest.raises(ArchiveError, match=r"the upload is over 1 MiB"):
        read_upload(upload, limits)  # type: ignore[arg-type]
    assert upload.taken == MiB + 1
    exact = io.BytesIO(b"y" * MiB)
    assert read_upload(exact, limits) == b"y" * MiB


@pytest.mark.parametrize(
    ("archive", "pattern"),
    [
        (b"not gzip at all", "not a valid tar.gz"),
        (zlib.compress(b"zlib, not gzip"), "not a valid tar.gz"),
        (targz([member("bot.py", os.urandom(5000))])[:2000], "truncated"),
        (corrupt_crc(targz([member("bot.py", b"print(1)")])), "not a valid tar.gz"),
        (targz([member("empty", kind=tarfile.DIRTYPE)]), "holds no files"),
    ],
)
def test_broken_and_empty_archives_are_refused(archive: bytes, pattern: str, tmp_path: Path) -> None:
    refused(archive, tmp_path, pattern)
