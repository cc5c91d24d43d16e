"""The layout docs/layout.md draws, held against the code: packages by subject, no import loop, no
module too long without saying why, the web surface in one package that arena only starts.

These read the source (``ast``), never import it: a loop that only a lazy import inside a function
closes is still a loop a reader has to hold in their head.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

from tests.conftest import REPO

PACKAGES = ("arena", "leaderboard")
GENERATED = ("arena/v1/",)  # protoc's output: not written by hand
LONG_LINES = 520  # "no hand-written module over ~500 lines without a reason in its docstring"
LONG_REASON = "Why it is long:"
QUEUE_MODULES_MAX = 10
# Where arena may import the web package: only to build and start it.
STARTS_THE_WEB = {"arena.cli.server", "arena.cli.view", "arena.cli.leaderboard", "arena.cli.main"}


def modules() -> dict[str, Path]:
    """Returns every hand-written module of the two packages by dotted name."""
    found = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            relative = path.relative_to(REPO).as_posix()
            if relative.startswith(GENERATED):
                continue
            name = ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
            found[name] = path
    return found


def imported(name: str, path: Path, known: set[str]) -> Iterator[str]:
    """Yields the known modules that module ``name`` imports, at any depth of its code."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:
                if f"{base}.{alias.name}" in known:
                    yield f"{base}.{alias.name}"
                elif base in known:
                    yield base


def import_graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: set(imported(name, path, known)) - {name} for name, path in found.items()}


def loops(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """Returns the strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[frozenset[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(frozenset(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def test_the_loop_finder_finds_a_loop() -> None:
    assert loops({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset({"a", "b", "c"})]
    assert loops({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_back() -> None:
    found = [sorted(group) for group in loops(import_graph())]
    assert found == [], f"import loops: {found}"


def test_the_queue_holds_jobs_workers_keys_connection_and_recording_only() -> None:
    queue = sorted(p.name for p in (REPO / "arena" / "queue").glob("*.py") if p.name != "__init__.py")
    assert len(queue) <= QUEUE_MODULES_MAX, queue
    for package in ("submissions", "storage", "schedule"):
        assert (REPO / "arena" / package / "__init__.py").is_file(), f"arena/{package}/ is a package"


def test_a_long_module_says_why_in_its_docstring() -> None:
    unexplained = []
    for path in modules().values():
        text = path.read_text(encoding="utf-8")
        docstring = ast.get_docstring(ast.parse(text)) or ""
        if text.count("\n") > LONG_LINES and LONG_REASON not in docstring:
            unexplained.append(f"{path.relative_to(REPO)} ({text.count(chr(10))} lines)")
    assert unexplained == [], f"split these, or say '{LONG_REASON} ...' in the docstring: {unexplained}"


def test_arena_imports_the_web_package_only_to_start_it() -> None:
    graph = import_graph()
    importers = {
        name
        for name, targets in graph.items()
        if name.startswith("arena") and any(t.partition(".")[0] == "leaderboard" for t in targets)
    }
    assert importers <= STARTS_THE_WEB, sorted(importers - STARTS_THE_WEB)


# -- a game is one folder ---------------------------------------------------------------------------

ENGINE_MAY_IMPORT = ("arena.games.base", "arena.games.rng")  # beside the game's own modules


def all_imports(name: str, path: Path) -> set[str]:
    """Returns every module name that module ``name`` imports (absolute, any depth of its code)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            found.add(base)
    return found


def is_bot_module(name: str, package: str) -> bool:
    return name == f"{package}.bots" or name.startswith(f"{package}.bots.")


def test_each_game_is_one_package_whose_engine_imports_only_the_game_layer() -> None:
    """A game's engine modules import the standard library, ``arena.games.base``/``rng`` and their
    own package's engine modules: never a bot, the SDK, the wire, another game or a library."""
    from arena.games import PACKAGES

    found = modules()
    wrong = []
    for short in PACKAGES:
        package = f"arena.games.{short}"
        assert package in found, f"{package} is not a package (arena/games/{short}/__init__.py)"
        for name, path in found.items():
            if not name.startswith(package) or is_bot_module(name, package):
                continue
            for target in sorted(all_imports(name, path)):
                root = target.partition(".")[0]
                ok = (
                    root in sys.stdlib_module_names
                    or target in ENGINE_MAY_IMPORT
                    or (target.startswith(package) and not is_bot_module(target, package))
                )
                if not ok:
                    wrong.append(f"{name} imports {target}")
    assert wrong == [], wrong


def test_nothing_but_the_bots_runner_reaches_a_games_bots() -> None:
    """A game's bots are found by ``arena.bots.builtin_bots`` (``<package>.bots``, by name): no other
    module of arena or the web imports them, so the referee and the server never load a bot."""
    from arena.games import PACKAGES

    graph = import_graph()
    reach = []
    for short in PACKAGES:
        package = f"arena.games.{short}"
        for name, targets in graph.items():
            if is_bot_module(name, package):
                continue
            reach += [f"{name} imports {t}" for t in targets if is_bot_module(t, package)]
    assert reach == [], reach
