"""The pages' Content-Security-Policy names this deployment's own websocket and tile hosts only, and the spectator
socket takes a page's ``Origin`` only with the gateway's exact scheme and port.

Threats: ``connect-src ws: wss:`` and ``img-src https:`` let a script injected into a page send a player's token
to any host (a websocket or an image URL); and the socket's Origin check took any port or scheme of an allowed
name, so another program on the organizer's machine (``http://localhost:3000``) could open it as a page of ours."""

from __future__ import annotations

import httpx
import pytest

from turf_common.settings import Settings
from turf_gateway.api.middleware.security import content_security_policy, origin_allowed, tile_source
from turf_gateway.main import create_app

HOSTS = ["127.0.0.1", "localhost", "turf.example.org", "*.turf.example.org"]


def _directives(csp: bytes) -> dict[str, list[str]]:
    return {d.split()[0]: d.split()[1:] for d in csp.decode().split("; ")}


def test_the_csp_connects_to_this_gateway_and_its_own_websocket_only() -> None:
    d = _directives(content_security_policy("turf.example.org", secure=True))
    assert d["connect-src"] == ["'self'", "wss://turf.example.org"]
    assert d["img-src"] == ["'self'", "data:"]
    d = _directives(content_security_policy("127.0.0.1:8000", secure=False))
    assert d["connect-src"] == ["'self'", "ws://127.0.0.1:8000"]


def test_the_csp_names_the_deployments_tile_host_only() -> None:
    assert tile_source("https://{s}.tile.example.org/{z}/{x}/{y}.png") == "https://*.tile.example.org"
    assert tile_source("") is None and tile_source("javascript:alert(1)") is None
    d = _directives(content_security_policy("turf.example.org", True, "https://tiles.example.net/{z}/{x}/{y}.png"))
    assert d["img-src"] == ["'self'", "data:", "https://tiles.example.net"]


async def test_turf_tiles_url_reaches_the_pages_config_and_the_csp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TURF_TILES_URL", "https://tile.openstreetmap.org/{z}/{x}/{y}.png")
    monkeypatch.setenv("TURF_TILES_ATTRIBUTION", "© OpenStreetMap contributors")
    app = create_app(Settings(allowed_hosts="turf.example.org"))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="https://turf.example.org") as h:
        r = await h.get("/pages/config.json")
    assert r.json()["tile_url"] == "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    assert r.json()["tile_attribution"] == "© OpenStreetMap contributors"
    assert _directives(r.headers["content-security-policy"].encode())["img-src"] == [
        "'self'", "data:", "https://tile.openstreetmap.org"]


def test_without_turf_tiles_url_the_pages_get_no_base_map(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("TURF_TILES_URL", "TURF_TILE_URL", "TURF_TILES_ATTRIBUTION", "TURF_TILE_ATTRIBUTION"):
        monkeypatch.delenv(name, raising=False)
    assert (Settings().tile_url, Settings().tile_attribution) == ("", "")
    monkeypatch.setenv("TURF_TILE_URL", "https://tiles.example.net/{z}/{x}/{y}.png")   # the older name still works
    assert Settings().tile_url == "https://tiles.example.net/{z}/{x}/{y}.png"


@pytest.mark.parametrize("host", ["evil.example; script-src *", "a b", "x\r\ny"])
def test_a_host_header_that_is_not_a_name_never_reaches_the_csp(host: str) -> None:
    d = _directives(content_security_policy(host, secure=True))
    assert d["connect-src"] == ["'self'"] and "script-src" not in d


async def test_every_page_answer_carries_the_narrow_csp() -> None:
    app = create_app(Settings(allowed_hosts="turf.example.org", tile_url="https://tiles.example.net/{z}/{x}/{y}.png"))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="https://turf.example.org") as h:
        r = await h.get("/watch")
    d = _directives(r.headers["content-security-policy"].encode())
    assert d["connect-src"] == ["'self'", "wss://turf.example.org"]
    assert d["img-src"] == ["'self'", "data:", "https://tiles.example.net"]


@pytest.mark.parametrize(("origin", "host", "scheme", "taken"), [
    ("http://127.0.0.1:8000", "127.0.0.1:8000", "ws", True),
    ("http://localhost:8000", "127.0.0.1:8000", "ws", True),       # another allowed name, same scheme and port
    ("http://127.0.0.1:3000", "127.0.0.1:8000", "ws", False),      # another program on the same machine
    ("http://localhost:3000", "127.0.0.1:8000", "ws", False),
    ("https://127.0.0.1:8000", "127.0.0.1:8000", "ws", False),     # another scheme
    ("https://turf.example.org", "turf.example.org", "wss", True),
    ("https://turf.example.org:443", "turf.example.org", "wss", True),   # the default port written out
    ("http://turf.example.org", "turf.example.org", "wss", False),
    ("https://turf.example.org:8443", "turf.example.org", "wss", False),
    ("https://eu.turf.example.org", "turf.example.org", "wss", True),
    ("https://eu.turf.example.org:444", "turf.example.org", "wss", False),
])
def test_the_spectator_socket_takes_a_page_of_the_exact_scheme_and_port_only(
        origin: str, host: str, scheme: str, taken: bool) -> None:
    assert origin_allowed(origin, host, HOSTS, [], scheme) is taken
