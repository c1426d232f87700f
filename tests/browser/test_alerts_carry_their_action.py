"""Alerts a player can act on: the steal banner at the top of the play page carries its "Play War" button (the War
card's form is in another tab), a steal's notification carries "Play War" while the War window is open and the card
in the hand, and a trade offer's notification carries "Accept" while the offer is open. Each button does what it
says, and is gone once it can no longer be taken."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from tests.browser.test_card_forms import (
    HOBOKEN,
    JERSEY_CITY,
    MON,
    TUE,
    WEEHAWKEN,
    adjust_hand,
    set_owner,
    verified,
)
from tests.browser.test_pages import open_page, show_tab, sign_in_page, until
from tests.support.cards import claim, hand
from tests.support.client import Player, move_clock
from tests.support.client import until as settled

pytestmark = pytest.mark.timeout(600)

BANNER_WAR = f"#war-deadlines li[data-territory-id='{HOBOKEN}'] button.war-now"
NOTE_WAR = "#notif-list li[data-kind='territory_stolen'] button[data-action='Play War']"
NOTE_ACCEPT = "#notif-list li[data-kind='trade_proposed'] button[data-action='Accept']"


def owner(page: Any, territory_id: str) -> str | None:
    return page.evaluate("id => turf.board.props.get(id).owner_id", territory_id)  # type: ignore[no-any-return]


def test_the_steal_banner_and_the_notifications_carry_play_war_and_accept(
        http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    move_clock(org, MON)
    me, email, password = verified(http, org, "Alert Me")
    rival, _, _ = verified(http, org, "Alert Rival")
    assert claim(me, HOBOKEN, MON).status_code == 201
    assert claim(rival, JERSEY_CITY, MON).status_code == 201
    move_clock(org, TUE)
    r = claim(rival, HOBOKEN, TUE)
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text   # War may win it back until 12:00 (R14)
    set_owner(org, WEEHAWKEN, me.id)
    for p in (me, rival):   # the day starts' random draws out: each hand is what we give
        adjust_hand(org, p.id, remove=tuple(c["type"] for c in hand(p)))
    adjust_hand(org, me.id, add=("war", "trade"))
    adjust_hand(org, rival.id, add=("trade",))
    offer = rival.post("/trades", {"offer_territory_id": JERSEY_CITY, "want_territory_id": WEEHAWKEN})
    assert offer.status_code == 201, offer.text
    settled(lambda: [n["kind"] for n in me.get("/me/notifications").json()["notifications"]],
            lambda ks: {"territory_stolen", "trade_proposed"} <= set(ks), timeout=20)

    page = phone()
    open_page(page, f"{http.base_url}/")
    sign_in_page(page, email, password)
    page.wait_for_selector(BANNER_WAR)
    show_tab(page, "notes")
    page.wait_for_selector(NOTE_WAR)
    page.wait_for_selector(NOTE_ACCEPT)

    # the banner's button plays War on the stolen town, in one tap
    page.click(BANNER_WAR)
    until(page, "document.querySelector('#claim-msg').textContent.includes('War! Hoboken is yours again')")
    until(page, f"turf.board.props.get('{HOBOKEN}').owner_id === '{me.id}'")
    page.wait_for_selector(NOTE_WAR, state="detached")   # the card is spent and the town mine: nothing to act on

    # the offer's notification accepts it: Jersey City is mine, Weehawken the rival's
    page.click(NOTE_ACCEPT)
    until(page, "document.querySelector('#claim-msg').textContent.includes('Trade accepted')")
    until(page, f"turf.board.props.get('{JERSEY_CITY}').owner_id === '{me.id}'")
    assert owner(page, WEEHAWKEN) == rival.id
    page.wait_for_selector(NOTE_ACCEPT, state="detached")
