"""The match queue on Redis Streams: jobs, workers, and the exactly-once recording of results.

A job is one match (game, seed, seats, deadline) with an id chosen by whoever enqueues it; enqueueing
the same id again is a no-op. Jobs go into one stream read by one consumer group, so any number of
``arena worker`` processes, on any machines, share them. A worker acknowledges a job in the same
transaction that records its result, replay and rating update, guarded by a set of recorded match ids,
so a job that runs twice (its first worker died, or was merely slow) is still counted once. A job left
unacknowledged longer than the idle timeout is claimed again (XAUTOCLAIM); one that failed
``MAX_ATTEMPTS`` times goes to a dead-letter stream with its error.

The package holds only that: ``jobs`` (enqueueing, taking, status), ``worker`` (the loop, dispatching
each job kind through one table), ``keys`` (every Redis key), ``connection`` (which Redis, retries),
``store`` (the one recording transaction) and ``health`` (whether the worker was sound while a match
ran). Submissions, stored replays and schedules have packages of their own (``docs/layout.md``).
"""
