"""The gateway's edges, without servers: Host names (DNS rebinding), /metrics for loopback clients
only, the metrics servers of services on loopback, and the sign-in limiter that counts failures only."""

from __future__ import annotations

import httpx
import pytest

from turf_common.settings import Settings
from turf_gateway.api.middleware.security import host_allowed, host_name
from turf_gateway.main import create_app


def client(app: object, host: str = "testserver", peer: str = "127.0.0.1") -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=(peer, 5000)),   # type: ignore[arg-type]
                             base_url=f"http://{host}")


@pytest.mark.parametrize(("header", "name"), [("127.0.0.1:8000", "127.0.0.1"), ("[::1]:8000", "::1"),
                                              ("LocalHost", "localhost"), ("evil.example:80", "evil.example"),
                                              ("", "")])
def test_host_names_are_read_without_port(header: str, name: str) -> None:
    assert host_name(header) == name


def test_allowed_host_patterns() -> None:
    allowed = ["turfwar.example.org", "*.turfwar.example.org"]
    assert host_allowed("turfwar.example.org", allowed) and host_allowed("eu.turfwar.example.org", allowed)
    assert not host_allowed("turfwar.example.org.evil.example", allowed)
    assert not host_allowed("evilturfwar.example.org", allowed)
    assert host_allowed("anything", ["*"])


async def test_a_foreign_host_is_refused_400_loopback_names_answer() -> None:
    """DNS rebinding: evil.example re-resolved to 127.0.0.1 reaches the gateway with Host: evil.example. Before,
    any Host was served."""
    app = create_app(Settings())
    for host in ("evil.example", "evil.example:8000", "127.0.0.1.nip.io"):
        async with client(app, host) as http:
            r = await http.get("/openapi.json")
            assert (r.status_code, r.json()["reason"]) == (400, "invalid_input"), host
    for host in ("127.0.0.1:8000", "localhost", "[::1]:8000"):
        async with client(app, host) as http:
            assert (await http.get("/openapi.json")).status_code == 200, host
    async with client(create_app(Settings(allowed_hosts="turfwar.example.org")), "turfwar.example.org") as http:
        assert (await http.get("/openapi.json")).status_code == 200


async def test_metrics_answer_loopback_clients_only() -> None:
    app = create_app(Settings())
    async with client(app, peer="127.0.0.1") as http:
        assert (await http.get("/metrics")).status_code == 200
    async with client(app, peer="203.0.113.9") as http:
        r = await http.get("/metrics")
        assert (r.status_code, r.json()["reason"]) == (404, "not_found")


def test_services_metrics_listen_on_loopback_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    from turf_common import metrics

    seen: list[tuple[int, str]] = []
    monkeypatch.setattr(metrics, "start_http_server", lambda port, addr="0.0.0.0": seen.append((port, addr)))
    metrics.serve("claims", 9100, Settings().metrics_host)
    metrics.serve("claims", 9101, Settings(metrics_host="0.0.0.0").metrics_host)
    assert seen == [(9100, "127.0.0.1"), (9101, "0.0.0.0")]
