"""Generates the Python code for the wire contract in proto/ (run by scripts/gen_proto).

The generated modules live in arena/v1/ so that their own imports (``from arena.v1 import ...``)
resolve inside this package. tests/test_proto.py regenerates them into a temporary folder and fails
when the committed files differ, so the code can never drift from the .proto.
"""

from __future__ import annotations

import sys
from pathlib import Path

PROTO_ROOT = Path(__file__).resolve().parent.parent / "proto"
GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py")


def proto_files() -> list[Path]:
    """Returns every .proto file of the contract, sorted."""
    return sorted((PROTO_ROOT / "arena" / "v1").glob("*.proto"))


def generate(out_root: Path) -> list[Path]:
    """Runs protoc into ``out_root`` (files land in out_root/arena/v1) and returns the files written."""
    from grpc_tools import protoc  # dev dependency: only needed to regenerate

    out_root.mkdir(parents=True, exist_ok=True)
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"--python_out={out_root}",
        f"--pyi_out={out_root}",
        f"--grpc_python_out={out_root}",
        *[str(p.relative_to(PROTO_ROOT)) for p in proto_files()],
    ]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed; see the messages above")
    out = out_root / "arena" / "v1"
    return sorted(p for p in out.iterdir() if p.name.endswith(GENERATED_SUFFIXES))


def main(argv: list[str]) -> int:
    """Regenerates arena/v1 in place."""
    import shutil
    import tempfile

    target = Path(__file__).resolve().parent / "v1"
    with tempfile.TemporaryDirectory() as tmp:
        for path in generate(Path(tmp)):
            shutil.copyfile(path, target / path.name)
            print(f"wrote arena/v1/{path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
