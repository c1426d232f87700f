"""R7.1 (amended) on the real stack (manual clock): checks join the player's trail, a jump is flagged with the trail
as evidence while the claim is accepted, an honest retry is not flagged, and the organizer clears a flag (logged once)
or acts on it (R28)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import psycopg
import pytest

from tests.support.client import Player, move_clock, verified_player
from tests.support.stackfix import running_stack
from turfwar.stack import Stack

T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN = (40.7440, -74.0320)
NEWARK = (40.7357, -74.1724)    # ~12 km west


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    # the other limits at their defaults; checks at 3 a minute per player (no test below needs more)
    with running_stack(tmp_path_factory.mktemp("trail"), TURF_RATE_LIMITS="checks_player=3/60") as s:
        yield s


def flags_of(org: Player, p: Player) -> list[dict[str, Any]]:
    r = org.get("/admin/flags")
    assert r.status_code == 200, r.text
    return [f for f in r.json()["flags"] if f["player_id"] == p.id]


def test_r7_1_a_check_joins_the_trail_and_a_claim_far_from_it_is_accepted_and_flagged(
        http: httpx.Client, org: Player) -> None:
    move_clock(org, T0)
    p = verified_player(http, org)
    r = p.claim(*HOBOKEN, T0, check=True)
    assert r.status_code == 200 and r.json()["allowed"] is True
    assert flags_of(org, p) == []
    move_clock(org, T0 + timedelta(minutes=1))
    r = p.claim(*NEWARK, T0 + timedelta(minutes=1))
    assert r.status_code == 201, r.text                # a flag never refuses (R7.1)
    (flag,) = flags_of(org, p)
    # API.md's shape, kept, with the review state added
    assert {"id", "at", "player_id", "claim_id", "kind", "evidence"} <= set(flag)
    assert (flag["kind"], flag["claim_id"], flag["state"], flag["cleared"]) == \
        ("impossible_travel", r.json()["claim_id"], "open", None)
    ev = flag["evidence"]
    assert ev["from"]["lat"] == HOBOKEN[0] and ev["to"]["lat"] == NEWARK[0]
    assert ev["seconds"] == 60 and ev["speed_kmh"] > 600 and ev["max_travel_kmh"] == 200
    (leg,) = ev["trail"]                               # the map-free summary: from, to, km, minutes, km/h
    assert set(leg) == {"from", "to", "km", "minutes", "kmh"} and leg["minutes"] == 1.0 and 11 < leg["km"] < 13
    assert leg["from"]["received_at"] and leg["to"]["fix_time"]

    # the honest retry: the very same fix sent again from a phone that did not move is not flagged
    body = {"lat": NEWARK[0], "lon": NEWARK[1], "accuracy_m": 8.0,
            "fix_time": (T0 + timedelta(minutes=1) - timedelta(seconds=3)).isoformat()}
    again = p.post("/claims", body)
    assert again.status_code == 409 and again.json()["reason"] == "no_claims_left"
    assert p.post("/claims/check", body).status_code == 200
    assert len(flags_of(org, p)) == 1


def test_r7_1_the_organizer_clears_a_flag_once_and_it_is_logged(http: httpx.Client, org: Player,
                                                                 stack: Stack) -> None:
    p = verified_player(http, org)
    now = datetime.fromisoformat(org.get("/clock").json()["now"])
    assert p.claim(*HOBOKEN, now, check=True).status_code == 200
    assert p.claim(*NEWARK, now, check=True).status_code == 200      # a check that jumps is flagged too
    (flag,) = flags_of(org, p)
    assert flag["claim_id"] is None and flag["kind"] == "impossible_travel"

    assert p.post(f"/admin/flags/{flag['id']}/clear", {"reason": "x"}).status_code == 403
    anon = http.post(f"/api/v1/admin/flags/{flag['id']}/clear", json={"reason": "x"})
    assert (anon.status_code, anon.json()["reason"]) == (401, "unauthenticated")
    r = org.post(f"/admin/flags/{flag['id']}/clear", {"reason": "a check from the organizer's briefing map"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["id"] == flag["id"] and out["state"] == "cleared"
    assert out["cleared"]["by"] == org.id and out["cleared"]["reason"] == "a check from the organizer's briefing map"
    assert datetime.fromisoformat(out["cleared"]["at"]) == now            # the game clock's time
    again = org.post(f"/admin/flags/{flag['id']}/clear", {"reason": "twice"})
    assert again.status_code == 200 and again.json()["cleared"] == out["cleared"]
    (listed,) = flags_of(org, p)
    assert listed["state"] == "cleared" and listed["cleared"] == out["cleared"]
    with psycopg.connect(stack.env["TURF_DATABASE_URL"]) as conn:
        logged = conn.execute("SELECT count(*), min(by), min(reason) FROM gateway.admin_log "
                              "WHERE action = 'flag_cleared' AND target = %s", (flag["id"],)).fetchone()
    assert logged == (1, org.id, "a check from the organizer's briefing map")

    missing = org.post("/admin/flags/nope/clear", {"reason": ""})
    assert (missing.status_code, missing.json()["reason"]) == (404, "not_found")
    bad = org.post(f"/admin/flags/{flag['id']}/clear", {"reason": "x", "extra": 1})
    assert (bad.status_code, bad.json()["reason"]) == (422, "invalid_input")


def test_r7_1_r28_the_organizer_acts_on_a_flag_by_reversing_its_claim(http: httpx.Client, org: Player) -> None:
    p = verified_player(http, org)
    now = datetime.fromisoformat(org.get("/clock").json()["now"])
    jersey_city = (40.7178, -74.0431)
    assert p.claim(*NEWARK, now, check=True).status_code == 200
    claim = p.claim(*jersey_city, now)
    assert claim.status_code == 201, claim.text
    (flag,) = flags_of(org, p)
    assert flag["claim_id"] == claim.json()["claim_id"]
    r = org.post("/admin/corrections", {"action": "reverse_claim", "claim_id": flag["claim_id"],
                                        "reason": "teleported from Newark"})
    assert r.status_code == 201 and r.json()["after"]["owner_id"] is None, r.text
    assert org.post(f"/admin/flags/{flag['id']}/clear", {"reason": "claim reversed"}).status_code == 200
    assert flags_of(org, p)[0]["state"] == "cleared"


def test_r7_1_checks_are_rate_limited_per_player_with_retry_after(http: httpx.Client, org: Player) -> None:
    p, q = verified_player(http, org), verified_player(http, org)
    now = datetime.fromisoformat(org.get("/clock").json()["now"])
    assert [p.claim(*HOBOKEN, now, check=True).status_code for _ in range(3)] == [200, 200, 200]
    r = p.claim(*HOBOKEN, now, check=True)
    assert (r.status_code, r.json()["reason"]) == (429, "rate_limited") and 1 <= int(r.headers["Retry-After"]) <= 61
    assert q.claim(*HOBOKEN, now, check=True).status_code == 200      # per player: another is not refused


def test_r7_1_repeats_of_a_flag_are_one_flag_with_a_count(http: httpx.Client, org: Player) -> None:
    """A flood of checks made one ~1 kB flag per fix until claims.flags outgrew the NATS payload: repeats of one
    player's flag at the same place are one flag, with how many times and when first (``at``) and last seen."""
    p = verified_player(http, org)
    now = datetime.fromisoformat(org.get("/clock").json()["now"])
    assert [p.claim(*HOBOKEN, now, accuracy_m=0.0, check=True).status_code for _ in range(3)] == [200] * 3
    (flag,) = flags_of(org, p)
    assert {"id", "at", "player_id", "claim_id", "kind", "evidence"} <= set(flag)     # API.md's fields, kept
    assert (flag["kind"], flag["claim_id"], flag["count"], flag["state"]) == ("zero_accuracy", None, 3, "open")
    assert datetime.fromisoformat(flag["last_at"]) == datetime.fromisoformat(flag["at"]) == now
    assert flag["evidence"]["at"]["lat"] == HOBOKEN[0]
