"""The organizer's desk says things in the game's words: a time the clock field cannot read gets a sentence that says
how to write one (not pydantic's "Input should be a valid datetime"); the mail list is dated by the game clock, as
everything else on the desk; the corrections log names a town a ``set_owner`` gave by its name, not its id, even
when the log is read before the board (R28)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import open_page, sign_in_page, until
from tests.support.client import Player, move_clock, register, verified_player
from tests.support.client import until as wait
from tests.support.stackfix import ORGANIZER
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

OPEN = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
WEEHAWKEN_ID = "3401777930"


def test_r28_the_desk_speaks_the_games_words(stack: Stack, http: httpx.Client, org: Player,
                                             phone: Callable[..., Any]) -> None:
    move_clock(org, OPEN)
    pat = verified_player(http, org, "Pat Plain")
    r = org.post("/admin/corrections", {"action": "set_owner", "territory_id": WEEHAWKEN_ID, "player_id": pat.id,
                                        "reason": "lost claim"})
    assert r.status_code == 201, r.text
    _, address, _ = register(http, "Mail Reader")   # its confirmation is mailed at the game's Mon 5 Oct, 07:00

    admin = phone(timezone_id="Europe/Berlin")
    open_page(admin, stack.base_url + "/admin")
    sign_in_page(admin, ORGANIZER[0], ORGANIZER[1])

    # the log: the town by its name
    entry = "#correction-log li >> nth=0"
    admin.wait_for_selector("#correction-log li[data-correction-id]")
    text = admin.inner_text(entry)
    assert "Weehawken" in text and WEEHAWKEN_ID not in text, text

    # the mail list: dated by the game clock (the wall clock says December)
    queued = wait(lambda: org.get("/admin/mail").json()["mail"],
                  lambda ms: any(m["kind"] == "email_confirmation" and m["to"] == address for m in ms), timeout=20)
    assert any(m["to"] == address for m in queued)
    admin.click("#mail-refresh")
    until(admin, f"[...document.querySelectorAll('#mail-list li')].some((li) => li.textContent.includes('{address}'))")
    lines = [line for line in admin.locator("#mail-list li").all_inner_texts() if address in line]
    assert lines and all(line.startswith("Mon 5 Oct, 07:00") for line in lines), lines

    # a time the clock cannot read: a sentence that says how to write one
    admin.fill("#clock-target", "tomorrow at 7")
    admin.click("#clock-form button[type=submit]")
    admin.wait_for_selector("#clock-msg.msg.error:not([hidden])")
    said = admin.inner_text("#clock-msg")
    assert "“tomorrow at 7” is not a date and time the game can read; write it like 2026-10-05T07:00:00-04:00" \
        in said, said
    assert "Input should be" not in said and "valid datetime" not in said
