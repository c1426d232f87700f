"""An accessibility check (axe-core, tests/browser/a11y.py) reports no serious violations on the three
pages as their users see them — the play page signed in and located, the watch page live, the organize page's
console — and the check itself catches a violation when there is one."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx

from tests.browser.a11y import serious_violations
from tests.browser.conftest import HOBOKEN_FIX
from tests.browser.test_pages import open_page, sign_in_page
from tests.support.client import Player as ApiPlayer
from tests.support.client import move_clock, register
from tests.support.stackfix import ORGANIZER
from turfwar.stack import Stack

OPEN = datetime.fromisoformat("2026-10-05T07:00:00-04:00")


def test_no_serious_accessibility_violations_on_the_three_pages(
        stack: Stack, http: httpx.Client, org: ApiPlayer, phone: Callable[..., Any]) -> None:
    move_clock(org, OPEN)
    pid, email, password = register(http, "Axe Player")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200

    play = phone(geolocation=HOBOKEN_FIX, permissions=["geolocation"])
    open_page(play, stack.base_url + "/")
    sign_in_page(play, email, password)
    play.wait_for_selector("#map[data-located='1']")
    assert serious_violations(play) == []

    watch = phone()
    open_page(watch, stack.base_url + "/watch")
    assert serious_violations(watch) == []

    admin = phone()
    open_page(admin, stack.base_url + "/admin")
    sign_in_page(admin, *ORGANIZER)
    admin.wait_for_selector("#console:not([hidden])")
    assert serious_violations(admin) == []

    # the check can fail: an unlabelled image button is a critical violation
    admin.evaluate("document.querySelector('#dashboard').append(Object.assign(document.createElement('button'), "
                   "{innerHTML: '<img src=\"/static/icon.svg\">'}))")
    assert {v["id"] for v in serious_violations(admin)} >= {"button-name"}
