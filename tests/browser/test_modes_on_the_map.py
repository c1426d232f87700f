"""The /modes page on a 390×844 phone against the real stack. Team Turf is played on the board map: the game's
towns (its field, T1) outlined and the region's other towns greyed out, a legend counting the game's towns, the
occupied ones in their team's colour with their troops on them, a tap on a town picks where to place (T6) or an
order's towns (T7), a tap on a town outside the game says so, the place form goes once no troop is left in reserve
(T3), the turn's time is shown; Play links to /modes. King of the Hill: rooms are named by their hill, Start waits
for its 3 players with a sentence (K1), the round's deadline and one's own choice are shown (K4), and no SHA-256
string is put before the players (K16)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.support.client import Player, move_clock, verified_player
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

HOBOKEN, JERSEY_CITY, WEEHAWKEN = "3401732250", "3401736000", "3401777930"
T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
DOCS = Path(__file__).resolve().parents[2] / "docs" / "images"


def _signed_in(page: Any, stack: Stack, p: Player, url: str = "/modes") -> None:
    page.goto(stack.base_url + "/modes")
    page.evaluate("s => localStorage.setItem('turf.session', s)",
                  json.dumps({"token": p.token, "player_id": p.id, "role": "player"}))
    page.goto(stack.base_url + url)


def _tap_town(page: Any, tid: str) -> None:
    """A real tap on the town's label point on the Team Turf map, scrolled into the screen first as a player would
    (below the header, the panels above the map may put it under the phone's fold)."""
    page.locator("#tt-map").scroll_into_view_if_needed()
    x, y = page.evaluate("""(id) => { const m = turfModes.map, p = m.props.get(id);
      const c = m.map.latLngToContainerPoint([p.label_point.lat, p.label_point.lon]);
      const r = m.map.getContainer().getBoundingClientRect(); return [r.left + c.x, r.top + c.y]; }""", tid)
    page.mouse.click(x, y)


#: the map's towns split into the game's and the others, each with its outline's weight and opacity
OUTLINES = """(field) => { const game = [], other = [];
  for (const [id, layer] of turfModes.map.layers) {
    const o = layer.options;
    (field.includes(id) ? game : other).push({ id, weight: o.weight, opacity: o.opacity, fill: o.fillOpacity });
  }
  return { game, other }; }"""

#: a town outside the game near Hoboken, its label point on the map's screen
NEARBY_OUTSIDE = """(field) => {
  const m = turfModes.map, view = m.map.getBounds(), h = m.props.get(field[0]).label_point;
  const d = (p) => (p.label_point.lat - h.lat) ** 2 + (p.label_point.lon - h.lon) ** 2;
  return [...m.props.values()].filter((p) => !field.includes(p.id) && p.label_point
      && view.contains([p.label_point.lat, p.label_point.lon])).sort((a, b) => d(a) - d(b))[0].id; }"""


def _fill(page: Any, tid: str) -> str:
    return page.evaluate("(id) => turfModes.map.layers.get(id).options.fillColor", tid)  # type: ignore[no-any-return]


def test_t6_t7_team_turf_is_placed_and_ordered_on_the_map(stack: Stack, http: httpx.Client, org: Player,
                                                         phone: Callable[..., Any]) -> None:
    move_clock(org, T0)
    assert 'href="/modes"' in http.get(stack.base_url + "/").text   # Play links to the modes
    red = verified_player(http, org, "Red Map")
    game = org.post("/modes/team-turf", {"teams": ["red", "blue"], "towns": [HOBOKEN, JERSEY_CITY, WEEHAWKEN],
                                         "homes": {"red": HOBOKEN, "blue": WEEHAWKEN}}).json()
    page = phone()
    _signed_in(page, stack, red, f"/modes?team-turf={game['game_id']}")
    page.wait_for_selector("#tt-join:not([hidden])")
    page.wait_for_selector("#tt-map[data-loaded='1']")
    # T1: the game's three towns are outlined, the region's other towns greyed out, and the legend counts them
    field = [HOBOKEN, JERSEY_CITY, WEEHAWKEN]
    page.wait_for_selector("#tt-map + .tt-legend:not([hidden])")
    legend = page.inner_text(".tt-legend")
    assert "3 towns in this game" in legend and "other towns: not in this game" in legend, legend
    towns = page.evaluate(OUTLINES, field)
    assert len(towns["game"]) == 3 and len(towns["other"]) > 400
    assert min(t["weight"] for t in towns["game"]) > max(t["weight"] for t in towns["other"])
    assert min(t["opacity"] for t in towns["game"]) > max(t["opacity"] for t in towns["other"])
    outside = page.evaluate(NEARBY_OUTSIDE, field)
    _tap_town(page, outside)                      # not a town of this game: the hint says so
    page.wait_for_selector("#tt-hint:has-text('is not one of this game')")
    page.select_option("#tt-join [name=team]", "red")
    page.click("#tt-join button[type=submit]")
    page.wait_for_selector("#tt-status:has-text('you play for red, 2 troops in reserve')")   # T3
    # the turn's time: the orders resolve at 23:59 New York (T9)
    assert re.search(r"orders resolve Mon 5 Oct, 23:59", page.inner_text("#tt-status")), page.inner_text("#tt-status")

    _tap_town(page, HOBOKEN)                      # the home town: where to place
    assert page.input_value("#tt-place [name=town]") == HOBOKEN
    page.fill("#tt-place [name=n]", "2")
    page.click("#tt-place button[type=submit]")
    page.wait_for_selector(f".troops[data-territory-id='{HOBOKEN}']")   # T6: at once, on the map
    assert page.inner_text(f".troops[data-territory-id='{HOBOKEN}']") == "2"
    assert page.get_attribute(f".troops[data-territory-id='{HOBOKEN}']", "data-team") == "red"
    assert _fill(page, HOBOKEN) == "#d62728" and _fill(page, JERSEY_CITY) != "#d62728"
    page.wait_for_selector("#tt-place", state="hidden")   # T3: nothing left in reserve, nothing to place

    _tap_town(page, HOBOKEN)                      # an order from Hoboken …
    assert page.input_value("#tt-order [name=src]") == HOBOKEN
    _tap_town(page, JERSEY_CITY)                  # … to its neighbour
    assert page.input_value("#tt-order [name=dst]") == JERSEY_CITY
    assert "Order from Hoboken to Jersey City" in page.inner_text("#tt-hint")
    page.select_option("#tt-order [name=kind]", "attack")
    page.click("#tt-order button[type=submit]")
    page.wait_for_selector("#tt-map path.order-line.attack")   # T7: my team's order drawn on the map
    assert "attack 1 from Hoboken to Jersey City" in page.inner_text("#tt-orders")
    DOCS.mkdir(parents=True, exist_ok=True)
    page.locator("#tt-map").scroll_into_view_if_needed()
    page.screenshot(path=str(DOCS / "modes-team-turf-map.png"))


def test_k1_k4_a_room_is_named_by_its_hill_and_shows_its_deadline_and_my_choice(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    move_clock(org, T0)
    a, b, c = (verified_player(http, org, n) for n in ("Ann Hill", "Ben Hill", "Cy Hill"))
    gid = a.post("/modes/hill", {"hill": HOBOKEN}).json()["game_id"]
    page = phone()
    _signed_in(page, stack, a, f"/modes?hill={gid}")
    page.wait_for_selector("#room-title:has-text('King of the Hill on Hoboken')")
    # the room in the list is its hill, not its id
    item = page.locator(f"#hill-list button[data-game-id='{gid}']")
    item.wait_for()
    assert "King of the Hill on Hoboken" in item.inner_text() and gid[:6] not in item.inner_text()
    # K1: no Start with 1 of 3 players, a sentence says what it waits for
    assert page.is_hidden("#room-start")
    assert "2 more to go" in page.inner_text("#room-need")
    assert "SHA-256" not in page.inner_text("body") and "Seed commitment" not in page.inner_text("body")
    for p in (b, c):
        assert p.post(f"/modes/hill/{gid}/join").status_code == 200
    page.wait_for_selector("#room-start:not([hidden])")
    assert page.is_hidden("#room-need")
    page.click("#room-start")
    page.wait_for_selector("#room-status:has-text('Round 1 of 10')")
    assert re.search(r"choices close Mon 5 Oct, \d\d:\d\d", page.inner_text("#room-status")), \
        page.inner_text("#room-status")
    page.click("#choose-attack")                  # K4: my choice, shown to me alone
    page.wait_for_selector("#room-mine:has-text('You chose Attack')")
    assert "SHA-256" not in page.inner_text("body")
    DOCS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(DOCS / "modes-king-of-the-hill.png"), full_page=True)
