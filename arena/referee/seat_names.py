"""How the seats of ``arena match`` are named: what a person means by each bot, shown the same everywhere.

A seat's name comes, first to last, from:

1. the person: ``me:bots/python/first_bot.py``, ``me:random``, ``@wait:me`` (``split_seat_name``);
   a built-in bot is its own name (``random``);
2. the ``Join`` the bot sends (``Join.bot_name``, cleaned by ``join_name``), once it joined;
3. the bot's file (``file_name``): its stem, or its folder's name when the stem says nothing (``bot``,
   ``main``, ``index``...): ``bots/node/bot.js`` is ``node``, ``mybot/bin/wrap.sh`` is ``mybot``.

Repeats at one table get ``#2``, ``#3``... (``table_names``). The name is fixed when the series' bots
first joined, and is the one in the result lines, ``--json``, the replay's players, the match log
(``arena logs``) and the match id's hash.

Design detail: a bot's ``Join`` name is chosen by the bot, which may be hostile. It is cut to
``NAME_LENGTH`` ASCII letters, digits, ``-``, ``_`` and ``.`` (no control character, no look-alike
letter of another script, no ``#`` to pass for a repeat), and it never takes a name that another seat
has by rules 1 or 3: a bot that joins as ``random`` beside the built-in ``random`` is shown as
``random#2``. A rated match (``MatchConfig.anonymous``, played by workers) never reads it: its seats
are the registered bots' names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

NAME_LENGTH = 40  # characters of a seat's name, at most
NAME_RULE = f"letters, digits, '-', '_' or '.' ({NAME_LENGTH} at most)"
_NAME = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._-]{{0,{NAME_LENGTH - 1}}}")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
# File stems and folder names that say nothing about a bot: the name is then taken one folder up.
GENERIC = frozenset(
    {
        "bot", "main", "index", "run", "start", "wrap", "wrapper", "app", "player", "agent", "client",
        "__main__", "bin", "build", "dist", "out", "src", "target", "release", "debug", "cmd", "lib",
    }
)  # fmt: skip


def is_name(text: str) -> bool:
    """Returns whether ``text`` may name a seat as written (``me`` in ``me:bot.py``, ``@wait:me``).

    >>> is_name("first-bot.v2"), is_name("my bot"), is_name("x" * 41), is_name("-x")
    (True, False, False, False)
    """
    return _NAME.fullmatch(text) is not None


def split_seat_name(text: str) -> tuple[str, str]:
    """Returns (name, bot) of a seat argument written ``NAME:BOT``, or ("", text) for one without a name.

    ``NAME`` is a word of ``NAME_RULE`` right before the first ``:``; a command's own words never take
    that form (``NAME=value`` words use ``=``; a command's first ``:`` follows a space or a ``/``).

    >>> split_seat_name("me:bots/python/first_bot.py"), split_seat_name("DEPTH=3 python bot.py")
    (('me', 'bots/python/first_bot.py'), ('', 'DEPTH=3 python bot.py'))
    >>> split_seat_name("me:sh -c 'a; b'"), split_seat_name("docker run img:tag")
    (('me', "sh -c 'a; b'"), ('', 'docker run img:tag'))
    """
    name, colon, bot = text.partition(":")
    if colon and bot and is_name(name):
        return name, bot
    return "", text


def clean(text: str) -> str:
    """Returns ``text`` as a seat name: each run of other characters one ``-``, cut to ``NAME_LENGTH``;
    "" when nothing is left.

    >>> clean("My Bot \\x1b[31m v2!"), clean("rаndom"), clean("random#2"), clean("  ")
    ('My-Bot-31m-v2', 'r-ndom', 'random-2', '')
    """
    return _UNSAFE.sub("-", text).strip("-._")[:NAME_LENGTH].strip("-._")


def join_name(sent: str) -> str:
    """Returns the name a bot's ``Join.bot_name`` gives its seat, cleaned; "" when it says nothing
    (empty, or a generic word such as the SDK's default ``bot``)."""
    name = clean(sent)
    return "" if name.lower() in GENERIC else name


def file_name(path: Path, broad: Sequence[Path] = ()) -> str:
    """Returns the name of a bot run from ``path``: its stem, or the name of the nearest folder above it
    that says more (``bots/node/bot.js``: ``node``), never one of the ``broad`` folders (the home
    folder, /tmp: the stem is kept then).

    >>> file_name(Path("/src/bots/python/first_bot.py")), file_name(Path("/src/mybot/bin/wrap.sh"))
    ('first_bot', 'mybot')
    """
    stem = clean(path.stem) or clean(path.name) or "bot"
    folder = path.parent
    while stem.lower() in GENERIC and folder.name and folder not in broad:
        name = clean(folder.name)
        if name and name.lower() not in GENERIC:
            return name
        folder = folder.parent
    return stem


def table_names(own: Sequence[str], joined: Sequence[str] = ()) -> list[str]:
    """Returns each seat's name at the table: ``joined[i]`` (a ``join_name``) where it is not "", else
    ``own[i]`` (the person's or the file's name); repeats get ``#2``, ``#3``...

    The seats keeping their own names are named first, and every seat's own name is kept from the bots
    that joined under another's: no bot can take a name the person gave or sees for another seat.

    >>> table_names(["first_bot", "first_bot", "random"], ["first", "first", ""])
    ['first', 'first#2', 'random']
    >>> table_names(["mine", "random"], ["random", ""])
    ['random#2', 'random']
    """
    joined = list(joined) + [""] * (len(own) - len(joined))
    names: list[str] = [""] * len(own)
    taken: set[str] = set()
    for seat in [s for s in range(len(own)) if not joined[s]] + [s for s in range(len(own)) if joined[s]]:
        wanted = joined[seat] or own[seat]
        reserved = {name for other, name in enumerate(own) if other != seat} if joined[seat] else set()
        name, number = wanted, 1
        while name in taken or name in reserved:
            number += 1
            name = f"{wanted}#{number}"
        names[seat] = name
        taken.add(name)
    return names
