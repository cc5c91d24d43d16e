"""Branching from a replay: a new match that starts at step K of a recorded game (``arena match --from
REPLAY --step K``), so a bot's author can replay the moment a game was lost with a new version.

The position is reached the only way a game moves: the recorded decisions of steps 0..K-1 are re-run
through the engine (``replay.recorded_steps``, each checked against the action its line names), from
the recorded seed. Nothing about the engine is new. The branch's replay has the same seed and starts
with the same lines for those steps (decisions and public events), so ``arena replay`` verifies it like
any other; its header names where it branched from (``"from": {"match_id", "step"}``). The recorded
strikes and forfeits are not carried over: the new bots start with none.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from arena.games.base import Game
from arena.games.play import Driver, Step
from arena.referee.replay import ReplayError, opening, read_lines, recorded_steps


@dataclasses.dataclass(frozen=True)
class Branch:
    """A recorded game's position before decision step ``step``, and the steps that led to it."""

    game: Game
    seed: int
    source: str  # the recorded match's id
    step: int
    state: Any  # the position where step ``step`` is to be decided
    history: tuple[Step, ...]  # the recorded steps before it, re-run through the engine
    players: int

    def origin(self) -> dict[str, Any]:
        """Returns the replay header's ``from`` field: the match branched from and the step."""
        return {"match_id": self.source, "step": self.step}

    def driver(self) -> Driver:
        """Returns a driver at the branch's position, its next step numbered ``step``."""
        driver = Driver(self.game, self.state)
        driver.step = self.step
        return driver


def branch(lines: list[dict[str, Any]], step: int) -> Branch:
    """Returns the position of a replay's lines before decision step ``step``; raises ReplayError
    when the replay does not re-run or its game ended before that step."""
    header, game = opening(lines)
    players = len(header["players"])
    driver = Driver(game, game.initial_state(players, header["seed"]))
    history: list[Step] = []
    if step > 0:
        for played in recorded_steps(game, driver, lines):
            history.append(played)
            if driver.step >= step:
                break
    if driver.step < step or driver.turn() is None:
        last = driver.step - 1 if driver.turn() is None else driver.step
        raise ReplayError(
            f"the recorded game has no step {step} to play: give --step from 0 to {max(last, 0)}"
        )
    source = str(header.get("match_id", ""))
    return Branch(game, header["seed"], source, step, driver.state, tuple(history), players)


def branch_file(path: Path, step: int) -> Branch:
    """Returns the position before step ``step`` of the replay file ``path``; raises ReplayError."""
    try:
        return branch(read_lines(path), step)
    except ReplayError as exc:
        message = str(exc)
        raise ReplayError(message if message.startswith(str(path)) else f"{path}: {message}") from None
