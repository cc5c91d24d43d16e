"""One person's bots never share a rated table, and rated tables are anonymous (issue 36, item 3).

Pure: over seeded random pools of bots and accounts, tournament plans (round robin, gauntlet) and the
ladder's pairing never put two bots of one account at a table, and refuse exactly the pools in which
some bot would have no table at all. On a private redis-server: the accounts as stored (the ``account``
field of a bot's hash, ``bot:<name>`` for a bot stored before accounts, None for a built-in) and the
refusals that leave Redis as it was. End to end, through the CLI and real sandboxed workers: a
tournament and a ladder among three accounts' bots (and a built-in), every recorded match checked; and
a bot (tests/bots/teller.py) that says every name the referee tells it is told seat labels in rated
matches, and names in a local ``arena match``, while the recorded result and replay keep the names.
"""

from __future__ import annotations

import doctest
import itertools
import random
import shutil
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

import arena.ratings.pairing
import arena.referee.match
import arena.schedule.plan
import arena.submissions.owners
from arena.games.rng import derive
from arena.queue import keys, store
from arena.queue.jobs import load_job
from arena.ratings import Placement
from arena.ratings.fit import fit
from arena.ratings.pairing import REASONS, choose_group
from arena.ratings.pairs import PairTable
from arena.referee.match import seat_labels
from arena.schedule import tournaments
from arena.schedule.ladder import Ladder, LadderError, LadderSpec
from arena.schedule.plan import FORMATS, TournamentSpec, groups, plan, queue
from arena.submissions import registry
from arena.submissions.owners import apart, owners
from tests.conftest import REPO, SEED_KEY, SEED_KEY_ENV, json_lines, reports_in_logs, run_arena

TELLER = REPO / "tests" / "bots" / "teller.py"
RULE = "one person's bots never share a rated table"


def test_doctests() -> None:
    for module in (arena.submissions.owners, arena.schedule.plan, arena.ratings.pairing, arena.referee.match):
        assert doctest.testmod(module).failed == 0, module.__name__


# -- pure: plans ---------------------------------------------------------------------------------------


def random_pool(rng: random.Random, most: int = 9) -> tuple[tuple[str, ...], dict[str, str | None]]:
    """Returns bot names and their accounts: a few accounts of one or more bots, and some built-ins."""
    bots = tuple(f"b{i}" for i in range(rng.randint(2, most)))
    accounts = [f"acct{i}" for i in range(rng.randint(1, 4))]
    return bots, {b: None if rng.random() < 0.25 else rng.choice(accounts) for b in bots}


def allowed_groups(bots: tuple[str, ...], owner_of: Mapping[str, str | None], size: int, fmt: str) -> list:
    """Returns, by brute force, the groups a plan may play: every combination without two bots of one
    account (with the challenger, for a gauntlet)."""
    every = [g for g in itertools.combinations(bots, size) if apart(g, owner_of)]
    return [g for g in every if fmt != "gauntlet" or bots[0] in g]


def test_plans_never_seat_two_bots_of_one_account_and_refuse_exactly_when_a_bot_has_no_table() -> None:
    refused = planned = 0
    for seed in range(400):
        rng = random.Random(seed)
        bots, owner_of = random_pool(rng)
        players, fmt = rng.randint(2, min(5, len(bots))), rng.choice(FORMATS)
        allowed = allowed_groups(bots, owner_of, players, fmt)
        seated = {b for g in allowed for b in g}
        spec_owners = tuple(owner_of[b] for b in bots)
        if seated != set(bots):  # some bot would have no table: refused before any job exists
            with pytest.raises(ValueError, match=RULE) as refusal:
                TournamentSpec("ninjan", bots, fmt, players, owners=spec_owners)
            message = str(refusal.value)
            assert "\n" not in message and "share account" in message, message
            refused += 1
            continue
        spec = TournamentSpec("ninjan", bots, fmt, players, rounds=rng.randint(1, 2), owners=spec_owners)
        jobs = plan(spec, SEED_KEY)
        assert all(apart(job.bots, owner_of) for job in jobs), (seed, spec)
        assert {tuple(sorted(job.bots)) for job in jobs} == {tuple(sorted(g)) for g in allowed}, seed
        assert spec.matches == len(jobs) == spec.rounds * len(allowed) * players
        assert len({job.match_id for job in jobs}) == len(jobs)
        planned += 1
    assert refused > 30 and planned > 150, (refused, planned)  # both sides of the rule were tried


def test_a_plan_among_bots_of_distinct_accounts_is_the_plan_it_was_before_accounts() -> None:
    bots = ("a", "b", "c", "random")
    before = TournamentSpec("ninjan", bots, players=3, seed=4)
    after = TournamentSpec("ninjan", bots, players=3, seed=4, owners=("ann", "bob", "bot:c", None))
    assert after.tournament_id == before.tournament_id
    assert plan(after, SEED_KEY) == plan(before, SEED_KEY)
    for fmt, n, size in itertools.product(FORMATS, range(2, 8), range(2, 6)):  # the groups, in their order
        if size <= n:
            spec = TournamentSpec("ninjan", tuple(f"b{i}" for i in range(n)), fmt, size)
            every = list(itertools.combinations(spec.bots, size))
            assert groups(spec) == [g for g in every if fmt != "gauntlet" or "b0" in g]
    shared = TournamentSpec("ninjan", bots, players=2, seed=4, owners=("ann", "ann", "bob", None))
    assert shared.tournament_id != TournamentSpec("ninjan", bots, players=2, seed=4).tournament_id


def test_the_refusals_name_the_bots_that_share_an_account_and_what_to_do() -> None:
    with pytest.raises(ValueError) as refusal:  # two accounts cannot fill a table of three
        TournamentSpec("ninjan", ("a1", "a2", "b1", "b2"), players=3, owners=("ann", "ann", "bob", "bob"))
    assert str(refusal.value) == (
        f"{RULE}: a1 and a2 share account ann; b1 and b2 share account bob, and the bots of only 2 "
        "accounts (a built-in counts as one) cannot fill a table of 3; add bots of other accounts or "
        "built-in bots, or play fewer --players"
    )
    with pytest.raises(ValueError) as refusal:  # a gauntlet's challenger never meets its own account
        TournamentSpec("ninjan", ("a1", "b1", "a2", "c1"), "gauntlet", owners=("ann", "bob", "ann", None))
    assert str(refusal.value) == (
        f"{RULE}: a1 and a2 share account ann, so a gauntlet of a1 cannot include a2; "
        "leave them out of --bots"
    )
    # the same pools are fine where a table can be filled without them
    TournamentSpec(
        "ninjan", ("a1", "a2", "b1", "b2", "random"), players=3, owners=("ann", "ann", "bob", "bob", None)
    )
    TournamentSpec("ninjan", ("a1", "a2", "b1"), players=2, owners=("ann", "ann", "bob"))


# -- pure: the ladder's pairing ------------------------------------------------------------------------


def test_the_ladders_choice_never_groups_two_players_of_one_account() -> None:
    reasons: dict[str, int] = dict.fromkeys(REASONS, 0)
    met: set[frozenset[str]] = set()
    for seed in range(120):
        rng = random.Random(seed)
        bots, owner_of = random_pool(rng, most=8)
        players = list(bots)
        size = rng.randint(2, min(4, len(players)))
        seatable = len({a for a in owner_of.values() if a is not None}) + list(owner_of.values()).count(None)
        if seatable < size:
            with pytest.raises(ValueError, match=f"a group of {size} needs players of {size} accounts"):
                choose_group(fit(PairTable()), players, size, derive(seed, "t"), (), 0.2, owner_of)
            continue
        table = PairTable()  # a ladder in miniature: play each choice, refit, go on
        pending: list[tuple[str, ...]] = []
        share = rng.choice([0.0, 0.2, 1.0])
        result = fit(table)
        for n in range(40):
            choice = choose_group(result, players, size, derive(seed, "ladder", n), pending, share, owner_of)
            assert len(choice.seats) == size and set(choice.seats) <= set(players), choice
            assert apart(choice.seats, owner_of), (seed, n, choice, owner_of)
            reasons[choice.reason] += 1
            met |= {frozenset(p) for p in itertools.combinations(choice.seats, 2)}
            pending.append(choice.seats)
            if len(pending) > 2:  # the oldest in flight is played: random ranks, seeded
                played = list(pending.pop(0))
                rng.shuffle(played)
                table.add_match([Placement(p, rank) for rank, p in enumerate(played, 1)])
                result = fit(table)
    assert all(reasons.values()), reasons  # random, new and uncertain choices were all checked


def test_without_two_players_of_one_account_the_pairing_is_what_it_was() -> None:
    for seed in range(60):
        rng = random.Random(seed)
        players = [f"p{i}" for i in range(rng.randint(3, 8))]
        owner_of = {p: rng.choice([None, f"acct-{p}"]) for p in players}
        table = PairTable()
        for _ in range(rng.randint(0, 40)):
            a, b = rng.sample(players, 2)
            table.add_match([Placement(a, 1), Placement(b, 2)])
        result, size = fit(table), rng.randint(2, min(4, len(players)))
        pending = [tuple(rng.sample(players, size)) for _ in range(rng.randint(0, 3))]
        for n in range(10):
            plain = choose_group(result, players, size, derive(seed, n), pending, 0.2)
            assert choose_group(result, players, size, derive(seed, n), pending, 0.2, owner_of) == plain


# -- on a private Redis ----------------------------------------------------------------------------------


def belongs(client: Any, name: str, account: str | None, builtin: str = "greedy") -> str:
    """Registers ``name`` as a participant's bot (a built-in under its name) and sets its account as
    the accounts' API stores it (None: a bot stored before accounts); returns its version."""
    submitted, _ = registry.submit(client, name, ["ninjan"], builtin=builtin)
    if account is not None:
        client.hset(keys.bot(name), "account", account)
    return submitted.version


def teller_bot(client: Any, parent: Path, name: str, account: str) -> None:
    """Submits tests/bots/teller.py alone in a folder as ``name`` of ``account``."""
    folder = parent / f"{name}-bot"
    folder.mkdir()
    shutil.copy(TELLER, folder / "teller.py")
    registry.submit(client, name, ["ninjan"], directory=folder, entry="python teller.py")
    client.hset(keys.bot(name), "account", account)


def every_key(client: Any) -> dict[str, Any]:
    """Returns every key of Redis with its type and value, to compare before and after a refusal."""
    found = {}
    for key in sorted(client.keys("*")):
        kind = client.type(key)
        read = {"hash": client.hgetall, "set": client.smembers, "string": client.get, "stream": client.xrange}
        found[key] = (kind, read[kind](key) if kind in read else None)
    return found


def test_owners_are_read_from_the_bots_records(client: Any) -> None:
    belongs(client, "ann-1", "ann")
    belongs(client, "old-bot", None)  # stored before accounts: an account of its own
    belongs(client, "ann-random", "ann", builtin="random")  # a built-in entered by ann is ann's
    assert owners(client, ["ann-1", "old-bot", "ann-random", "random", "greedy"]) == {
        "ann-1": "ann",
        "old-bot": "bot:old-bot",
        "ann-random": "ann",
        "random": None,  # platform built-ins belong to nobody: several may share a table
        "greedy": None,
    }


def test_a_tournament_that_cannot_keep_one_persons_bots_apart_is_refused_before_anything_is_stored(
    client: Any,
) -> None:
    for name, account in (("ann-1", "ann"), ("ann-2", "ann"), ("bob-1", "bob")):
        belongs(client, name, account)
    before = every_key(client)
    spec = tournaments.make_spec("ninjan", ["ann-1", "bob-1", "ann-2", "random"], "gauntlet")
    with pytest.raises(tournaments.TournamentError, match=f"{RULE}: ann-1 and ann-2 share account ann"):
        tournaments.with_versions(client, spec)  # what the CLI and the server both call first
    assert every_key(client) == before, "nothing stored, not even the built-in's version"
    # a spec made without the accounts is caught when it is queued, before any job
    versions = tuple(registry.resolve(client, "ninjan", b) for b in ("ann-1", "ann-2", "bob-1"))
    before = every_key(client)
    bare = TournamentSpec("ninjan", ("ann-1", "ann-2", "bob-1"), versions=versions)
    with pytest.raises(ValueError, match=f"{RULE}: ann-1 and ann-2 share account ann and would meet in"):
        queue(client, bare, SEED_KEY)
    assert every_key(client) == before


def test_a_ladder_that_cannot_keep_one_persons_bots_apart_is_refused_before_anything_is_stored(
    client: Any,
) -> None:
    for name, account in (("ann-1", "ann"), ("ann-2", "ann"), ("bob-1", "bob")):
        belongs(client, name, account)
    before = every_key(client)
    spec = LadderSpec("ninjan", ("ann-1", "ann-2", "bob-1"), players=3)
    ladder = Ladder(client, spec, SEED_KEY, lambda bot: registry.resolve(client, "ninjan", bot))
    with pytest.raises(LadderError, match=f"{RULE}: ann-1 and ann-2 share account ann.*fewer --players"):
        ladder.check_bots()  # what the CLI and the server call before opening the ladder
    assert every_key(client) == before
    # in twos, ann's bots each meet bob's and never each other
    two = Ladder(client, LadderSpec("ninjan", spec.bots, players=2), SEED_KEY, ladder.resolve)
    two.check_bots()
    two.open()
    assert two.fill(ahead=8, until=None) == 8
    jobs = [load_job(client, f"{two.id}-m{n}")[0] for n in range(1, 9)]
    assert {frozenset(job.bots) for job in jobs if job is not None} == {
        frozenset({"ann-1", "bob-1"}),
        frozenset({"ann-2", "bob-1"}),
    }


ORGANISER = "organiser-token-0123456789abcdef"


def server(client: Any, redis_url: str, tmp_path: Path, **options: Any) -> Any:
    """Returns a test client of ``arena server``'s app (in process) over this test's Redis, with the
    organiser token (use it with ``with``)."""
    from starlette.testclient import TestClient

    from leaderboard.api.auth import OrganiserToken
    from leaderboard.app import ServerConfig, server_app

    (tmp_path / "organiser").write_text(ORGANISER + "\n")
    organiser = OrganiserToken.from_file(tmp_path / "organiser")
    return TestClient(
        server_app(redis_url, ServerConfig(write_burst=1000, organiser=organiser, **options), client)
    )


def test_the_server_refuses_them_too_and_plays_the_rest(
    client: Any, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through ``arena server``'s API (in process): the organiser's tournament and ladder that would seat
    ann's bots together are refused with 422 and the one line, nothing stored; the tournament that can
    avoid it leaves out ann's pair and queues the rest."""
    monkeypatch.setenv("ARENA_SEED_KEY", SEED_KEY_ENV["ARENA_SEED_KEY"])
    for name, account in (("ann-1", "ann"), ("ann-2", "ann"), ("bob-1", "bob")):
        belongs(client, name, account)
    bearer = {"Authorization": f"Bearer {ORGANISER}"}
    body = {"game": "ninjan", "bots": ["ann-1", "ann-2", "bob-1"], "players": 3, "seed": 1}
    with server(client, redis_url, tmp_path) as api:
        for path in ("/api/v1/tournaments", "/api/v1/ladders"):
            before = every_key(client)
            answer = api.post(path, json=body, headers=bearer)
            assert answer.status_code == 422, answer.text
            assert answer.json()["error"].startswith(f"{RULE}: ann-1 and ann-2 share account ann"), (
                answer.text
            )
            assert every_key(client) == before
        answer = api.post("/api/v1/tournaments", json={**body, "players": 2}, headers=bearer)
        assert answer.status_code == 201, answer.text
        assert answer.json()["matches"] == 4  # ann-1 and ann-2 each meet bob-1, in both seats
    queued = [load_job(client, entry["match_id"])[0] for _, entry in client.xrange(keys.JOBS_STREAM)]
    assert sorted(sorted(job.bots) for job in queued if job is not None) == [
        ["ann-1", "bob-1"],
        ["ann-1", "bob-1"],
        ["ann-2", "bob-1"],
        ["ann-2", "bob-1"],
    ]


# -- end to end: the CLI, real workers, the real sandbox --------------------------------------------------


def three_accounts(client: Any, tmp_path: Path) -> dict[str, str | None]:
    """Enters ann's teller and greedy, bob's greedy and random, cat's random; returns the accounts of
    the bots a test plays (the built-in ``random`` among them)."""
    teller_bot(client, tmp_path, "ann-teller", "ann")
    belongs(client, "ann-greedy", "ann")
    belongs(client, "bob-greedy", "bob")
    belongs(client, "bob-random", "bob", builtin="random")
    belongs(client, "cat-random", "cat", builtin="random")
    names = ["ann-teller", "ann-greedy", "bob-greedy", "bob-random", "cat-random", "random"]
    return owners(client, names)


NEVER_MEET = (
    "arena: ann-teller and ann-greedy share account ann; bob-greedy and bob-random share account bob: "
    "they never meet (one person's bots never share a rated table)"
)


def recorded(client: Any) -> list[dict]:
    """Returns every recorded match's placements (the game's whole list: the Redis is this test's)."""
    return list(store.iter_results(client, "ninjan"))


def check_apart(matches: list[dict], owner_of: Mapping[str, str | None]) -> None:
    """Checks that no recorded match seated two bots of one account, and that each bot played."""
    for match in matches:
        seated = [p["bot"] for p in match["players"]]
        assert apart(seated, owner_of), match
    assert {p["bot"] for m in matches for p in m["players"]} == set(owner_of)


def check_told_seats_only(tmp_path: Path, matches: list[dict], owner_of: Mapping[str, str | None]) -> None:
    """Checks what the teller was told in each of its matches (every match the workers played here is
    rated): seat labels, no bot's name, and a random match id, not the recorded one (which names the
    group's place in the plan)."""
    told = reports_in_logs(tmp_path, "TOLD")
    mine = [m for m in matches if "ann-teller" in {p["bot"] for p in m["players"]}]
    starts = [r for r in told if r["at"] == "start"]
    assert len(starts) == len(mine) and len(told) == 2 * len(mine), told
    assert len({r["match_id"] for r in starts}) == len(mine), "each match its own label"
    assert {r["match_id"] for r in told} == {r["match_id"] for r in starts}, "the result says the same"
    recorded_ids = {m["match_id"] for m in matches}
    for report in told:
        assert report["players"] == seat_labels(3), report
        assert not set(report["players"]) & set(owner_of), report
        assert report["match_id"].startswith("match-") and report["match_id"] not in recorded_ids, report


def environment(tmp_path: Path) -> dict[str, str]:
    """The environment of the CLI processes: this test's state folder, its temporary folder (where the
    worker's bot logs go), the test's seed key, and no Redis but the one named."""
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "TMPDIR": str(tmp_path), "ARENA_REDIS_URL": ""}
    return env | {"ARENA_REPLAY_STORE": ""} | SEED_KEY_ENV


@pytest.mark.e2e
def test_a_tournament_of_three_accounts_never_seats_one_persons_bots_together_and_tells_no_names(
    client: Any, redis_url: str, tmp_path: Path
) -> None:
    owner_of = three_accounts(client, tmp_path)
    env = environment(tmp_path)
    bots = ",".join(owner_of)
    refused = run_arena(
        "tournament", "ninjan", "--bots", "ann-teller,ann-greedy,bob-greedy,bob-random", "--players", "3",
        "--redis", redis_url, env=env,
    )  # fmt: skip
    assert refused.returncode != 0 and client.xlen(keys.JOBS_STREAM) == 0
    assert (
        refused.stderr.count("\n") == 1
        and f"arena: error: {RULE}: ann-teller and ann-greedy" in refused.stderr
    )
    proc = run_arena(
        "tournament", "ninjan", "--bots", bots, "--players", "3", "--seed", "5", "--workers", "1",
        "--deadline-ms", "10000", "--redis", redis_url, env=env, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert NEVER_MEET in proc.stderr.splitlines(), "the organiser is told whose groups are left out"
    matches = recorded(client)
    # 3 of the 4 accounts (ann, bob, cat, the built-in) at each table: 2*2*1 + 2*2*1 + 2*1*1 + 2*1*1
    # groups, each in its 3 rotations
    assert len(matches) == 12 * 3
    check_apart(matches, owner_of)
    teller = {m["match_id"] for m in matches if "ann-teller" in {p["bot"] for p in m["players"]}}
    assert len(teller) == 5 * 3  # with bob's two and cat, bob's two and random, cat and random
    check_told_seats_only(tmp_path, matches, owner_of)
    # the names are in the recorded result and the replay, afterwards
    match_id = sorted(teller)[0]
    result = store.result_fields(client.get(keys.result(match_id)))
    names = [p["bot"] for p in result["players"]]
    assert "ann-teller" in names and set(names) <= set(owner_of)
    header = json_lines(store.replay_text(client, match_id) or "")[0]
    assert [p["bot"] for p in header["players"]] == names


@pytest.mark.e2e
def test_a_ladder_of_three_accounts_never_seats_one_persons_bots_together_and_tells_no_names(
    client: Any, redis_url: str, tmp_path: Path
) -> None:
    owner_of = three_accounts(client, tmp_path)
    env = environment(tmp_path)
    refused = run_arena(
        "ladder", "ninjan", "--bots", "ann-teller,ann-greedy,bob-greedy,bob-random", "--players", "3",
        "--matches", "3", "--workers", "0", "--redis", redis_url, env=env,
    )  # fmt: skip
    assert refused.returncode != 0 and client.xlen(keys.JOBS_STREAM) == 0
    assert (
        refused.stderr.count("\n") == 1
        and f"arena: error: {RULE}: ann-teller and ann-greedy" in refused.stderr
    )
    proc = run_arena(
        "ladder", "ninjan", "--bots", ",".join(owner_of), "--players", "3", "--matches", "15", "--seed", "2",
        "--workers", "1", "--deadline-ms", "10000", "--redis", redis_url, env=env, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert NEVER_MEET in proc.stderr.splitlines()
    matches = recorded(client)
    assert len(matches) == 15 and all("-ladder-" in m["match_id"] for m in matches)
    check_apart(matches, owner_of)
    assert any("ann-teller" in {p["bot"] for p in m["players"]} for m in matches)
    check_told_seats_only(tmp_path, matches, owner_of)


@pytest.mark.e2e
def test_a_local_match_is_not_rated_and_tells_the_names(tmp_path: Path) -> None:
    """The control: the same bot, told the names where a match is not rated (``arena match``)."""
    replays = tmp_path / "replays"
    proc = run_arena("match", "ninjan", str(TELLER), "random", "--replay-dir", str(replays), "--json")
    assert proc.returncode == 0, proc.stderr
    told = reports_in_logs(replays, "TOLD")
    assert [r["at"] for r in told] == ["start", "result"]
    assert all(r["players"] == ["teller", "random"] for r in told), told
    assert told[0]["match_id"] == json_lines(proc.stdout)[0]["match_id"], "and the match's own id"


@pytest.mark.e2e
def test_through_the_accounts_api_a_tournament_and_a_ladder_keep_each_accounts_bots_apart(
    client: Any, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three participants make accounts and enter bots with their account tokens through the server's
    API; the organiser starts a tournament and a ladder there; a real worker plays them. Every
    recorded match seats at most one bot of each account."""
    from arena.queue.worker import Worker, WorkerConfig

    monkeypatch.setenv("ARENA_SEED_KEY", SEED_KEY_ENV["ARENA_SEED_KEY"])
    organiser = {"Authorization": f"Bearer {ORGANISER}"}
    entered = {"ann-1": "ann", "ann-2": "ann", "bob-1": "bob", "bob-2": "bob", "cat-1": "cat"}
    bots = [*entered, "random"]
    worker = Worker(client, WorkerConfig(redis_url, block=timedelta(milliseconds=200)), say=lambda _: None)
    with server(client, redis_url, tmp_path, accounts_per_hour=100) as api:
        tokens = {}
        for account in ("ann", "bob", "cat"):
            made = api.post(f"/api/v1/accounts/{account}")
            assert made.status_code == 201, made.text
            tokens[account] = made.json()["token"]
        for n, (bot, account) in enumerate(entered.items()):
            builtin = ("greedy", "random")[n % 2]
            bearer = {"Authorization": f"Bearer {tokens[account]}"}
            answer = api.post(
                f"/api/v1/bots/{bot}", params={"games": "ninjan", "builtin": builtin}, headers=bearer
            )
            assert answer.status_code == 201, answer.text
        assert owners(client, bots) == {**entered, "random": None}, (
            "the account API stores each bot's account"
        )
        body = {"game": "ninjan", "bots": bots, "players": 3, "seed": 3}
        created = api.post("/api/v1/tournaments", json=body, headers=organiser)
        assert created.status_code == 201 and created.json()["matches"] == 12 * 3, created.text
        started = api.post("/api/v1/ladders", json={**body, "ahead": 2}, headers=organiser)
        assert started.status_code == 201, started.text
        ladder = started.json()["id"]
        assert worker.run(max_jobs=36 + 10) == 46  # the tournament and ten of the ladder's, in any order
        stopped = api.delete(f"/api/v1/ladders/{ladder}", headers=organiser)
        assert stopped.status_code == 200, stopped.text
    worker.run(burst=True)  # the ladder's matches still queued when it stopped
    matches = recorded(client)
    from_ladder = [m for m in matches if m["match_id"].startswith(ladder)]
    assert len(matches) - len(from_ladder) == 36 and len(from_ladder) >= 10
    assert int(client.hget(keys.tournament(ladder), "total")) == len(from_ladder)
    check_apart(matches, {**entered, "random": None})
