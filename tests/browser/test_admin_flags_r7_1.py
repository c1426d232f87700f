"""R7.1/R28 in a real browser: the organize page's flag queue shows the trail as a map-free table (from, to, km,
minutes, km/h); the organizer clears one flag and reverses the claim of another from the page."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import message, open_page, until
from tests.support.client import Player, move_clock, verified_player
from tests.support.stackfix import ORGANIZER
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

OPEN = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN = (40.7440, -74.0320)
NEWARK = (40.7357, -74.1724)


def test_r7_1_the_organizer_reads_the_trail_clears_a_flag_and_reverses_a_flagged_claim(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    move_clock(org, OPEN)
    jumper, checker = verified_player(http, org, "Jumper"), verified_player(http, org, "Checker")
    assert jumper.claim(*HOBOKEN, OPEN, check=True).status_code == 200
    move_clock(org, OPEN + timedelta(minutes=1))
    claim = jumper.claim(*NEWARK, OPEN + timedelta(minutes=1))
    assert claim.status_code == 201, claim.text
    assert checker.claim(*HOBOKEN, OPEN + timedelta(minutes=1), check=True).status_code == 200
    assert checker.claim(*NEWARK, OPEN + timedelta(minutes=1), check=True).status_code == 200
    flags = {f["player_id"]: f for f in org.get("/admin/flags").json()["flags"]}
    on_claim, on_check = flags[jumper.id], flags[checker.id]
    assert on_claim["claim_id"] == claim.json()["claim_id"] and on_check["claim_id"] is None
    # three zero-accuracy checks from one spot are one flag with a count
    zero = verified_player(http, org, "Zero")
    for _ in range(3):
        assert zero.claim(*HOBOKEN, OPEN + timedelta(minutes=1), accuracy_m=0.0, check=True).status_code == 200
    (repeated,) = [f for f in org.get("/admin/flags").json()["flags"] if f["player_id"] == zero.id]
    assert repeated["count"] == 3

    admin = phone()
    open_page(admin, stack.base_url + "/admin")
    admin.fill("#signin-form [name=email]", ORGANIZER[0])
    admin.fill("#signin-form [name=password]", ORGANIZER[1])
    admin.click("#signin-form button[type=submit]")
    admin.wait_for_selector(f"#flag-list li[data-flag-id='{on_claim['id']}']")
    row = admin.locator(f"#flag-list li[data-flag-id='{on_claim['id']}']")
    assert "impossible travel" in row.inner_text() and f"claim {claim.json()['claim_id']}" in row.inner_text()
    assert "Mon 5 Oct, 07:01" in row.inner_text()                  # when, in the game's zone
    cells = row.locator("table.trail tbody td").all_inner_texts()
    assert [c.strip() for c in cells[2:]] == [f"{on_claim['evidence']['trail'][0]['km']:.2f}", "1.0",
                                              f"{on_claim['evidence']['trail'][0]['kmh']:.0f}"], cells
    # each fix named by the town it falls in, the coordinates after it; the player by name, not id
    assert "Hoboken (40.7440, -74.0320 ±8 m)" in cells[0] and "Newark (40.7357, -74.1724 ±8 m)" in cells[1], cells
    assert f"player {jumper.id}" not in row.inner_text()
    zero_row = admin.locator(f"#flag-list li[data-flag-id='{repeated['id']}']")
    assert "×3, last Mon 5 Oct, 07:01" in zero_row.inner_text(), zero_row.inner_text()
    shot(admin, "admin-flags", at="#flags")

    # a check is nothing to reverse: the organizer clears it
    check_row = admin.locator(f"#flag-list li[data-flag-id='{on_check['id']}']")
    assert check_row.locator("button:has-text('Reverse claim')").count() == 0
    check_row.locator("input[aria-label=reason]").fill("checked the map from the bus")
    check_row.locator("button:has-text('Clear')").click()
    assert "Flag cleared." in message(admin, "#flags-msg", "ok")
    until(admin, f"!document.querySelector(\"#flag-list li[data-flag-id='{on_check['id']}']\")")
    admin.check("#show-cleared")
    admin.wait_for_selector(f"#flag-list li[data-flag-id='{on_check['id']}'][data-state='cleared']")

    # the claim's flag: disqualifying from it confirms first; cancelled, nothing changes
    row = admin.locator(f"#flag-list li[data-flag-id='{on_claim['id']}']")
    row.locator("button:has-text('Disqualify player')").click()
    admin.wait_for_selector("dialog#confirm[open]")
    assert "Disqualify " in admin.inner_text("#confirm-title")
    admin.click("#confirm-cancel")
    admin.wait_for_selector("dialog#confirm:not([open])", state="attached")
    assert org.get(f"/players/{jumper.id}").json()["status"] == "verified"
    # then reverse the claim (R28), which clears the flag too
    row.locator("input[aria-label=reason]").fill("teleported from Hoboken")
    row.locator("button:has-text('Reverse claim')").click()
    admin.wait_for_selector("dialog#confirm[open]")   # a destructive action confirms first
    assert "Reverse this claim?" in admin.inner_text("#confirm-title")
    admin.click("#confirm-ok")
    until(admin, "document.querySelector('#flags-msg').textContent.includes('Claim reversed; flag cleared.')")
    admin.wait_for_selector(f"#flag-list li[data-flag-id='{on_claim['id']}'][data-state='cleared']")
    admin.wait_for_selector("#correction-log li:has-text('teleported from Hoboken')")
    after = {f["id"]: f for f in org.get("/admin/flags").json()["flags"]}
    assert after[on_claim["id"]]["cleared"]["reason"] == "claim reversed: teleported from Hoboken"
    assert after[on_check["id"]]["cleared"]["reason"] == "checked the map from the bus"
    log = org.get("/admin/corrections").json()["corrections"]
    assert [c["action"] for c in log if c["reason"] == "teleported from Hoboken"] == ["reverse_claim"]
