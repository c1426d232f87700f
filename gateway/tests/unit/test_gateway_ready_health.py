"""``/ready`` and ``/health`` typed, the readiness checks an adapter of their own (no connection in the
app state): each server's round trip or the error's type, 503 ``unavailable`` naming the servers down."""

from __future__ import annotations

from types import SimpleNamespace

import httpx

from turf_common.settings import Settings
from turf_gateway.adapters.readiness import Readiness
from turf_gateway.main import create_app


async def _up() -> None:
    return None


async def _refused() -> None:
    raise ConnectionRefusedError("127.0.0.1:5432")


async def _ask(checks: dict[str, object]) -> httpx.Response:
    app = create_app(Settings())
    app.state.turf = SimpleNamespace(readiness=Readiness(checks))  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        return await http.get("/ready")


async def test_ready_names_each_server_up_with_its_round_trip() -> None:
    r = await _ask({"nats": _up, "postgres": _up, "redis": _up})
    assert r.status_code == 200
    body = r.json()
    assert body["ok"] is True and set(body["checks"]) == {"nats", "postgres", "redis"}
    assert all(set(c) == {"ok", "ms"} and c["ok"] is True and c["ms"] >= 0 for c in body["checks"].values())


async def test_ready_is_503_unavailable_naming_the_server_down_and_never_its_address() -> None:
    r = await _ask({"nats": _up, "postgres": _refused})
    assert (r.status_code, r.json()["reason"], r.json()["message"]) == (
        503, "unavailable", "This gateway cannot reach postgres.")
    assert r.json()["checks"]["postgres"] == {"ok": False, "error": "ConnectionRefusedError"}
    assert "5432" not in r.text


async def test_health_says_the_process_runs() -> None:
    app = create_app(Settings())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        r = await http.get("/health")
    assert (r.status_code, r.json()) == (200, {"ok": True})
