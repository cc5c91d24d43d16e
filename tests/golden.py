"""Golden replays: seeded playouts of every game, committed under tests/golden/ and compared byte for byte.

    python -m tests.golden           # checks every golden replay (what tests/test_golden.py does)
    python -m tests.golden --update  # rewrites them, after a deliberate change of the rules

A golden game is played in process by a seeded policy (action ``derive(seed, "golden", step, seat)``
out of the legal actions, in the order the engine lists them), so any change to the rules, to the order
of legal actions, to events, scores or the replay format shows as a difference. arena's own version
is left out of the comparison: a version bump alone is not a change of the game.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

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
    return GOLDEN / f"{name}-{players}p-seed{seed}.jsonl"


def play(game: Game, players: int, seed: int) -> str:
    """Returns the replay text of the seeded golden playout."""
    bots = [f"golden{seat}" for seat in range(players)]
    writer = ReplayWriter(ReplayWriter.header(f"golden-{seed}", game.spec.name, seed, bots, 1000, 3))

    def choose(turn: Turn, seat: int) -> int:
        return derive(seed, "golden", turn.step, seat).randrange(len(turn.legal[seat]))

    steps = 0
    state = game.initial_state(players, seed)
    for step in play_game(game, state, choose):
        writer.step(game, step)
        state, steps = step.state, step.number + (1 if step.decisions else 0)
    writer.result(
        final_record(game, state, f"golden-{seed}", seed, bots, [False] * players, [0] * players, steps)
    )
    return writer.text()


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
        text = play(GAMES[name], players, seed)
        path = path_of(name, players, seed)
        if update:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
        elif not path.exists() or comparable(path.read_text(encoding="utf-8")) != comparable(text):
            failed += 1
            print(f"differs: {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
