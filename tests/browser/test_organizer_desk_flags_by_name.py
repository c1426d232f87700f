"""The organizer's desk on a 390×844 phone (R7.1, R28): a flag names its claim by player and town, not by its id;
the trail table scrolls inside its box, never the page; the claim picker's rows are not cut ("took Bayonn…"); and a
claim reversed through the corrections form closes its flag, so "Reverse claim" is not offered a second time."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_admin_desk import confirm, pick
from tests.browser.test_pages import message, open_page, sign_in_page, until
from tests.support.client import Player, move_clock, verified_player
from tests.support.stackfix import ORGANIZER
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

OPEN = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN, NEWARK = (40.7440, -74.0320), (40.7357, -74.1724)

#: the claim picker's rows whose text is wider than the list (cut at its right edge), at the list's own font
CUT_ROWS = """(() => {
  const s = document.querySelector('[data-picker=claim] select'), cs = getComputedStyle(s);
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 8;
  return [...s.options].filter((o) => ctx.measureText(o.text).width > room).map((o) => o.text);
})()"""


def test_r28_a_flag_names_its_claim_and_closes_when_the_claim_is_reversed_from_the_corrections_form(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    move_clock(org, OPEN)
    bayonne = next(f["properties"] for f in http.get("/api/v1/board").json()["features"]
                   if f["properties"]["name"] == "Bayonne")
    jumper, quinn = verified_player(http, org, "Jumper Desk"), verified_player(http, org, "Quinn Desk")
    assert quinn.claim(bayonne["label_point"]["lat"], bayonne["label_point"]["lon"], OPEN).status_code == 201
    assert jumper.claim(*HOBOKEN, OPEN, check=True).status_code == 200
    move_clock(org, OPEN + timedelta(minutes=1))
    claim = jumper.claim(*NEWARK, OPEN + timedelta(minutes=1))
    assert claim.status_code == 201, claim.text
    cid = claim.json()["claim_id"]
    (flag,) = [f for f in org.get("/admin/flags").json()["flags"] if f["claim_id"] == cid]

    admin = phone()
    open_page(admin, stack.base_url + "/admin")
    sign_in_page(admin, ORGANIZER[0], ORGANIZER[1])
    row = admin.locator(f"#flag-list li[data-flag-id='{flag['id']}']")
    row.wait_for()
    until(admin, f"document.querySelector(\"#flag-list li[data-flag-id='{flag['id']}']\").textContent"
                 ".includes('took Newark')")
    assert "Jumper Desk took Newark" in row.inner_text() and cid not in row.inner_text()
    # the trail scrolls inside its box: neither the flag's row nor the page is wider than the phone
    assert row.locator(".trail-box table.trail").count() == 1
    assert admin.evaluate("document.documentElement.scrollWidth") <= 390
    assert row.evaluate("li => li.scrollWidth <= li.clientWidth")
    shot(admin, "admin-flag-by-name", at="#flags")

    # the claim picker: every row read whole; the picked claim written out in full under it
    admin.select_option("#correction-action", "reverse_claim")
    until(admin, "document.querySelectorAll('[data-picker=claim] option').length >= 2")
    assert admin.evaluate(CUT_ROWS) == []
    assert "Quinn Desk took Bayonne" in admin.inner_text("[data-picker=claim] select")
    pick(admin, "claim", "newark", cid)
    assert "Picked: Mon 5 Oct, 07:01 · Jumper Desk took Newark" in admin.inner_text("[data-picker=claim]")

    # reversed through the corrections form (not the flag's button): the flag closes with the correction's reason
    admin.fill("#correction-form [name=reason]", "teleported from Hoboken")
    admin.click("#correction-form button[type=submit]")
    confirm(admin, "Reverse Mon 5 Oct, 07:01 · Jumper Desk took Newark", "ok")
    assert "Correction recorded (reverse claim)." in message(admin, "#corrections-msg", "ok")
    until(admin, f"!document.querySelector(\"#flag-list li[data-flag-id='{flag['id']}']\")")
    admin.check("#show-cleared")
    closed = admin.locator(f"#flag-list li[data-flag-id='{flag['id']}'][data-state='cleared']")
    closed.wait_for()
    assert "claim reversed: teleported from Hoboken" in closed.inner_text()
    assert closed.locator("button:has-text('Reverse claim')").count() == 0
    after = {f["id"]: f for f in org.get("/admin/flags").json()["flags"]}[flag["id"]]
    assert after["state"] == "cleared" and after["cleared"]["reason"] == "claim reversed: teleported from Hoboken"
    # clearing it now answers that clearance; nothing is reversed twice
    again = org.post(f"/admin/flags/{flag['id']}/clear", {"reason": "late"})
    assert again.status_code == 200 and again.json()["cleared"]["reason"] == "claim reversed: teleported from Hoboken"
