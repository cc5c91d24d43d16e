"""The generation commands of bots/README.md work as written: each is read from the README and run
into a fresh folder, its files must appear, and where it is cheap the code is compiled (Go with the
packaged gRPC-Go, C++ to syntax against Debian's headers, TypeScript with tsc where installed).

A language whose generator is not installed is skipped, saying what to install; scripts/test installs
the Go toolchain (scripts/install-go-kit), the Node example's packages come from scripts/setup.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena import protogen
from tests.conftest import REPO

README = REPO / "bots" / "README.md"
NODE_BIN = REPO / "bots" / "node" / "node_modules" / ".bin"
STEMS = [p.stem for p in protogen.proto_files()]  # arena, ninja_burger, ninja_master, ninjan, pnrz
SYSTEM_GOPATH = Path("/usr/share/gocode")


def documented_command(language: str) -> str:
    """Returns the first ```sh block of the README's '### <language>' section."""
    section = README.read_text().split(f"\n### {language}\n", 1)[1].split("\n#", 1)[0]
    return section.split("```sh\n", 1)[1].split("```", 1)[0]


def generate(language: str, out: Path) -> list[str]:
    """Runs the README's command for ``language`` from the repository's root with OUT=``out``;
    returns the files written, relative to ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"  # `python` is the venv's
    proc = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", documented_command(language)],
        cwd=REPO,
        env={**os.environ, "OUT": str(out), "PATH": path},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, f"the README's {language} command failed:\n{proc.stderr}"
    return sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())


def need(*tools: str) -> None:
    """Skips the test, naming what is missing, unless every tool is on PATH."""
    missing = [t for t in tools if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")


def test_python(tmp_path: Path) -> None:
    pytest.importorskip("grpc_tools", reason="grpcio-tools is a dev dependency: pip install -e '.[dev]'")
    files = generate("Python", tmp_path)
    suffixes = protogen.GENERATED_SUFFIXES
    assert files == sorted(f"arena/v1/{stem}{suffix}" for stem in STEMS for suffix in suffixes)
    for name in files:
        if name.endswith(".py"):
            compile((tmp_path / name).read_text(), name, "exec")


def test_go_generates_and_builds_in_gopath_mode(tmp_path: Path) -> None:
    need("go", "protoc", "protoc-gen-go", "protoc-gen-go-grpc")
    package = "github.com/arena/arena/gen/go/arenav1"
    files = generate("Go", tmp_path / "src")
    assert files == sorted([f"{package}/arena_grpc.pb.go", *(f"{package}/{stem}.pb.go" for stem in STEMS)])
    # CGO off as bots/go/build.sh builds: the two share Go's build cache, so the libraries compile once.
    gopath = f"{tmp_path}{os.pathsep}{SYSTEM_GOPATH}"
    env = {**os.environ, "GO111MODULE": "off", "GOPATH": gopath, "CGO_ENABLED": "0"}
    proc = subprocess.run(["go", "build", package], env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


def test_cpp_generates_and_compiles_against_the_packaged_headers(tmp_path: Path) -> None:
    need("protoc", "grpc_cpp_plugin")
    files = generate("C++", tmp_path)
    kinds = (".pb.h", ".pb.cc", ".grpc.pb.h", ".grpc.pb.cc")
    assert files == sorted(f"arena/v1/{stem}{kind}" for stem in STEMS for kind in kinds)
    need("g++", "pkg-config")
    flags = subprocess.run(["pkg-config", "--cflags", "grpc++", "protobuf"], capture_output=True, text=True)
    if flags.returncode != 0:
        pytest.skip("the gRPC C++ headers are not installed (apt-get install libgrpc++-dev)")
    # The service's file includes every message header: one file checks them all, in seconds.
    command = ["g++", "-std=c++17", "-fsyntax-only", f"-I{tmp_path}", *flags.stdout.split()]
    proc = subprocess.run(
        [*command, str(tmp_path / "arena/v1/arena.grpc.pb.cc")], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr


@pytest.fixture()
def typescript(tmp_path: Path) -> Path:
    """Returns the folder of the README's TypeScript types, generated with the Node example's tools."""
    if not (NODE_BIN / "proto-loader-gen-types").exists():
        pytest.skip("the Node example's packages are not installed: npm install --prefix bots/node")
    files = generate("TypeScript", tmp_path)
    assert "arena.ts" in files
    assert {"arena/v1/Referee.ts", "arena/v1/DecisionRequest.ts", "arena/v1/PnrzObservation.ts"} <= set(files)
    return tmp_path


def test_typescript_types_generate(typescript: Path) -> None:
    assert "RefereeClient" in (typescript / "arena/v1/Referee.ts").read_text()


def test_typescript_types_compile(typescript: Path) -> None:
    tsc = shutil.which("tsc") or str(NODE_BIN / "tsc")
    if not Path(tsc).exists():
        pytest.skip("no TypeScript compiler (tsc) on PATH or in bots/node: npm install -g typescript")
    (typescript / "node_modules").symlink_to(NODE_BIN.parent)  # @grpc/grpc-js's own types
    sources = [str(p.relative_to(typescript)) for p in typescript.rglob("*.ts")]
    options = ["--noEmit", "--strict", "--skipLibCheck", "--target", "es2020", "--module", "commonjs"]
    proc = subprocess.run(
        [tsc, *options, "--moduleResolution", "node", *sources],
        cwd=typescript,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_java_and_csharp_code_lands_where_the_options_say(tmp_path: Path) -> None:
    """protoc's own generators (no registry needed) honour java_package, java_multiple_files and
    csharp_namespace; the gRPC stubs of these languages need plugins from their registries."""
    need("protoc")
    proto = REPO / "proto"
    java, csharp = tmp_path / "java", tmp_path / "csharp"
    java.mkdir()
    csharp.mkdir()
    sources = [str(p.relative_to(proto)) for p in protogen.proto_files()]
    command = ["protoc", f"-I{proto}", f"--java_out={java}", f"--csharp_out={csharp}"]
    subprocess.run([*command, *sources], cwd=proto, check=True, timeout=60)
    package = java / "com" / "arena" / "v1"
    assert (package / "ArenaProto.java").is_file() and (package / "DecisionRequest.java").is_file()
    assert "namespace Arena.V1 {" in (csharp / "Arena.cs").read_text()
