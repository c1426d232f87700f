"""R28 organizer corrections through the gateway's real route, without servers: the owning service is a fake
subscriber on FastStream's TestNatsBroker, the log the memory CorrectionLog (turf_gateway.testing), and waiting for
the bus to go idle would hang. A correction answers once its record is logged, never after the consumers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import httpx
import pytest
from faststream.nats import TestNatsBroker

import turf_common.bus
from turf_common.bus import make_broker
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal
from turf_common.contracts.claims import CorrectOwnership, OwnershipCorrected, TerritoryStateOut
from turf_common.rules import gametime
from turf_common.settings import Settings
from turf_gateway.adapters.correction_store import view
from turf_gateway.adapters.services import NatsServices
from turf_gateway.adapters.session_cache import SessionCache
from turf_gateway.api import deps
from turf_gateway.bootstrap import Adapters, wire
from turf_gateway.main import create_app
from turf_gateway.testing import MemoryCorrectionLog, NoFeedStream, NoKeys, NoLimits, NoPlayers

NOW = datetime.fromisoformat("2026-10-06T09:00:00-04:00")
ORG = deps.Caller(id="org", role="organizer", status="verified", display_name="organizer")


class FixedClock:
    async def now(self) -> datetime:
        return NOW


class Relay:
    def __init__(self) -> None:
        self.flushes = 0

    async def flush(self) -> int:
        self.flushes += 1
        return 0


class Board:
    territories = {"hoboken": object()}


@pytest.fixture
def never_idle(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Waiting for the consumers would hang (nobody consumes here): every call is recorded, then blocks."""
    calls: list[str] = []

    async def hang(*_: Any, **__: Any) -> None:
        calls.append("wait_idle")
        await asyncio.Event().wait()

    monkeypatch.setattr(turf_common.bus, "wait_idle", hang)
    monkeypatch.setattr(turf_common.bus, "consumers_idle", hang)   # also under a wait_idle imported by name
    yield calls


@asynccontextmanager
async def gateway(
        claims_reply: Any) -> AsyncIterator[tuple[httpx.AsyncClient, MemoryCorrectionLog, list[CorrectOwnership]]]:
    """The gateway app on fakes, its organizer signed in; ``claims.correct`` answered by ``claims_reply(cmd)``."""
    broker = make_broker("nats://test", "gateway")
    asked: list[CorrectOwnership] = []

    @broker.subscriber(subjects.CLAIMS_CORRECT, queue="claims")
    async def correct(cmd: CorrectOwnership) -> OwnershipCorrected | Refusal:
        asked.append(cmd)
        return claims_reply(cmd)  # type: ignore[no-any-return]

    app = create_app(Settings())
    season = gametime.load_season()
    log = MemoryCorrectionLog(tz=season.tz)   # records in the season's zone, as the SQL log is made
    app.state.turf = wire(Settings(), Board(), season, Adapters(  # type: ignore[arg-type]
        services=NatsServices(broker), players=NoPlayers(), sessions=None, corrections=log,  # type: ignore[arg-type]
        clearances=None, revocations=None, keys=NoKeys(), limiter=NoLimits(), geocoder=None,  # type: ignore[arg-type]
        clock=FixedClock(), relay=Relay(), idle=lambda: turf_common.bus.wait_idle(broker, "TURF"),
        feed_log=None, feed_stream=NoFeedStream(), tokens=None), SessionCache())  # type: ignore[arg-type]
    app.dependency_overrides[deps.organizer] = lambda: ORG
    async with TestNatsBroker(broker):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
            yield http, log, asked


def corrected(cmd: CorrectOwnership) -> OwnershipCorrected:
    tid = cmd.territory_id or "hoboken"
    return OwnershipCorrected(command_id=cmd.command_id, territory_id=tid,
                              before=TerritoryStateOut(id=tid, owner_id="ada", progress=1, fortified=False),
                              after=TerritoryStateOut(id=tid, owner_id=cmd.player_id, progress=0, fortified=False))


SET_OWNER = {"action": "set_owner", "territory_id": "hoboken", "player_id": None, "reason": "GPS outage"}


async def test_r28_a_correction_answers_once_logged_without_waiting_for_the_consumers(never_idle: list[str]) -> None:
    async with gateway(corrected) as (http, log, asked):
        r = await asyncio.wait_for(http.post("/api/v1/admin/corrections", json=SET_OWNER), timeout=10)
    assert r.status_code == 201, r.text
    assert never_idle == []
    rec = r.json()
    [stored] = await log.records()
    assert rec == view(stored, log.tz) and rec["action"] == "set_owner" and rec["by"] == "org"
    assert rec["before"] == {"id": "hoboken", "owner_id": "ada", "progress": 1, "fortified": False}
    assert rec["after"] == {"id": "hoboken", "owner_id": None, "progress": 0, "fortified": False}
    assert [c.command_id for c in asked] == [rec["id"]]   # the service applies it under the logged id


async def test_r28_a_repeated_idempotency_key_answers_the_first_record_and_asks_once(never_idle: list[str]) -> None:
    async with gateway(corrected) as (http, log, asked):
        key = {"Idempotency-Key": "k-1"}
        first = await http.post("/api/v1/admin/corrections", json=SET_OWNER, headers=key)
        again = await http.post("/api/v1/admin/corrections", json=SET_OWNER, headers=key)
        other = await http.post("/api/v1/admin/corrections", json=SET_OWNER, headers={"Idempotency-Key": "k-2"})
    assert first.status_code == again.status_code == other.status_code == 201
    assert again.json() == first.json() and other.json()["id"] != first.json()["id"]
    assert len(asked) == 2 and len(log.t.corrections) == 2


async def test_r28_a_repeated_idempotency_key_with_another_body_is_refused_422(
        never_idle: list[str]) -> None:
    """The first record answers only the request it was made for; before, a repeated key with another
    body (another territory, another reason) silently got the first correction's record."""
    async with gateway(corrected) as (http, log, asked):
        key = {"Idempotency-Key": "k-9"}
        first = await http.post("/api/v1/admin/corrections", json=SET_OWNER, headers=key)
        for other in (SET_OWNER | {"reason": "another reason"}, SET_OWNER | {"player_id": "bob"},
                      SET_OWNER | {"note": "private"}):
            r = await http.post("/api/v1/admin/corrections", json=other, headers=key)
            assert (r.status_code, r.json()["reason"]) == (422, "invalid_input"), r.text
        same = await http.post("/api/v1/admin/corrections", json=dict(reversed(SET_OWNER.items())), headers=key)
    assert first.status_code == 201 and same.json() == first.json()   # key order is no other body
    assert len(asked) == 1 and len(log.t.corrections) == 1


async def test_r28_a_refused_correction_is_the_api_error_with_its_code_and_logs_nothing(never_idle: list[str]) -> None:
    def refuse(cmd: CorrectOwnership) -> Refusal:
        return Refusal(reason="conflict", message="That claim was already undone (correction).")

    async with gateway(refuse) as (http, log, asked):
        body = {"action": "reverse_claim", "claim_id": "c1", "reason": "teleport"}
        key = {"Idempotency-Key": "k-3"}
        r = await http.post("/api/v1/admin/corrections", json=body, headers=key)
        again = await http.post("/api/v1/admin/corrections", json=body, headers=key)
    assert (r.status_code, r.json()["reason"]) == (409, "conflict")
    assert again.json() == r.json() and len(asked) == 1 and log.t.corrections == []


async def test_a_territory_off_the_board_is_not_found_before_anything_is_recorded(never_idle: list[str]) -> None:
    async with gateway(corrected) as (http, log, asked):
        r = await http.post("/api/v1/admin/corrections", json=SET_OWNER | {"territory_id": "atlantis"})
    assert (r.status_code, r.json()["reason"]) == (404, "not_found")
    assert log.t.requests == {} and asked == []


async def test_no_request_is_held_while_the_service_is_asked(never_idle: list[str]) -> None:
    """The correction's request is settled in a short transaction after the service answered, never held
    (a database row lock, here the fake's lock) while the service is asked; two concurrent repeats of one key both
    ask (the service applies a command id once) and get the one record."""
    held: list[bool] = []
    log_ref: list[MemoryCorrectionLog] = []

    def observe(cmd: CorrectOwnership) -> OwnershipCorrected:
        held.append(log_ref[0].holding())
        return corrected(cmd)

    async with gateway(observe) as (http, log, asked):
        log_ref.append(log)
        key = {"Idempotency-Key": "k-28"}
        a, b = await asyncio.gather(*(http.post("/api/v1/admin/corrections", json=SET_OWNER, headers=key)
                                      for _ in range(2)))
    assert a.status_code == b.status_code == 201 and a.json() == b.json()
    assert held and not any(held)
    assert len(log.t.corrections) == 1 and {c.command_id for c in asked} == {a.json()["id"]}


async def test_r28_the_organizer_log_has_the_note_and_the_public_one_leaves_out_what_it_did_not_name(
        never_idle: list[str]) -> None:
    """R28: GET /admin/corrections has the request (the private note), before and after; GET /corrections what,
    where, who and why only, a territory or player the correction did not name left out rather than null."""
    async with gateway(corrected) as (http, _, _):
        made = (await http.post("/api/v1/admin/corrections", json=SET_OWNER | {"note": "ask Ada"})).json()
        admin = (await http.get("/api/v1/admin/corrections")).json()
        public = (await http.get("/api/v1/corrections")).json()
    assert admin == {"corrections": [made | {"note": "ask Ada", "territory_id": "hoboken", "player_id": None,
                                             "request": {"action": "set_owner", "territory_id": "hoboken",
                                                         "reason": "GPS outage", "note": "ask Ada", "add": [],
                                                         "remove": []}}]}
    assert public == {"corrections": [{"id": made["id"], "at": made["at"], "action": "set_owner",
                                       "territory_id": "hoboken", "reason": "GPS outage"}]}
