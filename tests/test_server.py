"""The server's API, in process (Starlette's test client) over a real private Redis: what each caller
may do, and every attack refused with a clear JSON error and nothing changed in Redis."""

from __future__ import annotations

import gzip
import io
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from arena.queue import keys
from arena.submissions import registry
from arena.submissions.archives import ArchiveLimits
from leaderboard.api.auth import OrganiserToken
from leaderboard.api.ratelimit import TokenBucket
from leaderboard.app import ServerConfig
from leaderboard.app import server_app as create_app
from tests.conftest import REPO

TOKEN = "organiser-token-0123456789abcdef"
RANDOM_BOT = (REPO / "tests" / "bots" / "submitted" / "random" / "bot.py").read_bytes()
LIMITS = ArchiveLimits(packed_bytes=64 * 1024, unpacked_bytes=1024 * 1024, files=20)


def tar_gz(members: list[tuple[tarfile.TarInfo, bytes]]) -> bytes:
    """Returns a tar.gz of the given headers, each with its content."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        for info, data in members:
            info.size = len(data) if info.isfile() else 0
            tar.addfile(info, io.BytesIO(data) if info.isfile() else None)
    return buffer.getvalue()


def member(name: str, data: bytes = b"", kind: bytes = tarfile.REGTYPE, link: str = "") -> tuple:
    """Returns a (header, content) pair for ``tar_gz``."""
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mode = kind, link, 0o644
    return info, data


def bot_archive(extra: list[tuple] | None = None) -> bytes:
    """Returns a packed folder holding the random Ninjan bot as bot.py (and ``extra`` members)."""
    return tar_gz([member("bot.py", RANDOM_BOT), *(extra or [])])


@pytest.fixture
def organiser_file(tmp_path: Path) -> Path:
    path = tmp_path / "organiser-token"
    path.write_text(TOKEN + "\n")
    return path


@pytest.fixture
def api(client: Any, redis_url: str, organiser_file: Path) -> Iterator[TestClient]:
    """Returns a test client of a server with small archive limits and the organiser token."""
    config = ServerConfig(
        archive_limits=LIMITS, write_burst=1000, organiser=OrganiserToken.from_file(organiser_file)
    )
    with TestClient(create_app(redis_url, config, client)) as test_client:
        yield test_client


READ = {
    "string": lambda c, k: c.get(k),
    "hash": lambda c, k: c.hgetall(k),
    "set": lambda c, k: sorted(c.smembers(k)),
    "list": lambda c, k: c.lrange(k, 0, -1),
    "zset": lambda c, k: c.zrange(k, 0, -1, withscores=True),
    "stream": lambda c, k: c.xrange(k),
}


def snapshot(client: Any) -> dict[str, Any]:
    """Returns every key of Redis with its value, to show that a refusal changed nothing (a key that
    expires between the listing and its read, as an upload slot's may, is left out)."""
    types = {key: client.type(key) for key in sorted(client.keys("*"))}
    return {key: READ[kind](client, key) for key, kind in types.items() if kind != "none"}


def submit(api: TestClient, name: str, body: bytes, secret: str | None = None, **query: str) -> Any:
    """Returns the response of uploading ``body`` as bot ``name`` (Ninjan, entry 'python bot.py')."""
    params = {"games": "ninjan", "entry": "python bot.py", **query}
    headers = {"Authorization": f"Bearer {secret}"} if secret else {}
    return api.post(f"/api/v1/bots/{name}", params=params, content=body, headers=headers)


def refused(api: TestClient, client: Any, response_of: Any, status: int, words: str) -> None:
    """Asserts that the request refuses with ``status`` and a JSON error containing ``words``, and
    that Redis is exactly as it was."""
    before = snapshot(client)
    response = response_of()
    assert response.status_code == status, response.text
    assert words in response.json()["error"], response.json()
    assert snapshot(client) == before


def test_a_new_bot_gets_its_secret_once_and_a_smoke_match(api: TestClient, client: Any) -> None:
    response = submit(api, "alice", bot_archive())
    assert response.status_code == 201, response.text
    answer = response.json()
    secret, bot = answer["secret"], answer["bot"]
    assert len(secret) >= 32 and bot["name"] == "alice" and bot["version"] == ""
    assert bot["candidate"] and bot["smoke"]["status"] == "pending"
    assert client.xlen(keys.JOBS_STREAM) == 1  # the smoke match against random
    stored = client.hgetall(keys.bot("alice"))
    assert secret not in str(stored) and stored["secret_hash"].startswith("scrypt$")
    shown = api.get("/api/v1/bots/alice").json()
    assert "secret" not in shown and shown["candidate"] == bot["candidate"]
    assert [b["name"] for b in api.get("/api/v1/bots").json()["bots"]] == ["alice"]
    again = submit(api, "alice", bot_archive([member("notes.txt", b"v2")]), secret)
    assert again.status_code == 200 and again.json()["secret"] is None
    assert again.json()["bot"]["candidate"] != bot["candidate"]


def test_updates_need_the_owners_secret(api: TestClient, client: Any) -> None:
    secret = submit(api, "alice", bot_archive()).json()["secret"]
    mallory = submit(api, "mallory", bot_archive()).json()["secret"]
    v2 = bot_archive([member("v2.txt", b"2")])
    refused(api, client, lambda: submit(api, "alice", v2), 401, "send its owner secret")
    refused(api, client, lambda: submit(api, "alice", v2, "not-the-secret"), 403, "wrong owner secret")
    refused(api, client, lambda: submit(api, "alice", v2, mallory), 403, "wrong owner secret")
    remove = lambda token: api.delete("/api/v1/bots/alice", headers={"Authorization": f"Bearer {token}"})  # noqa: E731
    refused(api, client, lambda: api.delete("/api/v1/bots/alice"), 401, "owner secret")
    refused(api, client, lambda: remove(mallory), 403, "wrong owner secret")
    refused(api, client, lambda: remove("x" * 43), 403, "wrong owner secret")
    scheme = lambda: api.delete("/api/v1/bots/alice", headers={"Authorization": f"Basic {secret}"})  # noqa: E731
    refused(api, client, scheme, 401, "Bearer")
    assert remove(secret).json()["removed"] == "alice"
    assert api.get("/api/v1/bots/alice").status_code == 404
    assert remove(secret).status_code == 404


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ([member("big.bin", b"\0" * (LIMITS.unpacked_bytes + 1))], "MiB"),  # a bomb: 1 MiB of zeros in 1 KiB
        ([member(f"f{i}.txt", b"x") for i in range(LIMITS.files)], "files"),
        ([member("link", kind=tarfile.SYMTYPE, link="/etc/passwd")], "link"),
        ([member("../escape.py", b"x")], ".."),
        ([member("/abs.py", b"x")], "abs"),
        ([member("hard", kind=tarfile.LNKTYPE, link="bot.py")], "link"),
    ],
    ids=["bomb", "too-many-files", "symlink", "dotdot", "absolute", "hardlink"],
)
def test_hostile_archives_are_refused(api: TestClient, client: Any, extra: list, words: str) -> None:
    archive = bot_archive(extra)
    assert len(archive) < LIMITS.packed_bytes  # refused for what it holds, not for its size
    refused(api, client, lambda: submit(api, "hostile", archive), 422, words)


def test_an_entry_that_is_not_in_the_archive_is_refused(api: TestClient, client: Any) -> None:
    archive = bot_archive()
    refused(api, client, lambda: submit(api, "noentry", archive, entry="python nosuch.py"), 422, "nosuch.py")
    refused(api, client, lambda: submit(api, "noentry", archive, entry="./bot.py"), 422, "bot.py")
    refused(api, client, lambda: submit(api, "noentry", b"not a tar.gz at all"), 422, "")


def test_an_oversized_upload_is_refused_before_it_is_stored(api: TestClient, client: Any) -> None:
    big = bot_archive() + b"\0" * LIMITS.packed_bytes
    refused(api, client, lambda: submit(api, "big", big), 413, "too large")

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it streams
        for _ in range(LIMITS.packed_bytes // 4096 + 2):
            yield b"\0" * 4096

    streamed = lambda: api.post(  # noqa: E731
        "/api/v1/bots/big", params={"games": "ninjan", "entry": "python bot.py"}, content=chunks()
    )
    refused(api, client, streamed, 413, "too large")
    lying = lambda: api.post(  # noqa: E731
        "/api/v1/bots/big", params={"games": "ninjan", "entry": "x"}, headers={"Content-Length": "12x"}
    )
    refused(api, client, lying, 400, "Content-Length")


def test_bad_names_and_parameters_are_refused(api: TestClient, client: Any) -> None:
    archive = bot_archive()
    refused(api, client, lambda: submit(api, "Bad..Name", archive), 400, "invalid bot name")
    refused(api, client, lambda: submit(api, "ok", archive, games=""), 400, "games")
    refused(api, client, lambda: submit(api, "ok", archive, games="chess"), 422, "chess")
    refused(api, client, lambda: submit(api, "ok", archive, entry=""), 400, "entry")
    refused(api, client, lambda: submit(api, "ok", b"", builtin="random", build="make"), 400, "not both")
    refused(api, client, lambda: submit(api, "ok", archive, builtin="random", entry=""), 400, "no body")


def create(api: TestClient, body: dict, token: str | None = TOKEN) -> Any:
    """Returns the response of creating a tournament with ``body``."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return api.post("/api/v1/tournaments", json=body, headers=headers)


def test_tournaments_need_the_organiser_token_and_valid_parameters(api: TestClient, client: Any) -> None:
    body = {"game": "ninjan", "bots": ["random", "greedy"], "seed": 7}
    refused(api, client, lambda: create(api, body, None), 401, "organiser token")
    refused(
        api, client, lambda: create(api, body, "organiser-token-wrong-wrong-wrong"), 403, "wrong organiser"
    )
    for bad, words in [
        ({**body, "deadline_ms": 5_000_000_000}, "deadline"),
        ({**body, "players": 9}, "players"),
        ({**body, "bots": ["random"]}, "two bot"),
        ({**body, "bots": ["random", "nosuch"]}, "nosuch"),
        ({**body, "game": "chess"}, "chess"),
        ({**body, "format": "swiss"}, "swiss"),
    ]:
        refused(api, client, lambda bad=bad: create(api, bad), 422, words)
    for bad, words in [({**body, "rounds": "2"}, "rounds"), ({**body, "extra": 1}, "extra"), ({}, "game")]:
        refused(api, client, lambda bad=bad: create(api, bad), 400, words)
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    refused(
        api, client, lambda: api.post("/api/v1/tournaments", content=b"{", headers=bearer), 400, "not JSON"
    )
    created = create(api, body)
    assert created.status_code == 201, created.text
    answer = created.json()
    assert answer["matches"] == 2 and answer["queued"] == 2 and answer["seed"] == 7
    assert create(api, body).json()["queued"] == 0  # the same tournament again queues nothing
    shown = api.get(f"/api/v1/tournaments/{answer['id']}").json()
    assert shown["tournament"]["total"] == 2 and shown["tournament"]["done"] == 0
    status = api.get("/api/v1/tournaments").json()
    assert status["waiting"] == 2 and [t["id"] for t in status["tournaments"]] == [answer["id"]]
    page = api.get(f"/api/v1/tournaments/{answer['id']}/results").json()
    assert page == {"results": [], "next": None}
    assert api.get(f"/api/v1/tournaments/{answer['id']}/results?after=x").status_code == 400
    assert api.get("/api/v1/tournaments/nosuch").status_code == 404


def test_a_server_without_an_organiser_token_takes_no_tournaments(client: Any, redis_url: str) -> None:
    with TestClient(create_app(redis_url, ServerConfig(), client)) as api:
        body = {"game": "ninjan", "bots": ["random", "greedy"]}
        refused(api, client, lambda: create(api, body), 403, "--organiser-token-file")


def test_writes_over_the_rate_are_refused_with_retry_after(client: Any, redis_url: str) -> None:
    config = ServerConfig(writes_per_minute=1, write_burst=2)
    with TestClient(create_app(redis_url, config, client)) as api:
        assert submit(api, "one", bot_archive()).status_code == 201
        assert submit(api, "two", bot_archive()).status_code == 201
        before = snapshot(client)
        response = submit(api, "three", bot_archive())
        assert response.status_code == 429 and "too many writes" in response.json()["error"]
        assert 1 <= int(response.headers["Retry-After"]) <= 60
        assert snapshot(client) == before
        assert api.get("/api/v1/bots").status_code == 200  # reads are not limited


def test_the_token_bucket_refills_at_its_rate() -> None:
    now = [0.0]
    bucket = TokenBucket(per_minute=6, burst=2, clock=lambda: now[0])
    assert bucket.take("a") == 0 and bucket.take("a") == 0
    assert bucket.take("a") == pytest.approx(10.0)  # one token every 10 s
    assert bucket.take("b") == 0  # each address has its own bucket
    now[0] = 10.0
    assert bucket.take("a") == 0 and bucket.take("a") > 0
    now[0] = 1000.0
    assert bucket.take("a") == 0 and bucket.take("a") == 0 and bucket.take("a") > 0  # never past burst


def test_api_errors_are_json(api: TestClient) -> None:
    assert api.get("/api/v1/nosuch").json()["error"].startswith("no endpoint GET /api/v1/nosuch")
    response = api.put("/api/v1/tournaments")
    assert response.status_code in (404, 405) and "error" in response.json()
    assert api.get("/api/v1/tournaments/x/results?limit=0").status_code == 400
    assert api.get("/api/v1/matches/nosuch/log").status_code == 404
    assert api.get("/api/v1/matches/..%2f/log").status_code in (400, 404)


def test_the_leaderboard_is_served_beside_the_api(api: TestClient) -> None:
    assert api.get("/api/v1/games").status_code == 200
    assert api.get("/").status_code == 200


def test_an_organiser_token_file_must_hold_a_strong_token(tmp_path: Path) -> None:
    weak = tmp_path / "weak"
    weak.write_text("short\n")
    with pytest.raises(ValueError, match="openssl rand"):
        OrganiserToken.from_file(weak)
    with pytest.raises(ValueError, match="cannot read"):
        OrganiserToken.from_file(tmp_path / "missing")
    token = OrganiserToken.from_file((tmp_path / "ok").resolve() if False else _write(tmp_path / "ok", TOKEN))
    assert token.stored is not None and TOKEN not in token.stored


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_builtin_bots_register_without_an_upload(api: TestClient, client: Any) -> None:
    response = api.post("/api/v1/bots/myrandom", params={"games": "ninjan", "builtin": "random"})
    assert response.status_code == 201, response.text
    found = registry.load(client, "myrandom")
    assert found is not None and found.version and not found.candidate  # active at once: no smoke match
