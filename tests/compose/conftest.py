"""The compose stack test runs only under scripts/test-compose, which starts the Docker daemon it
needs (ARENA_COMPOSE_RUN names that run's folder); the ordinary suite does not collect it."""

import os

collect_ignore_glob = [] if os.environ.get("ARENA_COMPOSE_RUN") else ["test_*.py"]
