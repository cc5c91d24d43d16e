"""Red team of ``arena server`` (issue 16): a hostile participant and a hostile stranger on the network
attack the API, in process (Starlette's test client, as tests/test_server.py) and, for what only a
raw socket can send, a real ``arena server`` process; both over a real private Redis.

Each test is an attack and asserts the platform's answer: a one-line JSON error with the right status,
no traceback, no secret in any answer, and Redis exactly as it was (``refused`` compares every key).
What a stranger may read is public by design: bots (name, games, entry and build commands, versions,
smoke status), tournaments, results, replays and think times; never an owner secret, its hash, the
organiser token, a bot's code, or a bot's output (its match logs and smoke log tail: its owner's).
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import os
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.queue import keys
from leaderboard.api.auth import OrganiserToken
from leaderboard.app import ServerConfig
from leaderboard.app import server_app as create_app
from tests.conftest import REPO, SEED_KEY_ENV, free_port
from tests.test_queue import wait_until
from tests.test_server import LIMITS, TOKEN, bot_archive, create, member, refused, snapshot, submit

BEARER = {"Authorization": f"Bearer {TOKEN}"}


@contextlib.contextmanager
def api_client(client: Any, redis_url: str, folder: Path) -> Iterator[TestClient]:
    """Yields a test client of a server as tests/test_server.py makes it (small archive limits, the
    organiser token, no rate limit in the way)."""
    token_file = folder / "organiser-token"
    token_file.write_text(TOKEN + "\n")
    organiser = OrganiserToken.from_file(token_file)
    config = ServerConfig(archive_limits=LIMITS, write_burst=1000, organiser=organiser)
    with TestClient(create_app(redis_url, config, client)) as test_client:
        yield test_client


@pytest.fixture
def api(client: Any, redis_url: str, tmp_path: Path) -> Iterator[TestClient]:
    """Returns a test client of a server as tests/test_server.py makes it (``api_client``)."""
    with api_client(client, redis_url, tmp_path) as test_client:
        yield test_client


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def no_traceback(text: str) -> None:
    """Asserts that an answer holds no Python traceback or source location."""
    assert "Traceback" not in text and 'File "' not in text and '.py", line' not in text, text


@pytest.mark.parametrize(
    "name",
    [
        "Alice",  # case: names are lower case, so no 'Alice' beside 'alice'
        "\u0430lice",  # Cyrillic a
        "\uff41lice",  # fullwidth a
        "alice\u200b",  # zero-width space
        "alice%0A",  # a trailing newline ($ in a regex would let it through)
        "alice%00",
        "alice%20",
        "%2e%2e",  # '..' once decoded
        "alice.",
        "-alice",
        "_alice",
        "a" * 41,
    ],
)
def test_names_that_imitate_another_or_a_path_are_refused(api: TestClient, client: Any, name: str) -> None:
    assert submit(api, "alice", bot_archive()).status_code == 201
    refused(api, client, lambda: submit(api, name, bot_archive()), 400, "invalid bot name")


def test_malformed_and_foreign_credentials_are_refused(api: TestClient, client: Any) -> None:
    alice = submit(api, "alice", bot_archive()).json()["secret"]
    mallory = submit(api, "mallory", bot_archive()).json()["secret"]
    v2 = bot_archive([member("v2.txt", b"2")])

    def update(headers: dict[str, str]) -> Any:
        params = {"games": "ninjan", "entry": "python bot.py"}
        return api.post("/api/v1/bots/alice", params=params, content=v2, headers=headers)

    for header in ["", "Bearer", "Bearer    ", f"Basic {alice}", f"Token {alice}", alice]:
        refused(api, client, lambda h=header: update({"Authorization": h}), 401, "Bearer TOKEN")
    for token in [mallory, TOKEN, "x" * 12_000, alice[:-1], alice + "x", alice.upper()]:
        refused(api, client, lambda t=token: update(auth(t)), 403, "wrong owner secret")
    refused(
        api,
        client,
        lambda: create(api, {"game": "ninjan", "bots": ["random", "greedy"]}, alice),
        403,
        "wrong",
    )
    refused(api, client, lambda: api.delete("/api/v1/bots/alice", headers=auth(TOKEN)), 403, "wrong owner")


def test_the_secret_of_a_removed_bot_opens_nothing_of_its_name_registered_again(
    api: TestClient, client: Any
) -> None:
    old = submit(api, "phoenix", bot_archive()).json()
    assert api.delete("/api/v1/bots/phoenix", headers=auth(old["secret"])).status_code == 200
    new = submit(api, "phoenix", bot_archive())
    assert new.status_code == 201, new.text
    fresh = new.json()
    assert fresh["secret"] != old["secret"]
    assert fresh["bot"]["candidate"] != old["bot"]["candidate"]  # same code, a new version
    assert old["bot"]["candidate"] not in fresh["bot"]["versions"]
    v2 = bot_archive([member("v2.txt", b"2")])
    refused(api, client, lambda: submit(api, "phoenix", v2, old["secret"]), 403, "wrong owner secret")
    gone = lambda: api.delete("/api/v1/bots/phoenix", headers=auth(old["secret"]))  # noqa: E731
    refused(api, client, gone, 403, "wrong owner secret")


MULTIPART = b"--b\r\nContent-Disposition: form-data; name=f\r\n\r\nx\r\n--b--\r\n"


@pytest.mark.parametrize(
    ("body", "query", "status", "words"),
    [
        (
            b"--b\r\nContent-Disposition: form-data; name=f\r\n\r\nx\r\n--b--\r\n",
            {},
            422,
            "not a valid tar.gz",
        ),
        (b"x" * 2048, {}, 422, "not a valid tar.gz"),  # a plain (unzipped) tar would be refused alike
        (gzip.compress(os.urandom(4096)), {}, 422, "not a valid tar.gz"),
        (gzip.compress(b"\0" * 1024), {}, 422, "no files"),  # an empty tar
        (gzip.compress(os.urandom(64))[:-8], {}, 422, ""),  # truncated
        (b"", {}, 400, "packed folder"),
        (None, {"entry": "python 'bot.py"}, 422, "No closing quotation"),
        (None, {"entry": "A=1 B=2"}, 422, "only variables"),
        (None, {"entry": "./../../usr/bin/python3"}, 422, "not in the archive"),
        (None, {"entry": "python ../bot.py"}, 422, "not in the archive"),
        (None, {"build": "   "}, 422, "--build is empty"),
        (None, {"games": "ninjan,chess"}, 422, "unknown game"),
        (None, {"games": "\uff4einjan"}, 422, "unknown game"),
        (None, {"builtin": "nosuch", "entry": ""}, 400, "no body"),
    ],
    ids=[
        "multipart",
        "not-gzip",
        "gzip-of-noise",
        "empty-tar",
        "truncated",
        "no-body",
        "unclosed-quote",
        "only-variables",
        "entry-climbs-out",
        "script-climbs-out",
        "blank-build",
        "unknown-game",
        "fullwidth-game",
        "builtin-with-body",
    ],
)
def test_uploads_that_are_no_runnable_bot_are_refused(
    api: TestClient, client: Any, body: bytes | None, query: dict[str, str], status: int, words: str
) -> None:
    payload = bot_archive() if body is None else body
    refused(api, client, lambda: submit(api, "hostile", payload, **query), status, words)


def test_archive_members_with_tricky_names_are_refused(api: TestClient, client: Any) -> None:
    for extra, words in [
        ([member("a/../../x.py", b"x")], "outside the bot folder"),
        ([member("./../x.py", b"x")], "outside the bot folder"),
        ([member("//etc/x.py", b"x")], "outside the bot folder"),
        ([member("bot.py", b"again")], "twice"),
        ([member("./bot.py", b"again")], "twice"),
        ([member("fifo", kind=tarfile_type("FIFOTYPE"))], "fifo"),
        ([member("dev", kind=tarfile_type("CHRTYPE"))], "device"),
        ([member("d", kind=tarfile_type("DIRTYPE")), member("d/x", b"1"), member("d", b"file")], "twice"),
    ]:
        refused(api, client, lambda e=extra: submit(api, "tricky", bot_archive(e)), 422, words)


def test_a_member_name_or_entry_is_echoed_on_one_bounded_line(api: TestClient, client: Any) -> None:
    long_escape = "../" + "x" * 30_000  # a PAX header carries it: 30 KB of name
    for extra, entry in [
        ([member(long_escape, b"x")], "python bot.py"),
        ([member("a\n\x1b[2Jlink", kind=tarfile_type("SYMTYPE"), link="/etc/passwd")], "python bot.py"),
        ([], "./" + "y" * 3000),
        ([], "python dir/\x1b]0;owned\x07.py"),
    ]:
        response = submit(api, "echo", bot_archive(extra), entry=entry)
        assert response.status_code == 422, response.text[:300]
        error = response.json()["error"]
        assert len(error) < 400 and error.isprintable(), error[:400]
    assert not client.keys("arena:bot*")


def tarfile_type(name: str) -> bytes:
    import tarfile

    return getattr(tarfile, name)


@pytest.mark.parametrize(
    "body",
    [
        b"[]",
        b'"ninjan"',
        b"null",
        b"1e999",
        b'{"game": "ninjan", "bots": ["random", "greedy"], "rounds": NaN}',
        b'{"game": "ninjan", "bots": ["random", "greedy"], "rounds": Infinity}',
        b'{"game": "ninjan", "bots": ["random", "greedy"], "rounds": 1.0}',
        b'{"game": "ninjan", "bots": ["random", "greedy"], "players": true}',
        b'{"game": "ninjan", "bots": ["random", "greedy"], "duplicate_deals": 1}',
        b'{"game": "ninjan", "bots": "random,greedy"}',
        b'{"game": "ninjan", "bots": ["random", 7]}',
        b'{"game": ["ninjan"], "bots": ["random", "greedy"]}',
        b'{"game": {"$ne": null}, "bots": ["random", "greedy"]}',
        b'{"game": "ninjan", "bots": ["random", "greedy"], "__proto__": {}}',
        '{"game": "ninjan"}'.encode("utf-16"),
        b'{"game": "\xff"}',
    ],
)
def test_tournament_bodies_of_the_wrong_shape_are_refused(api: TestClient, client: Any, body: bytes) -> None:
    request = lambda: api.post("/api/v1/tournaments", content=body, headers=BEARER)  # noqa: E731
    refused(api, client, request, 400, "")


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"deadline_ms": 2**32}, "deadline"),
        ({"deadline_ms": -1}, "deadline"),
        ({"players": 2**63}, "players"),
        ({"rounds": 0}, "rounds"),
        ({"rounds": 10**30}, "at most 100,000"),
        ({"bots": ["random", "greedy"] * 3}, "named once"),
        ({"bots": ["random", " random"]}, "named once"),
        ({"bots": ["random", "RANDOM"]}, "unknown bot"),
        ({"bots": ["random", "../greedy"]}, "unknown bot"),
        ({"game": "NINJAN "}, "unknown game"),
    ],
)
def test_tournament_parameters_past_the_limits_queue_nothing(
    api: TestClient, client: Any, change: dict, words: str
) -> None:
    body = {"game": "ninjan", "bots": ["random", "greedy"], "seed": 7, **change}
    refused(api, client, lambda: create(api, body), 422, words)


def test_refusals_of_huge_parameters_echo_a_bounded_line(api: TestClient, client: Any) -> None:
    body = {"game": "ninjan", "bots": ["random", "greedy"], "seed": 7}
    for change, words in [
        ({"bots": ["random", "greedy"] * 2000}, "random, greedy named more than once"),
        ({"bots": ["x" * 3000, "x" * 3000]}, "named more than once"),
        ({"rounds": 10**4000}, "over 10^30 matches"),
    ]:
        response = create(api, {**body, **change})
        assert response.status_code == 422, response.text
        error = response.json()["error"]
        assert words in error and len(error) < 300, error[:300]
    assert not client.keys("arena:tournament*")


def test_a_json_body_over_its_limit_is_refused_before_it_is_parsed(api: TestClient, client: Any) -> None:
    big = b'{"game": "ninjan", "bots": [' + b'"random",' * 10_000 + b'"greedy"]}'
    refused(
        api, client, lambda: api.post("/api/v1/tournaments", content=big, headers=BEARER), 413, "too large"
    )

    def chunks() -> Iterator[bytes]:  # chunked: no Content-Length to refuse it early
        yield b'{"game": "ninjan", "bots": ["'
        for _ in range(40):
            yield b"x" * 4096
        yield b'"]}'

    chunked = lambda: api.post("/api/v1/tournaments", content=chunks(), headers=BEARER)  # noqa: E731
    refused(api, client, chunked, 413, "too large")


def reads(tournament: str, match: str) -> list[str]:
    """Returns every read endpoint a stranger may call, filled with real ids."""
    return [
        "/api/v1/bots",
        "/api/v1/bots/alice",
        "/api/v1/tournaments",
        f"/api/v1/tournaments/{tournament}",
        f"/api/v1/tournaments/{tournament}/results",
        f"/api/v1/matches/{match}/log",
        "/api/v1/games",
        "/api/v1/stamp",
        "/api/v1/games/ninjan/leaderboard",
        "/api/v1/games/ninjan/bots/alice",
        "/api/v1/games/ninjan/head-to-head?a=alice&b=random",
        "/api/v1/matches",
        f"/api/v1/matches/{match}",
        f"/api/v1/matches/{match}/replay",
        "/api/games",
        "/api/leaderboard/ninjan",
        "/api/bots/ninjan/alice",
        "/api/tournaments",
        f"/api/tournaments/{tournament}",
        "/api/matches",
        f"/api/matches/{match}",
        "/",
    ]


def test_no_read_shows_a_secret_a_hash_the_organiser_token_or_a_bots_code(
    api: TestClient, client: Any
) -> None:
    answer = submit(api, "alice", bot_archive([member("strategy.txt", b"MY-SECRET-STRATEGY")])).json()
    secret = answer["secret"]
    created = create(api, {"game": "ninjan", "bots": ["random", "greedy"], "seed": 7}).json()
    match = f"{created['id']}-r1-g1-s1"
    stored = client.hgetall(keys.bot("alice"))
    archive = client.hget(keys.bot_version(answer["bot"]["candidate"]), "archive")
    private = [secret, stored["secret_hash"], "scrypt$", TOKEN, archive[:40], "MY-SECRET-STRATEGY"]
    private.append(base64.b64encode(b"MY-SECRET-STRATEGY").decode()[:16])
    for path in reads(created["id"], match):
        response = api.get(path)
        assert response.status_code < 500, (path, response.text)
        for word in private:
            assert word not in response.text, (path, word)
        no_traceback(response.text)


def test_error_answers_are_one_json_line_without_a_traceback(api: TestClient) -> None:
    for method, path in [
        ("GET", "/api/v1/nosuch"),
        ("PUT", "/api/v1/bots/alice"),
        ("PATCH", "/api/v1/tournaments"),
        ("DELETE", "/api/v1/tournaments"),
        ("GET", "/api/v1/bots/" + "x" * 300),
        ("GET", "/api/v1/tournaments/%00"),
        ("GET", "/api/v1/tournaments/x/results?limit=-1"),
        ("GET", "/api/v1/tournaments/x/results?limit=1e3"),
        ("GET", "/api/v1/matches/%2e%2e%2f%2e%2e%2fetc%2fpasswd/log"),
        ("GET", "/api/v1/matches/a%0Ab/log"),
        ("POST", "/api/v1/bots/alice"),
    ]:
        response = api.request(method, path)
        assert 400 <= response.status_code < 500, (method, path, response.status_code)
        assert response.headers["content-type"].startswith("application/json"), (method, path)
        error = response.json()["error"]
        assert "\n" not in error and len(error) < 500, error
        no_traceback(response.text)


# A real server process: what only a raw socket can send.

PORT_TIMEOUT = 60  # seconds: a safety limit for the server to answer, not a timing assertion


@contextlib.contextmanager
def running_server(redis_url: str, folder: Path, *options: str) -> Iterator[str]:
    """Runs a real ``arena server`` over ``redis_url`` with ``options``; yields its "127.0.0.1:PORT"
    once it answers, and stops it (SIGKILL if SIGTERM is not enough: a held connection delays it)."""
    token_file = folder / "organiser-token"
    token_file.write_text(TOKEN + "\n")
    port = free_port()
    env = {**os.environ, **SEED_KEY_ENV, "ARENA_REDIS_URL": redis_url, "XDG_STATE_HOME": str(folder)}
    argv = ["server", "--port", str(port), "--organiser-token-file", str(token_file), *options]
    proc = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *argv], env=env, cwd=REPO, stdin=subprocess.DEVNULL
    )
    try:
        wait_until(lambda: answers(port, proc), "the server to answer", limit=PORT_TIMEOUT)
        yield f"127.0.0.1:{port}"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Returns the address of a real server taking bots of up to 1 MiB, with no rate limit in the way."""
    with running_server(redis_url, tmp_path_factory.mktemp("server"), "--max-upload-mb", "1") as address:
        yield address


@pytest.fixture
def strict_server(redis_url: str, tmp_path: Path) -> Iterator[str]:
    """Returns the address of a real server allowing an address two writes, and then one more only
    after 100 minutes."""
    with running_server(redis_url, tmp_path, "--write-burst", "2", "--writes-per-minute", "0.01") as address:
        yield address


def answers(port: int, proc: subprocess.Popen) -> bool:
    assert proc.poll() is None, f"arena server exited with {proc.returncode}"
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/bots", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def raw(address: str, request: bytes, close: bool = False) -> bytes:
    """Sends ``request`` bytes on a new connection; returns everything the server answers (after
    shutting the sending side when ``close``)."""
    host, port = address.split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(request)
        if close:
            conn.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := conn.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def status_of(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


def head(method: str, path: str, *headers: str) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: arena", "Connection: close", *headers, "", ""]
    return "\r\n".join(lines).encode("latin-1")


def test_lies_about_the_body_store_nothing_and_leave_the_server_up(server: str, client: Any) -> None:
    before = snapshot(client)
    path = "/api/v1/bots/liar?games=ninjan&entry=python%20bot.py"
    for request in [
        head("POST", path, "Content-Length: 5000") + bot_archive()[:100],  # fewer bytes, then the end
        head("POST", path, "Content-Length: -1"),
        head("POST", path, "Content-Length: 1e3"),
        head("POST", path, "Content-Length: 10", "Content-Length: 20") + b"x" * 20,
        head("POST", path, "Transfer-Encoding: chunked", "Content-Length: 5") + b"5\r\nxxxxx\r\n0\r\n\r\n",
        head("POST", path, "Transfer-Encoding: chunked") + b"FFFFFFFFFFFF\r\n" + b"\0" * 70_000,
        head("POST", path, "Content-Length: 99999999999999999999999999"),
        head("POST", path, "Authorization: Bearer \xe9\xff\x01", "Content-Length: 0"),
    ]:
        answer = raw(server, request, close=True)
        assert status_of(answer) in (0, 400, 401, 403, 413, 422), answer[:300]
        no_traceback(answer.decode("latin-1"))
    # a client that hangs up mid-body leaves its upload slot to be released as the server unwinds
    wait_until(lambda: snapshot(client) == before, "every upload slot to be released", limit=30)
    assert raw(server, head("GET", "/api/v1/bots")).startswith(b"HTTP/1.1 200")


def test_forwarded_for_headers_do_not_refill_an_addresss_rate_limit(strict_server: str) -> None:
    def delete(*headers: str) -> int:
        return status_of(raw(strict_server, head("DELETE", "/api/v1/bots/x", *headers)))

    assert [delete(), delete(), delete()] == [404, 404, 429]  # the burst of two, then refused
    spoofs = [f"X-Forwarded-For: 10.0.0.{n}" for n in range(3)]
    spoofs += ["X-Real-IP: 10.1.1.1", "Forwarded: for=10.2.2.2", "X-Forwarded-For: 127.0.0.2, 10.0.0.9"]
    assert [delete(spoof) for spoof in spoofs] == [429] * len(spoofs)  # a header is no new address
    assert raw(strict_server, head("GET", "/api/v1/bots")).startswith(b"HTTP/1.1 200")  # reads go on


def test_half_open_connections_do_not_stop_the_server_answering(server: str) -> None:
    host, port = server.split(":")
    idle = []
    try:
        for n in range(200):  # slowloris: a request line and a header, never finished
            conn = socket.create_connection((host, int(port)), timeout=30)
            conn.sendall(f"GET /api/v1/bots HTTP/1.1\r\nX-Slow-{n}: ".encode())
            idle.append(conn)
        assert raw(server, head("GET", "/api/v1/bots")).startswith(b"HTTP/1.1 200")
    finally:
        for conn in idle:
            conn.close()


def test_an_upload_to_another_owners_name_is_refused_before_its_body_is_read(
    server: str, client: Any
) -> None:
    # tests/test_server.py: the owner is checked before the body is read. Over a socket: the answer
    # comes while the client still holds most of a declared megabyte, and nothing is stored.
    client.hset(keys.bot("owned"), mapping={"games": "ninjan", "secret_hash": "scrypt$16384$8$1$AAAA$AAAA"})
    before = snapshot(client)
    host, port = server.split(":")
    path = "/api/v1/bots/owned?games=ninjan&entry=python%20bot.py"
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall(head("POST", path, "Authorization: Bearer guess", "Content-Length: 1000000"))
        conn.sendall(b"\0" * 1000)
        answer = conn.recv(65536)
    assert status_of(answer) == 403, answer[:300]
    assert snapshot(client) == before


@pytest.mark.parametrize(
    "body",
    [
        b'{"game": "ninjan", "bots": ["random", "greedy"], "seed": ' + b"9" * 5000 + b"}",
        b"[" * 20_000 + b"]" * 20_000,
        b'{"game": ' + b"[" * 20_000 + b"]" * 20_000 + b"}",
    ],
    ids=["5000-digit-number", "nested-20000-deep", "nested-field"],
)
def test_json_that_python_cannot_parse_is_a_400_not_a_500(api: TestClient, client: Any, body: bytes) -> None:
    """json.loads raises a plain ValueError for a number of over 4,300 digits and RecursionError
    for deep nesting: both are a 400 in JSON, not a 500 in text/plain."""
    request = lambda: api.post("/api/v1/tournaments", content=body, headers=BEARER)  # noqa: E731
    refused(api, client, request, 400, "JSON")


def test_a_built_in_bots_name_cannot_be_registered_even_as_that_built_in(
    api: TestClient, client: Any
) -> None:
    """Nobody may own a built-in bot's name, even registered as that built-in: every smoke match
    and every tournament naming ``random`` would play the squatter's version, and removing it would
    forfeit them all."""
    squat = lambda: api.post("/api/v1/bots/random", params={"games": "ninjan", "builtin": "random"})  # noqa: E731
    refused(api, client, squat, 422, "the name of a built-in bot")


def test_error_messages_do_not_echo_a_huge_name(api: TestClient) -> None:
    """An error repeats a name the request sent cut short, not its kilobytes."""
    long = api.get("/api/v1/bots/" + "x" * 5000).json()["error"]
    assert len(long) < 500, len(long)
    body = {"game": "ninjan", "bots": ["random", "x" * 60_000]}
    unknown = api.post("/api/v1/tournaments", json=body, headers=BEARER).json()["error"]
    assert len(unknown) < 500, len(unknown)


def test_every_api_path_answers_json_even_to_options(api: TestClient) -> None:
    """OPTIONS on /api/v1/... answers JSON, as every API answer does (not the leaderboard's text
    404)."""
    response = api.options("/api/v1/bots")
    assert response.headers["content-type"].startswith("application/json"), response.text
