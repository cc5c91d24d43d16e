"""A replay kept as its decisions: what the replay store holds, regenerated whole when read.

A replay's events and result are the engine's output for its header and decisions (``reproduce``
regenerates every byte of them), yet they are most of its bytes: over 90% of a Ninja Burger replay
and still 60% once compressed. So the store keeps what cannot be derived, the *decisions form*::

    {"type":"decisions", <the header's fields, unchanged>, "digest": <the replay's, 16 hex digits>}
    [step, seat, index]                 # a bot's decision: the index-th legal action
    [step, seat, index, "fallback"]     # one the referee made for the seat
    {"type":"strike"|"forfeit", ...}    # the referee's lines, unchanged

``pack`` gives this form only when expanding it gives back the replay byte for byte (checked on the
spot, at the cost of one engine re-run per recorded match), and the replay itself otherwise, so
what the store gives back is always exactly what was played.

Design detail, older rules: the form can only be expanded by the rules and the generator that
played the game (its header names them; ``expand`` refuses others in one line: ``OtherVersion``).
Before running an arena whose rules for a game differ from the recording's, ``arena storage
expand`` (on the version still running) rewrites every stored decisions form as the whole replay,
which every later version reads as it is. A change that regenerates other bytes without a new rules
version (the replay format's writer, the order of legal actions) is caught by the digest: ``expand``
refuses it the same way rather than give back a replay that was never played.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from arena import codec
from arena.referee.replay import OtherVersion, ReplayError, parse_lines, reproduce

DECISIONS = "decisions"  # the first line's type in the decisions form (a replay's is "header")
PREFIX = '{"type":"decisions"'  # how a decisions form starts (codec.compact_json of its first line)
_BOT = "bot"  # a decision's "by" that the form leaves out
DIGEST = "digest"  # the header field of the form holding ``digest(replay)``


def digest(text: str) -> str:
    """Returns the first 16 hex digits of a replay's SHA-256: enough to tell a regenerated replay
    from the recorded one, short enough to cost the form little."""
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def is_decisions_form(text: str) -> bool:
    """Returns whether ``text`` is a replay kept as its decisions (``pack``'s form)."""
    return text.startswith(PREFIX)


def pack(text: str) -> str:
    """Returns the decisions form of a replay, or the replay itself when it is not one the engine
    reproduces byte for byte from its decisions (another format, rules or generator, a branched game,
    anything ``reproduce`` does not regenerate exactly)."""
    try:
        lines = parse_lines(text)
        if "from" in lines[0]:  # a branched game starts mid-game: its decisions alone do not replay it
            return text
        form = _decisions_form(lines, digest(text))
        return form if expand(form) == text else text
    except Exception:  # the whole replay is always a right answer: never lose a match to this form
        return text


def expand(text: str) -> str:
    """Returns the whole replay of a decisions form (``text`` itself if it is a replay already).

    Raises OtherVersion if it was recorded with other rules, another generator or format than this
    arena's (``check_versions`` names them), or regenerates other bytes than the replay recorded;
    ReplayError if the form is malformed.
    """
    if not is_decisions_form(text):
        return text
    rows = text.splitlines()
    try:
        header = json.loads(rows[0])
        recorded = header.pop(DIGEST)
        lines = [{**header, "type": "header"}, *(_line(json.loads(row)) for row in rows[1:] if row)]
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        raise ReplayError(f"a stored replay's decisions are corrupt: {exc!r}") from None
    whole = reproduce(lines, check_actions=False).text
    if digest(whole) != recorded:
        raise OtherVersion(
            "this arena regenerates other bytes from a stored replay's decisions than the replay "
            "recorded (its engine or replay writer changed without a new rules version)"
        )
    return whole


def first_row(header: dict[str, Any], replay_digest: str) -> str:
    """Returns the first line of a decisions form (no newline): the replay's header line as a dict,
    retyped, with the replay's digest."""
    return codec.compact_json({**header, "type": DECISIONS, DIGEST: replay_digest})


def _decisions_form(lines: list[dict[str, Any]], replay_digest: str) -> str:
    """Returns the decisions form of checked replay lines (``parse_lines``) whose text has
    ``replay_digest``."""
    rows = [first_row(lines[0], replay_digest)]
    for line in lines[1:]:
        if line["type"] == "decision":
            by = [] if line["by"] == _BOT else [line["by"]]
            rows.append(codec.compact_json([line["step"], line["seat"], line["index"], *by]))
        elif line["type"] in ("strike", "forfeit"):
            rows.append(codec.compact_json(line))
    return "".join(row + "\n" for row in rows)


def _line(row: Any) -> dict[str, Any]:
    """Returns the replay line of one row of a decisions form (a decision's action left to the engine)."""
    if isinstance(row, dict):
        return row
    if not isinstance(row, list) or len(row) not in (3, 4):
        raise ReplayError(f"a stored replay's decisions are corrupt: {codec.compact_json(row)[:40]}")
    by = row[3] if len(row) == 4 else _BOT
    return {"type": "decision", "step": row[0], "seat": row[1], "index": row[2], "action": None, "by": by}
