"""What the Go and C++ starter kits' tests share (tests/test_go_bot.py, tests/test_cpp_bot.py): playing a
kit's built bot in a series of `arena match` (one process for the whole series), counting its sole
first places, and playing it as a submitted bot through a tournament on a local worker.

The kits' default strategies must win at least STRENGTH_SHARE of their games outright against the
built-in `random` bot at 2 seats in every game, over STRENGTH_GAMES seeded games (issue 39, item 11).
The kits' strategies use no randomness and `random` seeds itself from the match id, which comes from
the series seed and the line-up, so a series is the same every run: the figures are in the kits'
READMEs. The tests of this module check the counting itself.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import KIT_GAMES, json_lines, run_arena

KIT = "kit"  # the kit's seat name in every game these tests play
STRENGTH_GAMES = 200
STRENGTH_SEED = 1
STRENGTH_SHARE = 0.6
# Seconds a series of STRENGTH_GAMES may take: under a minute to about two and a half (pnrz) on two idle
# cores, as much again on a busy machine.
STRENGTH_TIMEOUT = 900


def kit_series(
    bot: Path,
    game: str,
    replay_dir: Path,
    *options: str,
    games: int = 1,
    seed: int | None = None,
    opponent: str = "random",
) -> list[dict]:
    """Plays ``games`` games of ``game`` between the kit's built ``bot`` (seat name ``KIT``) and
    ``opponent`` with `arena match` (seats alternating, sandboxed unless ``options`` say otherwise);
    returns the results (`--json`), after checking that every game was played through."""
    args = ["match", game, f"{KIT}:{bot}", opponent, "--games", str(games), "--json"]
    args += ["--replay-dir", str(replay_dir)]
    if seed is not None:
        args += ["--seed", str(seed)]
    proc = run_arena(*args, *options, timeout=STRENGTH_TIMEOUT - 30)
    assert proc.returncode == 0, proc.stderr
    results = [r for r in json_lines(proc.stdout) if "players" in r]  # (a series ends with its summary)
    assert len(results) == games, proc.stderr
    return results


def kit_player(result: dict) -> dict:
    """Returns the kit's player entry of one result."""
    return next(p for p in result["players"] if p["bot"] == KIT)


def sole_first(result: dict) -> bool:
    """Returns whether the kit finished first alone (a shared first place is no win)."""
    me = kit_player(result)
    return me["rank"] == 1 and all(p["rank"] > 1 for p in result["players"] if p is not me)


def clean(results: list[dict]) -> bool:
    """Returns True when the kit never forfeited nor took a strike in ``results``."""
    return all(not kit_player(r)["forfeit"] and kit_player(r)["strikes"] == 0 for r in results)


def check_runs_alone(bot: Path) -> None:
    """Starts the binary in a sandbox holding nothing but its folder (no /usr, no /lib: a machine
    without any library): it starts and says what it misses, as a static binary does on any worker."""
    argv = ["bwrap", "--unshare-all", "--die-with-parent", "--clearenv", "--ro-bind", str(bot.parent), "/bot"]
    argv += ["--chdir", "/bot", "--proc", "/proc", "--dev", "/dev", "/bot/bot"]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "ARENA_ADDRESS" in proc.stderr, proc.stderr


def check_plays(bot: Path, game: str, replay_dir: Path, *options: str) -> None:
    """Plays one game and checks that the kit played it cleanly, its decisions in the replay."""
    (result,) = kit_series(bot, game, replay_dir, *options)
    assert clean([result]), result
    me = kit_player(result)
    replay = json_lines(Path(result["replay"]).read_text())
    assert any(x["type"] == "decision" and x["by"] == "bot" and x["seat"] == me["seat"] for x in replay)


def check_strength(bot: Path, game: str, replay_dir: Path) -> None:
    """Plays STRENGTH_GAMES seeded games against random at 2 seats, sandboxed; checks no strike and at
    least STRENGTH_SHARE sole first places."""
    results = kit_series(bot, game, replay_dir, games=STRENGTH_GAMES, seed=STRENGTH_SEED)
    assert clean(results), [kit_player(r) for r in results if not clean([r])]
    wins = sum(map(sole_first, results))
    assert wins >= STRENGTH_SHARE * STRENGTH_GAMES, f"{game}: first alone in {wins} of {STRENGTH_GAMES} games"


def check_submitted(bot: Path, redis_url: str, client: object, state: Path) -> None:
    """Submits the kit's build folder (the binary alone) as `arena bots submit` does, with no build
    command, then plays each game's round robin against random (2 matches, one per seat) on a local
    worker, sandboxed: every match recorded, the kit never striking nor forfeiting."""
    from arena.queue import keys
    from arena.queue.store import iter_results, result_fields

    assert [p.name for p in bot.parent.iterdir()] == ["bot"]
    env = {"XDG_STATE_HOME": str(state)}
    games = ",".join(KIT_GAMES)
    submit = ["bots", "submit", KIT, "--games", games, "--dir", str(bot.parent), "--entry", "./bot"]
    proc = run_arena(*submit, "--redis", redis_url, env=env)
    assert proc.returncode == 0, proc.stderr
    for game in KIT_GAMES:
        args = [
            "tournament",
            game,
            "--bots",
            f"{KIT},random",
            "--rounds",
            "1",
            "--seed",
            "5",
            "--workers",
            "1",
        ]
        proc = run_arena(*args, "--idle-timeout", "60", "--redis", redis_url, env=env, timeout=600)
        assert proc.returncode == 0, proc.stderr
        matches = [m["match_id"] for m in iter_results(client, game)]  # type: ignore[arg-type]
        results = [result_fields(client.get(keys.result(m))) for m in matches]  # type: ignore[attr-defined]
        assert len(results) == 2, (game, results)
        assert clean(results), (game, results)


# The counting itself ------------------------------------------------------------------------------


def result_of(*ranks: int) -> dict:
    """A result whose first player is the kit, with these ranks by seat."""
    names = [KIT, *(f"other{i}" for i in range(len(ranks) - 1))]
    players = [
        {"bot": n, "rank": r, "forfeit": False, "strikes": 0} for n, r in zip(names, ranks, strict=True)
    ]
    return {"players": players}


@pytest.mark.parametrize(
    ("ranks", "won"),
    [((1, 2), True), ((1, 1), False), ((2, 1), False), ((1, 2, 2), True), ((1, 3, 1), False)],
)
def test_a_win_is_a_first_place_alone(ranks: tuple[int, ...], won: bool) -> None:
    assert sole_first(result_of(*ranks)) is won


def test_a_strike_or_a_forfeit_is_not_clean() -> None:
    ok, struck, forfeited = result_of(1, 2), result_of(1, 2), result_of(2, 1)
    kit_player(struck)["strikes"] = 1
    kit_player(forfeited)["forfeit"] = True
    assert clean([ok]) and not clean([ok, struck]) and not clean([forfeited])
