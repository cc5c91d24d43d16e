"""Every error line a component logged, classed: explained (it names a match or bot that a broken or
hostile bot of the rehearsal took part in: its expected refusal or forfeit; or it is a known warning
about the host's settings) or unexplained (anything else: a platform fault to look into).

A line is an error line when it says so (error, exception, traceback, failed, warning, critical,
killed): the server's access lines of refused requests are not (the report counts those apart, as
the viewers' failures and the submissions' answers).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

ERROR = re.compile(r"error|exception|traceback|failed|warning|critical|killed|fatal", re.IGNORECASE)
ACCESS = re.compile(r'"(GET|POST|PUT|PATCH|DELETE) [^"]*" \d{3}')  # an access log line of the server
MATCH_ID = re.compile(r"[A-Za-z0-9_.-]+-m\d+|smoke-[A-Za-z0-9_.-]+")
# Warnings about the host, not arena, each with what it means: explained, and said in the report.
HOST_NOTICES = {
    "Memory overcommit must be enabled": "the host's vm.overcommit_memory is 0 (README: Hosting, Redis)",
}


def error_lines(folder: Path, stopped_at: dict[str, int] | None = None) -> list[tuple[str, str, str]]:
    """Returns (component, line, phase) for every error line in the component logs under ``folder``; a
    traceback is one entry (its first line, its last frame and its exception). ``phase`` is
    ``shutdown`` past the byte offset ``stopped_at`` gives the component's log (its size when the
    stack was told to stop), else ``run``."""
    found = []
    for log in sorted(folder.glob("*.log")):
        offset, limit = 0, (stopped_at or {}).get(log.stem)
        block: list[str] = []
        for raw in log.read_bytes().splitlines(keepends=True):
            phase = "shutdown" if limit is not None and offset >= limit else "run"
            offset += len(raw)
            line = raw.decode(errors="replace").rstrip()
            if block and raw.startswith((b" ", b"\t")):
                block.append(line.strip())
                continue
            if block:
                frames = [b for b in block if b.startswith("File ")]
                found.append(
                    (log.stem, f"{block[0]} {frames[-1] if frames else ''} -> {line.strip()}"[:400], phase)
                )
                block = []
                continue
            if line.startswith("Traceback"):
                block = [line]
            elif ERROR.search(line) and not ACCESS.search(line):
                found.append((log.stem, line.strip()[:400], phase))
    return found


def classify(
    lines: list[tuple[str, str, str]], suspects: set[str], bots_of: Callable[[str], list[str]]
) -> dict[str, Any]:
    """Returns the lines split into explained and unexplained: a line is explained when it names a
    suspect bot (broken or hostile), or a match one played (``bots_of`` gives a match id's bots), or
    is a known warning about the host (``HOST_NOTICES``)."""
    explained: list[dict[str, str]] = []
    unexplained: list[dict[str, str]] = []
    for component, line, phase in lines:
        host = [why for notice, why in HOST_NOTICES.items() if notice in line]
        who = host or sorted(bot for bot in suspects if bot in line)
        if not who:
            for mid in MATCH_ID.findall(line):
                who = sorted(set(bots_of(mid)) & suspects)
                if who:
                    break
        entry = {"component": component, "phase": phase, "line": line}
        if who:
            explained.append({**entry, "because": ", ".join(who)})
        else:
            unexplained.append(entry)
    return {"explained": explained, "unexplained": unexplained}
