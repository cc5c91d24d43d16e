"""Runs a built-in bot as a process: ``python -m arena.bots GAME NAME`` (address and token from the
environment, as for every bot)."""

from __future__ import annotations

import sys

from arena.bots import builtin_bots


def main(argv: list[str]) -> int:
    """Plays as the named built-in bot until the referee releases it."""
    if len(argv) != 2:
        print("usage: python -m arena.bots GAME NAME", file=sys.stderr)
        return 2
    game, name = argv
    bots = builtin_bots(game)
    if name not in bots:
        print(f"no built-in bot {name!r} for {game}; valid: {', '.join(sorted(bots))}", file=sys.stderr)
        return 2
    bots[name]().run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
