"""Private answers at the edge, on the gateway's real app over memory stores: never stored by a cache
(``Cache-Control: no-store``), never compressed (BREACH), and no ``server`` banner; public pages and data keep
their gzip and their own caching.

Threats: ``/me``, ``/me/hand`` and ``/admin/players`` had no Cache-Control, so a shared proxy or browser could keep
a player's address or the organizer's roster; and the app-wide GZip compressed them, so a page that reflects an
attacker's text beside a secret leaks the secret through the compressed size (BREACH)."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from turf_common.board import load_board
from turf_common.contracts import subjects
from turf_common.contracts.claims import PlayerReply
from turf_common.rules import gametime
from turf_common.settings import Settings
from turf_gateway.adapters.session_cache import SessionCache
from turf_gateway.bootstrap import Adapters, wire
from turf_gateway.handlers.tokens import token_hash
from turf_gateway.main import create_app
from turf_gateway.ports import NewPlayer
from turf_gateway.testing import (
    CannedServices,
    MemoryPlayers,
    MemorySessions,
    MemoryTables,
    NoFeedStream,
    NoKeys,
    NoLimits,
)

GZIP = {"Accept-Encoding": "gzip"}


class _Nothing:
    async def revoke(self, **_: object) -> None:
        return None

    async def flush(self) -> int:
        return 0


@pytest.fixture
async def edge() -> AsyncIterator[tuple[httpx.AsyncClient, dict[str, str], dict[str, str]]]:
    """The app, 40 players (a roster over the gzip threshold), a player's and the organizer's bearer headers."""
    tables = MemoryTables()
    players, sessions = MemoryPlayers(tables), MemorySessions(tables)
    ids = [await players.create(NewPlayer(f"Player {i}", f"p{i}@example.org", f"p_{i}", f"{i} Main St, Hoboken",
                                          "hash")) for i in range(40)]

    async def same(_: str) -> bool:
        return True

    await players.ensure_organizer("org@example.org", "hash", same)
    org = (await players.account("org@example.org"))
    assert org is not None
    tokens = {who: secrets.token_urlsafe(16) for who in ("player", "org")}
    until = datetime.now(UTC) + timedelta(hours=1)
    await sessions.create(token_hash(tokens["player"]), ids[0], until)
    await sessions.create(token_hash(tokens["org"]), org.id, until)
    settings = Settings()
    app = create_app(settings)
    n = _Nothing()
    app.state.turf = wire(settings, load_board(), gametime.load_season(), Adapters(  # type: ignore[arg-type]
        services=CannedServices({subjects.CLAIMS_PLAYER: PlayerReply(player_id=ids[0], claims_left_today=1)}),
        players=players, sessions=sessions, corrections=None, clearances=None,  # type: ignore[arg-type]
        revocations=n, keys=NoKeys(), limiter=NoLimits(), geocoder=None, clock=None,  # type: ignore[arg-type]
        relay=n, idle=None, feed_log=None, feed_stream=NoFeedStream(), tokens=None), SessionCache())  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
        yield http, {"Authorization": f"Bearer {tokens['player']}"}, {"Authorization": f"Bearer {tokens['org']}"}


async def test_private_and_organizer_answers_are_never_stored_by_a_cache(
        edge: tuple[httpx.AsyncClient, dict[str, str], dict[str, str]]) -> None:
    http, player, org = edge
    for r in (await http.get("/api/v1/me", headers=player), await http.get("/api/v1/admin/players", headers=org),
              await http.get("/api/v1/me"),   # a 401 of a private path too
              await http.post("/api/v1/sessions", json={"email": "p1@example.org", "password": "wrong one"})):
        assert r.headers.get("cache-control") == "no-store", (r.request.url, r.status_code, r.headers)
    assert (await http.get("/api/v1/me", headers=player)).json()["email"] == "p0@example.org"


async def test_answers_that_carry_secrets_are_never_compressed(
        edge: tuple[httpx.AsyncClient, dict[str, str], dict[str, str]]) -> None:
    http, player, org = edge
    roster = await http.get("/api/v1/admin/players", headers=org | GZIP)
    assert roster.status_code == 200 and len(roster.content) > 2048   # big enough that gzip would have applied
    assert "content-encoding" not in roster.headers
    me = await http.get("/api/v1/me", headers=player | GZIP)
    assert me.status_code == 200 and "content-encoding" not in me.headers


async def test_public_pages_and_data_keep_their_gzip_and_their_caching(
        edge: tuple[httpx.AsyncClient, dict[str, str], dict[str, str]]) -> None:
    http, _, _ = edge
    for path in ("/static/js/play.js", "/openapi.json", "/watch"):
        r = await http.get(path, headers=GZIP)
        assert r.status_code == 200 and r.headers.get("content-encoding") == "gzip", path
        assert r.headers.get("cache-control") != "no-store", path
