"""A page a player can use at a street corner: on a 390×844 phone the first screen holds the map, the
where-am-I sentence and the one primary action in every state — signed out, pending, allowed, refused (Claim
disabled, the reason once, the holder by name) and offline ("Offline — last checked at 07:42 in Hoboken") — my
position dot is drawn above the towns, and the targets there are 44 px or more."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import open_page, sign_in_page, until
from tests.support.client import Player, move_clock, register, sign_in

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN = {"latitude": 40.7440, "longitude": -74.0320, "accuracy": 10}
JERSEY_CITY = {"latitude": 40.7178, "longitude": -74.0431, "accuracy": 10}
HOBOKEN_ID, JERSEY_CITY_ID = "3401732250", "3401736000"
SCREEN = 844


def first_screen(page: Any, *selectors: str) -> None:
    """Each element is shown and ends within the first 844 px of the page, scrolled to its top."""
    page.evaluate("window.scrollTo(0, 0)")
    for sel in selectors:
        box = page.locator(sel).bounding_box()
        assert box is not None, f"{sel} is not shown"
        assert box["y"] >= 0 and box["y"] + box["height"] <= SCREEN, (sel, box)


def small_targets(page: Any) -> list[str]:
    """Visible buttons and links of the first screen (the header, the map's controls, the claim panel) smaller
    than 44×44 px."""
    return page.evaluate("""(() => {
      const out = [];
      for (const el of document.querySelectorAll(
          'header button, header a, #map .leaflet-bar a, #map button, #claim button, #auth button')) {
        const r = el.getBoundingClientRect();
        if (!r.width || !r.height || r.top > 844) continue;
        if (r.width < 44 || r.height < 44) out.push(`${el.id || el.textContent.trim()} ${r.width}x${r.height}`);
      }
      return out;
    })()""")  # type: ignore[no-any-return]


def sentence(page: Any) -> str:
    return str(page.inner_text("#where"))


def test_the_first_screen_holds_the_sentence_and_the_action_in_every_state(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    move_clock(org, MON)
    # a rival holds Hoboken since this morning: locked today (R10) for anyone else
    rival_id, rival_email, rival_password = register(http, "Holder")
    assert org.post(f"/admin/players/{rival_id}/verify", {"reason": "test"}).status_code == 200
    r = sign_in(http, rival_email, rival_password).claim(HOBOKEN["latitude"], HOBOKEN["longitude"], MON)
    assert r.status_code == 201, r.text
    rival_name = http.get(f"/api/v1/players/{rival_id}").json()["display_name"]

    page = phone(geolocation=JERSEY_CITY, permissions=["geolocation"])
    open_page(page, stack.base_url + "/")
    # signed out: the sign-in form is the action, and the sentence says what signing in gives
    first_screen(page, "#map", "#auth-lead", "#signin-form button[type=submit]")
    assert small_targets(page) == []
    shot(page, "play-phone-signed-out")

    # pending: where I stand and why I cannot claim yet, Claim disabled
    pid, email, password = register(http, "Corner")
    sign_in_page(page, email, password)
    until(page, "document.querySelector('#where').dataset.reason === 'not_eligible'", timeout=40)
    assert sentence(page).startswith("You are in Jersey City (owner: nobody). You cannot claim it: ")
    assert page.is_disabled("#claim-btn")
    first_screen(page, "#map", "#where", "#claim-btn")

    # verified: allowed, Claim enabled
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    until(page, "document.querySelector('#where').dataset.allowed === 'true'", timeout=40)
    assert sentence(page) == "You are in Jersey City (owner: nobody). You can claim it now."
    assert page.is_enabled("#claim-btn")
    first_screen(page, "#map", "#where", "#claim-btn")
    assert small_targets(page) == []
    # my dot is drawn above the towns, in a pane of its own
    assert page.evaluate("""(() => { const p = document.querySelector('.leaflet-me-pane');
      return !!p && !!p.querySelector('path') && +getComputedStyle(p).zIndex
        > +getComputedStyle(document.querySelector('.leaflet-overlay-pane')).zIndex; })()""")
    # the border near me: named, with its distance and direction, from the town's full geometry
    until(page, "!document.querySelector('#border').hidden")
    line = page.inner_text("#border")
    metres = int(page.evaluate("document.querySelector('#border').dataset.metres"))
    across = page.evaluate("document.querySelector('#border').dataset.across")
    assert across and across != JERSEY_CITY_ID, line
    name = page.evaluate("id => turf.board.name(id)", across)
    assert line.startswith(f"{name} line {metres} m ") and line.rstrip(".").split()[-1] in (
        "north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"), line
    # the distance is to the neighbour's outline in the server's (R7) full-detail geometry, the nearest neighbour's
    assert across in http.get(f"/api/v1/territories/{JERSEY_CITY_ID}").json()["neighbours"]
    full = http.get(f"/api/v1/territories/{across}").json()["geometry"]
    nearest = page.evaluate("""async ([g, at]) => (await import('/static/js/border.js')).nearest(at,
      g.type === 'Polygon' ? g.coordinates : g.coordinates.flat()).d""",
                            [full, {"lat": JERSEY_CITY["latitude"], "lon": JERSEY_CITY["longitude"]}])
    assert abs(nearest - metres) <= 1 and 0 < metres < 5000, (nearest, metres)
    shot(page, "play-phone-allowed")

    # walking into Hoboken: refused, the holder named, the reason once, Claim disabled
    page.context.set_geolocation(HOBOKEN)
    until(page, f"document.querySelector('#where').dataset.territoryId === '{HOBOKEN_ID}'", timeout=40)
    assert sentence(page).startswith(f"You are in Hoboken (owner: {rival_name}). You cannot claim it: ")
    assert page.evaluate("document.querySelector('#where').dataset.reason") == "locked_today"
    assert page.is_disabled("#claim-btn")
    page.click("#check")
    until(page, "!document.querySelector('#check').disabled")
    assert page.is_hidden("#claim-msg")   # the reason is the sentence's, not said twice
    assert page.inner_text("body").count("You cannot claim it") == 1
    first_screen(page, "#map", "#where", "#claim-btn")
    shot(page, "play-phone-refused")

    # offline: a banner, the sentence says what it last knew and when, Claim waits
    page.context.set_offline(True)
    until(page, "document.querySelector('#where').dataset.offline === 'true'")
    assert sentence(page).startswith("Offline — last checked at ") and sentence(page).endswith(" in Hoboken."), \
        sentence(page)
    assert page.is_disabled("#claim-btn")
    first_screen(page, "#offline", "#map", "#where", "#claim-btn")
    shot(page, "play-phone-offline")
    page.context.set_offline(False)
    until(page, "document.querySelector('#where').dataset.offline === 'false'", timeout=40)
    assert page.is_hidden("#offline")

    # a reload without signal: the service worker shows the page and the last board, and says what it last knew
    page.wait_for_selector("body[data-offline-ready='1']", state="attached")
    until(page, "document.querySelector('#where').dataset.reason === 'locked_today'", timeout=40)
    page.context.set_offline(True)
    page.reload()
    page.wait_for_selector("body[data-ready='1']", state="attached")
    assert page.is_visible("#offline")
    assert page.evaluate("turf.board.layers.size") > 400
    until(page, "document.querySelector('#where').dataset.offline === 'true'")
    assert sentence(page).startswith("Offline — last checked at ") and sentence(page).endswith(" in Hoboken."), \
        sentence(page)
    first_screen(page, "#offline", "#map", "#where", "#claim-btn")
    shot(page, "play-phone-offline-reload")
    page.context.set_offline(False)
