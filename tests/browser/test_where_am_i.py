"""Where am I, always: as the phone moves, the play page says which town I stand in, its owner and
whether I may claim it now, or the rule that stops me in its sentence, without pressing anything; the map follows me
until I pan it away, and the re-centre control brings it back. Under our Content-Security-Policy."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.browser.test_pages import open_page, sign_in_page, until
from tests.support.client import Player, move_clock, register, verified_player

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN = {"latitude": 40.7440, "longitude": -74.0320, "accuracy": 10}
JERSEY_CITY = {"latitude": 40.7178, "longitude": -74.0431, "accuracy": 10}
HOBOKEN_ID, JERSEY_CITY_ID = "3401732250", "3401736000"


def where(page: Any) -> str:
    return str(page.inner_text("#where"))


def test_the_page_says_where_i_am_as_i_move_and_the_map_follows(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    move_clock(org, MON)
    pid, email, password = register(http, "Walker")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    page = phone(geolocation=HOBOKEN, permissions=["geolocation"])
    # when (ms, the browser's clock) the page asked POST /claims/check by itself, and when it claimed
    asked: dict[str, list[float]] = {"/claims/check": [], "/claims": []}
    page.on("requestfinished", lambda r: asked[path].append(r.timing["startTime"])
            if (path := urlsplit(r.url).path.removeprefix("/api/v1")) in asked else None)
    open_page(page, stack.base_url + "/")
    sign_in_page(page, email, password)

    # no button pressed: the first fix is checked
    until(page, f"document.querySelector('#where').dataset.territoryId === '{HOBOKEN_ID}'", timeout=30)
    assert where(page) == "You are in Hoboken (owner: nobody). You can claim it now."
    page.click("#claim-btn")
    until(page, "document.querySelector('#claim-msg').textContent.includes('You took Hoboken')")
    # after the claim the sentence follows: mine, and the rule that stops a second claim today (R8.7)
    until(page, "document.querySelector('#where').textContent.startsWith('You are in Hoboken (owner: you).')")
    until(page, "document.querySelector('#where').dataset.checking === 'false'")   # said at once, then checked
    assert "You have used today's claims, so you cannot reinforce it now." in where(page)   # mine: no refusal
    assert "You cannot claim it" not in where(page) and page.evaluate("document.querySelector('#where').dataset.reason")

    # walking into Jersey City: told again, and the map follows
    page.context.set_geolocation(JERSEY_CITY)
    until(page, f"document.querySelector('#where').dataset.territoryId === '{JERSEY_CITY_ID}'", timeout=40)
    assert where(page).startswith("You are in Jersey City (owner: nobody). You cannot claim it: ")   # R6: none left
    centre = page.evaluate("(() => { const c = window.turf.board.map.getCenter(); return [c.lat, c.lng]; })()")
    assert abs(centre[0] - JERSEY_CITY["latitude"]) < 0.01 and abs(centre[1] - JERSEY_CITY["longitude"]) < 0.01

    # the player pans away: the map stops following, the re-centre control brings it back
    assert page.locator("#recentre").is_hidden()
    box = page.locator("#map").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 150, box["y"] + box["height"] / 2 + 80, steps=8)
    page.mouse.up()
    page.wait_for_selector("#recentre:not([hidden])")
    page.click("#recentre")
    page.wait_for_selector("#recentre", state="hidden")
    centre = page.evaluate("(() => { const c = window.turf.board.map.getCenter(); return [c.lat, c.lng]; })()")
    assert abs(centre[0] - JERSEY_CITY["latitude"]) < 0.01 and abs(centre[1] - JERSEY_CITY["longitude"]) < 0.01

    # rate-limited by the page: a check per meaningful move, never two within 10 s but right after my own claim
    checks, claims = sorted(asked["/claims/check"]), asked["/claims"]
    assert len(checks) >= 3 and claims, asked
    assert all(b - a >= 9_900 or any(a < c < b for c in claims) for a, b in itertools.pairwise(checks)), asked


def test_a_signed_in_player_is_told_the_town_before_the_board_is_in(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    """The check where I stand needs no board (its answer names the town): on a slow phone the page asks it at its
    start, beside the board's load, not after the 448 towns are downloaded and drawn. Held here: the board's
    answer, until the sentence is shown; then the towns come in, the view on me and my town outlined."""
    move_clock(org, MON)
    player = verified_player(http, org, "Early Bird")
    # a town nobody in this module claims
    town = next(f["properties"] for f in http.get("/api/v1/board").json()["features"]
                if f["properties"]["name"] == "Weehawken")
    fix = {"latitude": town["label_point"]["lat"], "longitude": town["label_point"]["lon"], "accuracy": 10}
    # no service worker: it would fetch the board itself, past the page's routes
    page = phone(geolocation=fix, permissions=["geolocation"], service_workers="block")
    page.goto(stack.base_url + "/account")
    page.evaluate("s => localStorage.setItem('turf.session', s)",
                  json.dumps({"token": player.token, "player_id": player.id, "role": "player"}))
    held: list[Any] = []
    page.route("**/api/v1/board**", lambda route: held.append(route))
    page.goto(stack.base_url + "/")
    until(page, f"document.querySelector('#where').dataset.territoryId === '{town['id']}'", timeout=30)
    assert where(page) == "You are in Weehawken (owner: nobody). You can claim it now."
    assert held and page.get_attribute("#map", "data-loaded") is None   # told while the board is still held
    for route in held:
        route.continue_()
    page.unroute("**/api/v1/board**")
    page.wait_for_selector("body[data-ready='1']")
    centre = page.evaluate("(() => { const c = window.turf.board.map.getCenter(); return [c.lat, c.lng]; })()")
    assert abs(centre[0] - fix["latitude"]) < 0.01 and abs(centre[1] - fix["longitude"]) < 0.01
    assert page.evaluate(f"window.turf.board.layers.get('{town['id']}').options.color") == "#1a73e8"   # outlined
    # the answer at the start stands: Claim offered by it, not withdrawn by the sign-in's reads after the board
    until(page, "!document.querySelector('#claim-btn').disabled")
    assert where(page) == "You are in Weehawken (owner: nobody). You can claim it now."
