"""Golden replays: seeded playouts of every game, committed under tests/golden/ and compared byte for byte.

    python -m tests.golden           # checks every golden replay (what tests/test_golden.py does)
    python -m tests.golden --update  # rewrites them, after a deliberate change of the rules

A golden game is played in process by a seeded policy (action ``derive(seed, "golden", step, seat)``
out of the legal actions, in the order the engine lists them), so any change to the rules, to the order
of legal actions, to events, scores or the replay format shows as a difference. arena's own version
is left out of the comparison: a version bump alone is not a change of the game.

Beside each replay, ``<case>.digests.jsonl`` holds a digest of every view of the game at every step:
one line per position (the start, then after every step, those where nobody acted included), with the
digest of the public view and of each seat's observation. A replay holds only decisions, so a change
to what a seat or a spectator is shown, that moves no decision, shows only there. A digest is the first
16 hex digits of the SHA-256 of the view's compact JSON (``arena.codec``); the replay file stays a pure
replay, which ``arena replay`` reproduces.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

from arena import codec
from arena.games import GAMES, Game
from arena.games.play import Turn
from arena.games.play import play as play_game
from arena.games.rng import derive
from arena.referee.record import final_record
from arena.referee.replay import ReplayWriter

GOLDEN = Path(__file__).with_name("golden")
SEEDS = (1, 2)


def cases() -> list[tuple[str, int, int]]:
    """Returns (game, players, seed) for each golden replay: the smallest and largest table, two seeds."""
    return [
        (name, players, seed)
        for name, game in sorted(GAMES.items())
        for players in sorted({game.spec.min_players, game.spec.max_players})
        for seed in SEEDS
    ]


def path_of(name: str, players: int, seed: int) -> Path:
    """Returns the path of a golden replay."""
    return GOLDEN / f"{name}-{players}p-seed{seed}.jsonl"


def digests_path_of(name: str, players: int, seed: int) -> Path:
    """Returns the path of the view digests beside a golden replay."""
    return GOLDEN / f"{name}-{players}p-seed{seed}.digests.jsonl"


def digest(value: Any, py_type: Any) -> str:
    """Returns the first 16 hex digits of the SHA-256 of a game object's compact JSON."""
    text = codec.compact_json(codec.to_json(value, py_type))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def views(game: Game, state: Any, position: int) -> str:
    """Returns one line of digests: the position's number, its public view's and each seat's view's."""
    public = game.public_view(state)
    seats = [digest(game.observe(state, s), game.observation_type) for s in range(len(game.scores(state)))]
    return codec.compact_json({"position": position, "public": digest(public, type(public)), "seats": seats})


def playout(game: Game, players: int, seed: int) -> tuple[str, str]:
    """Returns the replay text of the seeded golden playout and the digests of its views."""
    bots = [f"golden{seat}" for seat in range(players)]
    writer = ReplayWriter(ReplayWriter.header(f"golden-{seed}", game.spec.name, seed, bots, 1000, 3))

    def choose(turn: Turn, seat: int) -> int:
        return derive(seed, "golden", turn.step, seat).randrange(len(turn.legal[seat]))

    steps = 0
    state = game.initial_state(players, seed)
    lines = [views(game, state, 0)]
    for step in play_game(game, state, choose):
        writer.step(game, step)
        state, steps = step.state, step.number + (1 if step.decisions else 0)
        lines.append(views(game, state, len(lines)))
    writer.result(
        final_record(game, state, f"golden-{seed}", seed, bots, [False] * players, [0] * players, steps)
    )
    return writer.text(), "".join(line + "\n" for line in lines)


def play(game: Game, players: int, seed: int) -> str:
    """Returns the replay text of the seeded golden playout."""
    return playout(game, players, seed)[0]


def comparable(text: str) -> list[str]:
    """Returns the replay's lines with arena's own version removed from the header (the rules' and
    the generator's versions stay: a change of either is a change of the game)."""
    lines = text.splitlines()
    header = json.loads(lines[0])
    header.get("versions", {}).pop("arena", None)
    return [json.dumps(header, sort_keys=True), *lines[1:]]


def main(argv: list[str]) -> int:
    update = "--update" in argv
    GOLDEN.mkdir(exist_ok=True)
    failed = 0
    for name, players, seed in cases():
        text, views_text = playout(GAMES[name], players, seed)
        path, digests = path_of(name, players, seed), digests_path_of(name, players, seed)
        if update:
            path.write_text(text, encoding="utf-8")
            digests.write_text(views_text, encoding="utf-8")
            print(f"wrote {path} and {digests.name}")
            continue
        if not path.exists() or comparable(path.read_text(encoding="utf-8")) != comparable(text):
            failed += 1
            print(f"differs: {path}")
        if not digests.exists() or digests.read_text(encoding="utf-8") != views_text:
            failed += 1
            print(f"differs: {digests}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
