"""An organizer's action answers once the service that owns its effect has applied it, so the very next
read through the API shows it (R27, R28): a disqualification frees the player's territories before its 200, a
correction moves ownership before its 201, a verification lets the player claim at once, a rejection stops them."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

import httpx
import nats

from tests.support.client import Player, leaderboard_ids, move_clock, register, sign_in, verified_player
from turf_common.bus import server_list
from turfwar.stack import Stack

T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN = (40.7440, -74.0320)
JERSEY_CITY = (40.7280, -74.0770)
HOBOKEN_ID, JERSEY_CITY_ID = "3401732250", "3401736000"


@contextmanager
def events_held(stack: Stack, *consumers: str) -> Iterator[None]:
    """The services' durable ``consumers`` take no event while the body runs (JetStream's consumer pause, NATS
    2.11): whatever the body reads can come only from the requests the gateway made, not from the events."""
    async def pause(until: datetime) -> None:
        nc = await nats.connect(servers=server_list(stack.env["TURF_NATS_URL"]))
        try:
            stamp = until.isoformat().replace("+00:00", "Z")
            for consumer in consumers:
                await nc.jetstream().pause_consumer(stack.env["TURF_STREAM"], consumer, stamp)
        finally:
            await nc.close()

    asyncio.run(pause(datetime.now(UTC) + timedelta(minutes=2)))
    try:
        yield
    finally:
        asyncio.run(pause(datetime.now(UTC) - timedelta(seconds=1)))


def owner(http: httpx.Client, tid: str) -> str | None:
    r = http.get(f"/api/v1/territories/{tid}")
    assert r.status_code == 200, r.text
    return r.json()["owner_id"]  # type: ignore[no-any-return]


def test_r28_a_disqualification_and_a_correction_show_in_the_next_read(stack: Stack, http: httpx.Client,
                                                                         org: Player) -> None:
    move_clock(org, T0)
    a, b = verified_player(http, org, "Ada"), verified_player(http, org, "Bo")
    for p, (lat, lon), tid in ((a, HOBOKEN, HOBOKEN_ID), (b, JERSEY_CITY, JERSEY_CITY_ID)):
        assert p.claim(lat, lon, T0).status_code == 201
        assert owner(http, tid) == p.id

    assert {a.id, b.id} <= leaderboard_ids(http, lambda ids: {a.id, b.id} <= ids)

    # R28: the 200 comes once claims has freed the territories and scoring has dropped the player, not when the
    # event reaches them later
    with events_held(stack, "claims", "scoring"):
        r = org.post(f"/admin/players/{a.id}/disqualify", {"reason": "GPS spoofing"})
        assert r.status_code == 200 and r.json() == {"id": a.id, "status": "disqualified"}, r.text
        assert owner(http, HOBOKEN_ID) is None
        assert a.id not in leaderboard_ids(http, timeout=0) and b.id in leaderboard_ids(http, timeout=0)
        # a repeat answers the same, and asks claims again under the same event id: nothing is freed twice
        assert org.post(f"/admin/players/{a.id}/disqualify", {"reason": "again"}).status_code == 200
        assert owner(http, HOBOKEN_ID) is None and owner(http, JERSEY_CITY_ID) == b.id

    # R28: a correction's 201 comes once claims has moved the territory
    r = org.post("/admin/corrections", {"action": "set_owner", "territory_id": HOBOKEN_ID, "player_id": b.id,
                                        "reason": "returned by the organizer"})
    assert r.status_code == 201, r.text
    assert owner(http, HOBOKEN_ID) == b.id


def test_r27_a_verification_lets_the_player_claim_at_once_and_a_rejection_stops_them(
        stack: Stack, http: httpx.Client, org: Player) -> None:
    move_clock(org, T0)
    pid, email, pw = register(http, "Cy")
    p = sign_in(http, email, pw)
    assert p.get("/me").json()["status"] == "pending"
    with events_held(stack, "scoring"):   # R25: in the standings (at 0) when the verification answers
        assert org.post(f"/admin/players/{pid}/verify", {"reason": "checked by hand"}).status_code == 200
        assert pid in leaderboard_ids(http, timeout=0)
    assert http.get(f"/api/v1/players/{pid}").json()["status"] == "verified"
    assert p.claim(*JERSEY_CITY, T0, check=True).json()["reason"] != "not_eligible"

    qid, email, pw = register(http, "Di")
    q = sign_in(http, email, pw)
    assert q.get("/me").json()["status"] == "pending"   # the session cache now holds the pending status
    assert org.post(f"/admin/players/{qid}/reject", {"reason": "outside the area"}).status_code == 200
    assert http.get(f"/api/v1/players/{qid}").json()["status"] == "rejected"
    r = q.claim(*JERSEY_CITY, T0)
    assert r.status_code == 409 and r.json()["reason"] == "not_eligible", r.text
