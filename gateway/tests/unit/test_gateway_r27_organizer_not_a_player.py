"""R27 (amended) through the gateway's real routes, without servers: the organizer is not a player, so every
player's move (claim, card play, cancelling a schedule, every /trades route) answers the organizer 403
``forbidden`` before any service is asked; ``POST /claims/check``, which changes nothing, stays open (API.md)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from faststream.nats import TestNatsBroker

from turf_common.board import load_board
from turf_common.bus import make_broker
from turf_common.contracts import subjects
from turf_common.settings import Settings
from turf_gateway.adapters.services import NatsServices
from turf_gateway.api import deps
from turf_gateway.handlers.claims import Claims
from turf_gateway.main import create_app
from turf_gateway.testing import NoKeys

ORG = deps.Caller(id="org", role="organizer", status="verified", display_name="organizer")
FIX = {"lat": 40.744, "lon": -74.032, "accuracy_m": 8.0, "fix_time": "2026-10-05T08:59:57-04:00"}

MOVES = [
    ("POST", "/api/v1/claims", FIX),
    ("POST", "/api/v1/cards/play", {"type": "double_trouble"}),
    ("DELETE", "/api/v1/cards/c1/schedule", None),
    ("POST", "/api/v1/trades", {"offer_territory_id": "3401732250", "want_territory_id": "3401736000"}),
    ("POST", "/api/v1/trades/t1/accept", None),
    ("POST", "/api/v1/trades/t1/decline", None),
    ("POST", "/api/v1/trades/t1/withdraw", None),
    ("GET", "/api/v1/trades", None),
]


class Limiter:
    async def hit(self, *_: Any) -> None:
        return None


class State:
    """Just what the routes touch before they would ask a service."""

    settings = Settings()
    limiter = Limiter()
    board = load_board()


@asynccontextmanager
async def gateway(caller: deps.Caller) -> AsyncIterator[tuple[httpx.AsyncClient, list[str]]]:
    """The gateway app with ``caller`` signed in; every command subject a route asks is recorded (and answered
    for claims.check only)."""
    broker = make_broker("nats://test", "gateway")
    asked: list[str] = []

    @broker.subscriber(subjects.CLAIMS_CHECK)
    async def check(cmd: dict[str, Any]) -> dict[str, Any]:
        asked.append(subjects.CLAIMS_CHECK)
        return {"ok": True, "territory": None, "allowed": False, "reason": "not_in_board",
                "message": "That point is outside the board."}

    app = create_app(Settings())
    app.state.turf = State()
    app.state.turf.broker = broker
    app.state.turf.services = NatsServices(broker)
    app.state.turf.claims = Claims(app.state.turf.services, State.limiter, NoKeys())
    app.dependency_overrides[deps.current_player] = lambda: caller
    async with TestNatsBroker(broker):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
            yield http, asked


async def test_r27_every_players_move_answers_the_organizer_403_forbidden_and_asks_no_service() -> None:
    async with gateway(ORG) as (http, asked):
        for method, path, body in MOVES:
            r = await http.request(method, path, json=body)
            assert (r.status_code, r.json()["reason"]) == (403, "forbidden"), (method, path, r.text)
            assert "organizer" in r.json()["message"]
    assert asked == []   # refused before anything was asked (no claim, no card, no trade)


async def test_r27_the_organizer_may_still_check_a_point_which_changes_nothing() -> None:
    async with gateway(ORG) as (http, asked):
        r = await http.post("/api/v1/claims/check", json=FIX)
    assert r.status_code == 200, r.text
    # the gateway asks claims (which has geo-verify locate the fix), and nothing else
    assert r.json()["reason"] == "not_in_board" and asked == [subjects.CLAIMS_CHECK]
