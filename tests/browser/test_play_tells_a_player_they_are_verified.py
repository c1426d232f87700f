"""R27: a player is told when the organizer verifies them: a notification and a mail, and the play page that follows
my notifications shows it without a reload (my status, and the town where I stand claimable)."""

from __future__ import annotations

import email
import email.policy
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import open_page, sign_in_page, until
from tests.support.client import Player, move_clock, register
from tests.support.client import until as until_true
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN = {"latitude": 40.7440, "longitude": -74.0320, "accuracy": 10}


def mails_to(stack: Stack, to: str) -> list[Any]:
    out = []
    for path in (Path(stack.data_dir) / "mail").glob("*.eml"):
        msg = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        if msg["To"] == to:
            out.append(msg)
    return out


def test_r27_a_verified_player_is_told_and_the_open_page_follows_without_reload(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    move_clock(org, MON)
    pid, address, password = register(http, "Patient")
    page = phone(geolocation=HOBOKEN, permissions=["geolocation"])
    open_page(page, stack.base_url + "/")
    sign_in_page(page, address, password)
    until(page, "document.querySelector('#where').dataset.reason === 'not_eligible'", timeout=40)
    assert page.inner_text("#me-status") == "pending"
    assert "Waiting for the organizer" in page.inner_text("#me-note")
    loads = page.evaluate("performance.getEntriesByType('navigation').length")

    assert org.post(f"/admin/players/{pid}/verify", {"reason": "address checked by hand"}).status_code == 200
    # no reload: the notification's reading (every 15 s at most) brings the status and the check
    until(page, "document.querySelector('#me-status').textContent === 'verified'", timeout=40)
    until(page, "document.querySelector('#where').dataset.allowed === 'true'", timeout=40)
    assert page.is_hidden("#me-note") and page.is_enabled("#claim-btn")
    assert page.evaluate("performance.getEntriesByType('navigation').length") == loads
    assert "You are verified: you can claim towns and play cards now." in page.inner_text("#notif-list")

    # and a mail, with the play page's link
    got = until_true(lambda: [m for m in mails_to(stack, address) if "verified" in m["Subject"]], bool, timeout=20)
    assert got, [m["Subject"] for m in mails_to(stack, address)]
    body = got[0].get_body(preferencelist=("plain",)).get_content()
    assert got[0]["Subject"] == "Turf War: you are verified, you can play"
    assert "you can play Turf War now" in body and stack.base_url + "/" in body
