# The arena image: the `arena` command with its dependencies, for the server and worker services of
# compose.yaml (and one-off commands: docker compose run --rm worker arena tournament status ...).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 XDG_STATE_HOME=/var/lib/arena
# bubblewrap: every bot (and every build command) runs in its sandbox (arena/referee/sandbox.py);
# compose.yaml lets it make its namespaces.
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml README.md ./
COPY arena ./arena
COPY leaderboard ./leaderboard
RUN pip install --no-cache-dir . && useradd --create-home --home-dir /home/arena arena \
    && mkdir -p /var/lib/arena/replays && chown -R arena /var/lib/arena
USER arena
WORKDIR /home/arena
EXPOSE 8080
CMD ["arena", "--help"]
