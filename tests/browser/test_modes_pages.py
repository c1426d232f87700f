"""The turn-based modes in a real browser: the /modes page on a 390×844 phone viewport against the real stack. A player
opens a King of the Hill room on Hoboken by its name, invites another with its link, starts it once two others joined,
attacks, and sees the hill taken (K9); in a Team Turf game the organizer made, opened by its link, the player joins
red and places troops in Hoboken (T3, T6)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import dismissed
from tests.support.client import Player, move_clock, verified_player
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

HOBOKEN, JERSEY_CITY, WEEHAWKEN = "3401732250", "3401736000", "3401777930"
T0 = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


def _signed_in(page: Any, stack: Stack, p: Player) -> None:
    page.goto(stack.base_url + "/modes")
    page.evaluate("s => localStorage.setItem('turf.session', s)",
                  json.dumps({"token": p.token, "player_id": p.id, "role": "player"}))
    page.goto(stack.base_url + "/modes")
    page.wait_for_selector("#open-hill:not([hidden])")


def test_a_room_is_opened_started_and_the_hill_taken_from_the_page(stack: Stack, http: httpx.Client, org: Player,
                                                                  phone: Callable[..., Any]) -> None:
    move_clock(org, T0)
    a, b, c = (verified_player(http, org, n) for n in ("Ana", "Ben", "Cy"))
    page = phone()
    _signed_in(page, stack, a)
    page.wait_for_selector("#towns option >> nth=400", state="attached")   # the board's town names
    page.fill("#open-hill [name=hill]", "Hoboken")
    page.click("#open-hill button[type=submit]")
    page.wait_for_selector("#room-title:has-text('King of the Hill on Hoboken')")
    invite = page.get_attribute("#room-invite a", "href")    # K1: the opener invites with the room's link
    gid = invite.rsplit("=", 1)[1]
    ben = phone()
    _signed_in(ben, stack, b)
    ben.goto(invite)
    ben.click("#room-join")
    ben.wait_for_selector("#room-status:has-text('2 of 3–5 players')")
    page.wait_for_selector("#room-status:has-text('2 of 3–5 players')")
    assert page.is_hidden("#room-start")          # K1: not offered with two players
    d = verified_player(http, org, "Dee")
    for p in (c, d):
        assert p.post(f"/modes/hill/{gid}/join").status_code == 200
    page.wait_for_selector("#room-status:has-text('4 of 3–5 players')")
    assert ben.is_hidden("#room-players button.remove")   # K20: only the opener removes a seat
    page.click("#room-players tbody tr >> nth=3 >> button.remove")   # K20: Dee, seated last
    page.wait_for_selector("#room-status:has-text('3 of 3–5 players')")
    assert d.post(f"/modes/hill/{gid}/join").json()["reason"] == "removed_from_room"
    page.click("#room-start")                     # K1: shown to the opener once the others joined
    page.wait_for_selector("#room-status:has-text('Round 1 of 10')")
    page.click("#choose-attack")                  # K4
    page.wait_for_selector("#choose-attack", state="hidden")
    for p in (b, c):
        assert p.post(f"/modes/hill/{gid}/choices", {"round": 1, "choice": "recruit"}).status_code == 200
    page.wait_for_selector("#room-status:has-text('you hold the hill')")   # K9: the lone attacker takes it
    last = page.inner_text("#room-last")
    assert "you attacked" in last and "recruited" in last and f"{b.id}" not in last   # named, not by id
    assert page.is_hidden("#choose-attack")       # K4: the holder does not choose


def test_a_player_joins_a_team_and_places_troops_from_the_page(stack: Stack, http: httpx.Client, org: Player,
                                                               phone: Callable[..., Any]) -> None:
    r1 = verified_player(http, org, "Red")
    game = org.post("/modes/team-turf", {"teams": ["red", "blue"], "towns": [HOBOKEN, JERSEY_CITY, WEEHAWKEN],
                                         "homes": {"red": HOBOKEN, "blue": WEEHAWKEN}}).json()
    page = phone()
    _signed_in(page, stack, r1)
    page.goto(stack.base_url + f"/modes?team-turf={game['game_id']}")   # the game's link
    page.wait_for_selector("#tt-join:not([hidden])")
    page.select_option("#tt-join [name=team]", "red")
    page.click("#tt-join button[type=submit]")
    page.wait_for_selector("#tt-status:has-text('you play for red, 2 troops in reserve')")   # T3
    page.fill("#tt-place [name=n]", "2")
    page.click("#tt-place button[type=submit]")
    page.wait_for_selector("#tt-board tbody tr:has-text('Hoboken')")                    # T6: at once
    assert page.inner_text("#tt-board tbody").split() == ["Hoboken", "red", "2"]
    page.wait_for_selector("#tt-place", state="hidden")   # T3: the reserve is empty, nothing left to place
    page.fill("#tt-order [name=n]", "5")                  # T7: more than Hoboken holds
    page.select_option("#tt-order [name=dst]", JERSEY_CITY)
    page.click("#tt-order button[type=submit]")
    page.wait_for_selector("#error:has-text('You do not have that many troops there.')")   # the rule's sentence


def test_a_joiner_leaves_a_lobby_after_a_question_and_the_page_leads_to_the_yard(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    move_clock(org, T0)
    a, b = verified_player(http, org, "Gus"), verified_player(http, org, "Hal")
    gid = a.post("/modes/hill", {"hill": HOBOKEN}).json()["game_id"]
    opener = phone()
    _signed_in(opener, stack, a)
    opener.goto(stack.base_url + f"/modes?hill={gid}")
    opener.wait_for_selector("#room-need:not([hidden])")
    # "Share the link below": the sentence sits above the link
    need, invite = opener.locator("#room-need").bounding_box(), opener.locator("#room-invite").bounding_box()
    assert need and invite and need["y"] + need["height"] <= invite["y"]
    hal = phone()
    _signed_in(hal, stack, b)
    hal.goto(stack.base_url + f"/modes?hill={gid}")
    hal.click("#room-join")
    # K17: a joiner leaves the lobby with a secondary button that asks first
    hal.wait_for_selector("#room-leave:not([hidden])")
    assert "secondary" in (hal.get_attribute("#room-leave", "class") or "")
    asked = dismissed(hal, "#room-leave")
    assert asked and "Leave this room?" in asked[0]
    assert b.id in b.get(f"/modes/hill/{gid}").json()["hill"]["players"]
    hal.once("dialog", lambda d: d.accept())
    hal.click("#room-leave")
    hal.wait_for_selector("#room-join:not([hidden])")
    assert b.get(f"/modes/hill/{gid}").json()["hill"]["players"] == [a.id]
    opener.wait_for_selector("#room-status:has-text('1 of 3–5 players')")
    # the yard card game is a mode too: the page links to it
    assert hal.locator("nav a[href='/yard']").count() == 1
    hal.click("#yard-link")
    hal.wait_for_url(stack.base_url + "/yard")
    hal.wait_for_selector("#lobby-h:has-text('Yard cards')")
