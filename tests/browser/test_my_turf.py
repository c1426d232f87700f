"""Pages players would choose, on a 390×844 phone against the real stack and its manual clock: the play
page's town names on the map (sized by the zoom, never over each other, the town I stand in outlined in its own
style), the My turf panel
(score, rank, claims left, my largest cluster and outposts with each town's progress, streak and Freeze, live from the
feed after real claims, each a tap from the map) and the searchable list of every town, used by keyboard alone."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import open_page, sign_in_page, until
from tests.support.client import Player, leaderboard, move_clock, register, sign_in
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

HOBOKEN_ID, JERSEY_CITY_ID, PRINCETON_ID = "3401732250", "3401736000", "3402160900"
HOBOKEN, JERSEY_CITY, PRINCETON = (40.7416, -74.0342), (40.7210, -74.0665), (40.3569, -74.6742)  # label points
HOBOKEN_FIX = {"latitude": 40.7440, "longitude": -74.0320, "accuracy": 10}
HERE_BLUE = "#1a73e8"


def day(d: int) -> datetime:
    """07:00 New York on October d, 2026 (Monday 5 is the season's first game day)."""
    return datetime.fromisoformat(f"2026-10-{d:02d}T07:00:00-04:00")


def claim_on(org: Player, player: Player, d: int, where: tuple[float, float]) -> None:
    move_clock(org, day(d))
    r = player.claim(*where, day(d))
    assert r.status_code == 201, r.text


def items(page: Any, selector: str) -> list[str]:
    """Each item's text of a list, whitespace folded."""
    return [" ".join(t.split()) for t in page.locator(f"{selector} > li").all_inner_texts()]


def shown(page: Any, territory_id: str) -> None:
    """Wait until the map has the territory selected, its popup open and the map's centre inside it."""
    until(page, f"""(() => {{ const b = window.turf.board, l = b.layers.get('{territory_id}');
        return b.highlight === '{territory_id}' && l.isPopupOpen()
          && l.getBounds().contains(b.map.getCenter()); }})()""")


def labels(page: Any) -> list[str]:
    page.wait_for_timeout(150)   # the labels are drawn on the next animation frame after the move
    return page.evaluate("[...document.querySelectorAll('.town-label')].map((e) => e.dataset.territoryId)")  # type: ignore[no-any-return]


def overlapping_labels(page: Any) -> list[list[str]]:
    """Pairs of town names whose boxes on the screen overlap (none should: a name that would is left out)."""
    return page.evaluate("""(() => {
      const boxes = [...document.querySelectorAll('.town-label span')]
        .map((e) => [e.textContent, e.getBoundingClientRect()]);
      const out = [];
      boxes.forEach(([n, a], i) => boxes.slice(i + 1).forEach(([m, b]) => {
        if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) out.push([n, m]);
      }));
      return out;
    })()""")  # type: ignore[no-any-return]


def test_my_turf_lists_cluster_and_outposts_live_and_the_map_names_towns(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    pid, email, password = register(http, "Turf Keeper")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    keeper = sign_in(http, email, password)
    # one claim a game day (R6): Hoboken twice (2/3, R11), then Princeton far away, then Jersey City beside Hoboken
    claim_on(org, keeper, 5, HOBOKEN)
    claim_on(org, keeper, 6, HOBOKEN)
    claim_on(org, keeper, 7, PRINCETON)
    # a Freeze on Hoboken scheduled on Wednesday is active on Thursday (R15): "frozen today"
    r = org.post("/admin/corrections", {"action": "adjust_hand", "player_id": pid, "add": ["freeze"],
                                        "reason": "browser test: a Freeze"})
    assert r.status_code == 201, r.text
    r = keeper.post("/cards/play", {"type": "freeze", "territory_id": HOBOKEN_ID})
    assert r.status_code == 200 and r.json()["state"] == "reserved", r.text
    move_clock(org, day(8))

    page = phone(geolocation=HOBOKEN_FIX, permissions=["geolocation"])
    open_page(page, stack.base_url + "/")
    sign_in_page(page, email, password)
    page.wait_for_selector("#my-turf[data-loaded]")
    until(page, "document.querySelectorAll('#my-turf li[data-territory-id]').length === 2")

    # Thursday's claim of Jersey City joins Hoboken: the panel follows from the feed, without a reload
    claim_on(org, keeper, 8, JERSEY_CITY)
    until(page, "document.querySelectorAll('#turf-cluster li[data-territory-id]').length === 2", timeout=30)
    until(page, f"!!document.querySelector(\"#turf-cluster li[data-territory-id='{HOBOKEN_ID}'] .badge.frozen\")")
    assert items(page, "#turf-cluster") == [
        # R9, R15
        "Hoboken · progress 2/3 frozen today Show Hoboken on map Streak broken: the next claim restarts at 1/3.",
        "Jersey City · progress 1/3 locked today Show Jersey City on map Claimed today."]     # R10 lock
    assert items(page, "#turf-outposts") == [
        # claimed Wednesday
        "Princeton · progress 1/3 Show Princeton on map Claim it again today to keep the streak (2/3)."]
    assert page.inner_text("#turf-cluster-n") == "2" and page.inner_text("#turf-outposts-n") == "1"
    until(page, "document.querySelector('#claims-left').textContent === '0'")
    mine = next(s for s in leaderboard(http, lambda lb: any(s["player_id"] == pid and s["base"] == 2
                                                             for s in lb["standings"]))["standings"]
                if s["player_id"] == pid)
    score = f"{mine['total']} (base 2, bonuses {mine['bonuses']})"   # R23: the base is the largest cluster
    until(page, f"document.querySelector('#my-score').textContent === '{score}'")
    assert page.inner_text("#my-rank").startswith(f"{mine['rank']} of ")
    shot(page, "play-my-turf", at="#my-turf")

    # where I stand (Hoboken) is outlined in the position's blue, and its name stays shown at any zoom
    until(page, f"window.turf.board.here === '{HOBOKEN_ID}'", timeout=30)
    assert page.evaluate(f"window.turf.board.layers.get('{HOBOKEN_ID}').options.color") == HERE_BLUE
    page.evaluate("void window.turf.board.map.setView([40.735, -74.05], 13, { animate: false })")
    near = labels(page)
    assert HOBOKEN_ID in near and JERSEY_CITY_ID in near
    assert page.locator(".town-label.here").evaluate("e => e.dataset.territoryId") == HOBOKEN_ID
    assert page.evaluate("getComputedStyle(document.querySelector('.town-label span')).fontSize") == "13px"
    assert overlapping_labels(page) == []
    shot(page, "play-town-names")
    # a zoom where Hudson's many small towns would crowd: the larger ones named, none over another
    page.evaluate("void window.turf.board.map.setView([40.75, -74.05], 11.5, { animate: false })")
    crowded = labels(page)
    assert len(crowded) >= 5 and HOBOKEN_ID in crowded and overlapping_labels(page) == [], crowded
    # the whole board: a handful of the widest towns named, not 448
    page.evaluate("void window.turf.board.map.fitBounds(window.turf.board.bounds, { animate: false })")
    far = labels(page)
    assert HOBOKEN_ID in far and JERSEY_CITY_ID not in far and len(far) <= 12, far
    assert overlapping_labels(page) == []

    # an outpost a tap away: the map fits to it, opens its popup and stops following me
    page.click(f"#turf-outposts li[data-territory-id='{PRINCETON_ID}'] button")
    shown(page, PRINCETON_ID)
    assert "Princeton" in page.inner_text(".leaflet-popup-content")
    assert page.is_visible("#recentre")
    assert page.inner_text("#map-status") == "Princeton shown on the map."


def test_the_town_list_filters_every_town_and_shows_one_on_the_map(
        stack: Stack, http: httpx.Client, phone: Callable[..., Any]) -> None:
    board = http.get("/api/v1/board").json()["features"]
    hudson = sum(1 for f in board if f["properties"]["county"] == "Hudson")
    owner_id = http.get(f"/api/v1/territories/{HOBOKEN_ID}").json()["owner_id"]
    owner = http.get(f"/api/v1/players/{owner_id}").json()["display_name"] if owner_id else "nobody"

    page = phone()
    open_page(page, stack.base_url + "/")
    until(page, "document.querySelector('#towns').dataset.results === '448'")
    assert page.inner_text("#town-count") == "All 448 towns."
    assert len(items(page, "#town-results")) == 25 and page.is_visible("#town-more")

    page.fill("#town-search", "hobok")
    until(page, "document.querySelector('#towns').dataset.results === '1'")
    assert page.inner_text("#town-count") == "1 town matches “hobok”."
    [hoboken] = items(page, "#town-results")
    assert hoboken.startswith("Hoboken Hudson County, NJ Owner: ") and owner in hoboken
    page.click(f"#town-results li[data-territory-id='{HOBOKEN_ID}'] button")
    shown(page, HOBOKEN_ID)

    page.fill("#town-search", "Hudson County")   # by county too
    until(page, f"document.querySelector('#towns').dataset.results === '{hudson}'")
    assert page.inner_text("#town-count") == f"{hudson} towns match “Hudson County”."


def test_the_town_list_works_with_the_keyboard_alone(stack: Stack, phone: Callable[..., Any]) -> None:
    page = phone(has_touch=False, is_mobile=False)
    open_page(page, stack.base_url + "/")
    # the search box is labelled, its count is a polite live region it points to
    box = page.get_by_label("Find a town by its name or county")
    assert box.get_attribute("id") == "town-search"
    assert page.get_attribute("#town-count", "aria-live") == "polite"
    assert page.get_attribute("#town-search", "aria-describedby") == "town-count"

    page.keyboard.press("Tab")   # the first stop: the skip link to the list
    assert page.evaluate("document.activeElement.id") == "skip-towns"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "town-search"
    page.keyboard.type("princeton")
    until(page, "document.querySelector('#towns').dataset.results === '1'")
    page.keyboard.press("Tab")   # straight to the match's button, named after its town
    assert page.evaluate("document.activeElement.textContent") == "Show Princeton on map"
    page.keyboard.press("Enter")
    shown(page, PRINCETON_ID)

    # Enter in the box shows the first match
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Control+A")
    page.keyboard.type("jersey c")
    until(page, "document.querySelector('#town-count').textContent === '1 town matches “jersey c”.'")
    page.keyboard.press("Enter")
    shown(page, JERSEY_CITY_ID)
    assert page.evaluate("document.activeElement.id") == "town-search"
