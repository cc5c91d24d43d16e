"""Ninja Master's encoding: 35 actions (wait, grab one of the 6 components, call 0..27) and the seat's
observation with its tuples capped as below (docs/rl.md lists every column)."""

from __future__ import annotations

from arena.games.ninja_master.engine import COMPONENTS, MAX_CALL, WAIT, Call, Grab
from arena.rl.encoding import Encoding, ordered

MAX_PLAYERS = 5
DICE = 9

ENCODING = Encoding(
    game_name="ninja-master",
    capacities={"dice": DICE, "components": len(COMPONENTS), "players": MAX_PLAYERS},
    actions=ordered(
        "ninja-master",
        [WAIT, *(Grab(component) for component in COMPONENTS), *(Call(n) for n in range(MAX_CALL + 1))],
    ),
)
