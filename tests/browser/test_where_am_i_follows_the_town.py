"""The sentence where I stand and the Claim button follow every change to my town: a rival's claim of the town I
stand in shows on my page within seconds, naming its new owner, without my phone moving; and Claim is never offered
while the page is still loading, checking, or has not yet checked again after such a change.

Every state the page shows is recorded as it is drawn (a MutationObserver installed before the page's scripts), so
a moment where Claim was enabled under a sentence that does not say "You can claim it now" fails the test."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import open_page, sign_in_page, until
from tests.support.client import Player, move_clock, register, verified_player

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
JERSEY_CITY = {"latitude": 40.7178, "longitude": -74.0431, "accuracy": 10}
JERSEY_CITY_ID = "3401736000"

# each moment the sentence, the claim panel or the button changes: what the player sees together
RECORD = """
document.addEventListener("DOMContentLoaded", () => {
  window.shown = [];
  const where = document.querySelector("#where"), panel = document.querySelector("#claim");
  const button = document.querySelector("#claim-btn");
  const note = () => window.shown.push({ text: where.textContent, where: !where.hidden, panel: !panel.hidden,
    enabled: !button.disabled });
  const watch = new MutationObserver(note);
  for (const el of [where, panel, button]) {
    watch.observe(el, { attributes: true, childList: true, characterData: true, subtree: true });
  }
  note();
});
"""


def enabled_without_leave(page: Any) -> list[dict[str, Any]]:
    """The moments the player saw Claim enabled under a sentence that does not allow it."""
    return [s for s in page.evaluate("window.shown") if s["panel"] and s["enabled"]
            and not (s["where"] and s["text"].endswith("You can claim it now."))]


def test_a_rivals_claim_of_my_town_turns_my_sentence_and_claim_at_once(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    move_clock(org, MON)
    pid, email, password = register(http, "Alice Stand")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    bob = verified_player(http, org, "Bob Rival")
    page = phone(geolocation=JERSEY_CITY, permissions=["geolocation"])
    page.add_init_script(RECORD)
    open_page(page, stack.base_url + "/")
    sign_in_page(page, email, password)
    until(page, "document.querySelector('#where').dataset.allowed === 'true'", timeout=30)
    assert page.inner_text("#where") == "You are in Jersey City (owner: nobody). You can claim it now."
    assert page.is_enabled("#claim-btn")

    # Bob claims the town Alice stands in; her phone does not move
    assert bob.claim(JERSEY_CITY["latitude"], JERSEY_CITY["longitude"], MON).status_code == 201
    bob_name = http.get(f"/api/v1/players/{bob.id}").json()["display_name"]
    said = f"You are in Jersey City (owner: {bob_name})."
    until(page, f"document.querySelector('#where').textContent.startsWith('{said}')", timeout=8)
    until(page, "document.querySelector('#where').dataset.checking === 'false'", timeout=15)
    allowed = page.evaluate("document.querySelector('#where').dataset.allowed") == "true"
    assert page.is_enabled("#claim-btn") == allowed
    assert page.inner_text("#where").endswith("You can claim it now.") == allowed

    # from the page's load on: Claim was never enabled before a check allowed it (loading, checking, changed)
    shown = page.evaluate("window.shown")
    assert any(s["text"].startswith(("Loading", "Checking")) for s in shown if s["panel"]), shown
    assert any("Checking whether you can claim it" in s["text"] for s in shown), shown
    assert not enabled_without_leave(page), enabled_without_leave(page)
