"""The leaderboard web app: a small read-only ASGI app over the tournament data in Redis.

``leaderboard.data`` reads what the queue recorded (results, ratings, replays) through
``arena.queue.store`` and ``arena.ratings``; ``leaderboard.frames`` re-runs a replay into per-step
tables a viewer can draw; ``leaderboard.app`` serves both as a JSON API and the HTML pages (with our
own CSS and JavaScript in ``leaderboard/static``) that use it. Nothing here writes to Redis.
"""
