"""The watch page on a TV (1920×1080, ``/watch?tv=1``) and at the end of the season: the map, its towns
named in large type, flies to a story and back, the ticker carries it, the standings show who moved, the next
closing is counted down from the server's clock; once the season is closed, the final results stand as a podium
with the adjustments shown (R25, R26, R28). Under our Content-Security-Policy."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.a11y import serious_violations
from tests.browser.test_my_turf import overlapping_labels
from tests.browser.test_pages import open_page, until
from tests.support.client import API, Player, move_clock, verified_player

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
CLOSE = datetime.fromisoformat("2026-10-24T22:00:00-04:00")
HOBOKEN, HOBOKEN_ID = (40.7440, -74.0320), "3401732250"
TV = {"viewport": {"width": 1920, "height": 1080}, "is_mobile": False, "has_touch": False}


def test_tv_mode_flies_to_a_story_and_back_and_counts_down(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    move_clock(org, MON)
    ann, bo = verified_player(http, org, "Ann TV"), verified_player(http, org, "Bo TV")
    tv = phone(**TV)
    open_page(tv, stack.base_url + "/watch?tv=1")
    until(tv, "document.body.classList.contains('tv') && document.querySelector('#live').textContent.includes('live')")
    # the manual clock stands at 07:00, the game closes at 22:00 (R2)
    until(tv, "document.querySelector('#tv-countdown').textContent === 'Closes in 15 h 00 min'")
    size = "parseFloat(getComputedStyle(document.querySelector('{}')).fontSize)"
    assert tv.evaluate(size.format("#leaderboard")) >= 24 and tv.evaluate(size.format("header.top h1")) >= 36

    assert ann.claim(*HOBOKEN, MON).status_code == 201
    until(tv, f"document.body.dataset.tvFocus === '{HOBOKEN_ID}'")
    assert "Hoboken" in tv.inner_text("#feed li:first-child")
    tv.wait_for_timeout(1600)   # the flight (1.2 s) has landed
    # a labelled map, in large type, no name over another
    until(tv, f"!!document.querySelector(\".town-label[data-territory-id='{HOBOKEN_ID}']\")")
    assert tv.evaluate("parseFloat(getComputedStyle(document.querySelector('.town-label span')).fontSize)") >= 18
    assert overlapping_labels(tv) == []
    assert serious_violations(tv) == []   # axe-core on the TV as it shows a story
    shot(tv, "watch-tv")
    until(tv, "document.body.dataset.tvFocus === ''", timeout=30)   # back to the whole board

    # Bo overtakes Ann by an organizer's adjustment: a movement arrow on the TV's standings
    until(tv, f"document.querySelector('#leaderboard tr[data-player-id=\"{ann.id}\"] td.total')?.textContent > '0'")
    r = org.post("/admin/corrections", {"action": "adjust_score", "player_id": bo.id, "points": 100,
                                        "reason": "photo quest"})
    assert r.status_code == 201, r.text
    until(tv, f"document.querySelector('#leaderboard tr[data-player-id=\"{bo.id}\"]')?.dataset.moved === '1'")
    assert "▲1" in tv.inner_text(f"#leaderboard tr[data-player-id='{bo.id}'] td:first-child")
    assert tv.inner_text(f"#leaderboard tr[data-player-id='{ann.id}'] td:first-child").endswith("▼1")
    # the names are read whole across the room, not cut to "p_0…"
    assert tv.evaluate("[...document.querySelectorAll('#leaderboard td.name')]"
                       ".every((td) => td.scrollWidth <= td.clientWidth)")


def test_the_podium_at_the_close(stack: Any, http: httpx.Client, org: Player,
                                         phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    move_clock(org, CLOSE)
    final = http.get(f"{API}/results")
    assert final.status_code == 200, final.text
    standings = final.json()["standings"]
    page = phone()
    open_page(page, stack.base_url + "/watch")
    page.wait_for_selector("#podium:not([hidden]) ol.podium")
    first = [s["display_name"] for s in standings if s["place"] == 1]
    assert all(n in page.inner_text("ol.podium li.p1") for n in first) and first
    rows = page.locator("#results tbody tr")
    assert rows.count() == len(standings)
    for s in standings:
        row = page.locator(f"#results tr[data-player-id='{s['player_id']}']")
        adj = s["total"] - s["base"] - s["bonuses"]
        assert row.locator("td.adj").inner_text() == (f"+{adj}" if adj > 0 else str(adj) if adj else "")
        assert row.locator("td").last.inner_text() == f"${s['prize']}"
    assert any(s["total"] - s["base"] - s["bonuses"] == 100 for s in standings)   # Bo's adjustment is shown
    shot(page, "watch-podium", at="#podium")
