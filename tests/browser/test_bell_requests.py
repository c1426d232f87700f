"""The opening bell from a player's page: from a minute before the game opens to its claim's answer, the play page
asks the server only what the player does there, the check where they stand (at the opening) and the claim. Its
polls (clock, My turf, notifications), the day's hand and the reads a claim used to make wait until after the bell
(every page of the league does this in the same seconds). ``bench/openingbell.py`` sends these requests.

The stack's clock is the manual one, which stands still between the organizer's moves; the page is told it runs at
the real clock's rate (``/pages/config.json``), as it does in a deployment, and its own timers run on Playwright's
clock, so the minute before the opening passes in a moment, every poll of it firing, and the server's clock is
moved to the opening when the page's reaches it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.browser.test_pages import open_page, sign_in_page, until
from tests.support.client import Player, move_clock, register, verified_player
from tests.support.client import until as until_server

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
TUE_OPENS = datetime.fromisoformat("2026-10-06T06:00:00-04:00")   # the season's open_time; a day start deals (R12)
HOBOKEN = {"latitude": 40.7440, "longitude": -74.0320, "accuracy": 10}
HOBOKEN_ID = "3401732250"
BEFORE_MS = 60_000


def test_the_play_page_asks_only_the_check_and_the_claim_from_a_minute_before_the_opening(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    move_clock(org, MON)
    probe = verified_player(http, org, "Bell Probe")   # asks the server, off the page, whether it has opened
    pid, email, password = register(http, "Early Bird")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    move_clock(org, TUE_OPENS - timedelta(seconds=90))   # closed: Tuesday opens in 90 s

    # the service worker stays out of it: requests it answered would not reach the page's route
    page = phone(geolocation=HOBOKEN, permissions=["geolocation"], service_workers="block")

    def real_rate(route: Any) -> None:
        answer = route.fetch()
        route.fulfill(response=answer, json=answer.json() | {"clock_rate": 1})

    page.route("**/pages/config.json", real_rate)
    # the page's clock starts behind the real one, so the minute it is moved on never makes the phone's location
    # fixes (stamped on the real clock) look as if they came from the future
    page.clock.install(time=datetime.now() - timedelta(minutes=10))
    counting = {"on": False, "done": False}
    asked: list[str] = []
    checks: list[str] = []   # the checks asked and their answers in the count: what a failure is explained by

    def on_request(r: Any) -> None:
        if counting["on"] and not counting["done"]:
            asked.append(f"{r.method} {urlsplit(r.url).path}")
            if urlsplit(r.url).path == "/api/v1/claims/check":
                checks.append(f"asked {r.post_data}")

    def on_response(r: Any) -> None:
        if r.request.method == "POST" and urlsplit(r.url).path == "/api/v1/claims" and counting["on"]:
            counting["done"] = True   # the claim's answer ends the count
        elif counting["on"] and not counting["done"] and urlsplit(r.url).path == "/api/v1/claims/check":
            checks.append(f"{r.status} {r.text()[:120]}")

    page.on("request", on_request)
    page.on("response", on_response)

    # the page's load, signed in, before the bell: not counted
    open_page(page, stack.base_url + "/")
    sign_in_page(page, email, password)
    until(page, f"document.querySelector('#where').dataset.territoryId === '{HOBOKEN_ID}'", timeout=30)
    assert page.evaluate("document.querySelector('#where').dataset.allowed") == "false"   # closed (R3)
    page.wait_for_selector("#countdowns[data-loaded]", state="attached")
    page.wait_for_selector("#cards:not([hidden])", state="attached")   # the hand read (in its tab)
    page.wait_for_load_state("networkidle")
    # five seconds on, the clock is read again (as the page's polls do): the manual clock has stood still, so the
    # page's count of the game's time goes back five seconds. The bell must ring on the clock as it reads now, not
    # five seconds before the opening, where its check would be refused (R3)
    page.clock.run_for(5_000)
    page.evaluate("""async () => {
        const c = await (await fetch('/api/v1/clock')).json();
        turf.clock.set(c);
        turf.bell.learn(c);
    }""")
    assert page.evaluate("turf.clock.until(turf.clock.last.next_change)") > 89_000   # 90 s again

    # a minute before the opening on the page's clock, counting starts; the minute passes
    page.clock.pause_at((page.evaluate("Date.now()") + 100) / 1000)   # seconds since 1970
    to_opening = page.evaluate("turf.clock.until(turf.clock.last.next_change)")
    assert to_opening > BEFORE_MS, to_opening
    page.clock.run_for(int(to_opening - BEFORE_MS))
    counting["on"] = True
    page.clock.run_for(BEFORE_MS - 500)
    # the page's clock half a second before the opening: the server's opens (its day start deals the cards, R5)
    move_clock(org, TUE_OPENS)
    # the organizer's move is answered once the clock has stored it; geo-verify and claims read it from their watch of
    # the clock a moment later (and claims deals the day, R5). A deployment's clock never jumps: wait until the claim
    # path judges at the opening, as it would at a real 06:00, before the page's clock reaches it (on a loaded machine
    # the page's check came first, was refused R3, and the player checked again: a third request)
    opened = until_server(lambda: probe.claim(HOBOKEN["latitude"], HOBOKEN["longitude"], TUE_OPENS, check=True),
                          lambda r: r.status_code == 200 and r.json()["allowed"], timeout=20.0)
    assert opened.status_code == 200 and opened.json()["allowed"], opened.text
    page.clock.run_for(3_000)   # the opening, and the 2 s its check is spread over
    page.clock.resume()

    # the page checks where I stand at the opening by itself; a page that does not is checked by the player
    try:
        until(page, "document.querySelector('#where').dataset.allowed === 'true'", timeout=15)
    except AssertionError:
        page.click("#check")
        until(page, "document.querySelector('#where').dataset.allowed === 'true'", timeout=15)
    page.click("#claim-btn")
    until(page, "document.querySelector('#claim-msg').textContent.includes('You took Hoboken')")
    assert counting["done"]
    assert asked == ["POST /api/v1/claims/check", "POST /api/v1/claims"], \
        f"{len(asked)}: {', '.join(asked)}; the checks: {checks}"
    # what the page asked no more: my claims left come from the claim's answer
    until(page, "document.querySelector('#claims-left').textContent === '0'")
