"""On a 390 px phone every tab under the first screen is on the screen, signed in with all five offered (My turf,
Cards, Every town, Notifications, How to play): none is cut at the bar's edge or hidden past it, and each opens its
panel with a tap where it is."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import open_page, sign_in_page
from tests.support.client import Player, move_clock, register

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
TABS = ["turf", "cards", "towns", "notes", "howto"]


def test_on_a_390px_phone_every_tab_including_how_to_play_is_on_screen(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    move_clock(org, MON)
    pid, email, password = register(http, "Tab Finder")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    page = phone()
    open_page(page, stack.base_url + "/")
    sign_in_page(page, email, password)
    page.wait_for_selector("#tab-notes:not([hidden])")
    page.locator("#more-tabs").evaluate("el => el.scrollIntoView({ block: 'start' })")
    width = page.evaluate("document.documentElement.clientWidth")
    for name in TABS:
        box = page.locator(f"#tab-{name}").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, (name, box, width)
        # the label is whole, not cut by the button
        assert page.locator(f"#tab-{name}").evaluate("el => el.scrollWidth <= el.clientWidth"), name
        # a tap where it is (no scrolling by Playwright) opens the tab
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.wait_for_selector(f"#pane-{name}:not([hidden])")
