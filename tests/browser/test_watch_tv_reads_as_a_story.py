"""The watch page read across a room and at a desk, at the sizes people have (a 1440×900 TV, a 1280×800 desk), with
the names Discord gives ("alexandra.montgomery_88"): on the TV every column of the standings is whole ("Total",
not "To"), each name on one line, several leaders in view, and nothing to press (no Dismiss on a screen nobody
touches); the desk's standings keep each name on one line too. The opening reads as a story, not as one line a claim
and one a medal at the same minute: a summary of the opening with its first takes and "and N more"; Lord of the
Seas names its first leaders and "and N more", never every tied leader in one block."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import open_page, until
from tests.support.client import API, Player, move_clock, sign_in

pytestmark = pytest.mark.timeout(900)

OPENING = datetime.fromisoformat("2026-10-05T06:00:10-04:00")   # the opening minute: Early bird (medals)
TV = {"viewport": {"width": 1440, "height": 900}, "is_mobile": False, "has_touch": False}
DESK = {"viewport": {"width": 1280, "height": 800}, "is_mobile": False, "has_touch": False}
FIRSTS = ("alexandra", "bartholomew", "constantina", "demetrius", "evangeline", "fitzgerald", "guinevere",
          "hieronymus", "isadora")
PLAYERS = len(FIRSTS)

#: the leaderboard's names that run over more than one line (a text box starting a line below the first's)
WRAPPED = """[...document.querySelectorAll('#leaderboard td.name')].filter((td) => {
  const em = parseFloat(getComputedStyle(td).fontSize);
  const tops = [...td.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).flatMap((n) => {
    const r = document.createRange(); r.selectNodeContents(n); return [...r.getClientRects()].map((x) => x.top); });
  return tops.some((t) => t > Math.min(...tops) + em * 0.6);
}).map((td) => td.textContent)"""
#: the standings' header cells whose text is cut by their box or the panel's
CUT = """[...document.querySelectorAll('#leaderboard thead th')].filter((th) => getComputedStyle(th).display !== 'none')
  .filter((th) => { const box = th.closest('.standings').getBoundingClientRect(), r = th.getBoundingClientRect();
    return th.scrollWidth > th.clientWidth + 1 || r.right > box.right + 1 || r.right > innerWidth; })
  .map((th) => th.textContent)"""
#: leaderboard rows wholly in view (within the standings' box and the window)
ROWS_SEEN = """[...document.querySelectorAll('#leaderboard tbody tr[data-player-id]')].filter((tr) => {
  const box = tr.closest('.standings').getBoundingClientRect(), r = tr.getBoundingClientRect();
  return r.height > 0 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1 && r.bottom <= innerHeight; }).length"""


def _player(http: httpx.Client, org: Player, first: str) -> tuple[Player, str]:
    """A verified player named as Discord names people: "bartholomew.montgomery_1987" (27 characters; the module's
    stack is its own, so the names are the same on every run)."""
    discord = f"{first}.montgomery_1987"
    email, pw = f"{first}@example.org", f"correct horse {first}"
    r = http.post(f"{API}/players", json={"name": first.title(), "email": email, "discord": discord,
                                          "home_address": "1 Main St, Hoboken, NJ", "password": pw})
    assert r.status_code == 201, r.text
    assert org.post(f"/admin/players/{r.json()['id']}/verify", {"reason": "test"}).status_code == 200
    return sign_in(http, email, pw), discord


def test_the_tv_and_the_desk_read_whole_names_and_the_opening_as_a_story(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    towns = sorted((f["properties"] for f in http.get(f"{API}/board").json()["features"]
                    if f["properties"]["borders_water"] and f["properties"]["county"] in ("Hudson", "Bergen")),
                   key=lambda p: -p["land_area_m2"])[:PLAYERS]
    assert len(towns) == PLAYERS
    players = [_player(http, org, f) for f in FIRSTS]
    r = org.post("/admin/announcements", {"title": "Welcome", "body": "The season opens on Monday."})
    assert r.status_code == 201, r.text
    tv = phone(**TV)
    open_page(tv, stack.base_url + "/watch?tv=1")
    desk = phone(**DESK)
    open_page(desk, stack.base_url + "/watch")
    move_clock(org, OPENING)
    # the opening: each player takes a town on the water in its first minute (Early bird, and Lord of the Seas tied)
    for (p, _), t in zip(players, towns, strict=True):
        assert p.claim(t["label_point"]["lat"], t["label_point"]["lon"], OPENING).status_code == 201

    for page in (tv, desk):
        until(page, f"document.querySelectorAll('#leaderboard tbody tr[data-player-id]').length === {PLAYERS}")
        until(page, "document.querySelector('#feed').textContent.includes('Early bird')")
        until(page, "!document.querySelector('#announcement').hidden")
        page.wait_for_timeout(1500)   # the feed's lines settle (names looked up)
    shot(tv, "watch-tv-1440")
    shot(desk, "watch-desk-1280")

    # --- the TV: whole columns, whole names on one line, several leaders, nothing to press ---
    assert tv.evaluate(CUT) == [], tv.evaluate(CUT)
    assert tv.evaluate(WRAPPED) == [], tv.evaluate(WRAPPED)
    assert tv.evaluate(ROWS_SEEN) >= 5, tv.evaluate(ROWS_SEEN)
    assert "Welcome" in tv.inner_text("#announcement")
    assert tv.locator("#announcement button").filter(has_text="Dismiss").count() == 0 \
        or not tv.locator("#announcement button").is_visible()
    # --- the desk: the names are not broken either ---
    assert desk.evaluate(WRAPPED) == [], desk.evaluate(WRAPPED)
    assert desk.evaluate(CUT) == [], desk.evaluate(CUT)

    # --- the opening as a story: one summary of the takes, one of the medals, each its first names and "and N more"
    for page in (desk, tv):
        lines = page.eval_on_selector_all("#feed li", "els => els.map((e) => e.textContent)")
        assert len([x for x in lines if "took" in x]) == 1, lines
        assert len([x for x in lines if "Early bird" in x]) == 1, lines
        took = next(x for x in lines if "took" in x)
        assert f"{PLAYERS} towns taken" in took and f"and {PLAYERS - 3} more" in took, took
        bird = next(x for x in lines if "Early bird" in x)
        assert f"{PLAYERS} players earned Early bird" in bird and f"and {PLAYERS - 3} more" in bird, bird
    # --- Lord of the Seas: the first leaders and how many more, not all of them ---
    seas = desk.inner_text("#quests dd")
    assert f"and {PLAYERS - 3} more" in seas, seas
    assert sum(name in seas for _, name in players) == 3, seas
