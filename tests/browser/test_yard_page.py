"""The yard card game's page (/yard) in a real browser on a 390×844 phone viewport against the real stack: a player
opens a room and invites another by its link, starts it; each plays a turn with the page's buttons (start actions,
AWAY: work and buy from the store; HOME: a tool from the hand onto a pile), a refusal shows the ruling's sentence,
a spectator sees the table without anyone's hand (Y27), and the game ends when one leaves (Y26)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.support.client import Player, move_clock, verified_player
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)
T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


def _signed_in(page: Any, stack: Stack, p: Player, path: str = "/yard") -> None:
    page.goto(stack.base_url + "/yard")
    page.evaluate("s => localStorage.setItem('turf.session', s)",
                  json.dumps({"token": p.token, "player_id": p.id, "role": "player"}))
    page.goto(stack.base_url + path)


def _turn_of(page: Any) -> str:
    return str(page.inner_text("#room-status"))


def test_a_yard_room_is_played_from_the_page(stack: Stack, http: httpx.Client, org: Player,
                                             phone: Callable[..., Any]) -> None:
    move_clock(org, T0)
    a, b = verified_player(http, org, "Ada"), verified_player(http, org, "Bo")
    ada = phone()
    _signed_in(ada, stack, a)
    ada.wait_for_selector("#open-room:not([hidden])")
    ada.fill("#open-room [name=turn_seconds]", "3600")
    ada.click("#open-room button[type=submit]")
    ada.wait_for_selector("#room-invite:not([hidden])")
    invite = ada.get_attribute("#room-invite a", "href")
    gid = invite.rsplit("=", 1)[1]
    bo = phone()
    _signed_in(bo, stack, b, f"/yard?room={gid}")
    bo.click("#room-join")
    ada.click("#room-start")
    ada.wait_for_selector("#room-status:has-text('Round 1')")
    first = a.get(f"/modes/yard-cards/{gid}").json()["yard_cards"]["table"]["turn"]["player"]
    (p1, page1), (p2, page2) = ((a, ada), (b, bo)) if first == a.id else ((b, bo), (a, ada))

    # the first player: start actions, AWAY, work, buy the cheapest store card
    page1.click("#do-start")
    page1.click("#go-away")
    page1.click("#do-work")
    page1.wait_for_selector("#yards h4:has-text('you · AWAY · $5')")
    costs = {c["id"]: c["cost"] for c in p1.get(f"/modes/yard-cards/{gid}").json()["yard_cards"]["catalogue_cards"]}
    store = p1.get(f"/modes/yard-cards/{gid}").json()["yard_cards"]["table"]["store"]
    dear = max(store, key=lambda c: costs[c["id"]])
    if costs[dear["id"]] > 5:
        page1.click(f"#store button[data-card={dear['card']}]")
        page1.wait_for_selector("#error:has-text('You do not have enough money in your piggy bank.')")  # Y11
    cheap = min(store, key=lambda c: costs[c["id"]])
    page1.click(f"#store button[data-card={cheap['card']}]")
    page1.wait_for_selector(f"#garage [data-card={cheap['card']}]")    # Y11: onto the garage, seen by its owner
    page1.click("#do-end")

    # a spectator sees the table and counts, never a hand or a garage (Y27)
    watcher = phone()
    watcher.goto(stack.base_url + f"/yard?room={gid}")
    watcher.wait_for_selector("#yards .seat >> nth=1")
    assert watcher.is_hidden("#hand-box") and "garage 1" in watcher.inner_text("#yards")
    assert watcher.locator(f"[data-card={cheap['card']}]").count() == 0

    # the second player: HOME, the Hand Trowel onto pile 5 of their yard makes it GRASS (Y13, Y17)
    page2.wait_for_selector("#do-start:not([hidden])")
    page2.click("#do-start")
    page2.click("#go-home")
    page2.click("#hand button[data-id=trowel]")
    page2.click(f"#yards .pile[data-owner='{p2.id}'][data-pile='4']")
    page2.wait_for_selector(f"#yards .pile.grass[data-owner='{p2.id}'][data-pile='4']")
    page2.click("#do-end")
    page1.wait_for_selector("#do-start:not([hidden])")

    # the first player leaves: the other wins (Y26), and the seed is revealed
    page1.click("#do-leave")
    page2.wait_for_selector("#room-status:has-text('Over: you won')")
    assert "Seed revealed" in watcher.wait_for_selector("#room-seed:has-text('Seed revealed')").inner_text()
