"""The modes and the yard game name every player, however long the roster: the pages showed other players as
"player 9ac9a7" when they were not on the first page of ``GET /players`` (a roster of a thousand players fills it).
Now a game's answer carries its players' display names (``names``) and the pages read no roster at all. Here the
roster's first page is made to hold none of the room's players, as it does past a thousand; the room, its last
round and the yard's lobby still name each of them, to a player and to a spectator, on a 390×844 phone."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.support.client import Player, move_clock, verified_player
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

HOBOKEN = "3401732250"
T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


def _crowded_roster(page: Any, asked: list[str]) -> None:
    """``GET /players`` answers a first page without any of this test's players (as past the thousandth player);
    every ask is noted in ``asked``."""
    def answer(route: Any) -> None:
        if urlsplit(route.request.url).path != "/api/v1/players":
            route.fallback()
            return
        asked.append(route.request.url)
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({"players": [{"id": f"{i:032x}", "display_name": f"someone {i}",
                                                    "join_index": i} for i in range(1000)], "next": 999}))
    page.route("**/api/v1/players*", answer)


def _page(phone: Callable[..., Any], stack: Stack, path: str, p: Player | None, asked: list[str]) -> Any:
    page = phone()
    _crowded_roster(page, asked)
    if p is not None:
        page.goto(stack.base_url + path.split("?")[0])
        page.evaluate("s => localStorage.setItem('turf.session', s)",
                      json.dumps({"token": p.token, "player_id": p.id, "role": "player"}))
    page.goto(stack.base_url + path)
    return page


def _name(http: httpx.Client, p: Player) -> str:
    return str(http.get(f"/api/v1/players/{p.id}").json()["display_name"])


def test_a_hill_room_and_a_yard_lobby_name_every_player_past_the_rosters_first_page(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    move_clock(org, T0)
    ana, ben, cy = (verified_player(http, org, n) for n in ("Ana Names", "Ben Names", "Cy Names"))
    names = {p.id: _name(http, p) for p in (ana, ben, cy)}
    gid = ana.post("/modes/hill", {"hill": HOBOKEN}).json()["game_id"]
    for p in (ben, cy):
        assert p.post(f"/modes/hill/{gid}/join").status_code == 200
    # the answer itself carries the names: a client needs no roster
    view = http.get(f"/api/v1/modes/hill/{gid}").json()
    assert view["names"] == names

    asked: list[str] = []
    page = _page(phone, stack, f"/modes?hill={gid}", ana, asked)
    page.wait_for_selector("#room-status:has-text('3 of 3–5 players')")
    seated = page.inner_text("#room-players tbody")
    assert names[ben.id] in seated and names[cy.id] in seated, seated
    assert "player " not in seated.replace("players", ""), seated

    # a round: the holder and every chooser named in the last round's sentence
    assert ana.post(f"/modes/hill/{gid}/start").status_code == 200
    assert ana.post(f"/modes/hill/{gid}/choices", {"round": 1, "choice": "attack"}).status_code == 200
    assert ben.post(f"/modes/hill/{gid}/choices", {"round": 1, "choice": "recruit"}).status_code == 200
    assert cy.post(f"/modes/hill/{gid}/choices", {"round": 1, "choice": "recruit"}).status_code == 200
    page.wait_for_selector("#room-last:has-text('Round 1')")
    last = page.inner_text("#room-last")
    assert f"{names[ben.id]} recruited" in last and f"{names[cy.id]} recruited" in last, last

    # a spectator, signed out, reads the same names
    watcher = _page(phone, stack, f"/modes?hill={gid}", None, asked)
    watcher.wait_for_selector("#room-status:has-text('Round 2')")
    status = watcher.inner_text("#room-status") + watcher.inner_text("#room-players tbody")
    assert names[ana.id] in status and names[ben.id] in status, status

    # the yard game's lobby: "Waiting to start: you, Ben …"
    room = ana.post("/modes/yard-cards", {"turn_seconds": 3600}).json()["game_id"]
    assert ben.post(f"/modes/yard-cards/{room}/join").status_code == 200
    yard = _page(phone, stack, f"/yard?room={room}", ana, asked)
    yard.wait_for_selector(f"#room-status:has-text('{names[ben.id]}')")
    assert yard.inner_text("#room-status").startswith(f"Waiting to start: you, {names[ben.id]}")
    assert ana.post(f"/modes/yard-cards/{room}/start").status_code == 200
    yard.wait_for_selector("#yards .seat >> nth=1")
    assert names[ben.id] in yard.inner_text("#yards"), yard.inner_text("#yards")
    assert "player " not in yard.inner_text("#yards").replace("players", "")
    # and no page read the roster for it (one request fewer on each read)
    assert asked == []
