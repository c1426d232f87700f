"""History, journal and replay in a real browser, under the gateway's CSP (the phone fixture fails on a page error or a
CSP violation): a town's popup on the watch page tells its story as ownership periods with the longest holder; the
season replay's slider and play button move the map's ownership and the standings through the season; a player's
season (daily totals) opens from the leaderboard; and a watch page whose socket was down resumes with ``since``
(what it missed, no snapshot)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import colour_of, fill_of, open_page, until
from tests.support.cards import claim
from tests.support.client import Player, move_clock, verified_player
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

HOBOKEN, JERSEY_CITY = "3401732250", "3401736000"
D1, D2, D3, D3_LATER = (datetime.fromisoformat(s) for s in (
    "2026-10-05T07:00:00-04:00", "2026-10-06T07:00:00-04:00", "2026-10-07T07:00:00-04:00",
    "2026-10-07T09:00:00-04:00"))


def name_of(http: httpx.Client, p: Player) -> str:
    return http.get(f"/api/v1/players/{p.id}").json()["display_name"]  # type: ignore[no-any-return]


def test_a_towns_story_the_season_replay_and_a_resumed_feed(stack: Stack, http: httpx.Client, org: Player,
                                                            phone: Callable[..., Any],
                                                            shot: Callable[..., Path]) -> None:
    a, b = verified_player(http, org, "Ada"), verified_player(http, org, "Bo")
    move_clock(org, D1)
    assert claim(a, HOBOKEN, D1).status_code == 201
    move_clock(org, D2)
    assert claim(b, HOBOKEN, D2).json()["kind"] == "steal"
    move_clock(org, D3)
    assert claim(b, HOBOKEN, D3).json()["kind"] == "reinforce"
    move_clock(org, D3_LATER)

    watch = phone()
    open_page(watch, stack.base_url + "/watch")
    # --- the popup: Bo since D2 07:00 (1 d 2 h by the game clock), Ada D1 07:00 to D2 07:00 (1 d) ---
    watch.evaluate(f"turf.board.select('{HOBOKEN}')")
    watch.wait_for_selector(".leaflet-popup .story[data-periods='2']")
    story = watch.inner_text(".leaflet-popup .story")
    assert f"Longest holder: {name_of(http, b)} (1 d 2 h)" in story, story
    periods = watch.eval_on_selector_all(".leaflet-popup .story li", "els => els.map(e => e.dataset.owner)")
    assert periods == [b.id, a.id]                                   # newest first
    assert "now (1 d 2 h)" in story and "(1 d 0 h)" in story, story
    shot(watch, "watch-history", at="#map")

    # --- the replay: played to its end the map shows Bo on Hoboken; on D1 evening, Ada ---
    watch.click("#replay-play")
    until(watch, "document.querySelector('#replay').dataset.playing === '0' "
                 "&& +document.querySelector('#replay').dataset.shown > 0", timeout=30)
    assert fill_of(watch, HOBOKEN) == colour_of(watch, b.id)
    d1_evening = int(datetime.fromisoformat("2026-10-05T20:00:00-04:00").timestamp() * 1000)
    watch.evaluate("""t => { const s = document.querySelector('#replay-slider'); s.value = String(t);
                             s.dispatchEvent(new Event('input')); }""", d1_evening)
    until(watch, f"turf.board.layers.get('{HOBOKEN}').options.fillColor === '{colour_of(watch, a.id)}'")
    leader = watch.eval_on_selector("#replay-standings li", "e => e.dataset.playerId")
    assert leader == a.id
    assert watch.eval_on_selector("#replay-at", "e => e.dataset.at") == "2026-10-06T00:00:00.000Z"
    shot(watch, "watch-replay", at="#replay")
    watch.click("#replay-live")
    until(watch, f"turf.board.layers.get('{HOBOKEN}').options.fillColor === '{colour_of(watch, b.id)}'")

    # --- a rival's season from the leaderboard: Ada took Hoboken on day 1 and had it stolen on day 2 ---
    watch.click(f"#leaderboard tr[data-player-id='{a.id}']")
    watch.wait_for_selector(f"#season[data-player='{a.id}']:not([hidden])")
    days = watch.eval_on_selector_all("#season tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
    assert days == [["Mon 5 Oct", "1", "0", "0", "0", "0", "0"], ["Tue 6 Oct", "0", "0", "1", "0", "0", "0"]], days
    assert watch.inner_text("#season h2") == f"{name_of(http, a)}'s season"

    # --- the socket is down while Ada takes Jersey City; back with since=, the page gets it without a snapshot ---
    snapshots = watch.evaluate("turf.socket.snapshots")
    watch.evaluate("turf.socket.closed = true; turf.socket.drop()")
    until(watch, "turf.socket.ws.readyState === WebSocket.CLOSED")
    assert claim(a, JERSEY_CITY, D3_LATER).status_code == 201
    watch.evaluate("turf.socket.closed = false; turf.socket.start()")
    until(watch, f"turf.board.layers.get('{JERSEY_CITY}').options.fillColor === '{colour_of(watch, a.id)}'")
    until(watch, "document.querySelector('#feed').textContent.includes('Jersey City')")
    assert watch.evaluate("turf.socket.snapshots") == snapshots
