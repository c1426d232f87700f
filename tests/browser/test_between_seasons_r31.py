"""R31 on the pages: after the last season with none announced, the organize page leads with "Set up the next
season" and its form makes one (a wrong form says which field, saves nothing); then the play and watch pages say
when the next season opens, in days on the game clock, and a returning player joins it with one button."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import message, open_page, sign_in_page, until
from tests.support.client import Player, move_clock, register, sign_in
from tests.support.stackfix import ORGANIZER
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

AFTER_2026 = datetime.fromisoformat("2026-12-07T12:00:00-05:00")


def fill_season(page: Any, first: str, last: str) -> None:
    page.click("#season-new summary")
    page.fill("#season-form [name=id]", "2027")
    page.fill("#season-form [name=first_day]", first)
    page.fill("#season-form [name=last_day]", last)
    page.click("#season-form button[type=submit]")


def test_between_seasons_the_organizer_sets_up_the_next_players_see_when_it_opens_and_join_it(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any],
        shot: Callable[..., Path]) -> None:
    _, email, password = register(http, "Returning Rae")   # registered in 2026: joined 2026 only
    move_clock(org, AFTER_2026)
    admin = phone()
    open_page(admin, stack.base_url + "/admin")
    sign_in_page(admin, ORGANIZER[0], ORGANIZER[1])
    until(admin, "document.querySelector('#seasons-title').textContent === 'Set up the next season'")
    assert admin.evaluate("document.querySelector('#console').firstElementChild.id") == "seasons"
    assert "The next season has not been announced." in admin.inner_text("#seasons-lead")

    fill_season(admin, "2027-10-04", "2027-10-01")   # the last day before the first
    assert "last_day" in message(admin, "#season-msg", "error")
    assert http.get("/api/v1/seasons/2027").status_code == 404

    admin.fill("#season-form [name=last_day]", "2027-10-23")
    admin.click("#season-form button[type=submit]")
    assert "opens Monday 4 October at 06:00" in message(admin, "#season-msg", "ok")
    until(admin, "document.querySelector('#seasons-title').textContent === 'Seasons'")
    assert "2027" in admin.inner_text("#seasons-list")
    shot(admin, "admin-next-season")

    days = (datetime.fromisoformat("2027-10-04T06:00:00-04:00") - AFTER_2026).days + 1   # 301, counted up
    want = f"The 2027 season opens Monday 4 October at 06:00 — {days} days."
    for path in ("/", "/watch"):
        page = phone()
        open_page(page, stack.base_url + path)
        until(page, "!document.querySelector('#season-line').hidden")
        assert page.inner_text("#season-line") == want
        if path == "/":
            shot(page, "play-between-seasons")

    # a returning player is offered the next season and joins it with one button
    play = phone()
    open_page(play, stack.base_url + "/")
    sign_in_page(play, email, password)
    play.wait_for_selector("#season-join:not([hidden])")
    assert play.inner_text("#season-join-button") == "Join the 2027 season"
    shot(play, "play-join-next-season", at="#me")
    play.click("#season-join-button")
    assert "You joined the 2027 season" in message(play, "#season-join-msg", "ok")
    until(play, "document.querySelector('#season-join').hidden")
    assert sign_in(http, email, password).get("/me").json()["seasons"] == ["2026", "2027"]
