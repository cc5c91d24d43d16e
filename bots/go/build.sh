#!/usr/bin/env bash
# Builds the Go starter bot from proto/ with Debian's packaged Go gRPC libraries, in GOPATH mode (no
# module download): generates the Go code of the contract into OUT/gopath, then compiles OUT/bot, a
# static binary (CGO off) that runs in the sandbox and can be submitted as it is.
#   bots/go/build.sh [OUT]     OUT defaults to bots/go/build; then: arena match ninjan OUT/bot random
# ARENA_PROTO=DIR reads the contract from DIR (default: the repository's proto/), for a copy of this
# folder kept outside the repository.
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

# The generated code is never committed: it is made here, from proto/, by the installed plugins.
gopath=$out/gopath
rm -rf "$gopath"
mkdir -p "$gopath/src"
protoc -I "$proto" --go_out="$gopath/src" --go-grpc_out="$gopath/src" "$proto"/arena/v1/*.proto

cd "$here"
GO111MODULE=off GOPATH="$gopath:$system_gopath" CGO_ENABLED=0 go build -o "$out/bot" .
echo "bots/go: built $out/bot; try: arena match ninjan $out/bot random" >&2
