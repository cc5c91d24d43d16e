"""A bot's output, read as it is written: kept whole (capped) in its log file, and line by line stamped
with the decision step during which it was written, so an author reads a line beside the decision.

The referee calls ``mark(None)`` when a match begins for the bot's process, ``mark(step)`` when it
sends the seat a request and ``drain()`` when the answer (or the deadline) comes. Each drains the pipe
first, so every byte the bot wrote before answering is read and stamped with the step it was deciding:
a bot writes its line, then sends its answer, and the line is in the pipe by the time the answer
arrives.

Which match and which step a line goes with, by what the bot had been told when it wrote it:

- before the process's first match began (before and while it joined; a crash before ``Join``): the
  first match, stamped None ("start");
- after a match began and before the seat's first request (``on_match_start``): the seat's first
  decision of that match, whenever the line was read (the request follows ``MatchStart`` at once, so
  reading it "before the first decision" was a race: ``step 0`` in one run, ``start`` in the next);
- while deciding step k: step k;
- after the seat's last decision: that match, stamped with its last step, up to the moment the next
  match begins for the process; ``take`` after the process ended (``BotPool`` stops it) returns them
  all, since a dead process's output is all in the pipe. A process kept for the next match has no
  such moment: nothing in the protocol says when a bot is done writing about a match, so what reaches
  the pipe after the next match began is read as that match's (its first decision).

Design detail: one thread per bot reads the pipe (non-blocking, after ``poll`` says there is
something), and ``mark``/``drain`` read it too, from the referee's loop, under the same lock. A thread
that only read blocking would leave a line in the pipe while the step changes, and stamp it with the
next one. ``poll``, not ``select``: ``select`` refuses a descriptor numbered 1024 or more, and the
thread ended there, closing the pipe: every later line of that bot was lost (a busy referee has that
many descriptors). The stamped lines of a match are kept in memory up to the same cap as the log file,
then dropped with one note: the referee's memory is bounded whatever a bot prints.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import select
import threading
from pathlib import Path
from typing import IO, Any

STORE_KIND = "log"  # the kind of a match's log in the replay store (arena.storage.replays)
STORED_BYTES = 256 * 1024  # the most of a match log kept with a tournament's results (for_store)
LINE_CHARS = 2000  # a stamped line longer than this is cut (the log file keeps it whole, within its cap)


@dataclasses.dataclass(frozen=True)
class Line:
    """One line of a bot's output and the decision step during which it was written (None: before
    the match began, which for a process's first match is while it started and joined)."""

    step: int | None
    text: str


def step_label(step: int | None) -> str:
    """Returns how a line's step is shown (``arena logs``): the step's number, or ``start`` for what a
    bot wrote before the match began; one label for a local match's log and a stored one."""
    return "start" if step is None else str(step)


class StampedLog:
    """Reads a bot's output pipe into ``log_path`` (at most ``cap`` bytes) and into stamped lines."""

    def __init__(self, pipe: IO[bytes], log_path: Path, cap: int) -> None:
        self._fd = pipe.fileno()
        self._pipe = pipe
        os.set_blocking(self._fd, False)
        self._log = open(log_path, "ab")  # noqa: SIM115 (closed by the thread at the pipe's end)
        self._cap = cap
        self._written = 0
        self._kept = 0
        self._lock = threading.Lock()
        self._step: int | None = None
        self._partial = b""
        self._partial_step: int | None = None
        self._lines: list[Line] = []  # the current match's (before the first match: the process's)
        self._matches = 0  # matches begun for this process (``mark(None)``)
        self._awaiting = -1  # from this index of _lines: read in this match before the seat's first request
        self._first_line: str | None = None  # the process's first complete line, kept past ``take``
        self._open = True
        self._thread = threading.Thread(target=self._run, name=f"bot-log-{log_path.name}", daemon=True)
        self._thread.start()

    def mark(self, step: int | None) -> None:
        """Reads what the bot wrote so far (stamped with the step before), then stamps with ``step``;
        ``None``: a new match begins for the process (see the module's docstring)."""
        with self._lock:
            self._read()
            if step is None:
                self._begin_match()
            elif self._awaiting >= 0:  # the seat's first request of the match
                self._stamp_awaiting(step)
            self._step = step

    def drain(self) -> None:
        """Reads what the bot wrote so far, stamped with the current step."""
        with self._lock:
            self._read()

    def take(self) -> list[Line]:
        """Returns the stamped lines of the current match so far (a partial last line included), read
        now; they are kept until the next match begins, so a later call (once the process ended) also
        returns what the bot wrote after its last decision."""
        with self._lock:
            self._read()
            lines = list(self._lines)
            if self._partial and self._kept <= self._cap:
                lines.append(self._line(self._partial_step, self._partial))
            return lines

    def _begin_match(self) -> None:
        """Starts the lines of a new match: what the process wrote before its first match is the first
        match's (stamped None); later, what is still held belongs to the match before, whose log is
        made (it stays in the log file)."""
        if self._matches:
            self._lines, self._kept, self._partial = [], 0, b""
        self._matches += 1
        self._awaiting = len(self._lines)

    def _stamp_awaiting(self, step: int) -> None:
        """Stamps the lines read since the match began with the seat's first decision step."""
        for index in range(self._awaiting, len(self._lines)):
            self._lines[index] = dataclasses.replace(self._lines[index], step=step)
        if self._partial and self._partial_step is None:
            self._partial_step = step
        self._awaiting = -1

    @property
    def first_line(self) -> str | None:
        """Returns the first complete line the process wrote (None before it wrote one), read now.

        The worker learns from it whether a seat's sandbox started its bot (``arena.queue.seats``):
        the line passed through here already, so nobody reads the log file back for it."""
        with self._lock:
            self._read()
            return self._first_line

    def join(self, timeout: float) -> None:
        """Waits for the reader thread to finish (the pipe closed)."""
        self._thread.join(timeout)

    def _run(self) -> None:
        waiting = select.poll()
        waiting.register(self._fd, select.POLLIN)
        try:
            while self._open:
                with contextlib.suppress(InterruptedError):
                    waiting.poll()
                with self._lock:
                    self._read()
        except (OSError, ValueError):
            pass
        finally:
            with self._lock:
                self._open = False
                self._log.close()
                self._pipe.close()

    def _read(self) -> None:
        """Reads everything the pipe holds now (the lock held); notes the end of the pipe."""
        while self._open:
            try:
                chunk = os.read(self._fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._open = False
                return
            self._write(chunk)
            self._split(chunk)

    def _write(self, chunk: bytes) -> None:
        if self._written >= self._cap or self._log.closed:
            return
        part = chunk[: self._cap - self._written]
        self._log.write(part)
        self._written += len(part)
        if self._written >= self._cap:
            self._log.write(
                f"\n[arena: log cut at {self._cap} bytes; the rest of the output is dropped]\n".encode()
            )
        self._log.flush()

    def _split(self, chunk: bytes) -> None:
        if not self._partial:
            self._partial_step = self._step
        *complete, self._partial = (self._partial + chunk).split(b"\n")
        if complete and self._first_line is None:
            self._first_line = complete[0][:LINE_CHARS].decode("utf-8", errors="replace").rstrip("\r")
        for number, line in enumerate(complete):
            self._keep(self._partial_step if number == 0 else self._step, line)
        if complete:
            self._partial_step = self._step
        while len(self._partial) > LINE_CHARS:  # no newline in sight: cut into lines of their own
            self._keep(self._partial_step, self._partial[:LINE_CHARS])
            self._partial, self._partial_step = self._partial[LINE_CHARS:], self._step

    def _keep(self, step: int | None, line: bytes) -> None:
        if self._kept > self._cap:
            return
        line = line[: 4 * LINE_CHARS]  # what a line may hold once decoded and cut to LINE_CHARS
        self._kept += len(line) + 1
        if self._kept > self._cap:
            self._lines.append(
                Line(step, f"[arena: more than {self._cap} bytes this match; the rest is dropped]")
            )
            return
        self._lines.append(self._line(step, line))

    @staticmethod
    def _line(step: int | None, line: bytes) -> Line:
        text = line[: 4 * LINE_CHARS].decode("utf-8", errors="replace").rstrip("\r")
        return Line(step, text[:LINE_CHARS])


@dataclasses.dataclass(frozen=True)
class Think:
    """How long a seat took over one decision: from the request sent to its answer (or the deadline),
    in milliseconds; ``answered``: whether a usable answer came in time."""

    step: int
    seat: int
    ms: float
    answered: bool


def for_store(text: str, limit: int = STORED_BYTES) -> bytes:
    """Returns a match log as kept with a tournament's results, in about ``limit`` bytes: the header
    and every think time whole, each seat's first lines up to an equal share of the rest, and a line
    saying how much was dropped (a local match's log file is not cut)."""
    data = text.encode()
    if len(data) <= limit:
        return data
    rows = data.splitlines(keepends=True)
    lines: dict[int, list[bytes]] = {}
    for row in rows:
        if row.startswith(b'{"type": "line"'):
            lines.setdefault(json.loads(row)["seat"], []).append(row)
    others = [row for row in rows if not row.startswith(b'{"type": "line"')]
    room = max(0, limit - sum(map(len, others)))
    kept: dict[int, list[bytes]] = {}
    # the quietest seats first: each takes at most an equal share of what is left, so what a quiet
    # seat does not use goes to the noisy ones
    for left, seat in enumerate(sorted(lines, key=lambda s: sum(map(len, lines[s]))), -len(lines)):
        share, total = room // -left, 0
        kept[seat] = []
        for row in lines[seat]:
            if total + len(row) > share:
                break
            total += len(row)
            kept[seat].append(row)
        room -= total
    out = b"".join([others[0], *(row for seat in sorted(kept) for row in kept[seat]), *others[1:]])
    note = {"type": "cut", "text": f"[arena: {len(data) - len(out)} of {len(data)} bytes of output dropped]"}
    return out + json.dumps(note).encode() + b"\n"


def with_seat_lines(text: str, lines: dict[int, list[Line]]) -> str:
    """Returns the match log ``text`` (``match_log_text``'s) with the lines of the seats in ``lines``
    replaced: what a process wrote by the time it ended, once it ended after the match."""
    log = parse_match_log(text, "a match log just written")
    kept: dict[int, list[Line]] = {}
    for seat, line in log.lines:
        kept.setdefault(seat, []).append(line)
    return match_log_text(log.header, kept | lines, list(log.think))


def match_log_path(replay: Path) -> Path:
    """Returns where a replay's match log is kept: beside it, ``NAME.log`` for ``NAME.jsonl`` (JSON Lines; not
    ``*.jsonl``, so a folder's replays are still its ``*.jsonl`` files)."""
    return replay.with_name(replay.name.removesuffix(".jsonl") + ".log")


def match_log_text(header: dict, lines: dict[int, list[Line]], think: list[Think]) -> str:
    """Returns a match's log as JSON Lines: a header (``match_id``, ``game``, ``players``,
    ``deadline_ms``), then each seat's stamped output lines, then each decision's think time.

    Design detail: timing never enters the replay, whose bytes depend only on the seed and the
    decisions; think times and output live here, beside it.
    """
    rows = [{"type": "log-header", **{k: header[k] for k in ("match_id", "game", "players", "deadline_ms")}}]
    for seat in sorted(lines):
        rows.extend({"type": "line", "seat": seat, "step": x.step, "text": x.text} for x in lines[seat])
    rows.extend(
        {"type": "think", "seat": t.seat, "step": t.step, "ms": round(t.ms, 3), "answered": t.answered}
        for t in think
    )
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)


class MatchLogError(ValueError):
    """A match log that cannot be read."""


@dataclasses.dataclass(frozen=True)
class MatchLog:
    """A match log read back: its header, each seat's stamped lines and the think times."""

    header: dict[str, Any]
    lines: tuple[tuple[int, Line], ...]  # (seat, line), by seat, in the order written
    think: tuple[Think, ...]
    cut: str = ""  # what was dropped when it was stored (for_store), if anything

    def bot(self, seat: int) -> str:
        """Returns the name of the bot in ``seat``."""
        players = self.header.get("players") or []
        return str(players[seat]["bot"]) if 0 <= seat < len(players) else f"seat {seat}"


def find_match_log(path: Path) -> Path:
    """Returns the match log of ``path``: itself when it is one, else the one beside the replay."""
    return path if path.suffix == ".log" else match_log_path(path)


def read_match_log(path: Path) -> MatchLog:
    """Returns a match log read from ``path`` (a match log, or the replay it sits beside); raises
    MatchLogError naming the file and what is wrong with it."""
    where = find_match_log(path)
    try:
        text = where.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MatchLogError(
            f"no match log at {where}: arena match writes one beside each replay it writes"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise MatchLogError(f"cannot read {where}: {getattr(exc, 'strerror', None) or exc}") from None
    return parse_match_log(text, str(where))


def parse_match_log(text: str, where: str) -> MatchLog:
    """Returns the match log in ``text``; raises MatchLogError naming ``where`` it came from."""
    try:
        rows = [json.loads(row) for row in text.splitlines() if row.strip()]
        header = rows[0] if rows and rows[0].get("type") == "log-header" else None
        if header is None:
            raise MatchLogError(f"{where} is not a match log: it does not start with a log-header line")
        lines = tuple(
            (int(r["seat"]), Line(r["step"] if r["step"] is None else int(r["step"]), str(r["text"])))
            for r in rows
            if r.get("type") == "line"
        )
        think = tuple(
            Think(int(r["step"]), int(r["seat"]), float(r["ms"]), bool(r["answered"]))
            for r in rows
            if r.get("type") == "think"
        )
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise MatchLogError(f"{where} is not a match log: {exc}") from None
    cut = next((str(r.get("text")) for r in rows if r.get("type") == "cut"), "")
    return MatchLog(header, lines, think, cut)
