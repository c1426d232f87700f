"""What spectators read on the watch page when a player leaves or the organizer corrects an owner:

* R30: a player who withdraws frees their towns as a disqualification does, but the feed says they withdrew and
  never "disqualification", nor "Organizer correction"; the town's public history names it a ``withdrawal`` and the
  public corrections log a ``withdrawal``;
* R28: one correction of a town's owner (``set_owner``) is one line of the feed, not two."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import open_page, until
from tests.support.client import API, Player, move_clock, register, sign_in
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN, WEEHAWKEN = "3401732250", "3401777930"
FEED = "[...document.querySelectorAll('#feed li')].map((li) => li.textContent)"


def _town(http: httpx.Client, tid: str) -> dict[str, Any]:
    return next(f["properties"] for f in http.get(API + "/board").json()["features"] if f["properties"]["id"] == tid)


def _player(http: httpx.Client, org: Player) -> tuple[Player, str]:
    pid, email, pw = register(http)
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    return sign_in(http, email, pw), pw


def test_r30_a_player_who_withdraws_is_told_as_withdrawn_never_as_disqualified(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    move_clock(org, MON)
    hoboken = _town(http, HOBOKEN)
    ada, pw = _player(http, org)
    assert ada.claim(hoboken["label_point"]["lat"], hoboken["label_point"]["lon"], MON).status_code == 201

    page = phone()
    open_page(page, stack.base_url + "/watch")
    until(page, f"{FEED}.some((t) => t.includes('took Hoboken'))")
    gone = http.request("DELETE", API + "/me", json={"password": pw}, headers=ada.auth)
    assert gone.status_code == 204, gone.text

    until(page, f"{FEED}.some((t) => t.includes('Hoboken is free again: its holder withdrew from the game'))")
    until(page, f"{FEED}.some((t) => t.includes('A player withdrew from the game'))")
    feed = page.evaluate(FEED)
    assert not [t for t in feed if "disqualif" in t.lower() or "Organizer correction" in t], feed
    # the page read again from the start: the snapshot's recent stories say the same
    open_page(page, stack.base_url + "/watch")
    until(page, f"{FEED}.some((t) => t.includes('its holder withdrew'))")
    assert "disqualif" not in page.inner_text("body").lower()

    history = http.get(f"{API}/territories/{HOBOKEN}/history").json()["history"]
    assert [e["kind"] for e in history][-1] == "withdrawal"
    public = http.get(API + "/corrections").json()["corrections"]
    assert [c["action"] for c in public if c.get("player_id") == ada.id] == ["withdrawal"]


def test_r28_one_correction_of_an_owner_is_one_line_of_the_feed(
        stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    move_clock(org, MON)
    bo, _ = _player(http, org)
    name = http.get(f"{API}/players/{bo.id}").json()["display_name"]
    page = phone()
    open_page(page, stack.base_url + "/watch")
    r = org.post("/admin/corrections", {"action": "set_owner", "territory_id": WEEHAWKEN, "player_id": bo.id,
                                        "reason": "a claim lost by the server"})
    assert r.status_code == 201, r.text
    until(page, f"{FEED}.some((t) => t.includes('Correction: Weehawken now belongs to {name}'))")
    # the correction.applied that came with it adds no second line: a later correction's line shows after it
    assert org.post("/admin/corrections", {"action": "adjust_score", "player_id": bo.id, "points": 1,
                                           "reason": "photo quest"}).status_code == 201
    until(page, f"{FEED}.some((t) => t.includes('Organizer correction (adjust score)'))")
    lines = [t for t in page.evaluate(FEED) if "Weehawken" in t or "set owner" in t]
    assert len(lines) == 1, lines
