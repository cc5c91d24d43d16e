"""The wire contract: generated code is fresh, and the server speaks health and reflection."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from arena import _protogen
from arena.referee.leases import LeaseRegistry
from arena.referee.server import SERVICE_NAME, start_server

GENERATED = Path(_protogen.__file__).parent / "v1"


def test_generated_code_matches_the_proto(tmp_path: Path) -> None:
    pytest.importorskip("grpc_tools", reason="grpcio-tools is a dev dependency: pip install -e '.[dev]'")
    fresh = {p.name: p.read_bytes() for p in _protogen.generate(tmp_path)}
    committed = {
        p.name: p.read_bytes() for p in GENERATED.iterdir() if p.name.endswith(_protogen.GENERATED_SUFFIXES)
    }
    assert sorted(fresh) == sorted(committed), "generated files differ: run scripts/gen_proto"
    stale = [name for name in fresh if fresh[name] != committed[name]]
    assert not stale, f"{stale} are stale against proto/: run scripts/gen_proto and commit the result"


def test_health_and_reflection_are_served() -> None:
    async def scenario() -> tuple[int, list[str]]:
        server, port = await start_server(LeaseRegistry())
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = await health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=SERVICE_NAME)
            )
            stream = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(
                iter([reflection_pb2.ServerReflectionRequest(list_services="")])
            )
            services = [s.name async for r in stream for s in r.list_services_response.service]
        await server.stop(None)
        return health.status, services

    status, services = asyncio.run(scenario())
    assert status == health_pb2.HealthCheckResponse.SERVING
    assert "arena.v1.Referee" in services and "grpc.health.v1.Health" in services
