"""R27 privacy: email and home address appear only in GET /me and organizer routes. This walks every public GET
route of the OpenAPI document, and the spectator feed, during and after a season, and finds neither."""

from __future__ import annotations

import json
import threading
import uuid
from datetime import datetime

import httpx
from websockets.sync.client import connect

from tests.support.client import API, Player, move_clock, sign_in
from turfwar.stack import Stack

HOBOKEN, JERSEY_CITY = (40.7440, -74.0320), (40.7280, -74.0770)


def _player(http: httpx.Client, org: Player, secret: str) -> tuple[Player, str, str]:
    email, address = f"{secret}@private.example", f"{secret} Secret Lane, Hoboken NJ"
    r = http.post(API + "/players", json={"name": f"Real Name {secret}", "email": email, "discord": secret,
                                          "home_address": address, "password": "long enough pw"})
    assert r.status_code == 201
    assert org.post(f"/admin/players/{r.json()['id']}/verify", {"reason": "ok"}).status_code == 200
    return sign_in(http, email, "long enough pw"), email, address


def _public_get_paths(http: httpx.Client, ids: dict[str, str]) -> list[str]:
    spec = http.get("/openapi.json").json()
    paths = []
    for path, ops in spec["paths"].items():
        if "get" not in ops or "/admin" in path or path.endswith("/me") or "/me/" in path:
            continue
        security = ops["get"].get("security")
        if security:
            continue
        filled = path
        for name, value in ids.items():
            filled = filled.replace("{" + name + "}", value)
        if "{" not in filled:
            paths.append(filled)
    return paths


def test_r27_no_email_or_address_on_public_routes_or_the_feed(stack: Stack, http: httpx.Client,
                                                              org: Player) -> None:
    secrets = [f"sec{uuid.uuid4().hex[:8]}" for _ in range(2)]
    (a, a_mail, a_addr), (b, b_mail, b_addr) = (_player(http, org, s) for s in secrets)
    forbidden = [a_mail, a_addr, b_mail, b_addr, "Real Name", "Secret Lane", "private.example"]

    messages: list[str] = []
    ws = connect(stack.base_url.replace("http", "ws") + "/api/v1/ws/scores")
    t = threading.Thread(target=lambda: [messages.append(m) for m in ws], daemon=True)  # type: ignore[func-returns-value]
    t.start()

    t0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
    move_clock(org, t0)
    a.claim(*HOBOKEN, t0)
    b.claim(*JERSEY_CITY, t0)
    t1 = datetime.fromisoformat("2026-10-06T07:00:00-04:00")
    move_clock(org, t1)
    a.claim(*JERSEY_CITY, t1)
    org.post("/admin/corrections", {"action": "adjust_score", "player_id": b.id, "points": 1, "reason": "test"})
    move_clock(org, datetime.fromisoformat("2026-10-25T08:00:00-04:00"))   # season closed: results exist

    ids = {"territory_id": "3401732250", "player_id": a.id, "id": a.id}
    paths = _public_get_paths(http, ids)
    assert {"/api/v1/board", "/api/v1/leaderboard", "/api/v1/clock", "/api/v1/results", "/api/v1/corrections",
            f"/api/v1/players/{a.id}", "/api/v1/territories/3401732250"} <= set(paths), paths
    bodies = {p: http.get(p).text for p in paths}
    ws.close()
    t.join(5)
    assert len(messages) > 3
    for where, text in list(bodies.items()) + [("ws", m) for m in messages]:
        for secret in forbidden:
            assert secret not in text, f"{secret!r} leaked on {where}"
    # the private routes do show them, to their owner and the organizer only
    assert a.get("/me").json()["email"] == a_mail
    assert a_addr in json.dumps(org.get("/admin/players").json())
    assert b.get(f"/players/{a.id}").json() == {"id": a.id, "display_name": secrets[0], "status": "verified"}


