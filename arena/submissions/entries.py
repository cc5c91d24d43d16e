"""Whether a bot's entry command can start where the worker will run it: in its unpacked folder.

The same checks run against a bot folder on the submitter's machine (``check_entry``, the CLI's
``--dir``) and against an uploaded archive's members and execute bits (``check_archive_entry``, the
server's path), through one lookup interface, ``_Tree``, so both give the same messages.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from arena.referee.sandbox import declared_variables
from arena.submissions.archives import ArchiveSummary, SubmissionError, shown_name


@dataclasses.dataclass(frozen=True)
class _Tree:
    """Where an entry command's files are looked up: a bot folder, or a checked archive."""

    where: str  # "--dir PATH" or "the archive", for messages
    short: str  # "--dir" or "the archive"
    kind: Callable[[str], str]  # relative path -> "file", "folder", or "" (missing or outside)
    executable: Callable[[str], bool]
    chmod: Callable[[str], str]  # relative path -> the path to name in 'chmod +x'


def _folder_tree(directory: Path) -> _Tree:
    def kind(name: str) -> str:
        path = directory / name
        if not path.resolve().is_relative_to(directory.resolve()) or not path.exists():
            return ""
        return "file" if path.is_file() else "folder"

    return _Tree(
        f"--dir {directory}",
        "--dir",
        kind,
        lambda n: os.access(directory / n, os.X_OK),
        lambda n: str(directory / n),
    )


def _archive_tree(summary: ArchiveSummary) -> _Tree:
    def normal(name: str) -> str:
        path = posixpath.normpath(name)
        return "" if path.startswith(("../", "/")) or path == ".." else path

    def kind(name: str) -> str:
        path = normal(name)
        return (
            "folder" if path in summary.folders or path == "." else "file" if path in summary.members else ""
        )

    return _Tree(
        "the archive", "the archive", kind, lambda n: normal(n) in summary.executables, lambda n: normal(n)
    )


def check_entry(directory: Path, argv: Sequence[str]) -> None:
    """Raises SubmissionError unless the entry command can start in ``directory``: a program given by
    a relative path (``./bot``) is a file there with its execute bit, a bare name is not a file there
    that only a path would find, and the script an interpreter runs (its first argument that looks
    like a path: ``bot.py`` in ``python -u bot.py``, ``dist/bot.js``) is there.

    Design detail: the entry runs without a shell, in the unpacked folder, so what can be checked here
    is what the worker will find; an interpreter itself (python, node, /usr/bin/java) is the worker's.
    """
    _check_command(_folder_tree(directory), argv)


def check_archive_entry(summary: ArchiveSummary, argv: Sequence[str]) -> None:
    """Raises SubmissionError unless the entry command can start in the checked archive's folder:
    the same checks as ``check_entry``, against the archive's members and execute bits."""
    _check_command(_archive_tree(summary), argv)


def _check_command(tree: _Tree, argv: Sequence[str]) -> None:
    _, command = declared_variables(argv)
    if not command:
        raise SubmissionError(
            "--entry holds only variables (NAME=value): add the command that starts the bot"
        )
    program, *arguments = command
    if "/" in program and not Path(program).is_absolute():
        kind = tree.kind(program)
        if not kind:
            raise SubmissionError(f"--entry's program {shown_name(program)} is not in {tree.where}")
        if kind != "file":
            raise SubmissionError(f"--entry's program {shown_name(program)} is a folder, not a program")
        if not tree.executable(program):
            raise SubmissionError(
                f"--entry's program {shown_name(program)} is not executable: run "
                f"'chmod +x {shown_name(tree.chmod(program))}' "
                "(the bit is packed)"
            )
        return
    if "/" not in program and tree.kind(program) == "file" and shutil.which(program) is None:
        shown = shown_name(program)
        raise SubmissionError(f"--entry '{shown}' names a file of {tree.short}: write it as ./{shown}")
    script = _script_argument(arguments)
    if script is not None and not Path(script).is_absolute() and not tree.kind(script):
        raise SubmissionError(f"--entry's script {shown_name(script)} is not in {tree.where}")


def _script_argument(arguments: Sequence[str]) -> str | None:
    """Returns the first argument that looks like a path (has a suffix or a '/'), skipping options;
    None when the interpreter runs no file (``python -m pkg``, ``-c CODE``) or none looks like one."""
    for word in arguments:
        if word in ("-m", "-c", "-e"):
            return None
        if not word.startswith("-") and ("/" in word or Path(word).suffix):
            return word
    return None
