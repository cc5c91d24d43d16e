"""Bot text cannot reach a terminal raw (fair play): every control character a bot (or whatever sits
in Redis) supplies is shown as a visible escape by ``arena.console.printable``, and the CLI prints such
text only through it. The end-to-end case runs ``arena tournament status`` against a private
redis-server (never the one on 6379) holding a dead letter and a tournament that carry escapes.
"""

from __future__ import annotations

import doctest
import shutil

import pytest
import redis

import arena.console
from arena.cli.bots import describe, format_list, format_show
from arena.cli.tables import format_leaderboard, format_standings
from arena.console import printable, say
from arena.queue import store
from arena.queue.jobs import MAX_ATTEMPTS, MatchJob
from arena.ratings import Placement, player_id, table_of, views
from arena.submissions.registry import DIRECTORY, Submission
from tests.conftest import run_arena

CLEAR = "\x1b[2J"  # erase the screen


def controls(text: str) -> list[str]:
    """Returns the characters of ``text`` a terminal would act on (tab aside)."""
    return [c for c in text if (ord(c) < 0x20 and c != "\t") or 0x7F <= ord(c) < 0xA0]


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),  # ESC: clear the screen, cursor home
        ("\x1b]0;owned\x07", "\\x1b]0;owned\\x07"),  # OSC: set the window title, ended by BEL
        ("\x9b31mred", "\\x9b31mred"),  # the one-byte C1 CSI
        ("\x90q\x9c", "\\x90q\\x9c"),  # C1 DCS ... ST
        ("bell\x07", "bell\\x07"),
        ("ok\rforged", "ok\\x0dforged"),  # CR: overwrite the line
        ("abc\b\b\bxyz", "abc\\x08\\x08\\x08xyz"),  # backspace: overwrite characters
        ("nul\x00del\x7f", "nul\\x00del\\x7f"),
        ("line\narena: forged", "line\\x0aarena: forged"),  # a newline could forge a line of ours
        ("evil\u202etxt.exe", "evil\\u202etxt.exe"),  # RIGHT-TO-LEFT OVERRIDE
        ("a\u2066b\u2069", "a\\u2066b\\u2069"),  # bidi isolates
        ("bad \udcff byte", "bad \\udcff byte"),  # a lone surrogate from surrogateescape
    ],
)
def test_printable_escapes_control_characters(raw: str, shown: str) -> None:
    assert printable(raw) == shown
    assert controls(printable(raw)) == []


@pytest.mark.parametrize(
    "text",
    [
        "plain ascii: [brackets] ;semicolons; and a \\x1b written out",
        "Ninja №1 — café, naïve, Straße, 忍者, ниндзя, نينجا, 🥷🏽 👩‍💻",  # the ZWJ of an emoji stays
        "a\ttab",
        "",
    ],
)
def test_printable_keeps_text_that_is_not_control(text: str) -> None:
    assert printable(text) == text


def test_printable_escapes_every_c0_c1_and_del_but_tab() -> None:
    every = "".join(map(chr, range(0x00, 0xA0)))
    shown = printable(every)
    assert controls(shown) == []
    assert "\t" in shown
    for code in [*range(0x00, 0x09), *range(0x0A, 0x20), *range(0x7F, 0xA0)]:
        assert f"\\x{code:02x}" in shown


def test_keep_newlines_keeps_only_newlines() -> None:
    assert printable("one\n\x1b[1mtwo\r\n", keep_newlines=True) == "one\n\\x1b[1mtwo\\x0d\n"


def test_doctests() -> None:
    assert doctest.testmod(arena.console).failed == 0


def test_say_writes_one_escaped_line(capsys: pytest.CaptureFixture[str]) -> None:
    say(f"arena: worker: m1: dead: bot said {CLEAR}\x1b]0;owned\x07\nfake line")
    err = capsys.readouterr().err
    assert err == "arena: worker: m1: dead: bot said \\x1b[2J\\x1b]0;owned\\x07\\x0afake line\n"


def test_the_tables_escape_stored_names_versions_and_entry_commands() -> None:
    bot = Submission(
        name=f"x{CLEAR}",
        games=("ninjan", "\x9b2J"),
        kind=DIRECTORY,
        version="v\x07",
        entry=("python", f"bot.py{CLEAR}"),
        files=1,
        versions=("v\x07",),
    )
    hostile, version = f"y{CLEAR}", "v\x1b"
    table = table_of([[Placement(player_id(hostile, version), 1), Placement("z", 2)]] * 3)
    board = {"matches": 3, **views.leaderboard(table, {hostile: version, "z": ""})}
    standings = {
        "tournament": f"t{CLEAR}",
        "game": "ninjan",
        "total": 3,
        "matches": 3,
        **views.tournament(table),
    }
    ratings = [format_leaderboard("ninjan", board, pairs=True), format_standings(standings)]
    for text in [describe(bot), format_list([bot]), format_show(bot), *ratings]:
        assert controls(text.replace("\n", "")) == [], text
    assert "entry: python bot.py\\x1b[2J" in describe(bot)
    assert all("y\\x1b[2J" in text and "v\\x1b" in text for text in ratings)


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_tournament_status_prints_bot_text_escaped(client: redis.Redis, redis_url: str) -> None:
    error = f"RuntimeError: bot exited before joining: {CLEAR}\x1b]0;owned\x07 | \x9b1mlast log line\rok"
    job = MatchJob("m-escape", "ninjan", 1, ("greedy", "random"), tournament="t1")
    store.save_tournament(
        client, "t1", {"game": "ninjan", "format": "round-robin", "bots": f"a{CLEAR}", "total": 1}
    )
    store.fail(client, job, "0-1", error, MAX_ATTEMPTS)
    proc = run_arena("tournament", "status", "--redis", redis_url)
    assert proc.returncode == 0, proc.stderr
    assert controls(proc.stdout.replace("\n", "")) == [], proc.stdout
    assert (
        "m-escape: failed 3 times: RuntimeError: bot exited before joining: "
        "\\x1b[2J\\x1b]0;owned\\x07 | \\x9b1mlast log line\\x0dok"
    ) in proc.stdout
    assert "t1: ninjan round-robin a\\x1b[2J" in proc.stdout
