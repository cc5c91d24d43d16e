"""The shipped test harness (as PettingZoo ships ``pettingzoo.test.api_test``): what arena's own tests
and benchmarks use to play and check games, importable by anyone writing a game or a bot.

A game author checks a new engine against the contract every arena game keeps::

    from arena.testing import check_game, check_secrecy
    check_game(my_game)       # seeded random playouts; every step against the engine contract
    check_secrecy(my_game)    # matches through the real referee loop: no seat is sent a secret

Each raises an AssertionError (``ConformanceError``, ``SecrecyError``) at the first failure, whose
message names the game, the player count, the seed and the step, so the failure replays with
``random_playout(my_game, players, seed)``. On a real game:

>>> from arena.games import get_game
>>> from arena.testing import check_game, random_playout
>>> check_game(get_game("ninjan"), seeds=range(2), players=2).playouts
2
>>> state, actions = next(random_playout(get_game("ninjan"), 2, seed=7))
>>> sorted(actions)
[0, 1]

``check_game`` takes the seeds and player counts to play, how many of the seeds get the costlier
checks (``fully_checked``), the game's own rules checks (``invariants``: ``check_step(before, state)``
and ``check_end(state)``), and ``wire=False`` for a game whose messages are not in proto/arena/v1 yet
(``check_secrecy`` needs them: it plays through the referee). The checks one by one are in
``arena.testing.conformance`` and ``arena.testing.secrecy``; ``check_state_secrecy(game, state)`` checks
one state's views.

Also here, for tests and benchmarks:

- ``random_playout``, ``replay_of_random_game`` (``replay_of_game`` with any chooser), ``play_bots``:
  seeded games played in-process (random policies, or SDK bot instances; bench/builtin_ladder.py
  regenerates the stored ladders with ``play_bots``);
- ``RedisServer``, ``free_port``: a private redis-server on a free loopback port (never 6379);
- ``arena.testing.legacy``: what older releases wrote to Redis, for the migration's tests.

Nothing here imports pytest.
"""

from __future__ import annotations

from arena.testing.conformance import Checked, ConformanceError, check_game
from arena.testing.playouts import play_bots, random_playout, replay_of_game, replay_of_random_game, walk
from arena.testing.redis_server import RedisServer, free_port
from arena.testing.secrecy import SecrecyError, check_secrecy, check_state_secrecy

__all__ = [
    "Checked",
    "ConformanceError",
    "RedisServer",
    "SecrecyError",
    "check_game",
    "check_secrecy",
    "check_state_secrecy",
    "free_port",
    "play_bots",
    "random_playout",
    "replay_of_game",
    "replay_of_random_game",
    "walk",
]
