"""The stored round robins of the built-in bots, one JSON file per game (``arena.bots.ladder``).

A package only so that the JSON files ship with ``arena`` (``pyproject.toml``'s package data);
``bench/builtin_ladder.py GAME`` writes them.
"""
