"""The web API's contract: every route of ``/api/v1`` and of the unversioned ``/api`` answered over one
fixed state, compared (status and JSON body) with golden files under ``tests/golden/api/``.

The state is built by the platform's own code paths over a private redis-server (never 6379): a bot
registered through ``POST /api/v1/bots`` (a built-in under a name) and one uploaded as a packed folder,
a tournament created through ``POST /api/v1/tournaments`` whose queued jobs are taken from the stream
(``jobs.take_job``) and recorded (``store.record_and_take``, a match log with one of them) or
dead-lettered (``store.fail``) as a worker does, one seeded random game of each other game
(``store.record``), and a ladder started and stopped through the API. Every game is a seeded random
playout (``tests.conftest.replay_of_random_game``) and the platform's seed key is fixed, so every
match id, seed, replay and rating is the same on every run. The ``arena view`` routes are answered
over replay files written the same way, each with a match log of fixed think times.

Golden files are one per request: ``{"request", "status", "body"}`` (``body`` the JSON answer, or the
text of a non-JSON one). To write them again after a deliberate change of the contract::

    ARENA_UPDATE_API_GOLDEN=1 .venv/bin/python -m pytest -p no:cacheprovider -q tests/test_api_contract.py

The goldens were generated from the code as it was before the web package was made one
(``leaderboard/`` the whole web surface), and ``/api/v1`` must keep answering exactly them. When the
state itself changes by design (the built-in bots' versions, which name the tournament and so seed
its matches), the update writes an old path's golden as its ``/api/v1`` home answers now.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import re
import secrets
import tarfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from starlette.testclient import TestClient

from arena.cli.view import replay_files
from arena.queue import jobs, store
from arena.queue.connection import connect
from arena.referee import botlog
from arena.referee.botlog import Line, Think
from arena.referee.replay import ReplayWriter
from leaderboard.api.auth import OrganiserToken
from leaderboard.app import ServerConfig, leaderboard_app, server_app, view_app
from tests.conftest import REPO, RedisServer, free_port, replay_of_random_game

# -- how the apps are built (with the imports above, the only lines a move of the web code changes) --


def make_server(redis_url: str, client: redis.Redis, organiser: OrganiserToken) -> Any:
    """Returns ``arena server``'s app (no bot output on public pages)."""
    return server_app(redis_url, ServerConfig(write_burst=1000, organiser=organiser), client)


def make_leaderboard(redis_url: str, client: redis.Redis) -> Any:
    """Returns ``arena leaderboard web``'s app (this machine's own: bot output shown)."""
    return leaderboard_app(redis_url, client)


def make_view(files: dict[str, Path]) -> Any:
    """Returns ``arena view``'s app over replay files."""
    return view_app(files)


# ---------------------------------------------------------------------------------------------------

GOLDEN = REPO / "tests" / "golden" / "api"
UPDATE = os.environ.get("ARENA_UPDATE_API_GOLDEN") == "1"
TOKEN = "organiser-token-0123456789abcdef"
SEED_KEY = "00" * 31 + "2a"  # the platform's seed key: every tournament and ladder seed derives from it
RANDOM_BOT = (REPO / "tests" / "bots" / "submitted" / "random" / "bot.py").read_bytes()
WRONG_SECRET = "x" * 43  # shaped as an owner secret, so it is checked (and fails), not refused at sight

# Normalised, and why: each of these differs on every run however the state is built.
#   secret: an owner secret is 32 random bytes from the OS (it is a credential: it must be);
#   created, updated, recorded_at, time: wall-clock times of registration, smoke status, recording
#     and dead-lettering;
#   next (of a tournament's results page): a Redis stream id, which is the time of the XADD;
#   path (of a match log in arena view): the test's temporary folder.
# A ladder's counts in the answer of the POST that starts it are normalised too (``LADDER_COUNTS``):
# its thread may have scheduled its first match before the answer is made, or not.
TIMES = {"created", "updated", "recorded_at", "time", "changed"}
LADDER_COUNTS = ("total", "queued")


def normalise(value: Any, tmp: str = "") -> Any:
    """Returns ``value`` with the run-dependent fields above replaced by placeholders."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in ("secret", "token") and isinstance(item, str):
                out[key] = "<secret>"
            elif key in TIMES and item is not None:
                out[key] = "<time>"
            elif key == "next" and isinstance(item, str) and re.fullmatch(r"\d+-\d+", item):
                out[key] = "<stream id>"
            else:
                out[key] = normalise(item, tmp)
        return out
    if isinstance(value, list):
        return [normalise(item, tmp) for item in value]
    if isinstance(value, str) and tmp and tmp in value:
        return value.replace(tmp, "<tmp>")
    return value


def digest(value: Any) -> str:
    """Returns the SHA-256 of ``value``'s canonical JSON (sorted keys, compact)."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def shrunk(body: Any) -> Any:
    """Returns a replay's frames as their count, their first frame whole and the digest of all of
    them (a replay's frames are up to 2 MB of JSON; everything else of the replay is kept whole)."""
    if isinstance(body, dict) and isinstance(body.get("frames"), list) and body["frames"]:
        frames = body["frames"]
        return {**body, "frames": {"count": len(frames), "first": frames[0], "sha256": digest(frames)}}
    return body


def answer(response: Any, tmp: str = "") -> dict[str, Any]:
    """Returns what a golden file holds of a response: its status and its body (JSON, or text)."""
    kind = response.headers.get("content-type", "")
    body = response.json() if kind.split(";")[0].strip() == "application/json" else response.text
    return {"status": response.status_code, "body": shrunk(normalise(body, tmp))}


def golden_name(case: str) -> Path:
    return GOLDEN / f"{re.sub(r'[^a-z0-9]+', '-', case.lower()).strip('-')}.json"


def check(case: str, request: str, got: dict[str, Any]) -> None:
    """Compares ``got`` with the golden file of ``case`` (writes it with ARENA_UPDATE_API_GOLDEN=1)."""
    path = golden_name(case)
    shown = {"request": request, **got}
    if UPDATE:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(shown, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return
    assert path.exists(), f"no golden file {path.name}: run with ARENA_UPDATE_API_GOLDEN=1"
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert expected["request"] == request
    assert got["status"] == expected["status"], f"{request}: {got}"
    assert got["body"] == expected["body"], request


def tar_gz(files: dict[str, bytes]) -> bytes:
    """Returns a tar.gz of ``files`` (name -> content) with fixed times, so its bytes never change."""
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as gz, tarfile.open(fileobj=gz, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


class Counted:
    """Stands in for the ``secrets`` functions that draw registration nonces and smoke match ids and
    seeds while the state is built: the same values, in the same order, on every run."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()

    def _next(self) -> int:
        with self.lock:
            self.count += 1
            return self.count

    def token_hex(self, nbytes: int | None = None) -> str:
        return f"{self._next():0{2 * (nbytes or 32)}x}"

    def randbits(self, k: int) -> int:
        return (1_000_003 * self._next()) % (1 << k)


def match_log(text: str, lines: dict[int, list[Line]]) -> str:
    """Returns the match log of a replay with ``lines`` per seat and a fixed think time per decision."""
    parsed = [json.loads(x) for x in text.splitlines()]
    header = parsed[0]
    think = [
        Think(int(x["step"]), int(x["seat"]), 1.5 + x["step"] % 7, True)
        for x in parsed
        if x.get("type") == "decision"
    ]
    fields = {"match_id": header["match_id"], "game": header["game"], "players": header["players"]}
    return botlog.match_log_text({**fields, "deadline_ms": 2000}, lines, think)


class State:
    """The fixed state: the apps over it, and the ids and secrets the requests need."""

    def __init__(self) -> None:
        self.written: list[tuple[str, str, dict[str, Any]]] = []  # (case, request, answer) of the writes
        self.values: dict[str, str] = {}
        self.tmp = ""

    def sub(self, text: str) -> str:
        """Returns ``text`` with each ``{name}`` replaced by the value of that name."""
        return text.format(**self.values)


def send(
    client: TestClient,
    method: str,
    path: str,
    auth: str | None = None,
    body: Any = None,
    content: bytes | None = None,
) -> Any:
    headers = {"Authorization": f"Bearer {auth}"} if auth else {}
    if body is not None:
        return client.request(method, path, json=body, headers=headers)
    return client.request(method, path, content=content, headers=headers)


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Iterator[State]:
    folder = tmp_path_factory.mktemp("contract")
    server = RedisServer(folder)
    server.start()
    url = server.url
    client = connect(url)
    client.flushall()
    jobs.ensure_group(client)
    token_file = folder / "organiser-token"
    token_file.write_text(TOKEN + "\n")
    st = State()
    counted = Counted()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ARENA_SEED_KEY", SEED_KEY)
        mp.setattr(secrets, "token_hex", counted.token_hex)
        mp.setattr(secrets, "randbits", counted.randbits)
        organiser = OrganiserToken.from_file(token_file)
        app = make_server(url, client, organiser)
        with TestClient(app, raise_server_exceptions=False, follow_redirects=False) as api:
            build(st, api, client)
            st.server = api  # type: ignore[attr-defined]
            with TestClient(
                make_leaderboard(url, client), raise_server_exceptions=False, follow_redirects=False
            ) as web:
                st.leaderboard = web  # type: ignore[attr-defined]
                view_folder = folder / "view"
                view_files(view_folder)
                st.tmp = str(view_folder)
                with TestClient(
                    make_view(replay_files([view_folder])),
                    raise_server_exceptions=False,
                    follow_redirects=False,
                ) as view:
                    st.view = view  # type: ignore[attr-defined]
                    yield st
    server.kill()


def write(st: State, api: TestClient, case: str, method: str, path: str, **kwargs: Any) -> Any:
    """Sends a write (or a read among the writes), keeps its answer for ``test_writes``; returns it."""
    response = send(api, method, path, **kwargs)
    request = f"{method} {path}"
    st.written.append((case, request, answer(response)))
    return response


def build(st: State, api: TestClient, client: redis.Redis) -> None:
    """Builds the fixed state through the API and the queue's own functions, in a fixed order."""
    archive = tar_gz({"bot.py": RANDOM_BOT})
    made = write(
        st, api, "write bots alice builtin", "POST", "/api/v1/bots/alice?games=ninjan&builtin=greedy"
    )
    st.values["alice"] = made.json()["secret"]
    write(st, api, "write bots no entry", "POST", "/api/v1/bots/carol?games=ninjan")
    write(st, api, "write bots bad name", "POST", "/api/v1/bots/Bad!Name?games=ninjan&builtin=greedy")
    spec = {"game": "ninjan", "bots": ["alice", "random", "greedy"], "seed": 7}
    made = write(st, api, "write tournaments create", "POST", "/api/v1/tournaments", auth=TOKEN, body=spec)
    st.values["tid"] = made.json()["id"]
    write(st, api, "write tournaments again", "POST", "/api/v1/tournaments", auth=TOKEN, body=spec)
    write(st, api, "write tournaments no token", "POST", "/api/v1/tournaments", body=spec)
    write(
        st, api, "write tournaments wrong token", "POST", "/api/v1/tournaments", auth=TOKEN[::-1], body=spec
    )
    write(
        st, api, "write tournaments unknown field", "POST", "/api/v1/tournaments", auth=TOKEN,
        body={**spec, "colour": "red"},
    )  # fmt: skip
    write(
        st, api, "write tournaments unknown game", "POST", "/api/v1/tournaments", auth=TOKEN,
        body={**spec, "game": "chess"},
    )  # fmt: skip
    write(
        st, api, "write tournaments not json", "POST", "/api/v1/tournaments", auth=TOKEN, content=b"{not json"
    )  # fmt: skip
    # the tournament's three matches, as a worker plays them: two recorded (the first with its match
    # log), the third dead after its last attempt
    played = []
    while (taken := jobs.take_job(client, "contract")) is not None:
        job = taken.job
        assert job is not None
        if len(played) == 2:
            assert store.fail(client, job, taken.entry_id, "the bot crashed", jobs.MAX_ATTEMPTS) == "dead"
            st.values["dead"] = job.match_id
            break
        text, record = replay_of_random_game(job.game, job.seed, list(job.bots), job.match_id)
        extras = {}
        if not played:
            seat = list(job.bots).index("alice")
            lines = {seat: [Line(None, "alice warming up"), Line(1, "alice thinks <b>hard</b>")]}
            lines[1 - seat] = [Line(2, "the other bot's line")]
            extras = {botlog.STORE_KIND: botlog.for_store(match_log(text, lines))}
            st.values["alice_seat"], st.values["other_seat"] = str(seat), str(1 - seat)
        new, _ = store.record_and_take(client, job, record, text, taken.entry_id, extras=extras)
        assert new
        played.append(job.match_id)
    st.values["m1"], st.values["m2"] = played
    for seed, game in enumerate(("pnrz", "ninja-master", "ninja-burger"), 1):
        match_id = f"{game}-contract-{seed}"
        text, record = replay_of_random_game(game, seed, ["random", "other"], match_id)
        assert store.record(
            client, jobs.MatchJob(match_id, record.game, seed, ("random", "other")), record, text, "0-1"
        )
    made = write(
        st,
        api,
        "write bots bob upload",
        "POST",
        "/api/v1/bots/bob?games=ninjan&entry=python+bot.py",
        content=archive,
    )
    st.values["bob"] = made.json()["secret"]
    write(
        st,
        api,
        "write bots bob again without secret",
        "POST",
        "/api/v1/bots/bob?games=ninjan&entry=python+bot.py",
        content=archive,
    )
    page = api.get(st.sub("/api/v1/tournaments/{tid}/results?limit=1")).json()
    st.values["results_next"] = page["next"]


def view_files(folder: Path) -> None:
    """Writes the replay files ``arena view`` serves: a ninjan game with its match log, a pnrz game
    without one, and a file that is no replay."""
    folder.mkdir()
    text, _ = replay_of_random_game("ninjan", 3, ["talk", "random"], "view-ninjan")
    (folder / "view-ninjan.jsonl").write_text(text, encoding="utf-8")
    lines = {0: [Line(None, "hello"), Line(1, "talking at step 1")], 1: []}
    botlog.match_log_path(folder / "view-ninjan.jsonl").write_text(match_log(text, lines), encoding="utf-8")
    text, _ = replay_of_random_game("pnrz", 4, ["random", "builder"], "view-pnrz")
    (folder / "view-pnrz.jsonl").write_text(text, encoding="utf-8")
    header = ReplayWriter.header("bad", "ninjan", 1, [], 2000, 3)
    (folder / "bad.jsonl").write_text(json.dumps({"type": "header", **header}) + "\n", encoding="utf-8")


# -- the reads: (case, app, method, path, auth) -----------------------------------------------------
# ``{name}`` in a path or auth is a value of the state (a tournament id, a match id, a secret).

V1_READS = [
    ("v1 bots", "server", "GET", "/api/v1/bots", None),
    ("v1 bots of ninjan", "server", "GET", "/api/v1/bots?game=ninjan", None),
    ("v1 bots of pnrz", "server", "GET", "/api/v1/bots?game=pnrz", None),
    ("v1 bot alice", "server", "GET", "/api/v1/bots/alice", None),
    ("v1 bot bob public", "server", "GET", "/api/v1/bots/bob", None),
    ("v1 bot bob owner", "server", "GET", "/api/v1/bots/bob", "{bob}"),
    ("v1 bot bob wrong secret", "server", "GET", "/api/v1/bots/bob", WRONG_SECRET),
    ("v1 bot bob other scheme", "server", "GET", "/api/v1/bots/bob", "-basic"),
    ("v1 bot nobody", "server", "GET", "/api/v1/bots/nobody", None),
    ("v1 bot bad name", "server", "GET", "/api/v1/bots/Bad!Name", None),
    ("v1 tournaments", "server", "GET", "/api/v1/tournaments", None),
    ("v1 tournament", "server", "GET", "/api/v1/tournaments/{tid}", None),
    ("v1 tournament nosuch", "server", "GET", "/api/v1/tournaments/nosuch", None),
    ("v1 tournament malformed", "server", "GET", "/api/v1/tournaments/bad!id", None),
    ("v1 tournament results", "server", "GET", "/api/v1/tournaments/{tid}/results", None),
    ("v1 tournament results page 1", "server", "GET", "/api/v1/tournaments/{tid}/results?limit=1", None),
    (
        "v1 tournament results page 2",
        "server",
        "GET",
        "/api/v1/tournaments/{tid}/results?limit=1&after={results_next}",
        None,
    ),
    ("v1 tournament results limit 0", "server", "GET", "/api/v1/tournaments/{tid}/results?limit=0", None),
    ("v1 tournament results limit ten", "server", "GET", "/api/v1/tournaments/{tid}/results?limit=ten", None),
    ("v1 tournament results bad after", "server", "GET", "/api/v1/tournaments/{tid}/results?after=x", None),
    ("v1 tournament results nosuch", "server", "GET", "/api/v1/tournaments/nosuch/results", None),
    ("v1 match log", "server", "GET", "/api/v1/matches/{m1}/log", None),
    ("v1 match log unlogged", "server", "GET", "/api/v1/matches/{m2}/log", None),
    ("v1 match log dead", "server", "GET", "/api/v1/matches/{dead}/log", None),
    ("v1 match log nosuch", "server", "GET", "/api/v1/matches/nosuch/log", None),
    ("v1 match log malformed", "server", "GET", "/api/v1/matches/bad..id/log", None),
    ("v1 seat log no secret", "server", "GET", "/api/v1/matches/{m1}/log/{alice_seat}", None),
    ("v1 seat log owner", "server", "GET", "/api/v1/matches/{m1}/log/{alice_seat}", "{alice}"),
    ("v1 seat log not owner", "server", "GET", "/api/v1/matches/{m1}/log/{other_seat}", "{alice}"),
    ("v1 seat log wrong secret", "server", "GET", "/api/v1/matches/{m1}/log/{alice_seat}", "{bob}"),
    ("v1 seat log no such seat", "server", "GET", "/api/v1/matches/{m1}/log/5", "{alice}"),
    ("v1 seat log unlogged", "server", "GET", "/api/v1/matches/{m2}/log/0", "{alice}"),
    ("v1 ladders none", "server", "GET", "/api/v1/ladders", None),
    ("v1 no endpoint", "server", "GET", "/api/v1/nope", None),
    ("v1 no endpoint put", "server", "PUT", "/api/v1/bots", None),
]

OLD_READS = [
    ("old games", "server", "GET", "/api/games", None),
    ("old stamp", "server", "GET", "/api/stamp", None),
    ("old leaderboard", "server", "GET", "/api/leaderboard/ninjan", None),
    ("old leaderboard alias", "server", "GET", "/api/leaderboard/Ninja-Burger", None),
    ("old leaderboard nosuch", "server", "GET", "/api/leaderboard/nosuch", None),
    ("old bot page", "server", "GET", "/api/bots/ninjan/alice", None),
    ("old bot page limit 1", "server", "GET", "/api/bots/ninjan/alice?limit=1", None),
    ("old bot page nobody", "server", "GET", "/api/bots/ninjan/nobody", None),
    ("old bot page bad limit", "server", "GET", "/api/bots/ninjan/alice?limit=-3", None),
    ("old head to head", "server", "GET", "/api/head-to-head/ninjan?a=alice&b=random", None),
    ("old head to head page 1", "server", "GET", "/api/head-to-head/ninjan?a=alice&b=greedy&limit=1", None),
    ("old head to head one bot", "server", "GET", "/api/head-to-head/ninjan?a=alice", None),
    (
        "old head to head bad cursor",
        "server",
        "GET",
        "/api/head-to-head/ninjan?a=alice&b=random&cursor=2:4",
        None,
    ),
    ("old head to head nobody", "server", "GET", "/api/head-to-head/ninjan?a=alice&b=nobody", None),
    ("old head to head nosuch game", "server", "GET", "/api/head-to-head/nosuch?a=alice&b=random", None),
    ("old tournaments", "server", "GET", "/api/tournaments", None),
    ("old tournament", "server", "GET", "/api/tournaments/{tid}", None),
    ("old tournament nosuch", "server", "GET", "/api/tournaments/nosuch", None),
    ("old matches", "server", "GET", "/api/matches", None),
    ("old matches page 1", "server", "GET", "/api/matches?limit=2", None),
    ("old matches page 2", "server", "GET", "/api/matches?limit=2&cursor=ninjan:", None),
    ("old matches page 3", "server", "GET", "/api/matches?limit=2&cursor=pnrz:", None),
    ("old matches of a game", "server", "GET", "/api/matches?game=ninjan", None),
    ("old matches of a bot", "server", "GET", "/api/matches?game=ninjan&bot=alice", None),
    ("old matches of a bot page 1", "server", "GET", "/api/matches?game=ninjan&bot=random&limit=1", None),
    (
        "old matches of a bot page 2",
        "server",
        "GET",
        "/api/matches?game=ninjan&bot=random&limit=1&cursor=ninjan:1",
        None,
    ),
    ("old matches of nobody", "server", "GET", "/api/matches?bot=nobody", None),
    ("old matches nosuch game", "server", "GET", "/api/matches?game=nosuch", None),
    ("old matches limit 0", "server", "GET", "/api/matches?limit=0", None),
    ("old matches bad cursor", "server", "GET", "/api/matches?cursor=garbage", None),
    ("old match", "server", "GET", "/api/matches/{m1}", None),
    ("old match nosuch", "server", "GET", "/api/matches/nosuch", None),
    ("old replay", "server", "GET", "/api/matches/{m1}/replay", None),
    ("old replay unlogged", "server", "GET", "/api/matches/{m2}/replay", None),
    ("old replay nosuch", "server", "GET", "/api/matches/nosuch/replay", None),
    ("old no such path", "server", "GET", "/api/nope", None),
    ("old delete games", "server", "DELETE", "/api/games", None),
    ("leaderboard old games", "leaderboard", "GET", "/api/games", None),
    ("leaderboard old replay", "leaderboard", "GET", "/api/matches/{m1}/replay", None),
    ("view old games", "view", "GET", "/api/games", None),
    ("view old stamp", "view", "GET", "/api/stamp", None),
    ("view old match", "view", "GET", "/api/matches/view-ninjan", None),
    ("view old match without log", "view", "GET", "/api/matches/view-pnrz", None),
    ("view old match not a replay", "view", "GET", "/api/matches/bad", None),
    ("view old match nosuch", "view", "GET", "/api/matches/nosuch", None),
    ("view old replay", "view", "GET", "/api/matches/view-ninjan/replay", None),
    ("view old replay without log", "view", "GET", "/api/matches/view-pnrz/replay", None),
    ("view old replay not a replay", "view", "GET", "/api/matches/bad/replay", None),
    ("view old replay nosuch", "view", "GET", "/api/matches/nosuch/replay", None),
]


def read(st: State, app: str, method: str, path: str, auth: str | None) -> dict[str, Any]:
    client = getattr(st, app)
    response = send(client, method, st.sub(path), auth=st.sub(auth) if auth else None)
    return answer(response, st.tmp)


def request_line(app: str, method: str, path: str, auth: str | None) -> str:
    shown = f"{method} {path}" + (f" (bearer {auth})" if auth else "")
    return shown if app == "server" else f"{app}: {shown}"


@pytest.mark.parametrize(("case", "app", "method", "path", "auth"), V1_READS, ids=[c[0] for c in V1_READS])
def test_v1_reads(state: State, case: str, app: str, method: str, path: str, auth: str | None) -> None:
    check(case, request_line(app, method, path, auth), read(state, app, method, path, auth))


@pytest.mark.parametrize(("case", "app", "method", "path", "auth"), OLD_READS, ids=[c[0] for c in OLD_READS])
def test_unversioned_reads(
    state: State, case: str, app: str, method: str, path: str, auth: str | None
) -> None:
    """An old path answers a redirect to its /api/v1 home (``v1_home``), and the home answers what the
    old path answered (its golden, written before the move), but for what changed by design
    (``as_before``). The paths no route had keep their answers."""
    request = request_line(app, method, path, auth)
    home = v1_home(path) if method == "GET" else None
    if home is None:
        check(case, request, read(state, app, method, path, auth))
        return
    client = getattr(state, app)
    moved = send(client, method, state.sub(path))
    assert moved.status_code == 307, f"{request}: {moved.status_code} {moved.text[:200]}"
    assert moved.headers["location"] == state.sub(home), request
    assert moved.headers["x-content-type-options"] == "nosniff"
    got = read(state, app, method, home, auth)
    if UPDATE and got["status"] == 200:  # the state changed by design (e.g. a bot's version): as now
        check(case, request, {"status": 200, "body": as_before(path, got["body"])})
    expected = json.loads(golden_name(case).read_text(encoding="utf-8"))
    assert expected["request"] == request
    assert got["status"] == expected["status"], f"{request} -> {home}: {got}"
    if got["status"] == 200:
        assert as_before(path, got["body"]) == expected["body"], f"{request} -> {home}"
    else:  # by design: the error says it as the /api/v1 route says it
        assert set(got["body"]) == {"error"} and got["body"]["error"], got


# The old paths' homes under /api/v1 (docs/api.md), and the query with ?cursor= renamed ?after=.
V1_HOMES = [
    (r"/api/games", "/api/v1/games"),
    (r"/api/stamp", "/api/v1/stamp"),
    (r"/api/leaderboard/([^/]+)", r"/api/v1/games/\1/leaderboard"),
    (r"/api/bots/([^/]+)/(.+)", r"/api/v1/games/\1/bots/\2"),
    (r"/api/head-to-head/([^/]+)", r"/api/v1/games/\1/head-to-head"),
    (r"/api/tournaments", "/api/v1/tournaments"),
    (r"/api/tournaments/([^/]+)", r"/api/v1/tournaments/\1"),
    (r"/api/matches", "/api/v1/matches"),
    (r"/api/matches/([^/]+)", r"/api/v1/matches/\1"),
    (r"/api/matches/([^/]+)/replay", r"/api/v1/matches/\1/replay"),
]


def v1_home(path: str) -> str | None:
    """Returns the /api/v1 home of an old path (None: no route had the path)."""
    route, _, query = path.partition("?")
    for old, new in V1_HOMES:
        if re.fullmatch(old, route):
            query = "&".join(re.sub(r"^cursor=", "after=", q) for q in query.split("&") if q)
            return re.sub(old, new, route) + (f"?{query}" if query else "")
    return None


def as_before(path: str, body: Any) -> Any:
    """Returns the answer of an old path's home as the old path answered it. Changed by design:
    ``/api/tournaments`` was the ``tournaments`` of ``/api/v1/tournaments`` alone, and
    ``/api/tournaments/ID`` the ``standings`` of ``/api/v1/tournaments/ID`` (the /api/v1 answers keep
    their shapes, with the rest beside them); the pages of matches and meetings say ``next`` for
    ``next_cursor`` (one way of paging, /api/v1's: ``?after=`` the ``next`` of the previous page)."""
    route = path.partition("?")[0]
    if route == "/api/tournaments":
        return body["tournaments"]
    if route.startswith("/api/tournaments/"):
        return body["standings"]
    if isinstance(body, dict) and "next" in body and "matches" in body:
        return {("next_cursor" if k == "next" else k): v for k, v in body.items()}
    return body


def test_writes(state: State) -> None:
    """The writes that built the state, then the ladders' and removals' answers, in order."""
    api: TestClient = state.server  # type: ignore[attr-defined]
    ladder = {"game": "ninjan", "bots": ["alice", "random"], "seed": 5, "ahead": 2}
    started = write(state, api, "write ladders start", "POST", "/api/v1/ladders", auth=TOKEN, body=ladder)
    ladder_id = started.json()["id"]
    for key in LADDER_COUNTS:  # run-dependent: see LADDER_COUNTS
        state.written[-1][2]["body"][key] = "<count>"
    until = time.monotonic() + 30
    while api.get("/api/v1/ladders").json()["ladders"][0]["total"] < ladder["ahead"]:
        assert time.monotonic() < until, "the ladder scheduled nothing"
        time.sleep(0.05)
    write(state, api, "write ladders listed", "GET", "/api/v1/ladders")
    write(state, api, "write ladders start again", "POST", "/api/v1/ladders", auth=TOKEN, body=ladder)
    write(state, api, "write ladders start no token", "POST", "/api/v1/ladders", body=ladder)
    write(
        state, api, "write ladders unknown bot", "POST", "/api/v1/ladders", auth=TOKEN,
        body={**ladder, "bots": ["alice", "nobody"]},
    )  # fmt: skip
    write(state, api, "write ladders stop", "DELETE", f"/api/v1/ladders/{ladder_id}", auth=TOKEN)
    write(state, api, "write ladders stop again", "DELETE", f"/api/v1/ladders/{ladder_id}", auth=TOKEN)
    write(state, api, "write ladders stop malformed", "DELETE", "/api/v1/ladders/bad!id", auth=TOKEN)
    write(state, api, "write ladders after", "GET", "/api/v1/ladders")
    write(state, api, "write bots remove no secret", "DELETE", "/api/v1/bots/bob")
    write(
        state, api, "write bots remove wrong secret", "DELETE", "/api/v1/bots/bob", auth=state.values["alice"]
    )
    write(state, api, "write bots remove", "DELETE", "/api/v1/bots/bob", auth=state.values["bob"])
    write(state, api, "write bots remove again", "DELETE", "/api/v1/bots/bob", auth=state.values["bob"])
    write(state, api, "write bots after removal", "GET", "/api/v1/bots")
    made = write(state, api, "write accounts create", "POST", "/api/v1/accounts/dora")
    write(state, api, "write accounts create taken", "POST", "/api/v1/accounts/dora")
    write(state, api, "write accounts create bad name", "POST", "/api/v1/accounts/Dora!")
    write(state, api, "write accounts own", "GET", "/api/v1/account", auth=made.json()["token"])
    write(state, api, "write accounts own no token", "GET", "/api/v1/account")
    write(state, api, "write accounts list no token", "GET", "/api/v1/accounts")
    write(state, api, "write accounts disable", "POST", "/api/v1/accounts/dora/disable", auth=TOKEN)
    write(state, api, "write accounts approve", "POST", "/api/v1/accounts/dora/approve", auth=TOKEN)
    write(state, api, "write accounts approve nobody", "POST", "/api/v1/accounts/nobody/approve", auth=TOKEN)
    write(state, api, "write accounts list", "GET", "/api/v1/accounts", auth=TOKEN)
    for case, request, got in state.written:
        check(case, request, got)


def test_redis_down(tmp_path: Path) -> None:
    """Redis unreachable: every route answers a JSON 503 saying so."""
    url = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    client = connect(url)
    token = tmp_path / "token"
    token.write_text(TOKEN)
    app = make_server(url, client, OrganiserToken.from_file(token))
    api = TestClient(app, raise_server_exceptions=False, follow_redirects=False)  # no lifespan: no ladders
    for case, path in (
        ("redis down v1 bots", "/api/v1/bots"),
        ("redis down v1 tournaments", "/api/v1/tournaments"),
    ):
        check(case, f"GET {path}", answer(api.get(path)))
    # by design: the old path answered a plain-text 500 (its golden); now it redirects to its home,
    # which answers the JSON 503 of every route
    moved = api.get("/api/games")
    assert moved.status_code == 307 and moved.headers["location"] == "/api/v1/games"
    down = api.get("/api/v1/games")
    assert down.status_code == 503 and down.json() == answer(api.get("/api/v1/bots"))["body"]
    assert down.headers["content-security-policy"] and down.headers["x-content-type-options"] == "nosniff"
