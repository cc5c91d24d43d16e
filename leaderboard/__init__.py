"""The whole web surface: one Starlette app for the pages, the JSON API under ``/api/v1`` (the reads,
and ``arena server``'s writes) and ``arena view`` (docs/api.md). ``arena`` imports it only to start it.

- ``app``: the one app factory (``create_app``; ``server_app``, ``leaderboard_app``, ``view_app``),
  its routes, ``ServerConfig`` and the page shells;
- ``http``: the one error type and its JSON answer, the security headers of every answer, request
  bodies under limits, credentials, paging;
- ``sources``: where matches come from, Redis or ``arena view``'s replay files;
- ``data``: the read-only views of the platform's record in Redis (``arena.queue.store``,
  ``arena.storage.fits``);
- ``frames``: a replay re-run into per-step tables a viewer can draw;
- ``api``: the handlers of ``/api/v1`` (reads, bots, tournaments, ladders) with their credentials,
  rate limit and the old paths' redirects;
- ``browser``: the app in a thread under headless Chromium (``arena screenshots``, browser tests);
- ``static``: the pages' HTML, CSS and JavaScript, the drawing of each game is
  its folder's ``viewer.js`` (``arena/games/<game>/``), served as ``/static/viewers/<game>.js``.
"""
