"""Messages for people, on stderr."""

from __future__ import annotations

import sys


def say(line: str) -> None:
    """Writes ``line`` and its newline to stderr in one write.

    Design detail: ``print`` writes the text and the newline separately, so the lines of processes
    sharing one stderr (a tournament and its local workers) could run together.
    """
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
