"""Countdowns and safety in a real browser on a 390×844 phone, against the real stack with its manual clock: the play
page's countdowns (a territory's progress and streak, the game's next closing and opening from the server's clock, a War
deadline after a steal) and the rule-11 "Pull over first" warning, which holds a claim until "I'm a passenger".
Every page must run under the gateway's Content-Security-Policy with no console error; the notification routes
this server does not have yet answer 404, which the pages take silently (the browser still logs each 404 it gets,
once per route and page load: those lines alone are allowed)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.browser.test_pages import message, open_page, until
from tests.support.client import Player, move_clock, register, sign_in
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

HOBOKEN_ID, WEST_NEW_YORK_ID = "3401732250", "3401779610"
HOBOKEN = (40.744, -74.032)
JERSEY_CITY_FIX = {"latitude": 40.7280, "longitude": -74.0770, "accuracy": 10}
WEST_NEW_YORK_FIX = {"latitude": 40.7857, "longitude": -74.0094, "accuracy": 12}
#: routes of the notifications service (API.md), not served before it lands: a 404 each, taken silently
NOT_YET = {"/api/v1/me/notifications", "/api/v1/push/key", "/api/v1/announcements"}


def at(s: str) -> datetime:
    return datetime.fromisoformat(s)


def console_errors(page: Any) -> list[str]:
    """Every console error of the page from now on, but the browser's own line for a 404 of a :data:`NOT_YET`
    route."""
    errors: list[str] = []

    def seen(m: Any) -> None:
        if m.type != "error":
            return
        where = urlsplit((m.location or {}).get("url", "")).path
        if "404" in m.text and where in NOT_YET:
            return
        errors.append(f"{m.text} at {m.location}")

    page.on("console", seen)
    return errors


def signed_in_page(phone: Callable[..., Any], base: str, email: str, password: str,
                   **opts: Any) -> tuple[Any, list[str]]:
    page = phone(**opts)
    errors = console_errors(page)
    open_page(page, base + "/")
    page.fill("#signin-form [name=email]", email)
    page.fill("#signin-form [name=password]", password)
    page.click("#signin-form button[type=submit]")
    page.wait_for_selector("#countdowns:not([hidden])")
    return page, errors


def verified(http: httpx.Client, org: Player, name: str) -> tuple[Player, str, str]:
    pid, email, password = register(http, name)
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    return sign_in(http, email, password), email, password


def text(page: Any, selector: str) -> str:
    return " ".join(page.inner_text(selector).split())


def test_countdowns_show_progress_the_next_change_and_a_war_deadline(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    mon = at("2026-10-05T07:00:00-04:00")
    move_clock(org, mon)
    owner, email, password = verified(http, org, "Countdown Owner")
    thief, _, _ = verified(http, org, "Countdown Thief")
    assert owner.claim(*HOBOKEN, mon).status_code == 201

    page, errors = signed_in_page(phone, stack.base_url, email, password)
    item = f"#my-territories li[data-territory-id='{HOBOKEN_ID}']"
    page.wait_for_selector(item)
    assert text(page, item) == ("Hoboken · progress 1/3 locked today "
                                "Claimed today: claim it again next game day to keep the streak.")
    # the manual clock stands still at 07:00: 15 hours to the close, whatever the device's clock says
    until(page, "document.querySelector('#next-change').textContent.includes('closes in')")
    assert text(page, "#next-change") == "The game closes in 15 h 00 min (Mon 5 Oct, 22:00)."
    assert page.is_hidden("#deadlines-box")
    # the notifications service answers: the bell is there, the list closed; no announcement was made
    until(page, "!document.querySelector('#notif-btn').hidden")
    assert page.is_hidden("#notifications") and page.is_hidden("#announcement")

    # after the close: the next opening, and the streak looks at Tuesday
    move_clock(org, at("2026-10-05T22:00:00-04:00"))
    page.reload()
    page.wait_for_selector(item)
    until(page, "document.querySelector('#next-change').textContent.includes('opens in')")
    assert text(page, "#next-change") == "The game opens in 8 h 00 min (Tue 6 Oct, 06:00)."
    assert page.get_attribute(item, "data-streak") == "keeps"
    assert "Claim it on Tue 6 Oct to keep the streak (2/3), opens in 8 h 00 min." in text(page, item)
    shot(page, "play-countdowns", at="#countdowns")

    # a steal on Tuesday at 20:00: the victim's page shows the War deadline live (5 game hours: Wednesday 09:00)
    tue = at("2026-10-06T20:00:00-04:00")
    move_clock(org, tue)
    r = thief.claim(*HOBOKEN, tue)
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text
    war = f"#war-deadlines li[data-territory-id='{HOBOKEN_ID}']"
    page.wait_for_selector(war, timeout=40_000)   # from the feed at once; the 30-second refresh on a loaded machine
    until(page, f"document.querySelector(\"{war}\").textContent.includes('in 13 h')")
    thief_name = http.get(f"/api/v1/players/{thief.id}").json()["display_name"]
    # "Play War" only with a War card in the hand; without one, what War would have allowed
    wars = [c for c in owner.get("/me/hand").json()["cards"] if c["type"] == "war" and c["state"] == "ready"]
    if wars:
        r = org.post("/admin/corrections", {"action": "adjust_hand", "player_id": owner.id,
                                            "remove": ["war"] * len(wars), "reason": "browser test: no War"})
        assert r.status_code == 201, r.text
        page.reload()
        page.wait_for_selector(war)
    until(page, f"document.querySelector(\"{war}\").textContent.includes('you hold none')")
    assert text(page, war) == (f"Hoboken was stolen by {thief_name}. A War card would win it back until "
                               "Wed 7 Oct, 09:00, but you hold none: in 13 h 00 min (5 game hours).")
    r = org.post("/admin/corrections", {"action": "adjust_hand", "player_id": owner.id, "add": ["war"],
                                        "reason": "browser test: a War card"})
    assert r.status_code == 201, r.text
    page.reload()
    until(page, f"document.querySelector(\"{war}\")?.textContent.includes('Play War')", timeout=40)
    assert text(page, war) == (f"Hoboken was stolen by {thief_name}. "
                               "Play War before Wed 7 Oct, 09:00: in 13 h 00 min (5 game hours). Play War")
    assert page.locator(f"{war} button.war-now").is_visible()   # the banner carries its action
    until(page, f"!document.querySelector(\"{item}\")")   # no longer mine
    assert text(page, "#next-change") == "The game closes in 2 h 00 min (Tue 6 Oct, 22:00)."
    shot(page, "play-war-deadline", at="#deadlines-box")
    assert not errors, errors


def test_pull_over_first_when_two_fixes_imply_driving_and_a_passenger_may_claim(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    if not http.get("/api/v1/clock").json()["open"]:
        move_clock(org, at("2026-10-07T07:00:00-04:00"))
    rider, email, password = verified(http, org, "Passenger")
    page, errors = signed_in_page(phone, stack.base_url, email, password, geolocation=JERSEY_CITY_FIX,
                                  permissions=["geolocation"])
    page.wait_for_selector("#map[data-located='1']")
    assert page.is_hidden("#safety")
    # a second fix 7 km away a moment later: far faster than walking or cycling
    page.context.set_geolocation(WEST_NEW_YORK_FIX)
    page.wait_for_selector("#safety:not([hidden])")
    assert page.get_attribute("#safety", "role") == "alert"
    assert text(page, "#safety").startswith("Pull over first. You are moving at about ")
    assert "40.78570, -74.00940" in page.inner_text("#position")

    # the claim waits for the confirmation, and nothing is sent before it
    page.click("#claim-btn")
    page.wait_for_selector("#passenger:not([hidden])")
    assert page.inner_text("#claim-msg") == "Confirm that you are a passenger to claim."
    page.wait_for_timeout(300)
    assert rider.get("/me").json()["claims_left_today"] == 1
    shot(page, "play-pull-over", at="#claim")
    page.click("#passenger-no")
    assert page.is_hidden("#passenger") and "Claim cancelled" in page.inner_text("#claim-msg")
    assert rider.get("/me").json()["claims_left_today"] == 1

    page.click("#claim-btn")
    page.click("#passenger-yes")
    assert "You took West New York" in message(page, "#claim-msg", "ok")
    assert rider.get("/me").json()["claims_left_today"] == 0
    owner = http.get(f"/api/v1/territories/{WEST_NEW_YORK_ID}").json()["owner_id"]
    assert owner == rider.id
    page.wait_for_selector(f"#my-territories li[data-territory-id='{WEST_NEW_YORK_ID}']")
    assert not errors, errors


def test_motion_reads_the_reported_speed_and_lets_walking_pass(stack: Stack, phone: Callable[..., Any]) -> None:
    """safety.js alone: a speed the device reports counts (Playwright cannot emulate one), and two fixes 100 m apart
    a minute apart (5.4 km/h once both accuracies are taken off) are walking."""
    page = phone()
    open_page(page, stack.base_url + "/")
    out = page.evaluate("""async () => {
        const { Motion } = await import("/static/js/safety.js");
        const fix = (lat, speed, t) => ({ coords: { latitude: lat, longitude: -74, accuracy: 5, speed },
                                          timestamp: t });
        const driving = new Motion();
        driving.update(fix(40.7, 10, 1000));                 // 10 m/s reported
        const walking = new Motion();
        walking.update(fix(40.7, null, 0));
        walking.update(fix(40.7 + 100 / 111195, null, 60000));
        const slow = new Motion();
        slow.update(fix(40.7, 6.9, 0));                      // 24.8 km/h: cycling
        return [driving.kmh, driving.fast(), Math.round(walking.kmh * 10) / 10, walking.fast(), slow.fast()]; }""")
    assert out == [36, True, 5.4, False, False]
