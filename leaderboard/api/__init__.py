"""The JSON API under ``/api/v1``, the platform's one public contract (docs/api.md).

A participant never gets a Redis password. They talk to this web service (``arena server``), which
checks who they are and what they send before anything is stored, and only the server and the workers
touch Redis:

- ``reads``: what the pages draw (games, leaderboards, a bot's page, head to head, matches, replays),
  open to all and never writing.
- ``accounts``, ``bots``, ``tournaments``, ``ladders``: the platform's state, thin over ``arena.queue``,
  ``arena.submissions`` and ``arena.schedule``; every write needs a credential (creating an account
  excepted, which has a rate of its own).
- ``auth``: the organiser token, kept only as a salted scrypt hash; accounts' tokens and owners' secrets
  are checked against their stored hashes (``arena.submissions.accounts``, ``arena.submissions.registry``).
- ``ratelimit``: a token bucket per client address in front of every write (429 with Retry-After).
- ``redirects``: the unversioned read API's old paths, answered for one release with a redirect to
  their ``/api/v1`` homes.

The errors, bodies, credentials and pages they share are ``leaderboard.http``'s; ``leaderboard.app``
puts every route in one app.
"""
