"""Authentication that cannot be turned into a CPU flood (issue 33, item 4): wrong tokens are
rate-limited per client address and per credential before any hash, at most ``secret_checks`` hashes
run at once (503 past that), a token no generated credential can be is refused unhashed, and a verified
secret passes from memory until its bot's stored hash changes.

Each test runs a real server (uvicorn on a loopback port, in this process so that the hashes can be
counted: ``owner_secrets.verify_secret`` is wrapped) over the module's private Redis, and talks to it
over real sockets; other client addresses are loopback addresses (all of 127.0.0.0/8) the client's
socket is bound to. One test runs ``arena server`` itself with the new options.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import secrets
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from arena.queue import keys
from arena.submissions import owner_secrets
from leaderboard.api.auth import OrganiserToken, VerifiedCache, could_be_organiser_token
from leaderboard.api.ratelimit import TokenBucket
from leaderboard.app import ServerConfig
from leaderboard.app import server_app as create_app
from tests.conftest import free_port
from tests.test_attacks_server import running_server
from tests.test_server import TOKEN

SLOW = 0.01  # failures regained per minute in these tests: none within a test


@pytest.fixture
def hashes(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Returns the list every secret check's stored hash is appended to, as the server hashes it."""
    calls: list[str] = []
    real = owner_secrets.verify_secret

    def counted(stored: str, secret: str) -> bool:
        calls.append(stored)
        return real(stored, secret)

    monkeypatch.setattr(owner_secrets, "verify_secret", counted)
    return calls


@contextlib.contextmanager
def serving(redis_url: str, client: Any, tmp_path: Path, **limits: Any) -> Iterator[str]:
    """Runs the server app with ``limits`` (``ServerConfig`` fields; writes unlimited) on a free
    loopback port, in a thread of this process; yields its "127.0.0.1:PORT" once it listens."""
    token_file = tmp_path / "organiser-token"
    token_file.write_text(TOKEN + "\n")
    config = ServerConfig(write_burst=10_000, organiser=OrganiserToken.from_file(token_file), **limits)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(redis_url, config, client),
            host="127.0.0.1",
            port=port,
            log_level="warning",
            proxy_headers=False,
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


class Answer:
    """A server's answer: status, headers (lower-case names) and the JSON body."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status, self.headers = status, headers
        self.json = json.loads(body) if body else None

    def __repr__(self) -> str:
        return f"Answer({self.status}, {self.json})"

    @property
    def error(self) -> str:
        return str(self.json["error"])


def call(server: str, method: str, path: str, token: str | None = None, source: str = "127.0.0.1") -> Answer:
    """Sends one request from loopback address ``source`` (bound before connecting)."""
    host, port = server.split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60, source_address=(source, 0))
    try:
        conn.request(method, path, headers={"Authorization": f"Bearer {token}"} if token is not None else {})
        response = conn.getresponse()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, response.read())
    finally:
        conn.close()


def register(server: str, name: str) -> str:
    """Registers built-in ``random`` as bot ``name``; returns its owner secret."""
    answer = call(server, "POST", f"/api/v1/bots/{name}?games=ninjan&builtin=random")
    assert answer.status == 201, answer
    return str(answer.json["secret"])


def wrong_secret() -> str:
    """Returns a token shaped like an owner secret that is nobody's."""
    return secrets.token_urlsafe(32)


def show(server: str, name: str, token: str | None, source: str = "127.0.0.1") -> Answer:
    return call(server, "GET", f"/api/v1/bots/{name}", token, source)


def assert_refused_for_a_while(answer: Answer, status: int, words: str) -> None:
    """Asserts a one-line JSON refusal with ``status``, a Retry-After of whole seconds and ``words``."""
    assert answer.status == status, answer
    assert int(answer.headers["retry-after"]) >= 1
    assert words in answer.error and "\n" not in answer.error, answer.error


def test_wrong_tokens_from_one_address_get_429_before_any_hash(
    redis_url: str, client: Any, tmp_path: Path, hashes: list[str]
) -> None:
    limits = {"auth_failure_burst": 3, "auth_failures_per_minute": SLOW}
    with serving(redis_url, client, tmp_path, **limits) as server:
        names = [f"bot{n}" for n in range(6)]
        owners = {name: register(server, name) for name in names}
        # each wrong token aims at another bot, so the address's bucket empties before any bot's
        answers = [show(server, name, wrong_secret(), "127.0.0.2") for name in names]
        assert [a.status for a in answers] == [403, 403, 403, 429, 429, 429], answers
        assert "wrong owner secret" in answers[0].error
        assert_refused_for_a_while(answers[3], 429, "too many failed authentications from this address")
        assert len(hashes) == 3, "a refused address got a hash"
        organiser = call(server, "POST", "/api/v1/tournaments", "W" * 32, "127.0.0.2")
        assert_refused_for_a_while(organiser, 429, "from this address")  # every credential alike
        assert len(hashes) == 3
        # another address, and the owners themselves from the refused one, are not refused
        assert show(server, "bot4", wrong_secret(), "127.0.0.3").status == 403
        assert show(server, "bot5", owners["bot5"], "127.0.0.1").status == 200
        assert call(server, "GET", "/api/v1/bots", source="127.0.0.2").status == 200  # reading goes on
        mine = show(server, "bot0", owners["bot0"], "127.0.0.2")
        assert mine.status == 429, mine  # an owner sharing the address: not verified before, so no hash
        assert show(server, "nobody", wrong_secret(), "127.0.0.2").status == 429  # any name, unread
        assert show(server, "nobody", None, "127.0.0.2").status == 404  # no token: nothing to refuse
        assert len(hashes) == 5


def test_the_limit_per_bot_name_holds_across_addresses_that_failed_and_locks_no_owner_out(
    redis_url: str, client: Any, tmp_path: Path, hashes: list[str]
) -> None:
    """A name's bucket counts the failures of addresses that have failed before, so many addresses
    cannot spend one name's checks together; an address that has failed nothing is not held back by
    it, so failing with an owner's name does not lock the owner out."""
    limits = {"auth_failure_burst": 4, "auth_failures_per_minute": SLOW}
    with serving(redis_url, client, tmp_path, **limits) as server:
        alice, bob = register(server, "alice"), register(server, "bob")
        assert show(server, "alice", alice).status == 200  # verified once: remembered
        assert len(hashes) == 1
        sources = [f"127.0.0.{n}" for n in range(2, 12)]
        first = [show(server, "alice", wrong_secret(), source) for source in sources]
        assert [a.status for a in first] == [403] * 10, first  # each address's first: its own bucket
        again = [show(server, "alice", wrong_secret(), source) for source in sources]
        assert [a.status for a in again] == [403] * 4 + [429] * 6, again
        assert_refused_for_a_while(again[-1], 429, "too many failed authentications for bot alice")
        assert len(hashes) == 1 + 10 + 4
        # the organiser token is one credential too, whatever the address
        organiser = [call(server, "DELETE", "/api/v1/ladders/x", "W" * 32, s) for s in sources[4:]]
        assert [a.status for a in organiser] == [403] * 4 + [429] * 2, organiser
        assert "for the organiser token" in organiser[-1].error
        assert len(hashes) == 1 + 10 + 4 + 4
        # bob's name failed from addresses that failed before: refused there, not from bob's own
        wrong = [show(server, "bob", wrong_secret(), source) for source in [*sources[:4], sources[0]]]
        assert [a.status for a in wrong] == [403] * 4 + [429], wrong
        assert show(server, "bob", bob, sources[1]).status == 429  # an address that failed: held back
        assert show(server, "bob", bob, "127.0.0.201").status == 200  # the owner's own: checked
        assert len(hashes) == 1 + 10 + 4 + 4 + 4 + 1
        # the owner's verified secret still passes, unhashed, from anywhere
        assert show(server, "alice", alice, "127.0.0.200").status == 200
        assert show(server, "bob", bob, sources[2]).status == 200
        assert len(hashes) == 1 + 10 + 4 + 4 + 4 + 1


@pytest.mark.parametrize(
    "token",
    [
        "x",
        "not-the-secret",
        "x" * 42,  # one character short
        "x" * 44,  # one too many
        "x" * 43,  # 43 characters, but no secret ends in 'x' (its last one carries 4 bits)
        "A" * 42 + "=",  # not base64url
        "A" * 41 + "+A",  # standard base64
        "\xe9" * 42 + "A",
        "y" * 12_000,
        TOKEN,  # the organiser's token is no owner secret
    ],
)
def test_a_token_no_owner_secret_can_be_is_refused_unhashed_and_uncounted(
    redis_url: str, client: Any, tmp_path: Path, hashes: list[str], token: str
) -> None:
    limits = {"auth_failure_burst": 1, "auth_failures_per_minute": SLOW}
    with serving(redis_url, client, tmp_path, **limits) as server:
        secret = register(server, "alice")
        for method, path in [("GET", "/api/v1/bots/alice"), ("DELETE", "/api/v1/bots/alice")]:
            for _ in range(3):
                answer = call(server, method, path, token)
                assert answer.status == 403 and answer.error == "wrong owner secret for bot alice", answer
        assert hashes == [], "a malformed token was hashed"
        assert show(server, "alice", wrong_secret()).status == 403  # malformed ones spent no failure
        assert show(server, "alice", wrong_secret()).status == 429  # that one did (a burst of 1)
        assert show(server, "alice", secret, "127.0.0.2").status == 200  # the owner, elsewhere: checked


def test_an_organiser_token_of_no_possible_shape_is_refused_unhashed(
    redis_url: str, client: Any, tmp_path: Path, hashes: list[str]
) -> None:
    with serving(redis_url, client, tmp_path) as server:
        for token in [
            "short",
            "a" * 15,
            "a" * 1025,
            "tab\tinside-the-token-here",
            "ctrl\x01-inside-the-token",
        ]:
            answer = call(server, "POST", "/api/v1/tournaments", token)
            assert answer.status == 403 and answer.error == "wrong organiser token", answer
        assert hashes == []
        assert call(server, "POST", "/api/v1/tournaments", "a" * 16).status == 403
        assert len(hashes) == 1  # a token of the right shape is checked
    # the startup check and the request check agree: a file the server accepts passes the shape
    for token in [TOKEN, "a" * 16, "p\xe4sswort-mit-umlaut", "x" * 1024]:
        (tmp_path / "t").write_text(token + "\n", encoding="utf-8")
        assert OrganiserToken.from_file(tmp_path / "t").stored and could_be_organiser_token(token)
    for token in ["a" * 15, "x" * 1025, "two words-0123456789", "bell\x07-0123456789abc"]:
        (tmp_path / "t").write_text(token + "\n", encoding="utf-8")
        with pytest.raises(ValueError, match="one word of 16 to 1024 printable characters"):
            OrganiserToken.from_file(tmp_path / "t")
        assert not could_be_organiser_token(token)


def test_every_generated_owner_secret_has_the_checked_shape(
    redis_url: str, client: Any, tmp_path: Path
) -> None:
    with serving(redis_url, client, tmp_path) as server:
        made = [register(server, f"shape{n}") for n in range(30)]
    assert all(owner_secrets.could_be_owner_secret(s) for s in made), made
    assert all(owner_secrets.could_be_owner_secret(secrets.token_urlsafe(32)) for _ in range(10_000))


def test_at_most_secret_checks_hashes_run_at_once_and_reads_do_not_wait(
    redis_url: str, client: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    entered, gate = threading.Semaphore(0), threading.Event()
    real = owner_secrets.verify_secret
    threads: list[tuple[str, int]] = []

    def held(stored: str, secret: str) -> bool:
        threads.append(
            (threading.current_thread().name, os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))
        )
        entered.release()
        gate.wait(timeout=60)
        return real(stored, secret)

    monkeypatch.setattr(owner_secrets, "verify_secret", held)
    with serving(redis_url, client, tmp_path, secret_checks=2) as server:
        alice, bob, carol = (register(server, n) for n in ("alice", "bob", "carol"))
        with ThreadPoolExecutor(2) as pool:
            busy = [
                pool.submit(show, server, name, secret) for name, secret in [("alice", alice), ("bob", bob)]
            ]
            for _ in range(2):
                assert entered.acquire(timeout=30), "a check did not start"
            started = time.monotonic()
            refused = show(server, "carol", carol, "127.0.0.2")
            assert_refused_for_a_while(refused, 503, "the server is checking 2 secrets already")
            organiser = call(server, "POST", "/api/v1/tournaments", TOKEN, "127.0.0.3")
            assert_refused_for_a_while(organiser, 503, "checking 2 secrets")
            assert call(server, "GET", "/api/v1/bots").status == 200  # reads go on meanwhile
            assert time.monotonic() - started < 10  # at once, not after the held checks
            gate.set()
            assert [f.result(timeout=60).status for f in busy] == [200, 200]
        assert show(server, "carol", carol, "127.0.0.2").status == 200  # a 503 spent no failure
    # the hashes ran on the checker's own threads, nicer than the rest of the server
    ours = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert {name.split("_")[0] for name, _ in threads} == {"arena-secret-check"}, threads
    assert all(nice > ours or ours == 19 for _, nice in threads), (threads, ours)


def test_a_verified_secret_passes_from_memory_until_its_bot_is_registered_again(
    redis_url: str, client: Any, tmp_path: Path, hashes: list[str]
) -> None:
    with serving(redis_url, client, tmp_path) as server:
        old = register(server, "phoenix")
        for _ in range(5):
            assert show(server, "phoenix", old).status == 200
        assert len(hashes) == 1, "a verified secret was hashed again"
        match_log = call(server, "GET", "/api/v1/matches/none/log/0", old)
        assert match_log.status == 404 and len(hashes) == 1  # nothing to authorise: no hash
        assert call(server, "DELETE", "/api/v1/bots/phoenix", old).status == 200
        assert len(hashes) == 1  # the server's check came from memory
        new = register(server, "phoenix")
        answer = show(server, "phoenix", old)
        assert answer.status == 403 and "wrong owner secret" in answer.error, answer
        assert len(hashes) == 2, "the old secret's entry passed for the new bot"
        assert show(server, "phoenix", new).status == 200
        assert show(server, "phoenix", new).status == 200
        assert len(hashes) == 3
        # a stored hash changed under the server (a secret renewed by hand) is missed too
        client.hset(keys.bot("phoenix"), "secret_hash", owner_secrets.hash_secret(old))
        assert show(server, "phoenix", new).status == 403
        assert show(server, "phoenix", old).status == 200
        assert len(hashes) == 5


def test_the_cache_keeps_no_secret_is_bounded_and_forgets(hashes: list[str]) -> None:
    now = [0.0]
    cache = VerifiedCache(size=3, seconds=60, clock=lambda: now[0])
    token = secrets.token_urlsafe(32)
    cache.add("bot", "a", "scrypt$stored", token)
    held = repr(cache._entries).encode() + b"".join(k + v[0] for k, v in cache._entries.items())
    assert token.encode() not in held and b"scrypt$stored" not in held
    other = VerifiedCache()
    other.add("bot", "a", "scrypt$stored", token)
    assert set(other._entries).isdisjoint(cache._entries), "the digest key is the process's own"
    assert cache.knows("bot", "a", token) and cache.holds("bot", "a", "scrypt$stored", token)
    assert not cache.knows("bot", "b", token) and not cache.holds("bot", "b", "scrypt$stored", token)
    assert not cache.holds("organiser", "a", "scrypt$stored", token)  # another kind
    assert not cache.holds("bot", "a", "scrypt$stored", secrets.token_urlsafe(32))  # another token
    assert cache.holds("bot", "a", "scrypt$stored", token)
    assert not cache.holds("bot", "a", "scrypt$renewed", token)  # the bot's hash changed: dropped
    assert not cache.knows("bot", "a", token) and not cache.holds("bot", "a", "scrypt$stored", token)
    for name in "abcd":
        cache.add("bot", name, "s", token)
    assert not cache.knows("bot", "a", token) and len(cache._entries) == 3  # the least recently used went
    assert cache.holds("bot", "b", "s", token)
    now[0] = 61.0
    assert not cache.holds("bot", "d", "s", token) and not cache.knows("bot", "b", token)  # expired
    assert hashes == []


def test_take_all_spends_every_bucket_or_none_and_give_back_refunds() -> None:
    now = [0.0]
    bucket = TokenBucket(per_minute=60, burst=2, clock=lambda: now[0])
    assert bucket.take_all(["a", "n"]) == {}
    assert bucket.take_all(["b", "n"]) == {}
    empty = bucket.take_all(["c", "n"])
    assert list(empty) == ["n"] and empty["n"] == pytest.approx(1.0)
    assert bucket.take("c") == 0.0 and bucket.take("c") == 0.0  # "c" kept both tokens
    bucket.give_back(["a", "n"])
    assert bucket.take_all(["a", "n"]) == {}
    bucket.give_back(["z"] * 5)
    assert bucket.take("z") == 0 and bucket.take("z") == 0 and bucket.take("z") > 0  # never past burst
    now[0] = 1.0
    assert bucket.take("z") == 0.0


def test_limits_that_allow_no_check_are_refused() -> None:
    for limits in [{"secret_checks": 0}, {"auth_failure_burst": 0}, {"auth_failures_per_minute": 0}]:
        with pytest.raises(ValueError, match="authentication limits"):
            ServerConfig(**limits)


def test_arena_server_takes_the_limits_as_options(redis_url: str, client: Any, tmp_path: Path) -> None:
    options = ("--auth-failure-burst", "2", "--auth-failures-per-minute", "0.01", "--secret-checks", "1")
    with running_server(redis_url, tmp_path, *options, "--write-burst", "100") as server:
        alice = register(server, "alice")
        wrong = [show(server, "alice", wrong_secret(), "127.0.0.2") for _ in range(3)]
        assert [a.status for a in wrong] == [403, 403, 429], wrong
        assert_refused_for_a_while(wrong[-1], 429, "too many failed authentications")
        assert int(wrong[-1].headers["retry-after"]) > 60  # 0.01 a minute: hours away
        assert show(server, "alice", alice, "127.0.0.3").status == 200  # the owner, from elsewhere
        other = call(server, "POST", "/api/v1/tournaments", wrong_secret(), "127.0.0.3")
        assert other.status == 403  # the address has no failure of its own yet
