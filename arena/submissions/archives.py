"""Bot archives checked where they are stored and where they are run: size, file count and members.

A submitted bot travels as a tar.gz. Whoever receives one (the server taking an upload, a worker
unpacking a stored version) treats it as hostile: a few hundred KB of gzip can inflate to gigabytes,
a PAX or GNU long-name header can hold megabytes that ``tarfile`` reads into memory, thirty thousand
empty files cost seconds to create, and a member can be a link, a device, or a path out of the folder.

So every archive is read as a *stream*, never listed first: ``read_upload`` stops reading an upload
one byte past the packed limit, and ``inspect_archive`` / ``extract_archive`` decompress through
``_Inflater``, which counts the decompressed bytes (file contents and tar headers alike) and stops at
the unpacked limit plus a small margin for headers. Each member is checked before anything of it is
written: its kind (regular files and folders only), its name (relative, no ``..``, not twice), the
running count of members and the running total of their sizes. ``extract_archive`` therefore never
writes a byte past a limit, and a refused archive leaves no folder behind.

Design detail, header bombs: ``tarfile`` reads a PAX or GNU long-name header's whole body into memory
before it hands back the member it describes. ``_CheckedInfo`` sees each header's declared size before
that read and refuses one over ``HEADER_BYTES``, and refuses long chains of such headers, so memory
stays bounded by the header cap rather than by the unpacked limit. It hooks ``TarInfo._proc_member``,
CPython's dispatch of every header since Python 3.0; should that ever change, the header-bomb tests
of ``tests/test_archives.py`` fail (they measure the memory a bomb costs).
"""

from __future__ import annotations

import dataclasses
import gzip
import io
import os
import shutil
import stat
import tarfile
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import BinaryIO

MiB = 2**20
SKIPPED = frozenset({"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
CHUNK = 64 * 1024  # bytes read or inflated at a time
HEADER_BYTES = 64 * 1024  # the largest PAX / GNU long-name header body accepted
CHAINED_HEADERS = 8  # the most extended headers accepted in front of one member
HEADER_TYPES = frozenset({tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE}) | frozenset(
    {tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK}
)


@dataclasses.dataclass(frozen=True)
class ArchiveLimits:
    """How big a bot archive may be: packed (as uploaded or stored), unpacked, and in members."""

    packed_bytes: int = 10 * MiB
    unpacked_bytes: int = 100 * MiB
    files: int = 10_000  # files and folders together

    def inflated_bytes(self) -> int:
        """Returns how many decompressed bytes an archive within the limits can take: its contents,
        plus a 512-byte header and up to 511 bytes of padding per member, an extended header for a
        long name, and the end-of-archive blocks."""
        return self.unpacked_bytes + (self.files + 2) * 3072 + MiB

    def describe(self) -> str:
        """Returns the limits in words, for error messages."""
        return (
            f"at most {size_text(self.packed_bytes)} packed, {size_text(self.unpacked_bytes)} unpacked "
            f"and {self.files:,} files and folders"
        )


def size_text(n: int) -> str:
    """Returns a byte count as a limit is written: "10 MiB", "64 KiB", "100 bytes".

    >>> size_text(10 * MiB), size_text(65536), size_text(1000)
    ('10 MiB', '64 KiB', '1000 bytes')
    """
    for unit, size in (("MiB", MiB), ("KiB", 1024)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
        if n >= 10 * size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


NAME_SHOWN = 100  # characters of a file name or command an error message repeats


def shown_name(name: str) -> str:
    """Returns a name from a submission as an error message repeats it: on one line (control
    characters escaped) and at most ``NAME_SHOWN`` characters, since a hostile archive's member name
    can be 64 KiB long and hold a newline or a terminal escape.

    >>> shown_name("bot.py"), shown_name("a\\nb\\x1b[2J"), len(shown_name("x" * 5000))
    ('bot.py', 'a\\\\nb\\\\x1b[2J', 103)
    """
    cut = name[:NAME_SHOWN]
    text = cut if cut.isprintable() else repr(cut)[1:-1]
    return text + ("..." if len(name) > NAME_SHOWN else "")


class SubmissionError(ValueError):
    """A submission that cannot be stored, found or run; the message says what to do (defined in
    this lowest layer, re-exported by ``arena.submissions.registry``)."""


class ArchiveError(SubmissionError):
    """An archive that is refused; the message says what is wrong and what to do."""


@dataclasses.dataclass(frozen=True)
class ArchiveSummary:
    """What a checked archive holds."""

    files: int  # regular files
    unpacked_bytes: int  # their sizes together
    members: frozenset[str]  # every file's and folder's relative posix path (no "./" prefix)
    executables: frozenset[str]  # the files with an execute bit
    folders: frozenset[str] = frozenset()  # the folders, listed or implied by a member's path


@dataclasses.dataclass(frozen=True)
class Package:
    """A bot directory packed for storage."""

    archive: bytes  # deterministic tar.gz: same files, same bytes
    files: int
    unpacked_bytes: int


def _walk(directory: Path) -> Iterable[tuple[str, Path]]:
    """Yields (relative posix path, path) of every entry to pack, sorted, skipping caches and VCS."""
    for root, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        base = Path(root)
        for name in sorted(dirs) + sorted(f for f in files if not f.endswith(".pyc")):
            path = base / name
            yield path.relative_to(directory).as_posix(), path


def _tarinfo(rel: str, path: Path) -> tarfile.TarInfo:
    """Returns a tar header that depends only on the file's name, kind, size and executable bit."""
    if path.is_symlink():
        raise ArchiveError(
            f"{shown_name(rel)} is a symbolic link: bots are packed without links; copy the file in"
        )
    info = tarfile.TarInfo(rel)
    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
    if path.is_dir():
        info.type, info.mode = tarfile.DIRTYPE, 0o755
    elif path.is_file():
        st = path.stat()
        info.size, info.mode = st.st_size, 0o755 if st.st_mode & 0o111 else 0o644
    else:
        raise ArchiveError(
            f"{shown_name(rel)} is not a regular file or directory; remove it from the bot directory"
        )
    return info


def pack(directory: Path, limits: ArchiveLimits = ArchiveLimits()) -> Package:
    """Returns the directory packed as a deterministic tar.gz; raises ArchiveError over the limits
    (the same ``limits`` the server and the workers check the archive against)."""
    if not directory.is_dir():
        raise ArchiveError(f"{directory} is not a directory: give --dir the folder that holds your bot")
    buffer = io.BytesIO()
    files = members = unpacked = 0
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        for rel, path in _walk(directory):
            info = _tarinfo(rel, path)
            unpacked += info.size
            members += 1
            if (
                unpacked > limits.unpacked_bytes
                or buffer.tell() > limits.packed_bytes
                or members > limits.files
            ):
                raise _folder_too_big(directory, limits)
            if info.isdir():
                tar.addfile(info)
                continue
            with open(path, "rb") as f:
                tar.addfile(info, f)
            files += 1
    archive = buffer.getvalue()
    if len(archive) > limits.packed_bytes:
        raise _folder_too_big(directory, limits)
    if files == 0:
        raise ArchiveError(f"{directory} holds no files to submit")
    return Package(archive, files, unpacked)


def _folder_too_big(directory: Path, limits: ArchiveLimits) -> ArchiveError:
    return ArchiveError(
        f"bot directory {directory} is too big: {limits.describe()}; leave out files the bot does not need"
    )


def read_upload(stream: BinaryIO, limits: ArchiveLimits = ArchiveLimits()) -> bytes:
    """Returns an uploaded archive's bytes, read in chunks; raises ArchiveError as soon as more than
    ``limits.packed_bytes`` arrive (it never reads past the limit plus one byte)."""
    parts: list[bytes] = []
    received = 0
    while True:
        chunk = stream.read(min(CHUNK, limits.packed_bytes + 1 - received))
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
        received += len(chunk)
        if received > limits.packed_bytes:
            raise _too_big(limits, f"the upload is over {size_text(limits.packed_bytes)}")


def inspect_archive(archive: bytes, limits: ArchiveLimits = ArchiveLimits()) -> ArchiveSummary:
    """Returns what a tar.gz holds after checking it against ``limits`` without writing anything;
    raises ArchiveError for anything ``extract_archive`` would refuse."""
    checker = _Checker(limits)
    for _ in _members(archive, limits, checker):
        pass
    return checker.summary()


def extract_archive(archive: bytes, folder: Path, limits: ArchiveLimits = ArchiveLimits()) -> ArchiveSummary:
    """Unpacks a tar.gz into ``folder`` (created if missing; it should be new, since a refusal
    removes it) and makes the tree read-only (files 0o444, or 0o555 when executable; folders 0o555);
    returns what it holds.

    Raises ArchiveError, with ``folder`` removed, for a member or a size past a limit. The archive is
    inspected whole before anything is written, so a refused archive writes nothing; the checks run
    again while writing, member by member, so nothing is written past a limit even then.

    Design detail: the first pass costs a second decompression (under a second for a full 10,000
    file archive), paid once per version per worker; in exchange a hostile archive never creates
    the thousands of files it lists before it is refused."""
    checker = _Checker(limits)
    try:
        inspect_archive(archive, limits)
        folder.mkdir(parents=True, exist_ok=True)
        for tar, member, name in _members(archive, limits, checker):
            _write(tar, member, folder / name)
    except BaseException:
        remove_tree(folder)
        raise
    _make_read_only(folder)
    return checker.summary()


def remove_tree(folder: Path) -> None:
    """Removes a folder tree even where ``extract_archive`` made it read-only; missing is fine."""
    if not folder.is_dir() or folder.is_symlink():
        return
    for root, _, _ in os.walk(folder):  # top down: each folder writable before its entries go
        os.chmod(root, 0o755)
    shutil.rmtree(folder)


class _Inflater(io.RawIOBase):
    """A readable stream of a gzip archive's decompressed bytes that refuses to inflate past a limit."""

    def __init__(self, archive: bytes, limits: ArchiveLimits) -> None:
        super().__init__()
        self._data = memoryview(archive)
        self._position = 0
        self._zlib = zlib.decompressobj(wbits=31)  # gzip framing only
        self._limits = limits
        self._limit = limits.inflated_bytes()
        self.inflated = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        """Returns up to ``size`` decompressed bytes (b"" at the end of the gzip stream)."""
        size = size if size is not None and size > 0 else CHUNK
        while not self._zlib.eof:
            data: bytes | memoryview = self._zlib.unconsumed_tail
            if not data:
                data = self._data[self._position : self._position + CHUNK]
                self._position += len(data)
                if not data:
                    raise ArchiveError("the archive is truncated: pack the bot folder again")
            try:
                out = self._zlib.decompress(data, size)
            except zlib.error:
                raise ArchiveError("the archive is not a valid tar.gz: pack it with 'tar czf'") from None
            if out:
                self.inflated += len(out)
                if self.inflated > self._limit:
                    raise _too_big(self._limits, "it inflates past the unpacked limit")
                return out
        return b""


class _CheckedInfo(tarfile.TarInfo):
    """A tar header that refuses an oversized or endlessly chained extended header before reading it
    (see the module docstring)."""

    def _proc_member(self, tarfile: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type in HEADER_TYPES:
            if self.size > HEADER_BYTES:
                raise ArchiveError(
                    f"the archive has a {self.size:,}-byte extended tar header (at most {HEADER_BYTES:,}): "
                    "pack the bot folder with plain 'tar czf' and short file names"
                )
            chained = getattr(tarfile, "_arena_chained", 0) + 1
            if chained > CHAINED_HEADERS:
                raise ArchiveError("the archive chains extended tar headers: pack the bot folder again")
            tarfile._arena_chained = chained  # type: ignore[attr-defined]
        else:
            tarfile._arena_chained = 0  # type: ignore[attr-defined]
        return super()._proc_member(tarfile)  # type: ignore[misc]


class _Checker:
    """Checks members one at a time against the limits; remembers what it accepted."""

    def __init__(self, limits: ArchiveLimits) -> None:
        self.limits = limits
        self.members: set[str] = set()
        self.files: set[str] = set()
        self.executables: set[str] = set()
        self.parents: set[str] = set()  # every folder a member's path implies
        self.unpacked = 0

    def accept(self, member: tarfile.TarInfo) -> str | None:
        """Returns the member's normalized name (None for the archive's own root folder, "."), or
        raises ArchiveError for a member that is refused."""
        name = _normalized(member.name)
        _check_kind(member)
        if name is None:
            if member.isdir():
                return None
            raise ArchiveError(
                f"'{shown_name(member.name)}' is a file named like the folder itself: pack the folder again"
            )
        self._check_place(name, member.isdir())
        self._count(name, member)
        return name

    def _check_place(self, name: str, is_dir: bool) -> None:
        """Refuses a name taken before, one under a file, and a file where a folder was implied."""
        if name in self.members:
            raise ArchiveError(f"{shown_name(name)} is in the archive twice: pack each file once")
        if any(parent in self.files for parent in _parents(name)):
            raise ArchiveError(
                f"{shown_name(name)} is inside something the archive holds as a file: pack the folder again"
            )
        if not is_dir and name in self.parents:
            raise ArchiveError(
                f"{shown_name(name)} is a file, but other members are inside it: pack the folder again"
            )

    def _count(self, name: str, member: tarfile.TarInfo) -> None:
        """Counts an accepted member against the limits (refusing the one that passes a limit)."""
        if len(self.members) >= self.limits.files:
            raise _too_big(self.limits, f"it holds more than {self.limits.files:,} files and folders")
        if member.isfile():
            if self.unpacked + member.size > self.limits.unpacked_bytes:
                reason = f"its files add up to more than {size_text(self.limits.unpacked_bytes)}"
                raise _too_big(self.limits, reason)
            self.unpacked += member.size
            self.files.add(name)
            if member.mode & 0o111:
                self.executables.add(name)
        self.members.add(name)
        self.parents.update(_parents(name))

    def summary(self) -> ArchiveSummary:
        """Returns what was accepted so far."""
        members = frozenset(self.members)
        folders = (members - self.files) | self.parents
        return ArchiveSummary(len(self.files), self.unpacked, members, frozenset(self.executables), folders)


def _members(
    archive: bytes, limits: ArchiveLimits, checker: _Checker
) -> Iterator[tuple[tarfile.TarFile, tarfile.TarInfo, str]]:
    """Yields (tar, member, normalized name) of each accepted member, streaming the archive; while a
    member is yielded its contents can be read with ``tar.extractfile(member)``."""
    if len(archive) > limits.packed_bytes:
        raise _too_big(limits, f"it is over {size_text(limits.packed_bytes)} packed")
    inflater = _Inflater(archive, limits)
    try:
        with tarfile.open(fileobj=inflater, mode="r|", tarinfo=_CheckedInfo) as tar:
            for member in tar:
                name = checker.accept(member)
                if name is not None:
                    yield tar, member, name
        while inflater.read(CHUNK):  # to the gzip trailer, whose checksum zlib verifies
            pass
    except (tarfile.TarError, EOFError, UnicodeError) as exc:
        raise ArchiveError(f"the archive is not a valid tar.gz ({exc}): pack it with 'tar czf'") from None
    except RecursionError:
        raise ArchiveError("the archive chains extended tar headers: pack the bot folder again") from None
    if not checker.files:
        raise ArchiveError("the archive holds no files: pack the folder that holds your bot")


def _normalized(name: str) -> str | None:
    """Returns a member name as a relative posix path without "." parts (None for the root itself);
    raises ArchiveError for an absolute name, a '..' part, or a NUL byte."""
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or "\0" in name:
        raise ArchiveError(
            f"'{shown_name(name)}' points outside the bot folder: pack paths relative to the folder"
        )
    parts = [p for p in path.parts if p != "."]
    return "/".join(parts) if parts else None


def _parents(name: str) -> Iterator[str]:
    """Yields each folder a member name lies in: "a/b/c" -> "a", "a/b"."""
    parts = name.split("/")
    for i in range(1, len(parts)):
        yield "/".join(parts[:i])


def _check_kind(member: tarfile.TarInfo) -> None:
    """Refuses every member but a regular file or a folder."""
    if member.issparse():
        raise ArchiveError(
            f"{shown_name(member.name)} is a sparse file: pack the bot folder with plain 'tar czf'"
        )
    if not (member.isfile() or member.isdir()):
        raise ArchiveError(
            f"{_kind(member)}: bots are packed without links or special files; copy the file in"
        )


def _kind(member: tarfile.TarInfo) -> str:
    """Returns what a refused member is, in words."""
    if member.issym():
        return f"{shown_name(member.name)} is a symbolic link"
    if member.islnk():
        return f"{shown_name(member.name)} is a hard link"
    if member.isdev():
        return f"{shown_name(member.name)} is a device or a fifo"
    return f"{shown_name(member.name)} is not a regular file or folder"


def _write(tar: tarfile.TarFile, member: tarfile.TarInfo, path: Path) -> None:
    """Writes one accepted member (its size already counted), never following an existing link."""
    if member.isdir():
        path.mkdir(parents=True, exist_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    source = tar.extractfile(member)
    assert source is not None  # a regular file
    fd = os.open(
        path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o755 if member.mode & 0o111 else 0o644
    )
    with os.fdopen(fd, "wb") as out:
        while chunk := source.read(CHUNK):
            out.write(chunk)


def _make_read_only(folder: Path) -> None:
    """Makes an unpacked tree read-only: files 0o444 (0o555 when executable), folders 0o555."""
    for root, dirs, files in os.walk(folder, topdown=False):
        for name in files:
            path = os.path.join(root, name)
            executable = os.stat(path).st_mode & stat.S_IXUSR
            os.chmod(path, 0o555 if executable else 0o444)
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o555)
    os.chmod(folder, 0o555)


def _too_big(limits: ArchiveLimits, reason: str) -> ArchiveError:
    return ArchiveError(
        f"the bot archive is too big: {reason} ({limits.describe()}); leave out files the bot does not need"
    )
