"""``python -m arena.cli``: the ``arena`` command, for when the entry point is not on PATH."""

from arena.cli.main import main

main()
