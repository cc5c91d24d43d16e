# The arena image: the `arena` command with its dependencies, for the server and worker services of
# compose.yaml, and the runtimes of every language the project ships a bot kit for, so that a hosted
# worker runs Python, Node.js and Go bots (and static binaries, the C++ kit's recipe).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 XDG_STATE_HOME=/var/lib/arena
# bubblewrap: every bot and every build command runs in its sandbox (arena/referee/sandbox.py);
# compose.yaml lets it make its namespaces. nodejs: Node.js bots (bots/node: they bring their own
# node_modules). Go from Debian's packages in GOPATH mode, as bots/go/build.sh builds: the toolchain,
# protoc with its Go plugins and the gRPC-Go libraries, for `arena bots submit ... --build "go build
# -o bot ."` (the build has no network, so nothing is downloaded; see the Go settings below).
RUN apt-get update && apt-get install -y --no-install-recommends \
        bubblewrap nodejs \
        golang-go protobuf-compiler protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev \
        golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev \
    && rm -rf /var/lib/apt/lists/*
# The Go code of the wire contract, generated once here from proto/ into a GOPATH that bots' builds
# read (it lives under /usr, which every sandbox sees read-only): a Go bot imports
# github.com/arena/arena/gen/go/arenav1 as bots/go does, and ships only its own files.
ENV ARENA_GOPATH=/usr/local/share/arena/gopath
COPY proto /usr/local/share/arena/proto
RUN mkdir -p "$ARENA_GOPATH/src" \
    && protoc -I /usr/local/share/arena/proto --go_out="$ARENA_GOPATH/src" \
        --go-grpc_out="$ARENA_GOPATH/src" /usr/local/share/arena/proto/arena/v1/*.proto
# Go's settings for builds, which arena.submissions.build hands to every build command (and only
# these: docs/security.md): GOPATH mode over the contract's code and Debian's libraries, static
# binaries (no C compiler in the image), no network.
ENV GO111MODULE=off GOPATH=/usr/local/share/arena/gopath:/usr/share/gocode CGO_ENABLED=0 GOPROXY=off
WORKDIR /src
COPY pyproject.toml README.md ./
COPY arena ./arena
COPY leaderboard ./leaderboard
# Two users of their own, in one group (gid 10000): the server (10001) and the workers (10002), so a
# bot (mapped to the worker's uid) shares no uid with the server or with the host's users, and each
# worker's per-user process count is its own. The group reads the secrets both need (README) and
# the replays the workers write; /var/lib/arena (the bot cache) is the workers' alone.
RUN pip install --no-cache-dir . \
    && groupadd --gid 10000 arena \
    && useradd --uid 10001 --gid 10000 --no-create-home --home-dir /nonexistent arena-server \
    && useradd --uid 10002 --gid 10000 --no-create-home --home-dir /nonexistent arena-worker \
    && mkdir -p /var/lib/arena/replays \
    && chown 10002:10000 /var/lib/arena && chmod 0750 /var/lib/arena \
    && chown 10002:10000 /var/lib/arena/replays && chmod 2775 /var/lib/arena/replays
USER arena-server
WORKDIR /tmp
EXPOSE 8080
CMD ["arena", "--help"]
