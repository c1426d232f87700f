"""Issue 18's notifications UI in a real browser, written against API.md's contract before the notifications service
lands: its routes (``GET /me/notifications?after=``, ``POST /me/notifications/read``, ``GET /announcements``) are
answered here by the test, in exactly the contract's shapes, while everything else is the real stack. The badge counts
the unread, a feed message about me makes the page read ``after=`` the last id at once, "Mark all read" posts
``{up_to}``, and the latest announcement shows on the play and watch pages until dismissed. When the service lands,
this test should run against it instead (the route fakes go)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.browser.test_countdowns_safety_issue18 import console_errors, text, verified
from tests.browser.test_pages import open_page, until
from tests.support.client import Player, move_clock

pytestmark = pytest.mark.timeout(600)

HOBOKEN = (40.744, -74.032)
NOTES = [
    {"id": "1", "at": "2026-10-05T06:30:00-04:00", "kind": "cards_dealt", "message": "You were dealt 3 cards.",
     "data": {}},
    {"id": "2", "at": "2026-10-05T06:40:00-04:00", "kind": "trade_proposed",
     "message": "p_rival offers Bayonne for your Hoboken.", "data": {}},
    {"id": "3", "at": "2026-10-05T07:00:00-04:00", "kind": "announcement", "message": "Rule change: ferries do not "
     "connect territories.", "data": {"announcement_id": "a1"}},
    {"id": "4", "at": "2026-10-05T07:00:00-04:00", "kind": "fortified", "message": "Hoboken is fortified.",
     "data": {"territory_id": "3401732250"}},
]
ANNOUNCEMENT = {"id": "a1", "at": "2026-10-05T05:30:00-04:00", "title": "Rule change",
                "body": "Ferries do not connect territories."}


class FakeNotifications:
    """The contract's notification routes for one page: the first two notifications at first, all four once
    ``more`` is set; every request is kept."""

    def __init__(self) -> None:
        self.more = False
        self.gets: list[str | None] = []     # the after= of each GET
        self.reads: list[Any] = []           # the bodies of POST /me/notifications/read

    def install(self, page: Any) -> None:
        page.route(re.compile(r".*/api/v1/me/notifications(\?.*)?$"), self.list)
        page.route(re.compile(r".*/api/v1/me/notifications/read$"), self.read)
        page.route(re.compile(r".*/api/v1/announcements$"), lambda route: route.fulfill(
            status=200, content_type="application/json", body=json.dumps({"announcements": [ANNOUNCEMENT]})))

    def list(self, route: Any) -> None:
        assert route.request.headers.get("authorization", "").startswith("Bearer ")
        after = parse_qs(urlsplit(route.request.url).query).get("after", [None])[0]
        self.gets.append(after)
        shown = NOTES if self.more else NOTES[:2]
        fresh = shown if after is None else shown[[n["id"] for n in shown].index(after) + 1:]
        route.fulfill(status=200, content_type="application/json", body=json.dumps({"notifications": fresh}))

    def read(self, route: Any) -> None:
        assert route.request.method == "POST"
        self.reads.append(json.loads(route.request.post_data))
        route.fulfill(status=204, body="")


def test_badge_list_live_update_mark_read_and_the_announcement(
        http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    base = http.base_url
    move_clock(org, datetime.fromisoformat("2026-10-05T07:00:00-04:00"))
    me, email, password = verified(http, org, "Notified")
    fake = FakeNotifications()
    page = phone()
    errors = console_errors(page)
    fake.install(page)
    open_page(page, f"{base}/")
    page.fill("#signin-form [name=email]", email)
    page.fill("#signin-form [name=password]", password)
    page.click("#signin-form button[type=submit]")
    page.wait_for_selector("#notif-btn:not([hidden])")
    until(page, "document.querySelector('#notif-count').textContent === '2'")
    assert page.get_attribute("#notif-btn", "aria-label") == "Notifications, 2 unread"
    assert fake.gets[0] is None

    # the announcement shows on the play page
    page.wait_for_selector("#announcement:not([hidden])")
    assert text(page, "#announcement") == "Rule change Ferries do not connect territories. Dismiss"

    # a feed message about me (my claim's territory.changed): the page reads after the last id at once; the
    # 15-second poll is stopped first, so only the feed can bring the new ones (the timeout allows a loaded machine)
    page.evaluate("clearInterval(turf.notifications.timer)")
    fake.more = True
    assert me.claim(*HOBOKEN, datetime.fromisoformat("2026-10-05T07:00:00-04:00")).status_code == 201
    until(page, "document.querySelector('#notif-count').textContent === '4'", timeout=40)
    assert "2" in fake.gets

    page.click("#notif-btn")
    page.wait_for_selector("#notifications:not([hidden])")
    assert page.get_attribute("#notif-btn", "aria-expanded") == "true"
    items = page.locator("#notif-list li")
    assert items.count() == 4
    assert "Hoboken is fortified." in items.nth(0).inner_text()          # newest first
    assert items.nth(0).get_attribute("class") == "unread"
    shot(page, "play-notifications", at="#notifications")
    page.click("#notif-read")
    until(page, "document.querySelector('#notif-count').hidden")
    until(page, "document.querySelectorAll('#notif-list li.unread').length === 0")
    assert fake.reads == [{"up_to": "4"}]
    assert page.get_attribute("#notif-btn", "aria-label") == "Notifications"
    # its notification read, the announcement goes, and stays away after a reload; what was read stays read
    assert page.is_hidden("#announcement")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_selector("#notif-btn:not([hidden])")
    until(page, "document.querySelector('#notif-btn').dataset.unread === '0'")
    page.wait_for_timeout(300)
    assert page.is_hidden("#announcement")

    # a spectator's watch page shows the announcement too
    watch = phone()
    watch_errors = console_errors(watch)
    fake.install(watch)
    open_page(watch, f"{base}/watch")
    watch.wait_for_selector("#announcement:not([hidden])")
    assert "Rule change" in watch.inner_text("#announcement")
    watch.click("#announcement button")       # dismissed on this device
    assert watch.is_hidden("#announcement")
    open_page(watch, f"{base}/watch")
    watch.wait_for_timeout(500)
    assert watch.is_hidden("#announcement")
    assert not errors and not watch_errors, (errors, watch_errors)


def test_the_service_worker_registers_at_the_root_under_the_csp(http: httpx.Client, phone: Callable[..., Any]) -> None:
    """/sw.js is a script of the gateway's origin with a scope covering every page (Web Push, issue 18), allowed by
    its Content-Security-Policy (the phone fixture fails on a violation)."""
    page = phone()
    errors = console_errors(page)
    r = http.get("/sw.js")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript")
    assert r.headers["service-worker-allowed"] == "/" and "default-src 'self'" in r.headers["content-security-policy"]
    open_page(page, f"{http.base_url}/")
    scope = page.evaluate("""async () => {
        const reg = await navigator.serviceWorker.register("/sw.js", { scope: "/" });
        await navigator.serviceWorker.ready;
        return reg.scope; }""")
    assert scope == f"{http.base_url}/"
    assert not errors, errors
