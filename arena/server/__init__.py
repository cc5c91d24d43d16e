"""``arena server``: the platform's one authenticated door.

A participant never gets a Redis password. They talk to this web service, which checks who they are
and what they send before anything is stored, and only the server and the workers touch Redis:

- ``app``: composes the JSON API (``/api/v1/...``) and the read-only leaderboard app into one ASGI app.
- ``http``: JSON errors (``{"error": "..."}`` with the right status), request bodies read under a size
  limit while they stream, bearer credentials.
- ``ratelimit``: a token bucket per client address in front of every write (429 with Retry-After).
- ``auth``: the organiser token, kept only as a salted scrypt hash; owners' secrets are checked against
  their stored hashes (``arena.submissions.registry``).
- ``routes_bots`` and ``routes_tournaments``: the handlers, thin over ``arena.queue``.
- ``routes_ladders``: ladders the organiser starts, fed by ``arena.schedule.ladder_runner``.
"""
