"""The web pages show 64-bit integers exactly (issue 39, item 5).

A match's seed is a 64-bit integer, which the API carries as a JSON number (its type is kept for the
clients that read it, ``arena ... --server`` among them). A browser's ``JSON.parse`` reads every number
as a double, exact only up to 2^53, so the replay page showed 3493577465270494163 as
3493577465270494000: a wrong seed to copy. The pages read the API through ``parseJSON`` (app.js),
which reads an integer past 2^53 as a BigInt; these tests drive Debian's headless Chromium at a match
recorded with such a seed, and check the reader used where a browser lacks JSON.parse's source text
(``readJSONByHand``) against the same answers.

Against the private redis-server of ``tests.conftest`` (never the Redis on 6379).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from arena.queue import store
from arena.queue.connection import connect
from arena.queue.jobs import MatchJob
from leaderboard import browser
from leaderboard.app import leaderboard_app
from tests.conftest import replay_of_random_game

pytestmark = [
    pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server"),
    pytest.mark.skipif(not Path(browser.CHROMIUM).exists(), reason="needs Debian's chromium"),
]

SEED = 3493577465270494163  # the seed: a double rounds it to 3493577465270494000
MATCH = "ninjan-wide-seed"

# Renders a parsed value as JSON text with every BigInt as its digits, so two readers can be compared.
EXACT_TEXT = "v => JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? `big:${x}` : x))"


@pytest.fixture(scope="module")
def site(redis_url: str) -> Iterator[tuple[str, Any]]:
    client: redis.Redis = connect(redis_url)
    client.flushall()
    text, record = replay_of_random_game("ninjan", SEED, ["greedy", "random"], MATCH)
    assert store.record(client, MatchJob(MATCH, record.game, SEED, ("greedy", "random")), record, text, "0-1")
    with browser.serving(leaderboard_app(redis_url)) as base, browser.chromium() as chrome:
        yield base, chrome


def test_the_api_keeps_the_seed_a_json_integer_exact_to_the_last_digit(site: tuple[str, Any]) -> None:
    base, chrome = site
    page = chrome.new_page()
    answer = page.request.get(f"{base}/api/v1/matches/{MATCH}").text()
    assert f'"seed":{SEED}' in answer.replace(" ", "") and json.loads(answer)["seed"] == SEED
    page.close()


def test_the_replay_page_shows_a_64_bit_seed_exactly(site: tuple[str, Any]) -> None:
    base, chrome = site
    page = browser.open_page(chrome, f"{base}/matches/{MATCH}")
    shown = page.locator("main p", has_text="seed").first.text_content()
    assert f"seed {SEED} ·" in shown, shown
    page.close()


PATHS = [f"/api/v1/matches/{MATCH}", f"/api/v1/matches/{MATCH}/replay", "/api/v1/matches"]


@pytest.mark.parametrize("path", PATHS)
def test_both_readers_give_exact_integers_and_agree_with_json_parse_elsewhere(
    site: tuple[str, Any], path: str
) -> None:
    """parseJSON (with the source text Chromium gives a reviver) and readJSONByHand (the fallback)
    read the same answers alike; where no integer is past 2^53 they read what JSON.parse reads."""
    base, chrome = site
    page = browser.open_page(chrome, f"{base}/matches")
    text = page.request.get(f"{base}{path}").text()
    read = page.evaluate(
        f"""text => {{
          const exact = {EXACT_TEXT};
          return {{
            native: exact(JSON.parse(text)),
            parsed: exact(Arena.parseJSON(text)),
            byHand: exact(Arena.readJSONByHand(text)),
          }};
        }}""",
        text,
    )
    assert read["parsed"] == read["byHand"]
    assert f'"big:{SEED}"' in read["parsed"]
    unrounded = read["parsed"].replace(f'"big:{SEED}"', "3493577465270494000")
    assert unrounded == read["native"]  # every other value as JSON.parse reads it


def test_the_fallback_reader_reads_json_as_json_parse_does(site: tuple[str, Any]) -> None:
    base, chrome = site
    page = browser.open_page(chrome, f"{base}/matches")
    samples = [
        '{"a": [1, -2.5e3, 0, true, false, null, "x\\u0000y\\"\\\\"], "b": {}, "c": [],'
        ' "__proto__": {"d": 1}}',
        " [ 18446744073709551615 , -9223372036854775808, 9007199254740991, 9007199254740993, 1e400 ] ",
        '"\\ud83d\\ude00"',
    ]
    for sample in samples:
        native, by_hand = page.evaluate(
            f"""text => {{
              const exact = {EXACT_TEXT};
              return [exact(JSON.parse(text, (k, v, c) => (typeof v === 'number' && !Number.isSafeInteger(v)
                && /^-?\\d+$/.test(c.source) ? BigInt(c.source) : v))), exact(Arena.readJSONByHand(text))];
            }}""",
            sample,
        )
        assert by_hand == native, sample
    for bad in ['{"a":1,}', "[1 2]", "01", '{"a" 1}', "", "tru", "[1]x", '{"a":1', '"\\x"']:
        refused = page.evaluate(
            "text => { try { Arena.readJSONByHand(text); return 'read'; } catch (e) { return e.name; } }", bad
        )
        assert refused == "SyntaxError", bad
    page.close()
