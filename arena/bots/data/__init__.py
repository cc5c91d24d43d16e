"""Data the built-in bots read: ``ninja_burger_standing.json`` (``arena.bots.ninja_burger_standing``).

A package only so that the files ship with ``arena`` (``pyproject.toml``'s package data);
``bench/ninja_burger_standing.py`` writes it.
"""
