"""R28 organizer corrections through the public API: applied by the owning service, logged append-only with
before and after, public without personal details, scores recomputed; post-season ones flagged."""

from __future__ import annotations

import csv
import io
import json
import uuid
from datetime import datetime
from typing import Any

import httpx
import psycopg
import pytest

from tests.support.client import Player, move_clock, until, verified_player
from turfwar.stack import Stack

HOBOKEN_ID, JERSEY_CITY_ID = "3401732250", "3401736000"
JERSEY_CITY = (40.7280, -74.0770)
T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


def standing(http: httpx.Client, pid: str, want: Any = lambda s: s is not None) -> dict | None:
    """The player's row of the leaderboard (a read model: waits up to 10 s until ``want`` holds of it)."""
    return until(lambda: next((s for s in http.get("/api/v1/leaderboard").json()["standings"]
                               if s["player_id"] == pid), None), want)  # type: ignore[no-any-return]


def test_r28_set_owner_reverse_claim_adjust_score_and_the_log(http: httpx.Client, org: Player, stack: Stack) -> None:
    move_clock(org, T0)
    a, b = verified_player(http, org, "Ada"), verified_player(http, org, "Bea")
    r = org.post("/admin/corrections", {"action": "set_owner", "territory_id": HOBOKEN_ID, "player_id": a.id,
                                        "reason": "GPS outage at City Hall; claim confirmed by photo"})
    assert r.status_code == 201, r.text
    rec = r.json()
    assert rec["action"] == "set_owner" and rec["by"] == org.id and rec["before"]["owner_id"] is None
    assert rec["after"] == {"id": HOBOKEN_ID, "owner_id": a.id, "progress": 0, "fortified": False}
    assert standing(http, a.id, lambda s: s and s["base"] == 1)["base"] == 1

    claim = b.claim(*JERSEY_CITY, T0)
    assert claim.status_code == 201
    r = org.post("/admin/corrections", {"action": "reverse_claim", "claim_id": claim.json()["claim_id"],
                                        "reason": "teleport flagged"})
    assert r.status_code == 201 and r.json()["after"]["owner_id"] is None, r.text
    assert http.get(f"/api/v1/territories/{JERSEY_CITY_ID}").json()["owner_id"] is None
    again = org.post("/admin/corrections", {"action": "reverse_claim", "claim_id": claim.json()["claim_id"],
                                            "reason": "twice"})
    assert again.status_code == 409 and again.json()["reason"] == "conflict"

    standing(http, b.id, lambda s: s is None or s["base"] == 0)   # the reversal reached the read model
    total = standing(http, a.id)["total"]
    r = org.post("/admin/corrections", {"action": "adjust_score", "player_id": a.id, "points": 5,
                                        "reason": "scoring bug on day 1"})
    assert r.status_code == 201 and r.json()["after"] == {"adjustment": 5}
    assert standing(http, a.id, lambda s: s and s["total"] == total + 5)["total"] == total + 5

    log = org.get("/admin/corrections").json()["corrections"]
    assert [c["action"] for c in log] == ["set_owner", "reverse_claim", "adjust_score"]
    public = http.get("/api/v1/corrections").json()["corrections"]
    assert [c["action"] for c in public] == ["set_owner", "reverse_claim", "adjust_score"]
    assert all(set(c) <= {"id", "at", "action", "territory_id", "player_id", "reason"} for c in public)
    assert "@" not in json.dumps(public)

    with psycopg.connect(stack.env["TURF_DATABASE_URL"]) as conn, pytest.raises(psycopg.errors.RaiseException):
        conn.execute("UPDATE gateway.corrections SET reason = 'rewritten'")


def test_the_claim_log_and_its_streamed_csv_export_list_the_same_claims(http: httpx.Client,
                                                                                org: Player) -> None:
    """On the real stack: ``claims.list`` answers a page at a time, ``GET /admin/claims`` reads its pages
    and ``claims.csv`` streams them; both list the same claims, oldest first, with names."""
    move_clock(org, T0)
    cy = verified_player(http, org, "Cy")
    r = cy.claim(40.7357, -74.1724, T0)   # Newark
    assert r.status_code == 201, r.text
    log = org.get("/admin/claims").json()
    assert log["truncated"] is False and log["claims"][-1]["id"] == r.json()["claim_id"]
    assert (log["claims"][-1]["player_id"], log["claims"][-1]["territory_id"]) == (cy.id, "3401351000")
    export = org.get("/admin/export/claims.csv")
    assert export.status_code == 200 and export.headers["content-type"] == "text/csv; charset=utf-8"
    rows = list(csv.DictReader(io.StringIO(export.text)))
    assert [(x["id"], x["display_name"]) for x in rows] == [(c["id"], c["display_name"]) for c in log["claims"]]
    first = org.get("/admin/claims?limit=1").json()
    assert ([c["id"] for c in first["claims"]], first["truncated"]) == ([log["claims"][0]["id"]],
                                                                        len(log["claims"]) > 1)


def test_r28_bad_corrections_change_nothing(http: httpx.Client, org: Player) -> None:
    p = verified_player(http, org)
    before = org.get("/admin/corrections").json()["corrections"]
    cases = [
        ({"action": "set_owner", "reason": "x"}, 422),                                  # no territory
        ({"action": "adjust_score", "player_id": p.id, "reason": "x"}, 422),             # no points
        ({"action": "explode", "reason": "x"}, 422),
        ({"action": "set_owner", "territory_id": "0000000000", "reason": "x"}, 404),
        ({"action": "reverse_claim", "claim_id": "nope", "reason": "x"}, 404),
        ({"action": "adjust_score", "player_id": "nobody", "points": 1, "reason": "x"}, 404),
        ({"action": "set_owner", "territory_id": HOBOKEN_ID, "player_id": p.id}, 422),  # no reason
    ]
    for body, status in cases:
        r = org.post("/admin/corrections", body)
        assert r.status_code == status, (body, r.text)
    assert p.post("/admin/corrections", {"action": "adjust_score", "player_id": p.id, "points": 9,
                                         "reason": "me"}).status_code == 403
    assert org.get("/admin/corrections").json()["corrections"] == before


def test_r28_post_season_corrections_apply_and_are_flagged(http: httpx.Client, org: Player) -> None:
    a = verified_player(http, org)
    move_clock(org, datetime.fromisoformat("2026-10-25T10:00:00-04:00"))
    r = org.post("/admin/corrections", {"action": "set_owner", "territory_id": JERSEY_CITY_ID, "player_id": a.id,
                                        "reason": "late appeal upheld"})
    assert r.status_code == 201 and r.json()["post_season"] is True
    # the results are a read model: they follow the logged correction without the route waiting for them
    res = until(lambda: http.get("/api/v1/results").json(),
                lambda res: any(s["player_id"] == a.id and s["base"] == 1 for s in res.get("standings", [])))
    assert any(s["player_id"] == a.id and s["base"] == 1 for s in res["standings"])


def test_r28_a_repeated_idempotency_key_applies_and_logs_once(http: httpx.Client, org: Player) -> None:
    a = verified_player(http, org)
    body = {"action": "adjust_score", "player_id": a.id, "points": 3, "reason": "appeal upheld"}
    key = {"Idempotency-Key": uuid.uuid4().hex}
    first = org.post("/admin/corrections", body, headers=key)
    again = org.post("/admin/corrections", body, headers=key)
    assert first.status_code == again.status_code == 201, (first.text, again.text)
    # the key answers only the request it was first used for; another body is refused, not replayed
    changed = org.post("/admin/corrections", body | {"points": 9}, headers=key)
    assert (changed.status_code, changed.json()["reason"]) == (422, "invalid_input"), changed.text
    assert again.json() == first.json() and first.json()["after"] == {"adjustment": 3}
    log = org.get("/admin/corrections").json()["corrections"]
    assert [c["id"] for c in log].count(first.json()["id"]) == 1
    other = org.post("/admin/corrections", body, headers={"Idempotency-Key": uuid.uuid4().hex})
    assert other.status_code == 201 and other.json()["before"] == {"adjustment": 3}
    assert other.json()["after"] == {"adjustment": 6}
    refused = {"action": "reverse_claim", "claim_id": "nope", "reason": "x"}
    key = {"Idempotency-Key": uuid.uuid4().hex}
    assert [org.post("/admin/corrections", refused, headers=key).status_code for _ in range(2)] == [404, 404]
