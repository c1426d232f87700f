"""A TV that tells the story (1920×1080, ``/watch?tv=1``): at rest the map frames the claimed towns, not
the whole state, and names every claimed town on screen (claimed towns first, then the busiest, then the largest);
a story outlines and names its town with no popup over it, and the popup-free rest view follows."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.a11y import serious_violations
from tests.browser.test_my_turf import overlapping_labels
from tests.browser.test_pages import open_page, until
from tests.support.client import Player, move_clock, verified_player

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
TV = {"viewport": {"width": 1920, "height": 1080}, "is_mobile": False, "has_touch": False}

#: claimed towns in view without a name on the map (none should be)
UNNAMED = """(() => {
  const b = turf.board, view = b.map.getBounds();
  return [...b.props.values()].filter((p) => p.owner_id && p.label_point
      && view.contains([p.label_point.lat, p.label_point.lon]))
    .filter((p) => !document.querySelector(`.town-label[data-territory-id="${p.id}"]`)).map((p) => p.name);
})()"""


def test_the_tv_at_rest_frames_the_claimed_towns_and_names_each(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    move_clock(org, MON)
    hudson = sorted((f["properties"] for f in http.get("/api/v1/board").json()["features"]
                     if f["properties"]["county"] == "Hudson"), key=lambda p: -p["land_area_m2"])
    assert len(hudson) >= 8
    claimed = hudson[:7]
    for i, t in enumerate(claimed):
        p = verified_player(http, org, f"TV {i}")
        assert p.claim(t["label_point"]["lat"], t["label_point"]["lon"], MON).status_code == 201

    tv = phone(**TV)
    open_page(tv, stack.base_url + "/watch?tv=1")
    until(tv, "document.querySelector('#live').textContent.includes('live')")
    tv.wait_for_timeout(500)
    # the resting view is where the play is: every claimed town on screen, far closer than the whole state
    assert tv.evaluate("""(() => { const b = turf.board, v = b.map.getBounds();
      return [...b.props.values()].filter((p) => p.owner_id)
        .every((p) => v.contains([p.label_point.lat, p.label_point.lon])); })()""")
    assert tv.evaluate("turf.board.map.getZoom()") >= tv.evaluate("turf.board.map.getBoundsZoom(turf.board.bounds)") + 2
    until(tv, f"({UNNAMED}).length === 0")
    assert overlapping_labels(tv) == []
    shot(tv, "watch-tv-rest")

    # a story: its town outlined and named, no popup over it; back at rest, nothing left open
    story = hudson[7]
    p = verified_player(http, org, "TV story")
    assert p.claim(story["label_point"]["lat"], story["label_point"]["lon"], MON).status_code == 201
    until(tv, f"document.body.dataset.tvFocus === '{story['id']}'")
    tv.wait_for_timeout(1600)
    until(tv, f"!!document.querySelector(\".town-label[data-territory-id='{story['id']}']\")")
    assert tv.locator(".leaflet-popup").count() == 0
    shot(tv, "watch-tv-story")
    until(tv, "document.body.dataset.tvFocus === ''", timeout=30)
    tv.wait_for_timeout(1600)
    assert tv.locator(".leaflet-popup").count() == 0
    until(tv, f"({UNNAMED}).length === 0")
    assert overlapping_labels(tv) == []


def test_the_watch_desk_shows_the_live_feed_first_and_every_region_by_keyboard(
        stack: Any, phone: Callable[..., Any]) -> None:
    desk = phone(viewport={"width": 1280, "height": 800}, is_mobile=False, has_touch=False)
    open_page(desk, stack.base_url + "/watch")
    # the feed right under the standings, above the replay and the side quests, on the first screen
    order = desk.evaluate("[...document.querySelectorAll('main > section')]"
                          ".map((s) => s.id || s.querySelector('h2')?.id)")
    assert order.index("feed-h") < order.index("replay"), order
    box = desk.locator("#feed").bounding_box()
    assert box is not None and box["y"] < 800, box
    # the scrollable feed is reachable by keyboard (axe: scrollable-region-focusable)
    assert desk.get_attribute("#feed", "tabindex") == "0"
    assert serious_violations(desk) == []
