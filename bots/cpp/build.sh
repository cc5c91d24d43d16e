#!/usr/bin/env bash
# Builds the C++ starter bot from proto/ with Debian's packaged gRPC C++ libraries: generates the C++
# code of the contract with protoc and grpc_cpp_plugin into a work folder outside OUT, compiles it with
# the kit's *.cc files and links OUT/bot STATICALLY (-static, the libraries' .a archives), then strips it. The
# binary needs no shared library, so it runs in the sandbox (which shows a bot only /usr and its own
# folder) and on any worker; OUT holds nothing else, so a submission is --dir OUT --entry ./bot.
#   bots/cpp/build.sh [OUT]    OUT defaults to bots/cpp/build; then: arena match ninjan OUT/bot random
# ARENA_PROTO=DIR reads the contract from DIR (default: the repository's proto/), for a copy of this
# folder kept outside the repository. ARENA_CPP_WORK=DIR keeps the generated code and the objects in
# DIR (default: a temporary folder, removed at the end). ARENA_CPP_JOBS=N compiles N files at once (2).
# ARENA_CPP_DEBUG=1 compiles with -g and leaves the binary unstripped, for a debugger.
# Needs: apt-get install g++ pkg-config protobuf-compiler protobuf-compiler-grpc libgrpc++-dev libprotobuf-dev
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
case "$work/" in "$out"/*) echo "bots/cpp: ARENA_CPP_WORK must be outside OUT ($out)" >&2; exit 2 ;; esac

# The generated code is never committed: it is made here, from proto/, by the installed plugins. A work
# folder kept (ARENA_CPP_WORK) keeps the objects of an unchanged contract and of unchanged sources, so a
# rebuild after editing a strategy file compiles that file only.
gen=$work/gen
debug=""; objs=$work/obj
[[ ${ARENA_CPP_DEBUG:-} == 1 ]] && debug="-g" && objs=$work/obj-debug
rm -rf "$work/gen.new"
mkdir -p "$work/gen.new" "$objs/gen" "$objs/kit"
protoc -I "$proto" --cpp_out="$work/gen.new" --grpc_out="$work/gen.new" \
  --plugin=protoc-gen-grpc="$(command -v grpc_cpp_plugin)" "$proto"/arena/v1/*.proto
if [[ -d $gen ]] && diff -rq "$gen" "$work/gen.new" >/dev/null; then
  rm -rf "$work/gen.new"
else
  rm -rf "$gen" "$work"/obj*/gen/* "$work"/obj*/kit/*
  mv "$work/gen.new" "$gen"
fi

cflags=$(pkg-config --cflags "${libs[@]}")
stale=()  # the sources whose object is missing or older than the source or a header of the kit
for src in "$gen"/arena/v1/*.cc "$here"/*.cc; do
  case $src in "$gen"/*) obj=$objs/gen/$(basename "$src" .cc).o ;; *) obj=$objs/kit/$(basename "$src" .cc).o ;; esac
  if [[ ! -f $obj || $src -nt $obj ]] || { [[ $src == "$here"/* ]] && [[ -n $(find "$here" -maxdepth 1 -name '*.h' -newer "$obj") ]]; }; then
    stale+=("$src:$obj")
  fi
done
rm -f "$objs"/*/*.o.tmp
export gen here cflags debug
if ((${#stale[@]})); then
  printf '%s\n' "${stale[@]}" | xargs -P "$jobs" -I{} sh -c \
    'src=${1%%:*}; obj=${1#*:}
     g++ -std=c++17 -O2 $debug -pthread -I"$gen" -I"$here" $cflags -c "$src" -o "$obj.tmp" && mv "$obj.tmp" "$obj"' sh {}
fi
# An object whose source is gone (a file removed from the kit) is not linked.
for obj in "$objs"/kit/*.o; do
  [[ -f $here/$(basename "$obj" .o).cc ]] || rm -f "$obj"
done

# Static: every library from its .a archive. pkg-config --static lists grpc's dependencies; the ones
# Debian's grpc_unsecure.pc leaves out (upb, re2, c-ares, address_sorting) follow explicitly.
# glibc warns that getaddrinfo & co. in a static binary load NSS modules at run time: harmless here
# (a unix:// or numeric address resolves without them), so those notes are dropped, and only them.
if ! g++ -static -pthread -o "$out/bot" "$objs"/gen/*.o "$objs"/kit/*.o \
  $(pkg-config --static --libs "${libs[@]}") -lupb -lre2 -lcares -laddress_sorting -lz -lrt -ldl \
  2>"$work/link.log"; then
  cat "$work/link.log" >&2
  exit 1
fi
grep -v -e 'statically linked applications requires at runtime' -e ': in function ' "$work/link.log" >&2 || true
[[ -n $debug ]] || strip "$out/bot"
echo "bots/cpp: built $out/bot ($(du -h "$out/bot" | cut -f1), static); try: arena match ninjan $out/bot random" >&2
