"""The server's limits on slow and many uploads, its rate-limit buckets and its archive limits, the
worker skipping superseded smoke matches, a bot's output served to its owner alone, and JSON for every
refusal (issue 16's red-team findings, each an attack).

Uploads are tried against a real ``arena server`` process over raw sockets: a test waits on the
server's answer (with a generous socket timeout), never on a sleep.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.routing import Route
from starlette.testclient import TestClient

from arena.client import ServerClient, ServerError
from arena.queue import keys, store
from arena.queue.jobs import MatchJob, load_job
from arena.referee.botlog import STORE_KIND, Line, Think, match_log_text
from arena.submissions import smoke
from arena.submissions.archives import ArchiveLimits
from leaderboard.api.ratelimit import RateLimitMiddleware, TokenBucket, client_key
from leaderboard.app import ServerConfig
from leaderboard.app import server_app as create_app
from tests.conftest import REPO, replay_of_random_game, run_arena, secret_file
from tests.test_attacks_server import api_client, auth, head, no_traceback, raw, running_server, status_of
from tests.test_forfeits import sandbox_works, submit_files, worker
from tests.test_queue import wait_until
from tests.test_server import TOKEN, bot_archive, member, submit
from tests.test_smoke import RANDOM_BOT

UPLOAD = "/api/v1/bots/slow?games=ninjan&entry=python%20bot.py"


@pytest.fixture
def slow_server(redis_url: str, tmp_path: Path) -> Iterator[str]:
    """Returns the address of a real server that waits 1 s for a body and reads two uploads at once."""
    options = ("--upload-seconds", "1", "--max-uploads", "2", "--write-burst", "1000")
    with running_server(redis_url, tmp_path, *options) as address:
        yield address


@pytest.fixture
def web(client: Any, redis_url: str, tmp_path: Path) -> Iterator[TestClient]:
    """Returns an in-process test client of the server (tests/test_attacks_server.py's ``api_client``)."""
    with api_client(client, redis_url, tmp_path) as test_client:
        yield test_client


@pytest.fixture
def patient_server(redis_url: str, tmp_path: Path) -> Iterator[str]:
    """Returns the address of a real server that waits 10 minutes for a body, two uploads at once (and
    no quota of uploads per account: every upload here is to one name, one account)."""
    options = (
        "--upload-seconds",
        "600",
        "--max-uploads",
        "2",
        "--write-burst",
        "1000",
        "--uploads-per-account",
        "0",
    )
    with running_server(redis_url, tmp_path, *options) as address:
        yield address


def stalled(address: str, path: str = UPLOAD) -> socket.socket:
    """Opens an upload that declares 1 MB and sends 10 bytes of it, then nothing."""
    host, port = address.split(":")
    conn = socket.create_connection((host, int(port)), timeout=60)
    conn.sendall(head("POST", path, "Content-Length: 1000000") + b"x" * 10)
    return conn


def answer_of(conn: socket.socket) -> bytes:
    """Returns what the server answers on ``conn`` until it closes it (60 s at most per read)."""
    chunks = []
    while chunk := conn.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def json_error(answer: bytes) -> str:
    """Returns the ``error`` of a JSON error answer (asserting it is one line, with no traceback)."""
    text = answer.decode("latin-1")
    no_traceback(text)
    body = text.split("\r\n\r\n", 1)[1]
    error = json.loads(body)["error"]
    assert "\n" not in error, error
    return error


def test_an_upload_that_never_finishes_is_answered_408_and_closed(slow_server: str, client: Any) -> None:
    before = sorted(client.keys("*"))
    with stalled(slow_server) as conn:
        answer = answer_of(conn)  # the server answers and closes: the client never finishes
    assert status_of(answer) == 408, answer[:300]
    assert "did not arrive within 1 s" in json_error(answer)
    assert sorted(client.keys("*")) == before


def test_a_json_body_that_never_finishes_is_answered_408(slow_server: str) -> None:
    host, port = slow_server.split(":")
    organiser = f"Authorization: Bearer {TOKEN}"
    with socket.create_connection((host, int(port)), timeout=60) as conn:
        conn.sendall(head("POST", "/api/v1/tournaments", organiser, "Content-Length: 100") + b'{"game"')
        answer = answer_of(conn)
    assert status_of(answer) == 408, answer[:300]
    assert "did not arrive within 1 s" in json_error(answer)


def answered(conn: socket.socket) -> bool:
    """Returns whether the server has answered ``conn`` already (a stalled upload is answered only
    when it is refused)."""
    readable, _, _ = select.select([conn], [], [], 0)
    return bool(readable)


def test_an_archive_over_the_limit_is_answered_413_not_a_broken_connection(
    redis_url: str, tmp_path: Path
) -> None:
    """The participant's client (``arena bots submit``'s) sends a 24 MiB archive to a server that takes
    1 MiB: it reads the server's 413, because the server reads the body away (up to DRAIN_BYTES)
    before closing. Answered at once and closed, the client's send failed mid-body with a broken pipe
    (more than loopback's socket buffers hold) and it said it could not reach the server."""
    with (
        running_server(redis_url, tmp_path, "--max-upload-mb", "1") as address,
        pytest.raises(ServerError) as refused,
    ):
        ServerClient(f"http://{address}").call(
            "POST", UPLOAD.split("?")[0], query={"games": "ninjan", "entry": "python bot.py"},
            body=bytes(24 * 2**20), content_type="application/gzip",
        )  # fmt: skip
    assert refused.value.status == 413, str(refused.value)
    assert f"at most {2**20} bytes" in str(refused.value)


def test_uploads_past_the_cap_are_refused_503_before_their_body_is_read(patient_server: str) -> None:
    empty = head("POST", UPLOAD, "Content-Length: 0")  # a 400 (no body) once a slot is free
    uploads = [stalled(patient_server), stalled(patient_server)]

    def third() -> int:
        return status_of(raw(patient_server, empty))

    def held_then_third() -> int:
        # A probe holds a slot while the server reads its (empty) body: a stalled upload arriving in
        # that moment is rightly refused 503 and closed, so it is opened again until both are held.
        for i, conn in enumerate(uploads):
            if answered(conn):
                conn.close()
                uploads[i] = stalled(patient_server)
        return third()

    try:
        wait_until(lambda: held_then_third() == 503, "both upload slots to be held", limit=60)
        host, port = patient_server.split(":")
        with socket.create_connection((host, int(port)), timeout=60) as conn:
            conn.sendall(head("POST", UPLOAD, "Content-Length: 1000000") + b"x" * 10)  # never finished
            answer = answer_of(conn)  # refused without waiting for the body
        assert status_of(answer) == 503, answer[:300]
        assert b"\r\nretry-after: 600\r\n" in answer.lower()
        assert "reading 2 uploads already" in json_error(answer)
    finally:
        uploads[0].close()
    try:
        wait_until(lambda: third() == 400, "a slot to be given back when its client went away", limit=60)
    finally:
        uploads[1].close()


@pytest.mark.parametrize(
    ("limits", "field"),
    [
        (ArchiveLimits(packed_bytes=11 * 2**20), "packed_bytes"),
        (ArchiveLimits(unpacked_bytes=200 * 2**20), "unpacked_bytes"),
        (ArchiveLimits(files=10_001), "files"),
    ],
)
def test_archive_limits_above_the_workers_are_refused_at_start(limits: ArchiveLimits, field: str) -> None:
    with pytest.raises(ValueError, match=f"above the workers' \\({field} .*lower --max-upload-mb"):
        ServerConfig(archive_limits=limits)
    ServerConfig(archive_limits=ArchiveLimits(packed_bytes=2**20, unpacked_bytes=2**20, files=10))


def test_the_server_command_refuses_limits_no_worker_accepts(redis_url: str) -> None:
    env = {**os.environ, "ARENA_REDIS_URL": redis_url}
    argv = [sys.executable, "-m", "arena.cli", "server", "--max-unpacked-mb", "500"]
    done = subprocess.run(argv, env=env, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0
    assert "above the workers'" in done.stderr and "Traceback" not in done.stderr, done.stderr


# Rate-limit buckets: one per IPv4 address, one per IPv6 /64.


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("192.0.2.7", "192.0.2.7"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("::ffff:192.0.2.7", "192.0.2.7"),  # an IPv4 client of a dual-stack socket
        ("testclient", "testclient"),  # not an address (Starlette's test client): kept as it is
    ],
)
def test_clients_are_bucketed_by_ipv4_address_and_ipv6_64(address: str, key: str) -> None:
    assert client_key(address) == key


def test_every_address_of_an_ipv6_64_shares_one_bucket() -> None:
    answers: list[int] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        answers.append(200)

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            answers.append(message["status"])

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    limiter = RateLimitMiddleware(app, TokenBucket(per_minute=0.01, burst=2))
    for host in ["2001:db8::1", "2001:db8::2", "2001:db8::ffff:1", "2001:db8:0:1::1", "192.0.2.1"]:
        scope = {"type": "http", "method": "POST", "path": "/api/v1/bots/x", "client": (host, 4000)}
        asyncio.run(limiter(scope, receive, send))
    assert answers == [200, 200, 429, 200, 200]  # the third of the /64 is refused; others are not


# Superseded smoke matches are not played.


def test_a_smoke_match_of_a_superseded_candidate_is_neither_built_nor_played(
    client: Any, redis_url: str, tmp_path: Path
) -> None:
    if not sandbox_works():
        pytest.skip("needs a working bubblewrap sandbox")
    built = "sh -c 'touch built-marker'"
    files = {"bot.py": RANDOM_BOT}
    old = submit_files(client, tmp_path, "busy", files, "python bot.py", build=built, activate=False)
    first = smoke.request_smoke(client, "busy", old)
    client.hset(keys.bot("busy"), "candidate", "0" * 12)  # stands in for a newer submission
    cache = tmp_path / "cache"
    assert worker(client, redis_url, cache).run(burst=True) == 1
    status = smoke.status(client, old)
    assert status["status"] == smoke.SmokeStatus.SUPERSEDED, status
    assert "no longer the candidate" in status["reason"]
    assert load_job(client, first)[1]["status"] == "recorded"
    assert not (cache / old).exists() and not (cache / f"{old}-built").exists()  # no unpack, no build
    assert client.hget(keys.bot("busy"), "version") != old
    assert client.xpending(keys.JOBS_STREAM, keys.WORKERS_GROUP)["pending"] == 0
    assert not client.exists(keys.DEAD_STREAM, keys.results("ninjan"))


def test_a_smoke_match_of_the_current_candidate_is_still_played(
    client: Any, redis_url: str, tmp_path: Path
) -> None:
    if not sandbox_works():
        pytest.skip("needs a working bubblewrap sandbox")
    version = submit_files(client, tmp_path, "kept", {"bot.py": RANDOM_BOT}, "python bot.py", activate=False)
    smoke.request_smoke(client, "kept", version)
    assert worker(client, redis_url, tmp_path / "cache").run(burst=True) == 1
    assert smoke.status(client, version)["status"] == smoke.SmokeStatus.PASSED
    assert client.hget(keys.bot("kept"), "version") == version


# The CLI shows a bot's smoke log to its owner alone.


def test_arena_bots_show_prints_the_smoke_log_only_with_the_owner_secret(
    patient_server: str, client: Any, tmp_path: Path
) -> None:
    folder = tmp_path / "shy"
    folder.mkdir()
    (folder / "bot.py").write_text(RANDOM_BOT)
    url = f"http://{patient_server}"
    env = {"XDG_STATE_HOME": str(tmp_path / "participant"), "ARENA_REDIS_URL": ""}
    args = ("--server", url)
    submitted = run_arena(
        "bots",
        "submit",
        "shy",
        "--games",
        "ninjan",
        "--dir",
        str(folder),
        "--entry",
        "python bot.py",
        *args,
        env=env,
    )
    assert submitted.returncode == 0, submitted.stderr
    secret = submitted.stdout.split("owner secret", 1)[1].split(": ", 1)[1].split()[0]
    client.hset(keys.smoke(client.hget(keys.bot("shy"), "candidate")), "log", "shy's private trace")
    public = run_arena("bots", "show", "shy", *args, env=env)
    assert public.returncode == 0 and "shy's private trace" not in public.stdout, public.stderr
    assert "log tail: hidden" in public.stdout and "give --secret-file" in public.stdout
    owner = run_arena("bots", "show", "shy", "--secret-file", secret_file(tmp_path, secret), *args, env=env)
    assert owner.returncode == 0 and "shy's private trace" in owner.stdout, owner.stdout + owner.stderr
    wrong = run_arena("bots", "show", "shy", "--secret-file", secret_file(tmp_path, "x" * 30), *args, env=env)
    assert wrong.returncode != 0 and "wrong owner secret" in wrong.stderr and "Traceback" not in wrong.stderr


# A bot's output is its owner's: replays, results and think times are public, the bots' own output
# (a match's stamped lines, the smoke match's log tail) is read only with the bot's owner secret.

PLAN = "alice's secret opening plan"


def recorded_with_log(client: Any, match_id: str, version: str) -> None:
    """Records a ninjan match of alice (seat 0, at ``version``) against random, as a worker does,
    with a stored log in which each seat wrote a line."""
    text, record = replay_of_random_game("ninjan", 7, ["alice", "random"], match_id)
    players = [{"bot": "alice"}, {"bot": "random"}]
    header = {"match_id": match_id, "game": "ninjan", "players": players, "deadline_ms": 2000}
    lines = {0: [Line(None, PLAN)], 1: [Line(1, "random's musings")]}
    log = match_log_text(header, lines, [Think(1, 0, 12.5, True), Think(1, 1, 3.0, True)])
    job = MatchJob(match_id, "ninjan", 7, ("alice", "random"), versions=(version, ""))
    assert store.record_and_take(client, job, record, text, "0-1", None, {STORE_KIND: log.encode()})[0]


def test_a_bots_output_is_served_to_its_owner_alone(web: TestClient, client: Any) -> None:
    alice = submit(web, "alice", bot_archive()).json()
    mallory = submit(web, "mallory", bot_archive()).json()["secret"]
    recorded_with_log(client, "m-output", alice["bot"]["candidate"])

    public = web.get("/api/v1/matches/m-output/replay")
    assert public.status_code == 200 and PLAN not in public.text and "musings" not in public.text
    replay = public.json()
    assert [t["ms"] for t in replay["think"]] == [12.5, 3.0]  # think times stay public
    assert not replay["match_log"]["found"] and "owner" in replay["match_log"]["problem"]
    assert PLAN not in web.get("/api/v1/matches/m-output/log").text  # the replay alone

    seat = "/api/v1/matches/m-output/log/0"
    assert web.get(seat).status_code == 401
    for token in [mallory, TOKEN]:
        answer = web.get(seat, headers=auth(token))
        assert answer.status_code == 403 and PLAN not in answer.text, answer.text
    mine = web.get(seat, headers=auth(alice["secret"]))
    assert mine.status_code == 200, mine.text
    assert mine.json()["lines"] == [{"step": None, "text": PLAN}] and mine.json()["bot"] == "alice"
    assert web.get("/api/v1/matches/m-output/log/1", headers=auth(alice["secret"])).status_code == 403
    assert web.get("/api/v1/matches/m-output/log/2", headers=auth(alice["secret"])).status_code == 404
    assert web.get("/api/v1/matches/nothing/log/0", headers=auth(alice["secret"])).status_code == 404


def test_a_name_registered_again_does_not_open_the_old_bots_output(web: TestClient, client: Any) -> None:
    alice = submit(web, "alice", bot_archive()).json()
    recorded_with_log(client, "m-old", alice["bot"]["candidate"])
    assert web.delete("/api/v1/bots/alice", headers=auth(alice["secret"])).status_code == 200
    squatter = submit(web, "alice", bot_archive([member("other.txt", b"x")])).json()["secret"]
    answer = web.get("/api/v1/matches/m-old/log/0", headers=auth(squatter))
    assert answer.status_code == 403 and "earlier bot" in answer.json()["error"], answer.text


def test_a_smoke_matchs_log_tail_is_shown_to_the_owner_alone(web: TestClient, client: Any) -> None:
    alice = submit(web, "alice", bot_archive()).json()
    mallory = submit(web, "mallory", bot_archive()).json()["secret"]
    client.hset(keys.smoke(alice["bot"]["candidate"]), "log", PLAN)
    public = web.get("/api/v1/bots/alice")
    assert public.status_code == 200 and PLAN not in public.text
    assert "owner secret" in public.json()["smoke"]["log_hidden"]
    assert PLAN not in web.get("/api/v1/bots").text
    assert web.get("/api/v1/bots/alice", headers=auth(mallory)).status_code == 403
    mine = web.get("/api/v1/bots/alice", headers=auth(alice["secret"]))
    assert mine.json()["smoke"]["log"] == PLAN and "log_hidden" not in mine.json()["smoke"]


def test_every_refusal_under_api_is_json_even_outside_v1_and_on_a_failure(
    web: TestClient, redis_url: str, client: Any
) -> None:
    for method, path in [
        ("GET", "/api/nope"),
        ("POST", "/api/nope"),
        ("DELETE", "/api/games"),
        ("GET", "/api/"),
    ]:
        response = web.request(method, path)
        assert response.status_code in (404, 405), (method, path, response.text)
        assert response.headers["content-type"].startswith("application/json"), (method, path)
        assert "\n" not in response.json()["error"]
    app = create_app(redis_url, ServerConfig(write_burst=1000), client)

    async def broken(request: Any) -> Any:
        raise RuntimeError("an internal detail that must not leak")

    app.router.routes.insert(0, Route("/api/v1/broken", broken))
    with TestClient(app, raise_server_exceptions=False) as failing:
        response = failing.get("/api/v1/broken")
    assert response.status_code == 500 and response.headers["content-type"].startswith("application/json")
    assert "internal detail" not in response.text and "try again" in response.json()["error"]
    assert "default-src 'self'" in response.headers["content-security-policy"]  # even a crash's answer
    assert response.headers["x-content-type-options"] == "nosniff"
    no_traceback(response.text)
