"""The organizer's desk in a real browser under our Content-Security-Policy: the dashboard (players by
status, claims today, open flags, the clock), pickers by name instead of raw ids, a confirmation before every
destructive action (R28: set owner, reverse a claim, disqualify) that changes nothing when cancelled, game times in
New York time, and the CSV exports."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.test_pages import message, open_page, sign_in_page, until
from tests.support.client import API, Player, move_clock, register, verified_player
from tests.support.stackfix import ORGANIZER
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

OPEN = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN, JERSEY_CITY = (40.7440, -74.0320), (40.7178, -74.0431)
HOBOKEN_ID, JERSEY_CITY_ID = "3401732250", "3401736000"


def owner(http: httpx.Client, tid: str) -> str | None:
    return http.get(f"{API}/territories/{tid}").json()["owner_id"]  # type: ignore[no-any-return]


def pick(page: Any, picker: str, search: str, value: str) -> None:
    """Type into a picker's search box; the one match is picked."""
    page.fill(f"[data-picker={picker}] .pick-search", search)
    until(page, f"document.querySelector('[data-picker={picker}] select').value === '{value}'")


def confirm(page: Any, title: str, answer: str) -> None:
    page.wait_for_selector("dialog#confirm[open]")
    assert title in page.inner_text("#confirm-title"), page.inner_text("#confirm-title")
    page.click("#confirm-ok" if answer == "ok" else "#confirm-cancel")
    page.wait_for_selector("dialog#confirm:not([open])", state="attached")


def test_the_organizers_desk(stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any],
                                     shot: Callable[..., Path]) -> None:
    move_clock(org, OPEN)
    pat, quinn = verified_player(http, org, "Pat Desk"), verified_player(http, org, "Quinn Desk")
    pending_id, _, _ = register(http, "Pending Pete")
    assert pat.claim(*HOBOKEN, OPEN).status_code == 201
    jc = quinn.claim(*JERSEY_CITY, OPEN)
    assert jc.status_code == 201, jc.text

    admin = phone(accept_downloads=True, timezone_id="Europe/Berlin")   # the desk shows New York time anywhere
    open_page(admin, stack.base_url + "/admin")
    sign_in_page(admin, ORGANIZER[0], ORGANIZER[1])

    # the dashboard: one waiting, two claims today by two players, no flags, the game open
    # each tile fills from its own request: wait for all three, not for the claims alone ('—' until answered)
    until(admin, "document.querySelector('#dash-claims').textContent === '2' && "
                 "['#dash-pending', '#dash-flags'].every((t) => document.querySelector(t).textContent !== '—')")
    assert admin.inner_text("#dash-pending") == "1" and admin.inner_text("#dash-flags") == "0"
    assert "0 steals · 2 players" in admin.inner_text("#dash-claims-detail")
    assert admin.inner_text("#dash-clock") == "Open"
    admin.click("#claims-today summary")
    today = admin.locator("#claims-today-list li").all_inner_texts()
    assert today == ["Mon 5 Oct, 07:00 · Quinn Desk took Jersey City", "Mon 5 Oct, 07:00 · Pat Desk took Hoboken"], \
        today
    shot(admin, "admin-dashboard", at="#dashboard")

    # set owner, picked by name; cancelled first: nothing changes
    admin.select_option("#correction-action", "set_owner")
    pick(admin, "territory", "hoboken", HOBOKEN_ID)
    pick(admin, "owner", "quinn desk", quinn.id)
    admin.fill("#correction-form [name=reason]", "desk test: a handover")
    admin.click("#correction-form button[type=submit]")
    confirm(admin, "Give Hoboken to Quinn Desk", "cancel")
    assert owner(http, HOBOKEN_ID) == pat.id
    admin.click("#correction-form button[type=submit]")
    confirm(admin, "Give Hoboken to Quinn Desk", "ok")
    assert "Correction recorded (set owner)." in message(admin, "#corrections-msg", "ok")
    assert owner(http, HOBOKEN_ID) == quinn.id
    # the log names the town, not its id
    until(admin, "document.querySelector('#correction-log li[data-correction-id]')?.textContent.includes('Hoboken')")
    assert HOBOKEN_ID not in admin.inner_text("#correction-log")

    # reverse a claim picked from the log by town
    admin.select_option("#correction-action", "reverse_claim")
    pick(admin, "claim", "jersey", jc.json()["claim_id"])
    admin.fill("#correction-form [name=reason]", "desk test: a reversal")
    admin.click("#correction-form button[type=submit]")
    confirm(admin, "Reverse Mon 5 Oct, 07:00 · Quinn Desk took Jersey City", "ok")
    assert "Correction recorded (reverse claim)." in message(admin, "#corrections-msg", "ok")
    assert owner(http, JERSEY_CITY_ID) is None
    until(admin, "document.querySelector('#dash-claims').textContent === '1'")   # the reversed claim is gone

    # disqualify from the player finder: cancelled, the player is still pending
    admin.click("#by-id summary")
    pick(admin, "any-player", "pending pete", pending_id)
    admin.click("#by-id-form button[value=disqualify]")
    confirm(admin, "Disqualify Pending Pete", "cancel")
    assert org.get(f"/players/{pending_id}").json()["status"] == "pending"

    # the exports
    with admin.expect_download() as d:
        admin.click("[data-export=players]")
    rows = list(csv.DictReader(io.StringIO(Path(d.value.path()).read_text())))
    mine = {r["id"]: r for r in rows}
    assert mine[pat.id]["name"] == "Pat Desk" and mine[pending_id]["status"] == "pending"
    assert "turfwar-players.csv saved." in message(admin, "#dash-msg", "ok")
    assert d.value.suggested_filename == "turfwar-players.csv"
    with admin.expect_download() as d:
        admin.click("[data-export=claims]")
    claims = {r["id"]: r for r in csv.DictReader(io.StringIO(Path(d.value.path()).read_text()))}
    assert claims[jc.json()["claim_id"]]["undone_by"] == "correction"
    assert claims[jc.json()["claim_id"]]["territory_name"] == "Jersey City"


def test_csv_exports_are_the_organizers_and_safe_to_open(stack: Stack, http: httpx.Client,
                                                                 org: Player) -> None:
    move_clock(org, OPEN)
    sly = verified_player(http, org, "=HYPERLINK(\"http://evil.example\")")
    for table in ("players", "claims", "results"):
        assert sly.get(f"/admin/export/{table}.csv").status_code == 403
        assert http.get(f"{API}/admin/export/{table}.csv").status_code == 401
    r = org.get("/admin/export/players.csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert r.headers["content-disposition"] == 'attachment; filename="players.csv"'
    row = next(x for x in csv.DictReader(io.StringIO(r.text)) if x["id"] == sly.id)
    assert row["name"] == "'=HYPERLINK(\"http://evil.example\")"   # never a formula in a spreadsheet
    results = list(csv.DictReader(io.StringIO(org.get("/admin/export/results.csv").text)))
    assert results and {r["final"] for r in results} == {"False"}   # mid-season: the standings so far
    assert org.get("/admin/export/board.csv").status_code == 422
