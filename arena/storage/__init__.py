"""Storage: what a finished match leaves behind that is kept beyond the queue.

- ``replays``: the replay store (compressed replays, bot logs, think times), out of Redis's memory.
- ``dictionaries``: the zstd dictionaries trained on built-in bots' replays, one per game.
- ``retention``: how long replays are kept, and the sweep that applies it.
- ``migrate``: the one-time move of plain-text replays into the store.
- ``fits``: fitted ratings cached in Redis, refitted once per burst of results. The fit itself is pure
  (``arena.ratings``); this is the stored side of it, so ``arena.ratings`` never touches Redis.

What the recording transaction writes (results, pair tables) is the queue's (``arena.queue.store``).
"""
