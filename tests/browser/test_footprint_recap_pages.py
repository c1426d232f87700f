"""A player's footprint and season recap in a real browser, under the gateway's CSP (the phone fixture fails on a
page error or a CSP violation): the play page's "My season" draws every town I held, coloured by what happened
there; the public profile page shows the place, towns, best steal, medals, the footprint, the recap image and the
statistics plot, without a serious accessibility violation, and nothing private (email, name, address); medals
earned are stories on the watch page's feed; after the close the podium leads to each player's recap with their
final place."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.a11y import serious_violations
from tests.browser.test_pages import open_page, show_tab, sign_in_page, until
from tests.support.cards import claim
from tests.support.client import Player, move_clock, register, sign_in
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(900)

HOBOKEN, JERSEY_CITY = "3401732250", "3401736000"
D1, D2, D2_LATER = (datetime.fromisoformat(s) for s in (
    "2026-10-05T06:00:20-04:00", "2026-10-06T07:00:00-04:00", "2026-10-06T08:00:00-04:00"))
AFTER_CLOSE = datetime.fromisoformat("2026-10-24T22:30:00-04:00")


def player(http: httpx.Client, org: Player, name: str) -> tuple[Player, str, str]:
    pid, email, pw = register(http, name)
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    return sign_in(http, email, pw), email, pw


def test_my_footprint_and_recap_on_the_play_profile_and_watch_pages(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    (ada, ada_mail, ada_pw), (bo, _, _) = player(http, org, "Ada Realname"), player(http, org, "Bo Realname")
    watch = phone()
    open_page(watch, stack.base_url + "/watch")
    move_clock(org, D1)
    assert claim(ada, HOBOKEN, D1).status_code == 201          # in the opening minute: Early bird
    move_clock(org, D2)
    assert claim(bo, HOBOKEN, D2).json()["kind"] == "steal"    # Bo: Raider
    move_clock(org, D2_LATER)
    assert claim(ada, JERSEY_CITY, D2_LATER).status_code == 201
    # the medals earned are stories on the spectators' feed
    until(watch, "document.querySelector('#feed').textContent.includes('earned Early bird (bronze)')")
    until(watch, "document.querySelector('#feed').textContent.includes('earned Raider (bronze)')")

    # --- the play page: my footprint, Hoboken lost and Jersey City held ---
    play = phone()
    open_page(play, stack.base_url + "/")
    sign_in_page(play, ada_mail, ada_pw)
    show_tab(play, "turf")
    play.wait_for_selector("#my-footprint[data-held='1'][data-lost='1']")
    assert play.get_attribute("#my-profile", "href") == f"/profile?player={ada.id}"
    shot(play, "play-footprint", at="#my-season")

    # --- the public profile: no sign-in, public facts only ---
    page = phone()
    page.goto(f"{stack.base_url}/profile?player={ada.id}")
    page.wait_for_selector("body[data-footprint='1']")
    towns = page.eval_on_selector_all("#footprint-list li",
                                      "els => els.map(e => [e.dataset.territory, e.dataset.status])")
    assert sorted(towns) == sorted([[HOBOKEN, "lost"], [JERSEY_CITY, "held"]])
    facts = page.inner_text("#recap-facts")
    assert "1 (of 2 ever)" in facts and "0 given, 1 taken" in facts, facts
    medals = dict(page.eval_on_selector_all("#medals li", "els => els.map(e => [e.dataset.medal, e.dataset.tier])"))
    assert medals["early_bird"] == "bronze" and medals["raider"] == ""
    until(page, "document.querySelector('#recap-img').naturalWidth === 1200")
    until(page, "document.querySelector('#stats-img').naturalWidth === 1000")
    text = page.content()
    for private in (ada_mail, "Ada Realname", "1 Main St"):
        assert private not in text
    assert serious_violations(page) == []
    shot(page, "profile-recap", at="#recap-h")

    # --- after the close the podium leads to each player's recap, with the final place ---
    move_clock(org, AFTER_CLOSE)
    open_page(watch, stack.base_url + "/watch")
    watch.wait_for_selector(f"#podium a.recap[href='/profile?player={bo.id}']")
    watch.click(f"#results a.recap[href='/profile?player={ada.id}']")
    watch.wait_for_selector("body[data-loaded='1']")
    assert watch.inner_text("#profile-place").startswith("final place ")
    assert watch.inner_text("#profile-name") == http.get(f"/api/v1/players/{ada.id}").json()["display_name"]
