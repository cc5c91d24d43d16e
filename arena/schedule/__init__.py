"""Scheduling: which matches are played, and when to stop.

- ``plan``: tournament plans (round robin, gauntlet) with their match ids and keyed seeds.
- ``tournaments``: creating a tournament and reading its progress, standings and results, shared by the
  server and the single-machine CLI.
- ``ladder``: a ladder that keeps the queue fed with the matches that teach the ranking most.
- ``ladder_runner``: ladders the organiser starts on the server, fed by threads of the server process.
- ``regression``: a new version against the one it replaces until an SPRT decides.

Everything here queues jobs through ``arena.queue.jobs``; none of it plays a match.
"""
