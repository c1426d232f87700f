"""My season reads as the rest of the game does, on a 390×844 phone: the day-by-day table says "Mon 5 Oct" (it said
"10-05"); the profile says "live place" before the close (as the recap image does; it said "live rank"), a hold that
has not lasted to a close is "less than a game day" (it said "0 game days"), and the footprint map shows the one
town held with its neighbours around it and its name on it (it zoomed to one unnamed town). The statistics plot and
the recap image are checked in gateway/tests/unit/test_recap_image_reads.py."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import open_page, show_tab, sign_in_page
from tests.support.cards import claim
from tests.support.client import Player, move_clock, register, sign_in
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

HOBOKEN = "3401732250"
MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


def test_my_season_says_the_day_the_place_and_the_hold_and_names_my_town(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    pid, email, pw = register(http, "Ada Season")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    ada = sign_in(http, email, pw)
    move_clock(org, MON)
    assert claim(ada, HOBOKEN, MON).status_code == 201

    # --- the public profile ---
    page = phone()
    page.goto(f"{stack.base_url}/profile?player={ada.id}")
    page.wait_for_selector("body[data-footprint='1']")
    assert page.inner_text("#profile-place") == "live place 1"
    facts = page.inner_text("#recap-facts")
    assert "Hoboken, less than a game day (since Mon 5 Oct, 07:00)" in facts and "0 game days" not in facts, facts
    # the footprint: Hoboken named on the map, with its neighbours in view (not one town filling the map)
    label = page.locator("#footprint .leaflet-tooltip.fp-name")
    assert label.count() == 1 and label.inner_text() == "Hoboken" and label.is_visible()
    assert page.evaluate("document.querySelector('#footprint')._footprint.getZoom()") <= 12
    neighbours = page.evaluate("""(() => { const m = document.querySelector('#footprint')._footprint;
      const seen = []; m.eachLayer((l) => { if (l.feature && l.feature.properties.id !== '3401732250'
        && m.getBounds().contains(l.getBounds().getCenter())) seen.push(l.feature.properties.name); });
      return seen; })()""")
    assert {"Jersey City", "Weehawken"} <= set(neighbours), neighbours
    shot(page, "profile-footprint-one-town", at="#footprint-h")

    # --- the play page's My season: the day as the game writes it ---
    play = phone()
    open_page(play, stack.base_url + "/")
    sign_in_page(play, email, pw)
    show_tab(play, "turf")
    play.wait_for_selector("#my-season tbody tr[data-day]")
    assert play.inner_text("#my-season tbody tr[data-day] td >> nth=0") == "Mon 5 Oct"
    play.wait_for_selector("#my-footprint .leaflet-tooltip.fp-name")
    assert play.inner_text("#my-footprint .leaflet-tooltip.fp-name") == "Hoboken"
