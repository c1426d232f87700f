"""The play page's sentence where I stand, and My turf, say what is true in words a player reads at a glance:

* a new registrant is waiting for the organizer's verification (R27), not "not verified (or was disqualified)";
* on my own town with no claims left I am not refused: it is mine, I cannot reinforce it today, and a Double
  Trouble in hand would give me another claim (R6, R17);
* a town the organizer gave me after another player claimed it today is mine but locked until the next game day
  (R10), where my claim keeps its streak (R9, R11: that claim's day is the town's), never "Streak broken" beside it;
* a town whose claim today was reversed is "claimed earlier today (that claim no longer stands)", not "Another
  player already claimed this territory today" under "owner: nobody";
* My turf says what "1/3" means."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import open_page, show_tab, sign_in_page, until
from tests.support.client import API, Player, move_clock, register, sign_in, verified_player

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN = {"latitude": 40.7440, "longitude": -74.0320, "accuracy": 10}
JERSEY_CITY = {"latitude": 40.7178, "longitude": -74.0431, "accuracy": 10}
HOBOKEN_ID, JERSEY_CITY_ID, WEEHAWKEN_ID = "3401732250", "3401736000", "3401777930"


def where(page: Any) -> str:
    return str(page.inner_text("#where"))


def at_town(page: Any, fix: dict[str, float], territory_id: str) -> str:
    """Walk to ``fix`` and wait for the checked sentence about ``territory_id``."""
    page.context.set_geolocation(fix)
    until(page, f"document.querySelector('#where').dataset.territoryId === '{territory_id}'"
                " && document.querySelector('#where').dataset.checking === 'false'", timeout=40)
    return where(page)


def test_r8_the_sentence_where_i_stand_and_my_turf_say_what_is_true(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    move_clock(org, MON)
    weehawken = next(f["properties"] for f in http.get(API + "/board").json()["features"]
                     if f["properties"]["id"] == WEEHAWKEN_ID)
    wfix = {"latitude": weehawken["label_point"]["lat"], "longitude": weehawken["label_point"]["lon"], "accuracy": 10}

    # a new registrant: waiting, not suspected
    pid, email, password = register(http, "Newcomer")
    page = phone(geolocation=JERSEY_CITY, permissions=["geolocation"])
    open_page(page, stack.base_url + "/")
    sign_in_page(page, email, password)
    until(page, "document.querySelector('#where').dataset.reason === 'not_eligible'", timeout=40)
    assert "waiting for the organizer's verification; you can claim once it is verified" in where(page)
    assert "disqualified" not in page.inner_text("body")

    # verified, a Double Trouble in hand, today's claim spent on Jersey City, standing in it
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    assert org.post("/admin/corrections", {"action": "adjust_hand", "player_id": pid, "add": ["double_trouble"],
                                           "reason": "test"}).status_code == 201
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    until(page, "document.querySelector('#where').dataset.allowed === 'true'", timeout=40)
    page.click("#claim-btn")
    until(page, "document.querySelector('#claim-msg').textContent.includes('You took Jersey City')")
    until(page, "document.querySelector('#where').dataset.reason === 'no_claims_left'"
                " && document.querySelector('#where').dataset.checking === 'false'", timeout=40)
    mine = where(page)
    assert mine.startswith("You are in Jersey City (owner: you). You have used today's claims"), mine
    assert "Playing your Double Trouble card would give you another claim today." in mine
    assert "You cannot claim it" not in mine
    # the Double Trouble played (R17): one claim left today, so the next refusals are the towns' own
    played = sign_in(http, email, password).post("/cards/play", {"type": "double_trouble"})
    assert played.status_code == 200, played.text

    # Hoboken: a rival claimed it this morning, the organizer gave it to me; Weehawken: a claim reversed
    rival, other = verified_player(http, org, "Rival"), verified_player(http, org, "Other")
    assert rival.claim(HOBOKEN["latitude"], HOBOKEN["longitude"], MON).status_code == 201
    took = other.claim(wfix["latitude"], wfix["longitude"], MON)
    assert took.status_code == 201, took.text
    assert org.post("/admin/corrections", {"action": "set_owner", "territory_id": HOBOKEN_ID, "player_id": pid,
                                           "reason": "test"}).status_code == 201
    assert org.post("/admin/corrections", {"action": "reverse_claim", "claim_id": took.json()["claim_id"],
                                           "reason": "test"}).status_code == 201

    corrected = at_town(page, HOBOKEN, HOBOKEN_ID)
    assert corrected == ("You are in Hoboken (owner: you). It is yours, but another player claimed it earlier "
                         "today: nobody can claim it again before the next game day."), corrected
    reversed_ = at_town(page, wfix, WEEHAWKEN_ID)
    assert reversed_ == ("You are in Weehawken (owner: nobody). You cannot claim it: another player claimed it "
                         "earlier today (that claim no longer stands), so it stays locked until the next game "
                         "day."), reversed_
    assert "Another player already claimed this territory today" not in page.inner_text("body")

    # My turf: the corrected town keeps its streak for tomorrow, and "n/3" is explained
    show_tab(page, "turf")
    item = f"#my-turf li[data-territory-id='{HOBOKEN_ID}']"
    until(page, f"!!document.querySelector(\"{item}\")", timeout=20)
    text = page.inner_text(item)
    assert "progress 1/3" in text and "locked today" in text
    assert "Locked today by another player's claim: claim it on the next game day to keep the streak (2/3)." in text
    assert "Streak broken" not in page.inner_text("#my-turf")
    assert "at 3/3 it is fortified" in " ".join(page.inner_text("#progress-key").split())
    assert page.is_visible("#progress-key")
