"""Accounts and quotas per account (issue 36, items 1 and 2), end to end through a real ``arena server``
process over a private redis-server, with the CLI as real processes.

A participant creates an account once and gets its token, shown once and stored only as a scrypt hash;
on a server that wants approval the account submits nothing until the organiser approves it. The token
submits, updates and removes the account's bots and reads their output, and another account's token
is refused; a bot submitted with an owner secret (no ``account`` field: its own account ``bot:NAME``)
keeps working with that secret. A disabled account's bots leave a running ladder, are never drawn by a
ladder started after, and enter no new tournament; their results stay. Each quota refuses with its
name, its limit and when it frees, and stores nothing; account creation is limited per client address.

No worker runs: the matches a test needs recorded are taken from the queue and recorded by the queue's
own functions, as a worker records them (``record``). Nothing waits on a timed sleep; ``wait_until``
polls a condition, with a limit against hanging.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import json
import shutil
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.client import ServerClient, ServerError
from arena.queue import jobs, keys, store
from arena.queue.jobs import MatchJob
from arena.referee import botlog
from arena.referee.botlog import Line
from arena.submissions import accounts
from tests.conftest import replay_of_random_game, run_arena
from tests.test_api_contract import match_log
from tests.test_attacks_server import head, running_server
from tests.test_queue import wait_until
from tests.test_server import TOKEN, snapshot

pytestmark = pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")

QUOTAS = (
    "--bots-per-game",
    "1",
    "--submissions-per-hour",
    "3",
    "--uploads-per-account",
    "1",
    "--series-per-account",
    "1",
)


@pytest.fixture(scope="module")
def server(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Returns the URL of a real server without approval, with small quotas and room for many writes."""
    options = ("--write-burst", "1000", "--accounts-per-hour", "1000", *QUOTAS)
    with running_server(redis_url, tmp_path_factory.mktemp("accounts"), *options) as address:
        yield f"http://{address}"


def call(url: str, method: str, path: str, token: str | None = None, **query: str) -> Any:
    """Returns the server's JSON answer (a refusal raises ``ServerError``)."""
    return ServerClient(url).call(method, path, query=query or None, token=token)


def refusal(url: str, method: str, path: str, token: str | None = None, **query: str) -> ServerError:
    """Returns the server's refusal of a request (failing if it was answered)."""
    with pytest.raises(ServerError) as caught:
        call(url, method, path, token, **query)
    return caught.value


def make_account(url: str, name: str) -> str:
    """Creates account ``name`` through the API; returns its token."""
    return str(call(url, "POST", f"/api/v1/accounts/{name}")["token"])


def submit(
    url: str, bot: str, token: str | None, builtin: str = "random", game: str = "ninjan", **query: str
) -> Any:
    """Submits the built-in ``builtin`` as bot ``bot`` through the API; returns the answer."""
    return call(url, "POST", f"/api/v1/bots/{bot}", token, games=game, builtin=builtin, **query)


def arena(url: str, tmp_path: Path, *args: str, **env: str) -> Any:
    """Runs ``arena ARGS --server URL`` as a participant (no Redis, no credential but ``env``)."""
    base = {
        "XDG_STATE_HOME": str(tmp_path / "participant"),
        "ARENA_REDIS_URL": "",
        "ARENA_SERVER": "",
        "ARENA_BOT_SECRET": "",
        "ARENA_ACCOUNT_TOKEN": "",
        "ARENA_ACCOUNT_TOKEN_FILE": "",
    }
    proc = run_arena(*args, "--server", url, env={**base, **env})
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def one_line_error(proc: Any) -> str:
    """Returns the one error line of a failed command."""
    assert proc.returncode != 0, proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("arena: error: "), proc.stderr
    return lines[0]


def organiser_file(tmp_path: Path) -> str:
    """Returns a file holding the organiser token the servers of these tests were started with."""
    path = tmp_path / "organiser"
    path.write_text(TOKEN + "\n")
    return str(path)


def record(client: Any, taken: jobs.Taken, lines: bool = False) -> MatchJob:
    """Records a taken job as a worker would (a seeded random game; with ``lines``, a stored match log
    in which each seat wrote a line naming its bot); returns the job."""
    job = taken.job
    assert job is not None
    text, result = replay_of_random_game(job.game, job.seed, list(job.bots), job.match_id)
    extras = {}
    if lines:
        written = {seat: [Line(1, f"{bot}'s own thoughts")] for seat, bot in enumerate(job.bots)}
        extras = {botlog.STORE_KIND: botlog.for_store(match_log(text, written))}
    new, _ = store.record_and_take(client, job, result, text, taken.entry_id, extras=extras)
    assert new
    return job


def test_an_account_token_is_shown_once_and_only_its_hash_is_stored(
    server: str, client: Any, tmp_path: Path
) -> None:
    made = arena(server, tmp_path, "account", "create", "alice", "--json")
    assert made.returncode == 0, made.stderr
    answer = json.loads(made.stdout)
    token = answer["token"]
    assert answer["account"]["state"] == "active" and token.startswith("account.alice.")
    stored = client.hgetall(keys.account("alice"))
    assert stored["token_hash"].startswith("scrypt$") and stored["state"] == "active"
    for key in client.keys("*"):  # the token itself is nowhere, in no key and no value
        assert token not in key and token not in json.dumps(snapshot(client)[key], default=str)
    again = one_line_error(arena(server, tmp_path, "account", "create", "alice"))
    assert "taken" in again and "HTTP 409" in again
    # the token goes in the environment or a file, never on the command line; show reads it back
    token_file = tmp_path / "token"
    token_file.write_text(token + "\n")
    shown = arena(server, tmp_path, "account", "show", "--account-token-file", str(token_file))
    assert shown.returncode == 0, shown.stderr
    assert "account:  alice" in shown.stdout and "state:    active" in shown.stdout
    assert token not in shown.stdout
    wrong = one_line_error(arena(server, tmp_path, "account", "show", ARENA_ACCOUNT_TOKEN=token[:-3] + "AAA"))
    assert "wrong account token" in wrong and "HTTP 403" in wrong
    # --token-file writes it to a new file of the user's alone, and never to the terminal
    written = tmp_path / "dora.token"
    made = arena(server, tmp_path, "account", "create", "dora", "--token-file", str(written))
    assert made.returncode == 0, made.stderr
    dora = written.read_text().strip()
    assert dora.startswith("account.dora.") and dora not in made.stdout + made.stderr
    assert written.stat().st_mode & 0o777 == 0o600
    again = one_line_error(arena(server, tmp_path, "account", "create", "eve", "--token-file", str(written)))
    assert (
        "exists" in again and written.read_text().strip() == dora and not client.exists(keys.account("eve"))
    )


def test_an_account_waits_for_approval_and_submits_nothing_until_then(
    redis_url: str, client: Any, tmp_path: Path
) -> None:
    with running_server(redis_url, tmp_path, "--approve-accounts") as address:
        url = f"http://{address}"
        token = make_account(url, "bob")
        assert client.hget(keys.account("bob"), "state") == "pending"
        before = snapshot(client)
        refused = arena(
            url,
            tmp_path,
            "bots",
            "submit",
            "b1",
            "--games",
            "ninjan",
            "--builtin",
            "random",
            ARENA_ACCOUNT_TOKEN=token,
        )
        error = one_line_error(refused)
        assert "account bob waits for the organiser's approval" in error and "HTTP 403" in error
        assert "arena account approve bob" in error
        anonymous = refusal(url, "POST", "/api/v1/bots/b2", games="ninjan", builtin="random")
        assert anonymous.status == 401 and "accounts only" in str(anonymous)
        assert snapshot(client) == before  # nothing stored
        # only the organiser approves
        assert refusal(url, "POST", "/api/v1/accounts/bob/approve", token).status == 403
        approved = arena(
            url, tmp_path, "account", "approve", "bob", "--organiser-token-file", organiser_file(tmp_path)
        )
        assert approved.returncode == 0, approved.stderr
        assert "account bob is active" in approved.stdout
        listed = arena(url, tmp_path, "account", "list", "--organiser-token-file", organiser_file(tmp_path))
        assert "bob" in listed.stdout and "active" in listed.stdout
        made = arena(
            url,
            tmp_path,
            "bots",
            "submit",
            "b1",
            "--games",
            "ninjan",
            "--builtin",
            "random",
            ARENA_ACCOUNT_TOKEN=token,
        )
        assert made.returncode == 0, made.stderr
        assert "submitted b1" in made.stdout and "account bob's" in made.stdout
        assert "owner secret" not in made.stdout
        assert client.hget(keys.bot("b1"), "account") == "bob"


def test_the_account_token_submits_updates_and_removes_its_bots_only(
    server: str, client: Any, tmp_path: Path
) -> None:
    alice, carol = make_account(server, "alice"), make_account(server, "carol")
    token_file = tmp_path / "alice-token"
    token_file.write_text(alice + "\n")
    made = arena(
        server,
        tmp_path,
        "bots",
        "submit",
        "a1",
        "--games",
        "ninjan",
        "--builtin",
        "greedy",
        "--json",
        ARENA_ACCOUNT_TOKEN_FILE=str(token_file),
    )
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["secret"] is None  # the account token is the credential
    stored = client.hgetall(keys.bot("a1"))
    assert stored["account"] == "alice" and "secret_hash" not in stored
    assert client.smembers(keys.account_bots("alice")) == {"a1"}
    # an update through the API with the account token
    updated = submit(server, "a1", alice, builtin="random")
    assert updated["registered"] is False and updated["account"] == "alice"
    assert len(updated["bot"]["versions"]) == 2
    # another account's token, no token, and an owner secret's shape are all refused; nothing changes
    before = snapshot(client)
    other = refusal(server, "POST", "/api/v1/bots/a1", carol, games="ninjan", builtin="search")
    assert other.status == 403 and "belongs to an account" in str(other)
    assert refusal(server, "POST", "/api/v1/bots/a1", None, games="ninjan", builtin="search").status == 401
    assert refusal(server, "DELETE", "/api/v1/bots/a1", carol).status == 403
    assert refusal(server, "DELETE", "/api/v1/bots/a1", "x" * 42 + "A").status == 403
    taken = arena(server, tmp_path, "bots", "remove", "a1", ARENA_ACCOUNT_TOKEN=carol)
    assert "HTTP 403" in one_line_error(taken)
    assert snapshot(client) == before
    # the owner's log tail shows to its account's token only
    assert "log_hidden" not in json.dumps(call(server, "GET", "/api/v1/bots/a1", alice))
    removed = arena(server, tmp_path, "bots", "remove", "a1", ARENA_ACCOUNT_TOKEN_FILE=str(token_file))
    assert removed.returncode == 0, removed.stderr
    assert not client.exists(keys.bot("a1")) and not client.smembers(keys.account_bots("alice"))


def test_a_bots_output_is_read_with_its_accounts_token_only(server: str, client: Any, tmp_path: Path) -> None:
    alice, carol = make_account(server, "alice"), make_account(server, "carol")
    versions = [submit(server, bot, token)["bot"]["version"] for bot, token in (("a1", alice), ("c1", carol))]
    job = MatchJob("accounts-m1", "ninjan", 11, ("a1", "c1"), versions=tuple(versions))
    assert jobs.enqueue(client, job)
    taken = jobs.take_job(client, "test")
    assert taken is not None
    record(client, taken, lines=True)
    path = "/api/v1/matches/accounts-m1/log"
    assert call(server, "GET", f"{path}/0", alice)["lines"][0]["text"] == "a1's own thoughts"
    assert call(server, "GET", f"{path}/1", carol)["bot"] == "c1"
    assert refusal(server, "GET", f"{path}/1", alice).status == 403
    assert refusal(server, "GET", f"{path}/0", carol).status == 403
    mine = arena(server, tmp_path, "logs", "accounts-m1", "--bot", "a1", ARENA_ACCOUNT_TOKEN=alice)
    assert mine.returncode == 0, mine.stderr
    assert "a1's own thoughts" in mine.stdout and "c1" not in mine.stdout
    theirs = one_line_error(
        arena(server, tmp_path, "logs", "accounts-m1", "--bot", "c1", ARENA_ACCOUNT_TOKEN=alice)
    )
    assert "output is its owner's alone" in theirs and "HTTP 403" in theirs


def test_a_bot_submitted_with_an_owner_secret_keeps_working_with_it(
    server: str, client: Any, tmp_path: Path
) -> None:
    # submitted as before accounts: no token, an owner secret back, no account field
    secret = submit(server, "legacy", None)["secret"]
    assert secret and "account" not in client.hgetall(keys.bot("legacy"))
    alice = make_account(server, "alice")
    before = snapshot(client)
    refused = refusal(server, "POST", "/api/v1/bots/legacy", alice, games="ninjan", builtin="greedy")
    assert refused.status == 403 and "owner secret" in str(refused)
    assert snapshot(client) == before
    updated = arena(
        server,
        tmp_path,
        "bots",
        "submit",
        "legacy",
        "--games",
        "ninjan",
        "--builtin",
        "greedy",
        ARENA_BOT_SECRET=secret,
    )
    assert updated.returncode == 0, updated.stderr
    assert "updated legacy" in updated.stdout
    assert "account" not in client.hgetall(keys.bot("legacy"))
    # it is an account of its own, bot:legacy, which the organiser can disable like any other
    disabled = arena(
        server,
        tmp_path,
        "account",
        "disable",
        "bot:legacy",
        "--organiser-token-file",
        organiser_file(tmp_path),
    )
    assert disabled.returncode == 0, disabled.stderr
    assert "account bot:legacy is disabled (its bots: legacy)" in disabled.stdout
    assert accounts.disabled_bots(client, ["legacy", "random"]) == {"legacy": "bot:legacy"}
    again = refusal(server, "POST", "/api/v1/bots/legacy", secret, games="ninjan", builtin="random")
    assert again.status == 403 and "disabled" in str(again)
    removed = arena(server, tmp_path, "bots", "remove", "legacy", ARENA_BOT_SECRET=secret)
    assert removed.returncode == 0, removed.stderr


def ladder_jobs(client: Any, ladder_id: str, count: int, played: list[MatchJob]) -> None:
    """Plays, as a worker would, every queued job until ``count`` of the ladder's are recorded (each
    recorded job appended to ``played``)."""

    def step() -> bool:
        taken = jobs.take_job(client, "test")
        if taken is not None:
            played.append(record(client, taken))
        return int(client.hget(keys.tournament(ladder_id), "recorded") or 0) >= count

    wait_until(step, f"{count} matches of ladder {ladder_id}", limit=120)


def number(job: MatchJob) -> int:
    """Returns a ladder match's number (its id ends in ``-mN``)."""
    return int(job.match_id.rsplit("-m", 1)[1])


def test_a_disabled_accounts_bots_leave_every_schedule_and_their_results_stay(
    server: str, client: Any, tmp_path: Path
) -> None:
    tokens = {name: make_account(server, name) for name in ("alice", "bob", "carol")}
    for name, token in tokens.items():
        submit(server, name[0] + "1", token, builtin="random")
    bots = ["a1", "b1", "c1", "random"]
    ahead = 2
    body = {"game": "ninjan", "bots": bots, "players": 2, "seed": 5, "ahead": ahead}
    ladder = ServerClient(server).json("POST", "/api/v1/ladders", body, token=TOKEN)
    played: list[MatchJob] = []
    ladder_jobs(client, ladder["id"], 8, played)
    assert any("a1" in job.bots for job in played)
    disabled = arena(
        server, tmp_path, "account", "disable", "alice", "--organiser-token-file", organiser_file(tmp_path)
    )
    assert disabled.returncode == 0, disabled.stderr
    assert "leave every ladder" in disabled.stdout
    # A refill that read the accounts before the disable schedules at most ``ahead`` more with a1.
    scheduled = int(client.hget(keys.tournament(ladder["id"]), "total"))
    ladder_jobs(client, ladder["id"], scheduled + ahead + 6, played)
    later = [job for job in played if job.tournament == ladder["id"] and number(job) > scheduled + ahead]
    assert len(later) >= 6 and all("a1" not in job.bots for job in later)
    # its results stay
    results = call(server, "GET", "/api/v1/games/ninjan/results", limit="500")["results"]
    assert any(p["bot"] == "a1" for r in results for p in r["players"])
    ServerClient(server).call("DELETE", f"/api/v1/ladders/{ladder['id']}", token=TOKEN)
    # a ladder started after never draws a1; a new tournament may not seat it
    after = ServerClient(server).json("POST", "/api/v1/ladders", {**body, "seed": 6}, token=TOKEN)
    ladder_jobs(client, after["id"], 6, played)
    assert all("a1" not in job.bots for job in played if job.tournament == after["id"])
    ServerClient(server).call("DELETE", f"/api/v1/ladders/{after['id']}", token=TOKEN)
    with pytest.raises(ServerError) as caught:
        ServerClient(server).json(
            "POST", "/api/v1/tournaments", {"game": "ninjan", "bots": bots}, token=TOKEN
        )
    assert caught.value.status == 422 and "account alice is disabled" in str(caught.value)
    # the account submits nothing now; approving it again lets it back in
    refused = refusal(server, "POST", "/api/v1/bots/a2", tokens["alice"], games="pnrz", builtin="random")
    assert refused.status == 403 and "account alice is disabled by the organiser" in str(refused)
    assert accounts.schedulable(client, bots) == ["b1", "c1", "random"]
    approved = arena(
        server, tmp_path, "account", "approve", "alice", "--organiser-token-file", organiser_file(tmp_path)
    )
    assert approved.returncode == 0, approved.stderr
    assert accounts.schedulable(client, bots) == bots


def test_active_bots_per_game(server: str, client: Any) -> None:
    token = make_account(server, "quinn")
    submit(server, "q1", token)
    before = snapshot(client)
    refused = refusal(server, "POST", "/api/v1/bots/q2", token, games="ninjan", builtin="random")
    assert refused.status == 403
    message = str(refused)
    assert "quota 'active bots per game' of account quinn" in message and "the limit is 1" in message
    assert "q1" in message and "frees when one of them is removed" in message
    assert snapshot(client) == before
    assert submit(server, "q2", token, game="pnrz")["registered"]  # another game has room


def test_submissions_per_hour(server: str, client: Any) -> None:
    token = make_account(server, "sam")
    for builtin in ("random", "greedy"):
        submit(server, "s1", token, builtin=builtin)

    def attempt(builtin: str) -> int:
        try:
            submit(server, "s1", token, builtin=builtin)
        except ServerError as exc:
            return int(exc.status or 0)
        return 200

    # three at once for the one submission left: no check-then-act race lets two through
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        outcomes = sorted(pool.map(attempt, ["search", "best", "search"]))
    assert outcomes == [200, 429, 429]
    assert client.zcard(keys.account_submissions("sam")) == 3
    assert len(call(server, "GET", "/api/v1/bots/s1")["versions"]) == 3
    before = snapshot(client)
    with pytest.raises(ServerError) as caught:
        submit(server, "s1", token, builtin="best")
    refused = caught.value
    assert refused.status == 429 and "retry after" in str(refused)
    message = str(refused)
    assert "quota 'submissions per hour' of account sam: 3 submissions in the last hour" in message
    assert "the limit is 3" in message and "the next frees at" in message and "UTC (in " in message
    assert snapshot(client) == before


def test_uploads_in_flight(server: str, client: Any) -> None:
    token = make_account(server, "ursula")
    host, port = server.removeprefix("http://").split(":")
    path = "/api/v1/bots/u1?games=ninjan&entry=python%20bot.py"
    stalled = socket.create_connection((host, int(port)), timeout=60)
    try:
        stalled.sendall(
            head("POST", path, "Content-Length: 100000", f"Authorization: Bearer {token}") + b"x" * 10
        )
        wait_until(lambda: client.zcard(keys.account_uploads("ursula")) == 1, "the upload to take its slot")
        before = snapshot(client)
        with pytest.raises(ServerError) as caught:
            submit(server, "u2", token)
        message = str(caught.value)
        assert caught.value.status == 429 and "quota 'uploads in flight' of account ursula" in message
        assert "the limit is 1" in message and "at the latest" in message
        assert snapshot(client) == before
    finally:
        stalled.close()
    wait_until(lambda: client.zcard(keys.account_uploads("ursula")) == 0, "the slot to free")
    assert not client.exists(keys.bot("u1"))
    assert submit(server, "u2", token)["registered"]


def test_regression_series_at_a_time(server: str, client: Any) -> None:
    token = make_account(server, "rita")
    submit(server, "r1", token, builtin="random")
    tested = submit(server, "r1", token, builtin="greedy", test_against="previous")
    assert tested["bot"]["regression"]["state"] == "running"
    submit(server, "r2", token, builtin="random", game="pnrz")
    before = snapshot(client)
    with pytest.raises(ServerError) as caught:
        submit(server, "r2", token, builtin="builder", game="pnrz", test_against="previous")
    message = str(caught.value)
    assert caught.value.status == 429 and "quota 'regression series at a time' of account rita" in message
    assert "the limit is 1" in message and "r1@" in message and "decides or is cancelled" in message
    assert snapshot(client) == before
    usage = call(server, "GET", "/api/v1/account", token)
    assert usage["series"]["used"] == [f"r1@{tested['bot']['version']}"]
    assert usage["bots"] == ["r1", "r2"]


def test_account_creation_is_limited_per_client_address(redis_url: str, client: Any, tmp_path: Path) -> None:
    with running_server(redis_url, tmp_path, "--accounts-per-hour", "2") as address:
        url = f"http://{address}"
        make_account(url, "one")
        make_account(url, "two")
        before = snapshot(client)
        refused = refusal(url, "POST", "/api/v1/accounts/three")
        assert refused.status == 429 and "too many accounts created from this address" in str(refused)
        assert "at most 2 an hour" in str(refused)
        assert snapshot(client) == before
        # another address has its own bucket
        host, port = address.split(":")
        other = http.client.HTTPConnection(host, int(port), timeout=30, source_address=("127.0.0.2", 0))
        other.request("POST", "/api/v1/accounts/three")
        assert other.getresponse().status == 201
        other.close()


def test_another_sites_page_cannot_make_an_account(server: str, client: Any) -> None:
    """A cross-site form (an ``Origin`` of another host) is refused before anything is spent or
    stored; the server's own pages (their own ``Origin``) and the CLI (none) make accounts."""
    import urllib.error
    import urllib.request

    def create(origin: str) -> tuple[int, dict[str, Any]]:
        request = urllib.request.Request(
            f"{server}/api/v1/accounts/visitor", method="POST", headers={"Origin": origin}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as refused:
            return refused.code, json.loads(refused.read())

    status, body = create("https://evil.example")
    assert status == 403 and "another site" in body["error"], body
    assert not client.exists(keys.account("visitor"))
    status, body = create(server)  # the server's own page: its own host
    assert status == 201, body
