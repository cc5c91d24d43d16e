"""How a seat finished a match: shared by the referee (records, replays) and the SDK (what bots get)."""

from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class PlayerResult:
    seat: int
    bot: str
    score: int
    rank: int  # 1 is best; equal scores share a rank; forfeited seats rank last
    forfeit: bool
    strikes: int
