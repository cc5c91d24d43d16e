#!/usr/bin/env bash
# Builds the C++ starter bot from proto/ with Debian's packaged gRPC C++ libraries: generates the C++
# code of the contract with protoc and grpc_cpp_plugin into a work folder outside OUT, compiles it with
# bot.cc and links OUT/bot STATICALLY (-static, the libraries' .a archives), then strips it. The
# binary needs no shared library, so it runs in the sandbox (which shows a bot only /usr and its own
# folder) and on any worker; OUT holds nothing else, so a submission is --dir OUT --entry ./bot.
#   bots/cpp/build.sh [OUT]    OUT defaults to bots/cpp/build; then: arena match ninjan OUT/bot random
# ARENA_PROTO=DIR reads the contract from DIR (default: the repository's proto/), for a copy of this
# folder kept outside the repository. ARENA_CPP_WORK=DIR keeps the generated code and the objects in
# DIR (default: a temporary folder, removed at the end). ARENA_CPP_JOBS=N compiles N files at once (2).
# Needs: apt-get install g++ protobuf-compiler protobuf-compiler-grpc libgrpc++-dev libprotobuf-dev
#        (scripts/install-go-kit installs the gRPC ones; libprotobuf-dev comes as protoc's Recommends)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
proto=${ARENA_PROTO:-$here/../../proto}
jobs=${ARENA_CPP_JOBS:-2}
for tool in g++ pkg-config protoc grpc_cpp_plugin strip; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "bots/cpp: $tool is missing; run scripts/install-go-kit (or apt-get install g++ protobuf-compiler protobuf-compiler-grpc libgrpc++-dev libprotobuf-dev)" >&2
    exit 1
  }
done
# grpc++_unsecure: the bot speaks plaintext to a local referee, so it links no TLS (a smaller binary).
libs=(grpc++_unsecure protobuf)
pkg-config --exists "${libs[@]}" || {
  echo "bots/cpp: pkg-config finds no ${libs[*]}; apt-get install libgrpc++-dev libprotobuf-dev" >&2
  exit 1
}
mkdir -p "${1:-$here/build}"
out=$(cd "${1:-$here/build}" && pwd)
if [[ -n ${ARENA_CPP_WORK:-} ]]; then
  mkdir -p "$ARENA_CPP_WORK"
  work=$(cd "$ARENA_CPP_WORK" && pwd)
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/arena-cpp-bot.XXXXXX")
  trap 'rm -rf "$work"' EXIT
fi

# The generated code is never committed: it is made here, from proto/, by the installed plugins.
gen=$work/gen
rm -rf "$gen" "$work/obj"
mkdir -p "$gen" "$work/obj"
protoc -I "$proto" --cpp_out="$gen" --grpc_out="$gen" \
  --plugin=protoc-gen-grpc="$(command -v grpc_cpp_plugin)" "$proto"/arena/v1/*.proto

cflags=$(pkg-config --cflags "${libs[@]}")
export gen work cflags
printf '%s\n' "$here/bot.cc" "$gen"/arena/v1/*.cc | xargs -P "$jobs" -I{} sh -c \
  'g++ -std=c++17 -O2 -pthread -I"$gen" $cflags -c "$1" -o "$work/obj/$(basename "$1" .cc).o"' sh {}

# Static: every library from its .a archive. pkg-config --static lists grpc's dependencies; the ones
# Debian's grpc_unsecure.pc leaves out (upb, re2, c-ares, address_sorting) follow explicitly.
# glibc warns that getaddrinfo & co. in a static binary load NSS modules at run time: harmless here
# (a unix:// or numeric address resolves without them), so those notes are dropped, and only them.
if ! g++ -static -pthread -o "$out/bot" "$work"/obj/*.o \
  $(pkg-config --static --libs "${libs[@]}") -lupb -lre2 -lcares -laddress_sorting -lz -lrt -ldl \
  2>"$work/link.log"; then
  cat "$work/link.log" >&2
  exit 1
fi
grep -v -e 'statically linked applications requires at runtime' -e ': in function ' "$work/link.log" >&2 || true
strip "$out/bot"
echo "bots/cpp: built $out/bot ($(du -h "$out/bot" | cut -f1), static); try: arena match ninjan $out/bot random" >&2
