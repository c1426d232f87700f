"""Reloaded without signal (a basement, a tunnel), the play page shows the last known position, kept on the phone,
with its age, centred on the map with a greyed dot, instead of the whole region and "Waiting for your location…";
and Check says there is no signal rather than blaming the location permission, which the player has given."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import message, open_page, sign_in_page, until
from tests.support.client import Player, move_clock, register

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN = {"latitude": 40.7440, "longitude": -74.0320, "accuracy": 10}
HOBOKEN_ID = "3401732250"

# the phone's location times out, as it does without signal (permission granted)
NO_SIGNAL = """
Object.defineProperty(navigator.geolocation, "watchPosition", { value: (ok, fail) => {
  setTimeout(() => fail({ code: 3, message: "Timeout expired", PERMISSION_DENIED: 1, POSITION_UNAVAILABLE: 2,
    TIMEOUT: 3 }), 300);
  return 1;
} });
"""


def test_reloaded_without_signal_the_page_shows_the_last_known_position_and_its_age(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    move_clock(org, MON)
    pid, email, password = register(http, "Basement Walker")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    page = phone(geolocation=HOBOKEN, permissions=["geolocation"])
    open_page(page, stack.base_url + "/")
    sign_in_page(page, email, password)
    until(page, f"document.querySelector('#where').dataset.territoryId === '{HOBOKEN_ID}'", timeout=30)
    # the fix was kept 12 minutes ago
    page.evaluate("""(() => { const k = JSON.parse(localStorage.getItem("turf.lastFix"));
      localStorage.setItem("turf.lastFix", JSON.stringify({ ...k, at: Date.now() - 12 * 60000 })); })()""")

    page.add_init_script(NO_SIGNAL)
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    until(page, "document.querySelector('#position').textContent.includes('12 min ago')")
    assert "Last known position 12 min ago: 40.74400, -74.03200." in page.inner_text("#position")
    assert page.evaluate("document.querySelector('#map').dataset.located") == "kept"
    centre = page.evaluate("(() => { const c = turf.board.map.getCenter(); return [c.lat, c.lng]; })()")
    assert abs(centre[0] - HOBOKEN["latitude"]) < 0.01 and abs(centre[1] - HOBOKEN["longitude"]) < 0.01
    assert page.evaluate("turf.board.map.getZoom()") >= 13   # the town, not the whole region

    # the phone's location timed out: said so, the last position still shown; Check does not blame permission
    until(page, "document.querySelector('#position').textContent.startsWith('No location signal now.')")
    assert "12 min ago" in page.inner_text("#position")
    page.click("#check")
    said = message(page, "#claim-msg", "error")
    assert said.startswith("No location signal"), said
    assert "allow" not in said.lower() and "permission" not in said.lower(), said
    assert page.is_disabled("#claim-btn")
