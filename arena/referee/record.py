"""A match's record: its outcome as reported and stored, and how it is made from a finished game.

One module for the record and its JSON (``arena match --json``, the stored result, the replay's
result line), so the referee, the replay and the queue all read and write the same fields.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any

from arena.games.base import Game, Termination, ranks_from_scores
from arena.results import PlayerResult


def sole_winner(ranked: Iterable[tuple[str, int]]) -> str | None:
    """Returns the bot ranked first alone among (bot, rank) pairs, or None for a shared first place."""
    firsts = [bot for bot, rank in ranked if rank == 1]
    return firsts[0] if len(firsts) == 1 else None


@dataclasses.dataclass(frozen=True)
class MatchRecord:
    """The outcome of a match, as recorded and reported."""

    match_id: str
    game: str
    seed: int
    players: tuple[PlayerResult, ...]
    termination: Termination
    steps: int
    absent: tuple[int, ...] = ()  # seats whose bot never connected (not part of the JSON)

    @property
    def winner(self) -> str | None:
        """Returns the bot ranked first alone, or None for a shared first place."""
        return sole_winner((p.bot, p.rank) for p in self.players)

    def to_json(self) -> dict[str, Any]:
        """Returns the record as reported: the fields of ``arena match --json`` and of stored results."""
        return {
            "game": self.game,
            "match_id": self.match_id,
            "seed": self.seed,
            "players": [
                {"bot": p.bot, "seat": p.seat, "score": p.score, "rank": p.rank, "forfeit": p.forfeit}
                | {"strikes": p.strikes}
                for p in self.players
            ],
            "winner": self.winner,
            "termination": self.termination,
            "steps": self.steps,
        }


def final_record(
    game: Game,
    state: Any,
    match_id: str,
    seed: int,
    bots: Sequence[str],
    forfeits: Sequence[bool],
    strikes: Sequence[int],
    steps: int,
) -> MatchRecord:
    """Returns the record of a finished game: the engine's scores, forfeited seats ranked last."""
    scores = game.scores(state)
    ranks = final_ranks(game.ranks(state), forfeits)
    players = tuple(
        PlayerResult(seat, bot, int(scores[seat]), ranks[seat], forfeits[seat], strikes[seat])
        for seat, bot in enumerate(bots)
    )
    return MatchRecord(match_id, game.spec.name, seed, players, game.termination(state), steps)


def final_ranks(engine_ranks: Sequence[int], forfeits: Sequence[bool]) -> tuple[int, ...]:
    """Returns ranks with forfeited seats last (sharing that rank), the others by the engine's ranks.

    >>> final_ranks([1, 2, 2], [True, False, False])
    (3, 1, 1)
    """
    keys = [
        rank if not forfeit else float("inf") for rank, forfeit in zip(engine_ranks, forfeits, strict=True)
    ]
    return ranks_from_scores([-k for k in keys])
