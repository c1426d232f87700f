"""The play page: "How to play" with this season's dates, hours and limits from the server; the Discord
name said to be public on the registration form; the Organize link hidden from players and shown on the
organizer's device."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.browser.test_pages import open_page, show_tab, sign_in_page, until
from tests.support.stackfix import ORGANIZER
from turfwar.stack import Stack


def test_how_to_play_the_public_discord_name_and_the_organize_link(stack: Stack,
                                                                          phone: Callable[..., Any]) -> None:
    page = phone()
    open_page(page, stack.base_url + "/")
    show_tab(page, "howto")
    page.wait_for_selector("#howto:not([hidden]) dl.howto")
    text = page.inner_text("#howto")
    # R2/R3 from GET /season, R7's limits as configured
    assert "Mon, Oct 5 – Sat, Oct 24: 18 game days, Monday to Saturday, 06:00–22:00 New York time" in text, text
    assert "accurate to 100 m and at most 120 s old (R7)" in text and "5 game hours to play War" in text
    assert page.locator("#organize-link").is_hidden()
    page.click("#tab-register")
    assert "Your Discord name is public" in page.inner_text("#register-form")

    # the organizer's own device: signed in on /admin, the link shows on the other pages
    open_page(page, stack.base_url + "/admin")
    sign_in_page(page, ORGANIZER[0], ORGANIZER[1])
    page.wait_for_selector("#console:not([hidden])")
    for path in ("/", "/watch"):
        open_page(page, stack.base_url + path)
        until(page, "!document.querySelector('#organize-link').hidden")


def test_my_season_on_the_play_page(stack: Stack, http: Any, org: Any, phone: Callable[..., Any]) -> None:
    from datetime import datetime

    from tests.support.client import move_clock, register

    monday = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
    move_clock(org, monday)
    pid, email, password = register(http, "Season Player")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    page = phone()
    open_page(page, stack.base_url + "/")
    sign_in_page(page, email, password)
    page.wait_for_selector("#my-season:not([hidden])")
    assert page.inner_text("#my-season h2") == "My season"
    assert "Nothing yet this season." in page.inner_text("#my-season table")
    body = {"lat": 40.7440, "lon": -74.0320, "accuracy_m": 8.0, "fix_time": monday.isoformat()}
    token = http.post("/api/v1/sessions", json={"email": email, "password": password}).json()["token"]
    r = http.post("/api/v1/claims", json=body, headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 201, r.text
    # the take comes in on the feed; the panel reads the journal again (within 5 s)
    until(page, "document.querySelector('#my-season tr[data-day=\"2026-10-05\"]') !== null", timeout=30)
    cells = page.locator("#my-season tr[data-day='2026-10-05'] td").all_inner_texts()
    assert cells[:3] == ["Mon 5 Oct", "1", "0"], cells   # day, claims, steals


def test_a_simulations_event_log_opens_in_the_season_replay(stack: Stack, phone: Callable[..., Any]) -> None:
    import gzip
    import json
    from pathlib import Path

    log = Path(__file__).resolve().parents[2] / "docs" / "season" / "events.jsonl.gz"
    lines = [json.loads(x) for x in gzip.decompress(log.read_bytes()).decode().splitlines() if x.strip()]
    replayed = [x for x in lines if x["subject"] in ("territory.changed", "score.updated")]
    owners: dict[str, str | None] = {}
    for x in lines:
        if x["subject"] == "territory.changed":
            owners[x["data"]["territory_id"]] = x["data"]["owner_id"]
    page = phone()
    open_page(page, stack.base_url + "/watch")
    page.set_input_files("#replay-file", str(log))
    until(page, "document.querySelector('#replay').dataset.source === 'file'", timeout=30)
    assert page.evaluate("document.querySelector('#replay').dataset.events") == str(len(replayed))
    # the slider's end: the map's owners are the log's last owners
    page.evaluate("() => { const s = document.querySelector('#replay-slider'); s.value = s.max; "
                  "s.dispatchEvent(new Event('input')); }")
    until(page, "window.turf.replay.active")
    shown = page.evaluate("Object.fromEntries([...window.turf.board.props].map(([id, p]) => [id, p.owner_id]))")
    assert {t: o for t, o in shown.items() if o} == {t: o for t, o in owners.items() if o}
    assert page.locator("#replay-standings li").count() == 10
