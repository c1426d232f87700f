"""The play page on a 390×844 phone, as a player reads it at a street corner:

- the moment of a claim is a banner in the claim panel (the town, what it is worth in points, the claims left today
  from the claim's answer), with no history popup over the map; a Joker's new town, wherever it is, is framed on the
  map, outlined, without a popup; a popup opened at the map's left edge is never under the zoom buttons;
- the first screen reads the where-am-I sentence first and the coordinates under it, small; the clock chip is
  whole ("Open · closes 22:00"); the legend is on the map;
- the bell shows the notifications without scrolling the map away."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_card_forms import adjust_hand
from tests.browser.test_pages import message, open_page, show_tab, sign_in_page, until
from tests.support.client import Player, move_clock, register, sign_in

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN = {"latitude": 40.7440, "longitude": -74.0320, "accuracy": 10}
HOBOKEN_ID = "3401732250"
IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"


def player_at_hoboken(stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any],
                      name: str) -> tuple[Any, Player]:
    """A verified player signed in on the play page at Hoboken, the check answered (allowed while the game is open)."""
    move_clock(org, MON)
    pid, email, password = register(http, name)
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    page = phone(geolocation=HOBOKEN, permissions=["geolocation"])
    open_page(page, stack.base_url + "/")
    sign_in_page(page, email, password)
    until(page, f"document.querySelector('#where').dataset.territoryId === '{HOBOKEN_ID}'", timeout=30)
    return page, sign_in(http, email, password)


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] and b["x"] < a["x"] + a["width"]
            and a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])


def test_a_claim_is_a_banner_with_the_town_its_points_and_the_claims_left_and_no_popup_covers_the_map(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    page, me = player_at_hoboken(stack, http, org, phone, "Banner Taker")
    until(page, "document.querySelector('#where').dataset.allowed === 'true'")
    page.click("#claim-btn")
    said = message(page, "#claim-msg", "ok")
    left = me.get("/me").json()["claims_left_today"]
    assert said.splitlines() == ["You took Hoboken!", "+1 point: your largest cluster is 1 town.",
                                 f"{left} claim{'' if left == 1 else 's'} left today."], said
    assert page.get_attribute("#claim-msg", "class") == "msg ok claimed"
    # a banner: larger than the page's text, and whole on the first screen with the map
    assert page.locator("#claim-msg .claimed-title").evaluate("el => parseFloat(getComputedStyle(el).fontSize)") > 18
    box = page.locator("#claim-msg").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 844, box
    # the map shows the town in my colour, uncovered: no history popup over it
    assert page.locator(".leaflet-popup").count() == 0
    IMAGES.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(IMAGES / "play-claim-moment.png"))


def test_a_wide_popup_is_never_under_the_zoom_buttons(stack: Any, phone: Callable[..., Any]) -> None:
    page = phone()
    open_page(page, stack.base_url + "/")
    until(page, "document.querySelector('#map').dataset.loaded === '1'")
    # the map on Hoboken as it follows a player standing there; Hoboken's popup opened where it is (a tap there)
    page.evaluate("""id => { const c = turf.board.layers.get(id).getCenter();
      turf.board.map.setView(c, 13, { animate: false }); turf.board.select(id, { pan: false }); }""", HOBOKEN_ID)
    page.wait_for_selector(".leaflet-popup .story")
    # a long story, as a town held by several players has: the popup as wide as it may be, and tall
    page.evaluate("""id => turf.board.layers.get(id).setPopupContent('<b>Hoboken</b><br>Hudson County, NJ<br>'
      + '<p>bobkim: Mon 5 Oct, 07:00 – Tue 6 Oct, 09:30 (1 d 2 h 30 min), then dave_the_brave</p>'.repeat(4))""",
                  HOBOKEN_ID)
    # the popup's own pan settles (animated); then the zoom buttons cover none of it
    until(page, """(() => { const z = document.querySelector('.leaflet-control-zoom').getBoundingClientRect();
      const p = document.querySelector('.leaflet-popup-content-wrapper').getBoundingClientRect();
      return p.left >= z.right || p.top >= z.bottom; })()""", timeout=5)
    zoom = page.locator(".leaflet-control-zoom").bounding_box()
    popup = page.locator(".leaflet-popup-content-wrapper").bounding_box()
    assert not overlap(popup, zoom), (popup, zoom)
    assert popup["x"] + popup["width"] <= 390, popup


def test_a_jokers_new_town_is_framed_on_the_map_and_outlined_without_a_popup(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    page, me = player_at_hoboken(stack, http, org, phone, "Joker Player")
    adjust_hand(org, me.id, add=("joker",))
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    show_tab(page, "cards")
    page.check("#hand li[data-card-type='joker'] input[value=random]")
    page.click("#hand li[data-card-type='joker'] button[type=submit]")
    said = message(page, "#cards-msg", "ok")
    won = me.get("/me/territories").json()["territories"]
    assert len(won) == 1, won
    town = won[0]["id"]
    assert said == f"Joker: you won {page.evaluate('id => turf.board.name(id)', town)}!"
    # framed: the map, back on the screen, shows the whole town, outlined; no popup covers it
    assert page.evaluate("turf.board.highlight") == town
    assert page.evaluate("""id => turf.board.map.getBounds().contains(turf.board.layers.get(id).getBounds())""",
                         town)
    box = page.locator("#map").bounding_box()
    assert box is not None and box["y"] >= -1 and box["y"] + box["height"] <= 845, box
    assert page.locator(".leaflet-popup").count() == 0


def test_the_first_screen_reads_the_town_first_the_clock_whole_and_the_legend_on_the_map(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    page, _ = player_at_hoboken(stack, http, org, phone, "First Reader")
    until(page, "document.querySelector('#position').textContent.startsWith('You are at')")
    page.evaluate("window.scrollTo(0, 0)")
    where, position = page.locator("#where").bounding_box(), page.locator("#position").bounding_box()
    assert where["y"] < position["y"], (where, position)   # the sentence first, the coordinates under it
    size = "el => parseFloat(getComputedStyle(el).fontSize)"
    assert page.locator("#position").evaluate(size) < page.locator("#where").evaluate(size)
    assert position["y"] + position["height"] <= 844

    # the clock chip whole, inside the header beside the bell, on a 390 px phone
    page.wait_for_selector("#notif-btn:not([hidden])")
    until(page, "document.querySelector('#clock').textContent.startsWith('Open')")
    assert page.inner_text("#clock") == "Open · closes 22:00"
    assert page.locator("#clock").evaluate("el => el.scrollWidth <= el.clientWidth")
    chip, bell = page.locator("#clock").bounding_box(), page.locator("#notif-btn").bounding_box()
    assert chip["x"] + chip["width"] <= bell["x"] and bell["x"] + bell["width"] <= 390, (chip, bell)
    assert (page.get_attribute("#clock", "title") or "").startswith("Game day ")   # the day, in its title

    # the legend on the map, inside it
    legend, m = page.locator("#map .map-legend").bounding_box(), page.locator("#map").bounding_box()
    assert legend is not None and m is not None
    assert m["x"] <= legend["x"] and legend["x"] + legend["width"] <= m["x"] + m["width"], (legend, m)
    assert m["y"] <= legend["y"] and legend["y"] + legend["height"] <= m["y"] + m["height"], (legend, m)
    assert page.inner_text("#map .map-legend").split() == ["mine", "rivals", "free", "me"]


def test_the_bell_shows_the_notifications_without_scrolling_the_map_away(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    page, _ = player_at_hoboken(stack, http, org, phone, "Bell Ringer")
    page.wait_for_selector("#notif-btn:not([hidden])")
    page.evaluate("window.scrollTo(0, 0)")
    shown = page.evaluate("document.querySelector('[role=tab][aria-selected=true]').id")
    map_at = page.locator("#map").bounding_box()
    page.locator("#notif-btn").dispatch_event("click")   # a tap where it is (Playwright's click would scroll)
    page.wait_for_selector("#notif-list", state="visible")
    assert page.evaluate("window.scrollY") == 0
    assert page.locator("#map").bounding_box() == map_at
    assert page.get_attribute("#notif-btn", "aria-expanded") == "true"
    notes = page.locator("#notifications").bounding_box()
    assert notes is not None and 0 <= notes["y"] < 844, notes
    # closed again: the tab shown before, the page where it was
    page.locator("#notif-close").dispatch_event("click")
    assert page.evaluate("document.querySelector('[role=tab][aria-selected=true]').id") == shown
    assert page.get_attribute("#notif-btn", "aria-expanded") == "false"
    assert page.evaluate("window.scrollY") == 0


# Each frame the browser draws of the play page until play.js has run (window.turf): requestAnimationFrame's callback
# runs just before the frame is painted, and never before the page's stylesheets have loaded (they block rendering)
FRAMES_BEFORE_THE_SCRIPT = """
window.framesBeforeTheScript = [];
const look = () => {
  const auth = document.getElementById("auth"), claim = document.getElementById("claim");
  if (auth && claim && !window.turf) {
    window.framesBeforeTheScript.push({ signIn: auth.checkVisibility(), claim: claim.checkVisibility() });
  }
  if (!window.turf) requestAnimationFrame(look);
};
requestAnimationFrame(look);
"""


def test_a_signed_in_player_never_sees_the_sign_in_form_not_even_before_the_script_runs(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    page, _ = player_at_hoboken(stack, http, org, phone, "First Paint")
    page.add_init_script(FRAMES_BEFORE_THE_SCRIPT)

    # the page's script arrives a second and a half late, as on a slow phone network: the page paints without it
    def late(route: Any) -> None:
        time.sleep(1.5)
        route.continue_()

    page.route("**/play.js*", late)   # routing also bypasses the browser's cache: the script is asked for again
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    frames = page.evaluate("window.framesBeforeTheScript")
    assert frames, "no frame was painted before play.js ran: the test shows nothing"
    assert not any(f["signIn"] for f in frames), f"the sign-in form was painted for a signed-in player: {frames[:3]}"
    assert all(f["claim"] for f in frames)   # the claim panel's shape from the first frame
    assert page.is_hidden("#auth") and page.is_visible("#claim")   # and play.js keeps it so once it runs
