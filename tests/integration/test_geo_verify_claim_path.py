"""The claims service has geo-verify locate and screen every claim (``geo.verify``, once per batch). With
geo-verify down, ``POST /claims`` and ``POST /claims/check`` answer 503 ``unavailable`` (never a 500) and nothing is
spent or recorded; once it is back, the same claim goes through."""

from __future__ import annotations

from datetime import datetime

import httpx

from tests.support.client import Player, move_clock, verified_player
from turfwar.stack import Stack

T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN = (40.7440, -74.0320)        # Church Square Park, Hoboken


def test_geo_verify_down_answers_503_unavailable_spends_nothing_and_claims_go_through_once_it_is_back(
        stack: Stack, http: httpx.Client, org: Player) -> None:
    move_clock(org, T0)
    p = verified_player(http, org)
    stack.kill("geo-verify")
    try:
        for check in (False, True):
            r = p.claim(*HOBOKEN, T0, check=check)
            assert (r.status_code, r.json()["reason"]) == (503, "unavailable"), r.text
            assert r.json()["message"] == "The location service is not answering; try again shortly."
        assert p.get("/me").json()["claims_left_today"] == 1
        assert org.get("/admin/flags").json()["flags"] == []
    finally:
        stack.restart("geo-verify")
    r = p.claim(*HOBOKEN, T0)
    assert r.status_code == 201, r.text
    assert p.get("/me").json()["claims_left_today"] == 0
