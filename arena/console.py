"""Messages for people, on stderr, and the one escape for text that came from a bot.

Anything a bot controls can reach the operator's terminal: its last log lines in a match's notes, the
error of a dead-lettered job, its name, its entry command, its client name, whatever a Redis it shares
holds. A terminal obeys control characters in that text: ``ESC [ 2 J`` clears the screen, ``ESC ] ...``
can set the window title or write a hyperlink, ``CR`` and backspace overwrite what was printed before,
so a bot could hide or forge lines. ``printable`` shows every such character as a visible escape
instead; whatever prints bot-supplied or Redis-stored text to a terminal passes it through
``printable`` first, and ``say`` does so for every line.
"""

from __future__ import annotations

import sys

# C0 controls (tab excepted), DEL, and C1 controls (0x9b is a one-byte CSI to many terminals).
_CONTROLS = [c for c in (*range(0x00, 0x20), *range(0x7F, 0xA0)) if c != 0x09]
# Bidirectional embeddings, overrides and isolates: they reorder how the rest of a line is shown.
_BIDI = [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
# Lone surrogates (undecodable bytes kept by ``surrogateescape``): a strict stream cannot encode them.
_SURROGATES = range(0xD800, 0xE000)

_ESCAPES: dict[int, str] = {c: f"\\x{c:02x}" for c in _CONTROLS}
_ESCAPES |= {c: f"\\u{c:04x}" for c in (*_BIDI, *_SURROGATES)}
_ESCAPES_KEEPING_NEWLINES = {c: text for c, text in _ESCAPES.items() if c != 0x0A}


def printable(text: str, keep_newlines: bool = False) -> str:
    r"""Returns ``text`` with every control character shown as a visible escape (``\x1b``, ``\u202e``).

    Escaped: the C0 controls but tab, DEL, the C1 controls (U+0080..U+009F), the bidirectional
    overrides and isolates, and lone surrogates. Kept: tab, which only moves the cursor forward and can
    neither hide nor rewrite text; every other character, letters of any script and emoji included; and
    backslashes, so paths and regular expressions stay readable (a literal ``\x1b`` in the text then
    looks like an escaped ESC, but it is four harmless characters either way). Newlines are escaped
    too, so bot text cannot start a line that looks like the referee's; ``keep_newlines=True`` keeps
    them for a multi-line block of bot text, which should then be set apart from the program's lines.

    >>> printable("\x1b[2Jgone\rhidden\x07\x08\x9b31m\x7f")
    '\\x1b[2Jgone\\x0dhidden\\x07\\x08\\x9b31m\\x7f'
    >>> printable("Ninja №1 é 忍者 🥷\ttab")
    'Ninja №1 é 忍者 🥷\ttab'
    >>> printable("two\nlines"), printable("two\nlines", keep_newlines=True)
    ('two\\x0alines', 'two\nlines')
    """
    return text.translate(_ESCAPES_KEEPING_NEWLINES if keep_newlines else _ESCAPES)


def say(line: str) -> None:
    """Writes ``line``, escaped by ``printable``, and its newline to stderr in one write.

    Design detail: ``print`` writes the text and the newline separately, so the lines of processes
    sharing one stderr (a tournament and its local workers) could run together. The line is escaped
    here because many of them carry bot text (a worker's job errors, Redis being unreachable); a line
    holds no newline of its own, so one inside it is escaped too.
    """
    sys.stderr.write(printable(line) + "\n")
    sys.stderr.flush()
