"""Adds the game High Card to a copy of the project by the "add a game" checklist, one step per function.

tests/new_game/ holds a whole fifth game (``high_card/``: engine, bots; ``high_card.proto``) that is
not part of arena. ``install(root)`` applies the checklist to the project copy at ``root`` so that a test
can then play the game there, proving that these steps, and no others, add a game:

1. ``copy_package``: the game's package goes to ``arena/games/<package>/``;
2. ``copy_proto``: its messages go to ``proto/arena/v1/<package>.proto``;
3. ``wire_arena_proto``: ``arena.proto`` imports that file and gets one field per game-carrying oneof
   (``Observation``, ``Action``, ``Event``), each with a number unused in its message;
4. ``register_package``: the package's name goes into ``PACKAGES`` in ``arena/games/__init__.py``;
5. ``regenerate_python``: ``python -m arena.protogen`` (what scripts/gen_proto runs) rewrites arena/v1;
6. ``record_wire_fields``: the new fields are added to ``tests/proto_fields.txt``, the published
   contract that tests/test_proto.py compares the generated code with;
7. ``copy_rules_tests``: the game's rules tests go to ``tests/test_<package>.py``, where
   tests/test_conformance.py finds the invariants it checks every game's playouts with.

Each step is idempotent (a second run changes nothing) and raises InstallError, saying what it looked
for, when the copy does not have the shape it expects. ``install`` refuses to touch the project this
file belongs to: it is for copies only.

    python tests/new_game/install.py /tmp/arena-copy
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = "high_card"  # the package under arena/games/, the .proto's stem and the GameSpec's wire_name
MESSAGE_PREFIX = "HighCard"  # the game's messages: HighCardObservation, HighCardAction, HighCardEvent
# arena.v1 messages whose ``oneof game`` has one field per game, carrying the game's message of that kind
GAME_ONEOFS = ("Observation", "Action", "Event")


class InstallError(RuntimeError):
    """The project copy does not have the shape a checklist step expects; the message says what."""


def install(project_root: Path) -> dict[str, int]:
    """Applies every checklist step to the project copy at ``project_root``; returns the field number the
    game got in each oneof of ``GAME_ONEOFS`` (by message name)."""
    root = Path(project_root).resolve()
    if root == HERE.parent.parent:
        raise InstallError(f"{root} is the project itself: install High Card into a copy only")
    copy_package(root)
    copy_proto(root)
    numbers = wire_arena_proto(root)
    register_package(root)
    regenerate_python(root)
    record_wire_fields(root)
    copy_rules_tests(root)
    return numbers


def copy_package(root: Path) -> Path:
    """Copy the game's package (``__init__.py`` exporting GAME, ``engine.py``, ``bots.py``) to
    ``arena/games/<package>/``; returns that folder."""
    games = root / "arena" / "games"
    if not (games / "base.py").is_file():
        raise InstallError(f"{games} has no base.py: {root} is not a copy of the arena project")
    target = games / PACKAGE
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(HERE / PACKAGE, target, ignore=ignore, dirs_exist_ok=True)
    return target


def copy_proto(root: Path) -> Path:
    """Copy the game's messages to ``proto/arena/v1/<package>.proto``; returns that file."""
    folder = root / "proto" / "arena" / "v1"
    if not (folder / "arena.proto").is_file():
        raise InstallError(f"{folder} has no arena.proto: {root} is not a copy of the arena project")
    target = folder / f"{PACKAGE}.proto"
    shutil.copyfile(HERE / f"{PACKAGE}.proto", target)
    return target


def wire_arena_proto(root: Path) -> dict[str, int]:
    """Import the game's .proto in ``arena.proto`` and add a field for it to each per-game oneof
    (Observation, Action, Event), numbered past every number its message uses (numbers are never
    reused or changed); returns the number per message."""
    path = root / "proto" / "arena" / "v1" / "arena.proto"
    text = path.read_text()
    text = _add_import(text, f'import "arena/v1/{PACKAGE}.proto";')
    numbers = {}
    for message in GAME_ONEOFS:
        text, numbers[message] = _add_oneof_field(text, message, f"{MESSAGE_PREFIX}{message}", PACKAGE)
    path.write_text(_note_payload_numbers(text, numbers))
    return numbers


def register_package(root: Path) -> None:
    """Add the package's name to the ``PACKAGES`` tuple of ``arena/games/__init__.py`` (the registry)."""
    path = root / "arena" / "games" / "__init__.py"
    source = path.read_text()
    if PACKAGE in _names(_packages_tuple(source, path)):
        return
    path.write_text(_with_package(source, _packages_tuple(source, path), path))
    if PACKAGE not in _names(_packages_tuple(path.read_text(), path)):
        raise InstallError(f"adding {PACKAGE!r} to PACKAGES in {path} failed; add it by hand")


def regenerate_python(root: Path) -> list[Path]:
    """Regenerate the Python code in ``arena/v1`` from the .proto files (``python -m arena.protogen``,
    as scripts/gen_proto runs it), with the copy's own code; returns the game's generated modules."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-m", "arena.protogen"], cwd=root, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise InstallError(f"python -m arena.protogen failed in {root}:\n{done.stdout}{done.stderr}")
    generated = sorted((root / "arena" / "v1").glob(f"{PACKAGE}_pb2*.py*"))
    if not generated:
        raise InstallError(f"python -m arena.protogen wrote no {PACKAGE}_pb2.py in {root}/arena/v1")
    return generated


def record_wire_fields(root: Path) -> list[str]:
    """Add the new wire fields to ``tests/proto_fields.txt`` (the published contract, which only grows);
    returns the lines added. Skipped when the copy has no such file."""
    path = root / "tests" / "proto_fields.txt"
    if not path.is_file():
        return []
    script = "from tests.test_proto import wire_fields; print(*sorted(wire_fields()), sep=chr(10))"
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-c", script], cwd=root, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise InstallError(f"listing the wire fields failed in {root}:\n{done.stdout}{done.stderr}")
    published = {line for line in path.read_text().splitlines() if line}
    current = {line for line in done.stdout.splitlines() if line}
    added = sorted(current - published)
    if added:
        path.write_text("".join(f"{line}\n" for line in sorted(published | current)))
    return added


def copy_rules_tests(root: Path) -> Path:
    """Copy the game's rules tests, with its invariants ``check_step`` and ``check_end``, to
    ``tests/test_<package>.py``; returns that file."""
    folder = root / "tests"
    if not (folder / "test_conformance.py").is_file():
        raise InstallError(f"{folder} has no test_conformance.py: {root} is not a copy of the arena project")
    target = folder / f"test_{PACKAGE}.py"
    shutil.copyfile(HERE / f"rules_{PACKAGE}.py", target)
    return target


# -- editing arena.proto -----------------------------------------------------------------------------


def _add_import(text: str, line: str) -> str:
    """Returns ``text`` with the import ``line`` among its imports, in alphabetical order."""
    if line in text:
        return text
    imports = list(re.finditer(r'^import "[^"]+";\n', text, flags=re.MULTILINE))
    if not imports:
        raise InstallError('arena.proto has no import "arena/v1/<game>.proto" line to add one beside')
    after = [m for m in imports if m.group(0).strip() > line]
    at = after[0].start() if after else imports[-1].end()
    return text[:at] + line + "\n" + text[at:]


def _add_oneof_field(text: str, message: str, field_type: str, field_name: str) -> tuple[str, int]:
    """Returns ``text`` with ``field_type field_name = N;`` last in ``message``'s ``oneof game``, and N:
    one past the highest number the message uses (or the number it already has)."""
    match = re.search(rf"^message {message} \{{\n(.*?)^\}}\n", text, flags=re.MULTILINE | re.DOTALL)
    if match is None:
        raise InstallError(f"arena.proto has no 'message {message} {{ ... }}' block")
    body = match.group(1)
    existing = re.search(rf"^\s*{field_type} {field_name} = (\d+);", body, flags=re.MULTILINE)
    if existing:
        return text, int(existing.group(1))
    oneof = re.search(r"^(\s*)oneof game \{\n(.*?)^\s*\}\n", body, flags=re.MULTILINE | re.DOTALL)
    if oneof is None:
        raise InstallError(f"message {message} in arena.proto has no 'oneof game {{ ... }}'")
    used = [int(n) for n in re.findall(r"=\s*(\d+)\s*;", body)]
    number = max(used, default=0) + 1
    fields = re.findall(r"^(\s*)\S+ \S+ = \d+;", oneof.group(2), flags=re.MULTILINE)
    indent = fields[-1] if fields else oneof.group(1) + "  "
    new_line = f"{indent}{field_type} {field_name} = {number};\n"
    at = match.start(1) + oneof.start(2) + len(oneof.group(2))
    return text[:at] + new_line + text[at:], number


def _note_payload_numbers(text: str, numbers: dict[str, int]) -> str:
    """Returns ``text`` with the game added to the "Field numbers: ninjan 1, ..." comment above the
    per-game payloads, when the game's Observation and Action numbers agree (as every game's do)."""
    if numbers["Observation"] != numbers["Action"]:
        return text
    pattern = re.compile(r"^(// Per-game payloads\. Field numbers: .*?)\.$", flags=re.MULTILINE)
    match = pattern.search(text)
    if match is None or f" {PACKAGE} " in match.group(1) + " ":
        return text
    return text[: match.end(1)] + f", {PACKAGE} {numbers['Observation']}" + text[match.end(1) :]


# -- editing the registry ------------------------------------------------------------------------------


def _names(node: ast.Tuple) -> list[object]:
    """Returns the constants listed in a tuple node."""
    return [element.value for element in node.elts if isinstance(element, ast.Constant)]


def _with_package(source: str, node: ast.Tuple, path: Path) -> str:
    """Returns ``source`` with ``"<package>",`` last in the tuple ``node``: on a line of its own when the
    tuple lists one name a line, else before its closing parenthesis."""
    lines = source.splitlines(keepends=True)
    assert node.end_lineno is not None and node.end_col_offset is not None  # set on parsed nodes
    close_row, close_col = node.end_lineno - 1, node.end_col_offset - 1
    if lines[close_row][close_col : close_col + 1] != ")":
        raise InstallError(f"PACKAGES in {path} is not a parenthesized tuple")
    last = node.elts[-1] if node.elts else None
    if last is not None and last.end_lineno is not None and last.end_lineno - 1 < close_row:
        row, col = last.end_lineno - 1, last.end_col_offset or 0
        if not lines[row][col:].lstrip().startswith(","):  # the old last name gets its comma
            lines[row] = lines[row][:col] + "," + lines[row][col:]
        lines.insert(row + 1, f'{" " * last.col_offset}"{PACKAGE}",\n')
        return "".join(lines)
    line = lines[close_row]
    inside = line[:close_col].rstrip()
    if last is None:
        added = f'"{PACKAGE}",'
    elif inside.endswith(","):
        added = f' "{PACKAGE}",'
    else:
        added = f', "{PACKAGE}"'
    lines[close_row] = inside + added + line[close_col:]
    return "".join(lines)


def _packages_tuple(source: str, path: Path) -> ast.Tuple:
    """Returns the tuple node assigned to ``PACKAGES`` at the top level of the registry's source."""
    for statement in ast.parse(source).body:
        if isinstance(statement, ast.AnnAssign):
            targets, value = [statement.target], statement.value
        elif isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "PACKAGES" for t in targets):
            if isinstance(value, ast.Tuple):
                return value
            raise InstallError(f"PACKAGES in {path} is not a tuple literal of package names")
    raise InstallError(
        f"{path} has no PACKAGES = (...) tuple: the registry does not list game packages yet, "
        "so the game cannot be registered by the checklist's one line"
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: python {sys.argv[0]} PROJECT_COPY")
    print(install(Path(sys.argv[1])))
