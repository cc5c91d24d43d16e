#!/usr/bin/env bash
# Builds the Go starter bot from proto/ with Debian's packaged Go gRPC libraries, in GOPATH mode (no
# module download): generates the Go code of the contract into a work folder outside OUT, then compiles
# OUT/bot, a static binary (CGO off) stripped of its symbol tables (-ldflags "-s -w"), that runs in the
# sandbox and on any worker. OUT holds the binary and nothing else, so a submission is
# --dir OUT --entry ./bot.
#   bots/go/build.sh [OUT]     OUT defaults to bots/go/build; then: arena match ninjan OUT/bot random
# ARENA_PROTO=DIR reads the contract from DIR (default: the repository's proto/), for a copy of this
# folder kept outside the repository. ARENA_GO_WORK=DIR keeps the generated code in DIR/gopath (default:
# a temporary folder, removed at the end). ARENA_GO_DEBUG=1 keeps the symbol tables (for a debugger).
# Needs: apt-get install golang-go golang-google-grpc-dev golang-google-protobuf-dev protobuf-compiler
#        protoc-gen-go protoc-gen-go-grpc golang-github-golang-protobuf-1-5-dev (scripts/install-go-kit)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
proto=${ARENA_PROTO:-$here/../../proto}
system_gopath=${ARENA_SYSTEM_GOPATH:-/usr/share/gocode}
for tool in go protoc protoc-gen-go protoc-gen-go-grpc; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "bots/go: $tool is missing; run scripts/install-go-kit (Debian's Go, protoc and gRPC packages)" >&2
    exit 1
  }
done
mkdir -p "${1:-$here/build}"
out=$(cd "${1:-$here/build}" && pwd)
if [[ -n ${ARENA_GO_WORK:-} ]]; then
  mkdir -p "$ARENA_GO_WORK"
  work=$(cd "$ARENA_GO_WORK" && pwd)
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/arena-go-bot.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi
case "$work/" in "$out"/*) echo "bots/go: ARENA_GO_WORK must be outside OUT ($out)" >&2; exit 2 ;; esac

# The generated code is never committed: it is made here, from proto/, by the installed plugins.
gopath=$work/gopath
rm -rf "$gopath" "$out/gopath"  # (an OUT/gopath is what older versions of this script left there)
mkdir -p "$gopath/src"
protoc -I "$proto" --go_out="$gopath/src" --go-grpc_out="$gopath/src" "$proto"/arena/v1/*.proto

ldflags="-s -w"  # no symbol table, no DWARF: about 30% smaller
[[ ${ARENA_GO_DEBUG:-} == 1 ]] && ldflags=""
cd "$here"
GO111MODULE=off GOPATH="$gopath:$system_gopath" CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$out/bot" .
echo "bots/go: built $out/bot ($(du -h "$out/bot" | cut -f1), static); try: arena match ninjan $out/bot random" >&2
