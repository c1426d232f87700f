"""The notifications UI in a real browser against the real stack (the notifications service, no route
fakes): the organizer announces a rule change and a rival steals my territory on the manual clock. The badge counts
my real unread notifications; a feed message about me (the steal) makes the page read ``after=`` the last id at once
and the new notification shows without a reload; "Mark all read" posts ``{up_to}`` and the server's read mark
(``read_up_to``) is then that id, so another browser of mine shows nothing unread; the latest announcement shows on
the play and watch pages until dismissed."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from tests.browser.test_countdowns_safety import console_errors, text, verified
from tests.browser.test_pages import open_page, until
from tests.support.cards import claim
from tests.support.client import Player, move_clock
from tests.support.client import until as settled

pytestmark = pytest.mark.timeout(600)

HOBOKEN = "3401732250"
MONDAY, TUESDAY = datetime.fromisoformat("2026-10-05T07:00:00-04:00"), datetime.fromisoformat(
    "2026-10-06T12:00:00-04:00")
TITLE, BODY = "Rule change", "Ferries do not connect territories."


def notes(pl: Player) -> dict[str, Any]:
    r = pl.get("/me/notifications")
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def kinds(pl: Player) -> list[str]:
    return [n["kind"] for n in notes(pl)["notifications"]]


class Requests:
    """The page's requests to the notification routes, as they go to the real gateway (observed, not answered)."""

    def __init__(self, page: Any) -> None:
        self.gets: list[str | None] = []     # the after= of each GET /me/notifications
        self.reads: list[Any] = []           # the bodies of POST /me/notifications/read
        page.on("request", self.seen)

    def seen(self, r: Any) -> None:
        u = urlsplit(r.url)
        if u.path == "/api/v1/me/notifications" and r.method == "GET":
            self.gets.append(parse_qs(u.query).get("after", [None])[0])
        elif u.path == "/api/v1/me/notifications/read":
            assert r.method == "POST"
            self.reads.append(json.loads(r.post_data))


def sign_in(page: Any, base: str, email: str, password: str) -> None:
    open_page(page, f"{base}/")
    page.fill("#signin-form [name=email]", email)
    page.fill("#signin-form [name=password]", password)
    page.click("#signin-form button[type=submit]")
    page.wait_for_selector("#notif-btn:not([hidden])")


def test_badge_list_live_update_mark_read_and_the_announcement(
        http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    base = http.base_url
    me, email, password = verified(http, org, "Notified")
    rival, _, _ = verified(http, org, "Rival")
    move_clock(org, MONDAY)
    assert claim(me, HOBOKEN, MONDAY).status_code == 201
    move_clock(org, TUESDAY)
    r = org.post("/admin/announcements", {"title": TITLE, "body": BODY})
    assert r.status_code == 201, r.text
    ann = r.json()
    # what the server holds for me before the page opens: my verification (R27), the two mornings' deals and the
    # announcement
    want = ["verified", "cards_dealt", "cards_dealt", "announcement"]
    assert settled(lambda: kinds(me), lambda ks: ks == want, timeout=20) == want
    before = notes(me)
    assert before["read_up_to"] is None
    first = before["notifications"]
    assert first[-1]["data"] == {"announcement_id": ann["id"]}

    page = phone()
    errors = console_errors(page)
    seen = Requests(page)
    sign_in(page, base, email, password)
    until(page, "document.querySelector('#notif-count').textContent === '4'")
    assert page.get_attribute("#notif-btn", "aria-label") == "Notifications, 4 unread"
    assert seen.gets[0] is None

    # the announcement shows on the play page
    page.wait_for_selector("#announcement:not([hidden])")
    assert text(page, "#announcement") == f"{TITLE} {BODY} Dismiss"

    # a feed message about me (the steal's territory.changed): the page reads after the last id at once; the
    # 15-second poll is stopped first, so only the feed can bring the new one (the timeout allows a loaded machine)
    page.evaluate("clearInterval(turf.notifications.timer)")
    r = claim(rival, HOBOKEN, TUESDAY)
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text
    until(page, "document.querySelector('#notif-count').textContent === '5'", timeout=40)
    assert page.get_attribute("#notif-btn", "aria-label") == "Notifications, 5 unread"
    assert str(first[-1]["id"]) in seen.gets
    after = notes(me)["notifications"]
    assert [n["kind"] for n in after] == [*want, "territory_stolen"]
    last = after[-1]["id"]
    rival_name = http.get(f"/api/v1/players/{rival.id}").json()["display_name"]
    stolen = (f"{rival_name} stole Hoboken from you. A War card would let you take it back until Tue 17:00 "
              "(5 game hours).")
    assert after[-1]["message"] == stolen

    page.click("#notif-btn")
    page.wait_for_selector("#notifications:not([hidden])")
    assert page.get_attribute("#notif-btn", "aria-expanded") == "true"
    items = page.locator("#notif-list li")
    assert items.count() == 5
    assert [items.nth(i).get_attribute("data-id") for i in range(5)] == [str(n["id"]) for n in reversed(after)]
    # newest first; the steal's line is followed by its Play War once the page has read my hand (the deals gave me
    # a War card): how soon depends on the page's load, not on the notification
    assert items.nth(0).inner_text().splitlines()[0].endswith(" " + stolen)
    assert items.nth(1).inner_text().endswith(f" Announcement: {TITLE}")
    assert page.locator("#notif-list li.unread").count() == 5
    shot(page, "play-notifications", at="#notifications")
    page.click("#notif-read")
    until(page, "document.querySelector('#notif-count').hidden")
    until(page, "document.querySelectorAll('#notif-list li.unread').length === 0")
    assert page.get_attribute("#notif-btn", "aria-label") == "Notifications"
    assert seen.reads == [{"up_to": last}]
    # the read mark is on the server
    assert settled(lambda: notes(me)["read_up_to"], lambda x: x == last) == last
    # its notification read, the announcement goes, and stays away after a reload; what was read stays read
    assert page.is_hidden("#announcement")
    page.reload()
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_selector("#notif-btn:not([hidden])")
    until(page, "document.querySelector('#notif-btn').dataset.unread === '0'")
    page.wait_for_timeout(300)
    assert page.is_hidden("#announcement")
    assert page.locator("#notif-list li").count() == 5

    # another browser of mine (its own storage): the server's read mark counts there too
    other = phone()
    other_errors = console_errors(other)
    sign_in(other, base, email, password)
    until(other, "document.querySelectorAll('#notif-list li').length === 5")
    until(other, "document.querySelector('#notif-btn').dataset.unread === '0'")
    assert other.is_hidden("#notif-count")
    assert other.get_attribute("#notif-btn", "aria-label") == "Notifications"
    assert other.locator("#notif-list li.unread").count() == 0

    # a spectator's watch page shows the announcement too
    watch = phone()
    watch_errors = console_errors(watch)
    open_page(watch, f"{base}/watch")
    watch.wait_for_selector("#announcement:not([hidden])")
    assert text(watch, "#announcement") == f"{TITLE} {BODY} Dismiss"
    watch.click("#announcement button")       # dismissed on this device
    assert watch.is_hidden("#announcement")
    open_page(watch, f"{base}/watch")
    watch.wait_for_timeout(500)
    assert watch.is_hidden("#announcement")
    assert not errors and not other_errors and not watch_errors, (errors, other_errors, watch_errors)


def test_the_service_worker_registers_at_the_root_under_the_csp(http: httpx.Client, phone: Callable[..., Any]) -> None:
    """/sw.js is a script of the gateway's origin with a scope covering every page (Web Push), allowed by
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
