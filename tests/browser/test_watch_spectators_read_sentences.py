"""The watch page as spectators read it: the TV (1920×1080, ``?tv=1``) keeps the Bonus column and says how the
ranking is made (R25: total = base + side-quest bonuses), a story on its map names who took the town, a wide desk
screen without ``?tv=1`` opens on the active area rather than the whole state, a simulation's file is not a main
button; the live leaderboard on a 390-px phone shows a long name whole, wrapped in its column, with the table still
inside the screen; at the close the podium cuts neither a long name nor the Prize column, on the TV or a 390-px phone;
and no page a spectator reads cites a ruling number ("R26")."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import open_page, until
from tests.support.client import API, Player, move_clock, sign_in, verified_player
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
CLOSE = datetime.fromisoformat("2026-10-24T22:00:00-04:00")
TV = {"viewport": {"width": 1920, "height": 1080}, "is_mobile": False, "has_touch": False}
LONG = "dave_the_magnificent_longname"

#: ruling numbers in what the page shows
RULINGS = r"(document.body.innerText.match(/\bR\d+(\.\d+)?\b/g) || [])"
#: cells of the results and names on the podium that are cut (scrolled within, or past the side column's edge)
CUT = """(() => {
  const edge = Math.min(document.querySelector('main').getBoundingClientRect().right, innerWidth);
  return [...document.querySelectorAll('#results th, #results td, ol.podium .who')]
    .filter((c) => c.scrollWidth > c.clientWidth + 1 || c.getBoundingClientRect().right > edge + 1)
    .map((c) => c.textContent);
})()"""
#: names in the live leaderboard that are cut (scrolled within their cell: "…") or reach past the leaderboard's box
NAMES_CUT = """(() => {
  const box = document.querySelector('#leaderboard').closest('.standings').getBoundingClientRect();
  return [...document.querySelectorAll('#leaderboard td.name')]
    .filter((c) => c.scrollWidth > c.clientWidth + 1 || c.getBoundingClientRect().right > box.right + 1)
    .map((c) => c.textContent);
})()"""
#: the claimed towns all on screen, and the view far closer than the whole board
ACTIVE_AREA = """(() => { const b = turf.board, v = b.map.getBounds();
  return [...b.props.values()].filter((p) => p.owner_id)
      .every((p) => v.contains([p.label_point.lat, p.label_point.lon]))
    && b.map.getZoom() >= b.map.getBoundsZoom(b.bounds) + 2; })()"""


def _named(http: httpx.Client, org: Player, discord: str) -> Player:
    """A verified player whose public name is ``discord`` (the public display name is the Discord handle)."""
    email, pw = f"{uuid.uuid4().hex[:8]}@example.org", "correct horse " + uuid.uuid4().hex[:8]
    r = http.post(API + "/players", json={"name": "Dave Long", "email": email, "discord": discord,
                                          "home_address": "1 Main St, Hoboken, NJ", "password": pw})
    assert r.status_code == 201, r.text
    assert org.post(f"/admin/players/{r.json()['id']}/verify", {"reason": "test"}).status_code == 200
    return sign_in(http, email, pw)


def _county(http: httpx.Client, county: str) -> list[dict[str, Any]]:
    """The county's towns, the largest first."""
    return sorted((f["properties"] for f in http.get(API + "/board").json()["features"]
                   if f["properties"]["county"] == county), key=lambda p: -p["land_area_m2"])


def test_r25_the_tv_shows_the_bonus_and_names_who_took_the_story_town(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    move_clock(org, MON)
    towns = _county(http, "Hudson")
    for i, t in enumerate(towns[:3]):
        p = verified_player(http, org, f"Watch {i}")
        assert p.claim(t["label_point"]["lat"], t["label_point"]["lon"], MON).status_code == 201

    tv = phone(**TV)
    open_page(tv, stack.base_url + "/watch?tv=1")
    until(tv, "document.querySelector('#live').textContent.includes('live')")
    until(tv, "document.querySelectorAll('#leaderboard tbody tr[data-player-id]').length === 3")
    # the Bonus column is on the TV, and the key says how Base and Bonus make the ranked Total
    assert tv.is_visible("#leaderboard th:nth-child(5)") and tv.inner_text("#leaderboard th:nth-child(5)") == "Bonus"
    assert tv.is_visible("#leaderboard tbody tr >> nth=0 >> td:nth-child(5)")
    assert "Total = Base + Bonus" in tv.inner_text("#score-key") and "Ranked by Total" in tv.inner_text("#score-key")

    # a story: the map's caption says who took the town
    story = towns[3]
    taker = verified_player(http, org, "Watch story")
    name = http.get(f"{API}/players/{taker.id}").json()["display_name"]
    assert taker.claim(story["label_point"]["lat"], story["label_point"]["lon"], MON).status_code == 201
    until(tv, f"document.body.dataset.tvFocus === '{story['id']}'")
    until(tv, f"document.querySelector('#tv-caption').textContent === '{name} took {story['name']}'")
    assert tv.is_visible("#tv-caption")
    assert tv.evaluate(RULINGS) == []
    shot(tv, "watch-tv-caption")
    until(tv, "document.body.dataset.tvFocus === ''", timeout=30)
    assert tv.inner_text("#tv-caption") == ""

    # a 1920-px desk without ?tv=1: the active area, not the whole state; the file replay is not a main button
    desk = phone(**TV)
    open_page(desk, stack.base_url + "/watch")
    until(desk, ACTIVE_AREA)
    assert desk.is_hidden("#replay-sim label.file") and desk.is_visible("#replay-sim summary")
    assert desk.evaluate(RULINGS) == []


def test_the_live_leaderboard_shows_a_long_name_whole_on_a_phone(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    move_clock(org, MON)
    town = _county(http, "Passaic")[0]
    whole = "Alexandra.Montgomery_Vanderbilt"   # 31 of a Discord name's 32 characters, and no space to wrap at
    alex = _named(http, org, whole)
    assert alex.claim(town["label_point"]["lat"], town["label_point"]["lon"], MON).status_code == 201

    page = phone()
    open_page(page, stack.base_url + "/watch")
    cell = f"#leaderboard tr[data-player-id='{alex.id}'] td.name"
    page.wait_for_selector(cell)
    assert page.inner_text(cell).strip() == whole
    page.locator("#leaderboard").scroll_into_view_if_needed()
    assert page.evaluate(NAMES_CUT) == []
    # wrapped, not widened: on two lines or more, and the table needs no sideways scroll, nor does the page
    height, line = page.evaluate(f"""(() => {{ const c = document.querySelector("{cell}");
      return [c.clientHeight, parseFloat(getComputedStyle(c).lineHeight) || 0]; }})()""")
    assert line and height >= 2 * line, (height, line)
    assert page.evaluate("(() => { const s = document.querySelector('#leaderboard').closest('.standings');"
                         " return s.scrollWidth <= s.clientWidth; })()")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.is_visible("#leaderboard th:last-child") and page.inner_text("#leaderboard th:last-child") == "Total"
    shot(page, "watch-leaderboard-long-name", at="#leaderboard")


def test_r26_the_podium_cuts_no_name_nor_the_prize_on_a_tv_or_a_phone(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    move_clock(org, MON)   # the same instant again when the test above ran: accepted, nothing happens
    towns = _county(http, "Essex")
    dave = _named(http, org, LONG)
    assert dave.claim(towns[0]["label_point"]["lat"], towns[0]["label_point"]["lon"], MON).status_code == 201
    other = verified_player(http, org, "Second Place")
    assert other.claim(towns[1]["label_point"]["lat"], towns[1]["label_point"]["lon"], MON).status_code == 201
    # an organizer's adjustment puts him first and brings the Adj. column: the widest table there is
    assert org.post("/admin/corrections", {"action": "adjust_score", "player_id": dave.id, "points": 50,
                                           "reason": "photo quest"}).status_code == 201
    move_clock(org, CLOSE)

    page = phone()
    open_page(page, stack.base_url + "/watch")
    page.wait_for_selector("#podium:not([hidden]) #results tbody tr")
    assert LONG in page.inner_text("#results") and LONG in page.inner_text("ol.podium li.p1")
    page.locator("#podium").scroll_into_view_if_needed()
    assert page.evaluate(CUT) == []
    assert page.is_visible("#results th:last-child") and page.inner_text("#results th:last-child") == "Prize"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate(RULINGS) == []
    assert "Total = Base + Bonus + Adj." in page.inner_text("#podium")
    shot(page, "watch-podium-phone", at="#podium")

    tv = phone(**TV)
    open_page(tv, stack.base_url + "/watch?tv=1")
    tv.wait_for_selector("#podium:not([hidden]) #results tbody tr")
    assert tv.evaluate(CUT) == []
    assert tv.is_visible("#results th:last-child")
    assert tv.evaluate(RULINGS) == []
    shot(tv, "watch-podium-tv")
