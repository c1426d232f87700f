"""In a real browser: the play, watch and organize pages on a 390×844 phone viewport, against the real stack.

One story per test module's stack: a player registers on the play page and is refused with a readable reason;
the organizer verifies them on the organize page; they sign in again, check and claim Hoboken from the browser's
(granted, simulated) location and see it change colour; a spectator on the watch page sees the change and the
leaderboard update without reloading, and keeps receiving after its socket drops; a rival's refused claim shows
the rule's sentence."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.conftest import HOBOKEN_FIX
from tests.support.client import Player, move_clock, register, sign_in
from tests.support.stackfix import ORGANIZER
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

HOBOKEN_ID, JERSEY_CITY_ID = "3401732250", "3401736000"
JERSEY_CITY = (40.7280, -74.0770)
OPEN = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
FREE_FILL = "#cfd5da"


def show_tab(page: Any, name: str) -> None:
    """The play page's panels under its first screen are tabs (turf, cards, towns, notes, howto): shows
    one, as a player's tap does (waiting for the tab to be offered: My turf and Cards once signed in)."""
    page.click(f"#tab-{name}")
    page.wait_for_selector(f"#pane-{name}:not([hidden])")


def fill_of(page: Any, territory_id: str) -> str:
    return page.evaluate("id => turf.board.layers.get(id).options.fillColor", territory_id)  # type: ignore[no-any-return]


def colour_of(page: Any, player_id: str) -> str:
    # the page's own palette (its bundle's), which has read the roster: a module imported here would be another copy
    return page.evaluate("pid => turf.colourFor(pid)", player_id)  # type: ignore[no-any-return]


#: Paul Tol's muted palette, as js/palette.js gives it out in join order
PALETTE = ["#CC6677", "#332288", "#DDCC77", "#117733", "#88CCEE", "#882255", "#44AA99", "#999933", "#AA4499"]


def palette_colour(http: httpx.Client, player_id: str) -> str:
    """The map colour a verified player has on every page: the palette's colour of their join_index."""
    order = {p["id"]: p["join_index"] for p in http.get("/api/v1/players").json()["players"]}
    return PALETTE[order[player_id] % len(PALETTE)]


def rgb(hex_colour: str) -> str:
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgb({r}, {g}, {b})"


def overflowing(page: Any) -> list[str]:
    """Visible elements that stick out of their panel sideways (on a phone, a control cut off at the screen's edge)."""
    return page.evaluate("""(() => {
      const out = [];
      for (const panel of document.querySelectorAll('section.panel:not([hidden])')) {
        const p = panel.getBoundingClientRect();
        for (const el of panel.querySelectorAll('button, input, select, label, table, a')) {
          const r = el.getBoundingClientRect();
          if (r.width && (r.left < p.left - 1 || r.right > p.right + 1)) out.push(`${panel.id || 'panel'}: `
            + `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''} ${(el.textContent || '').trim().slice(0, 30)}`);
        }
      }
      return out;
    })()""")  # type: ignore[no-any-return]


def open_page(page: Any, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")


def sign_in_page(page: Any, email: str, password: str) -> None:
    """Sign in through the page's own form (play or organize page)."""
    page.fill("#signin-form [name=email]", email)
    page.fill("#signin-form [name=password]", password)
    page.click("#signin-form button[type=submit]")


def until(page: Any, expression: str, timeout: float = 20.0) -> None:
    """Poll a JS expression until it is true. (Playwright's wait_for_function evaluates strings with eval, which
    the gateway's Content-Security-Policy rightly forbids; page.evaluate is not subject to it.)"""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise AssertionError(f"still false after {timeout} s: {expression}")
        time.sleep(0.05)


def dismissed(page: Any, selector: str) -> list[str]:
    """Click ``selector`` and answer the question it asks (a ``confirm``) No; the questions asked."""
    asked: list[str] = []

    def no(d: Any) -> None:
        asked.append(d.message)
        d.dismiss()

    page.once("dialog", no)
    page.click(selector)
    return asked


def message(page: Any, box: str, kind: str) -> str:
    """The text of a status box once it shows an answer of that kind (``ok`` or ``error``)."""
    page.wait_for_selector(f"{box}.msg.{kind}:not([hidden])")
    return page.inner_text(box)  # type: ignore[no-any-return]


def test_play_watch_organize(stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any],
                             shot: Callable[..., Path]) -> None:
    base = stack.base_url
    move_clock(org, OPEN)  # the game is open: Monday 5 October 2026, 07:00 New York

    # --- a spectator opens the watch page first and stays on it (never reloaded) ---
    watch = phone()
    open_page(watch, base + "/watch")
    watch.wait_for_selector("body[data-live='live']")
    watch.evaluate("window.__sameDocument = 'yes'")

    # --- a new player registers on the play page, with location access granted at Hoboken ---
    play = phone(geolocation=HOBOKEN_FIX, permissions=["geolocation"])
    open_page(play, base + "/")
    assert play.is_visible("#signin-form")
    shot(play, "play-signed-out")
    tag = uuid.uuid4().hex[:8]
    email, password, discord = f"{tag}@example.org", f"pass-{tag}-word", f"web_{tag}"
    play.click("#tab-register")
    play.fill("#register-form [name=name]", "Web Player")
    play.fill("#register-form [name=email]", email)
    play.fill("#register-form [name=discord]", discord)
    play.fill("#register-form [name=home_address]", "1 Main St, Hoboken, NJ")
    play.fill("#register-form [name=password]", password)
    play.click("#register-form button[type=submit]")
    play.wait_for_selector("#me:not([hidden])")
    assert play.inner_text("#me-name") == discord
    assert play.inner_text("#me-status") == "pending"
    player_id = play.evaluate("JSON.parse(localStorage.getItem('turf.session')).player_id")
    play.wait_for_selector("#map[data-located='1']")
    assert "40.74400, -74.03200" in play.inner_text("#position")

    # pending: Check names Hoboken and says why in a sentence, never the code
    pending = sign_in(http, email, password)
    expected = pending.claim(40.744, -74.032, OPEN, check=True).json()
    assert expected["reason"] == "not_eligible" and expected["message"], expected
    # the answer is where I stand's sentence (said once), and Claim is disabled
    play.click("#check")
    until(play, "document.querySelector('#where').dataset.reason === 'not_eligible'")
    until(play, "!document.querySelector('#check').disabled")   # the check's own answer in, not only the page's
    text = play.inner_text("#where")
    assert play.is_disabled("#claim-btn") and play.is_hidden("#claim-msg")
    # R27: a new player is waiting for the organizer, in the page's words for a pending account (not the code)
    assert "Hoboken" in text and "waiting for the organizer's verification" in text and "not_eligible" not in text, text

    # --- the organizer verifies the player on the organize page ---
    admin = phone()
    open_page(admin, base + "/admin")
    admin.fill("#signin-form [name=email]", ORGANIZER[0])
    admin.fill("#signin-form [name=password]", ORGANIZER[1])
    admin.click("#signin-form button[type=submit]")
    admin.wait_for_selector("#console:not([hidden])")
    admin.wait_for_selector("#clock-now:not(:empty)")
    admin.wait_for_selector(f"li[data-player-id='{player_id}'], #by-id[open]")
    row = admin.locator(f"li[data-player-id='{player_id}']")
    if row.count():
        assert "pending" in row.inner_text() and email in row.inner_text()
        shot(admin, "admin")
        assert overflowing(admin) == []
        row.locator("button[data-verb='verify']").click()
    else:  # a server without GET /admin/players: the by-id form
        shot(admin, "admin")
        admin.fill("#by-id-form [name=player_id]", player_id)
        admin.click("#by-id-form button[value=verify]")
    assert "verified" in message(admin, "#players-msg", "ok")
    assert http.get(f"/api/v1/players/{player_id}").json()["status"] == "verified"

    # --- the player signs out and in again, checks and claims Hoboken, which takes their colour ---
    play.click("#signout")
    play.wait_for_selector("#signin-form")
    play.fill("#signin-form [name=email]", email)
    play.fill("#signin-form [name=password]", password)
    play.click("#signin-form button[type=submit]")
    play.wait_for_selector("#me:not([hidden])")
    until(play, "document.querySelector('#me-status').textContent === 'verified'")
    assert play.inner_text("#claims-left") == "1"
    assert fill_of(play, HOBOKEN_ID) == FREE_FILL
    assert fill_of(watch, HOBOKEN_ID) == FREE_FILL

    play.click("#check")
    until(play, "document.querySelector('#where').textContent.includes('You can claim it now')")
    # where I stand says the same, not what it said while I was pending
    assert play.inner_text("#where") == "You are in Hoboken (owner: nobody). You can claim it now."
    play.click("#claim-btn")
    until(play, "document.querySelector('#claim-msg').textContent.includes('You took Hoboken')")
    # my colour is the server's, not whatever either page drew first: the palette's colour of my join_index,
    # on the play page as on the watch page, the watch's leaderboard swatch and my legend
    mine = palette_colour(http, player_id)
    until(play, f"turf.board.layers.get('{HOBOKEN_ID}').options.fillColor === '{mine}'")
    assert colour_of(play, player_id) == mine
    until(play, "document.querySelector('#claims-left').textContent === '0'")
    until(play, "document.querySelector('#my-cluster').textContent.includes('Hoboken')")
    until(play, "document.querySelector('#where').textContent.startsWith('You are in Hoboken (owner: you).')")
    shot(play, "play")
    assert overflowing(play) == []

    # --- the spectator's page follows without a reload: map colour, leaderboard, feed ---
    until(watch, f"turf.board.layers.get('{HOBOKEN_ID}').options.fillColor === '{mine}'")
    lb_row = watch.locator(f"#leaderboard tr[data-player-id='{player_id}']")
    lb_row.wait_for()
    assert lb_row.locator("td.base").inner_text() == "1" and discord in lb_row.inner_text()
    until(watch, f"getComputedStyle(document.querySelector(\"#leaderboard tr[data-player-id='{player_id}'] "
                 f".swatch\")).backgroundColor === '{rgb(mine)}'")
    until(play, f"getComputedStyle(document.querySelector('.legend .mine'), '::before').backgroundColor"
                f" === '{rgb(mine)}'")
    until(watch, "document.querySelector('#feed').textContent.includes('took Hoboken')")
    assert watch.evaluate("window.__sameDocument") == "yes"
    watch.click("#feed li.link:has-text('took Hoboken')")  # a feed line shows its territory on the map
    watch.wait_for_selector(".leaflet-popup-content:has-text('Hoboken')")
    watch.wait_for_timeout(400)  # the map's zoom animation
    shot(watch, "watch")
    assert overflowing(watch) == []

    # --- a rival's refused claim (R10 lock) shows the rule's sentence ---
    rival_id, rival_email, rival_password = register(http, "Rival")
    assert org.post(f"/admin/players/{rival_id}/verify", {"reason": "test"}).status_code == 200
    rival = sign_in(http, rival_email, rival_password)
    r = rival.claim(40.744, -74.032, OPEN)
    assert r.status_code == 409 and r.json()["reason"] == "locked_today", r.text
    rival_page = phone(geolocation=HOBOKEN_FIX, permissions=["geolocation"])
    open_page(rival_page, base + "/")
    rival_page.fill("#signin-form [name=email]", rival_email)
    rival_page.fill("#signin-form [name=password]", rival_password)
    rival_page.click("#signin-form button[type=submit]")
    rival_page.wait_for_selector("#map[data-located='1']")
    # the page's own check refuses it first: Claim disabled, the rule's sentence where I stand
    until(rival_page, "document.querySelector('#where').dataset.reason === 'locked_today'", timeout=40)
    text = rival_page.inner_text("#where")
    assert rival_page.is_disabled("#claim-btn")
    assert text.endswith(r.json()["message"]) and "locked_today" not in text, text
    shot(rival_page, "play-refused")

    # --- the watch page reconnects by itself after its socket drops, and keeps following ---
    opened = watch.evaluate("turf.socket.opened")
    watch.evaluate("turf.socket.drop()")
    until(watch, f"turf.socket.opened > {opened} && document.body.dataset.live === 'live'")
    r = rival.claim(*JERSEY_CITY, OPEN)
    assert r.status_code == 201 and r.json()["territory_id"] == JERSEY_CITY_ID, r.text
    until(watch, "document.querySelector('#feed').textContent.includes('took Jersey City')")
    until(watch, f"turf.board.layers.get('{JERSEY_CITY_ID}').options.fillColor !== '{FREE_FILL}'")
    watch.locator(f"#leaderboard tr[data-player-id='{rival.id}']").wait_for()
    assert watch.evaluate("window.__sameDocument") == "yes"
    # the player's page, also live, shows the rival's new town too
    until(play, f"turf.board.layers.get('{JERSEY_CITY_ID}').options.fillColor !== '{FREE_FILL}'")


WEST_NEW_YORK_FIX = {"latitude": 40.7857, "longitude": -74.0094, "accuracy": 12}


def open_game(http: httpx.Client, org: Player) -> None:
    if datetime.fromisoformat(http.get("/api/v1/clock").json()["now"]) < OPEN:
        move_clock(org, OPEN)


def test_cards_and_corrections(stack: Stack, http: httpx.Client, org: Player, phone: Callable[..., Any],
                               shot: Callable[..., Path]) -> None:
    """The organizer hands a player cards through the corrections form (and sees the log); the player claims,
    plays Double Trouble, schedules a Freeze on the new territory and cancels it, all from the play page; the
    organizer moves the manual clock from the organize page."""
    base = stack.base_url
    open_game(http, org)
    pid, email, password = register(http, "Card Player")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200

    admin = phone()
    open_page(admin, base + "/admin")
    admin.fill("#signin-form [name=email]", ORGANIZER[0])
    admin.fill("#signin-form [name=password]", ORGANIZER[1])
    admin.click("#signin-form button[type=submit]")
    admin.wait_for_selector("#console:not([hidden])")
    admin.select_option("#correction-action", "adjust_hand")
    # the player picked by name, the cards counted per type
    admin.fill("#correction-form [data-picker=player] .pick-search", "Card Player")
    until(admin, f"document.querySelector('#correction-form [data-picker=player] select').value === '{pid}'")
    admin.fill("#correction-form [name='add:double_trouble']", "1")
    admin.fill("#correction-form [name='add:freeze']", "1")
    admin.fill("#correction-form [name=reason]", "browser test: a hand to play")
    admin.click("#correction-form button[type=submit]")
    assert "adjust hand" in message(admin, "#corrections-msg", "ok")
    admin.wait_for_selector("#correction-log li:has-text('browser test: a hand to play')")
    shot(admin, "admin-corrections", at="#corrections")

    play = phone(geolocation=WEST_NEW_YORK_FIX, permissions=["geolocation"])
    open_page(play, base + "/")
    play.fill("#signin-form [name=email]", email)
    play.fill("#signin-form [name=password]", password)
    play.click("#signin-form button[type=submit]")
    show_tab(play, "cards")
    play.wait_for_selector("#hand li[data-card-type='double_trouble']")
    play.wait_for_selector("#map[data-located='1']")
    play.click("#claim-btn")
    until(play, "document.querySelector('#claim-msg').textContent.includes('You took West New York')")
    until(play, "document.querySelector('#claims-left').textContent === '0'")

    play.locator("#hand li[data-card-type='double_trouble'] button[type=submit]").first.click()
    assert "1 claim left today" in message(play, "#cards-msg", "ok")
    until(play, "document.querySelector('#claims-left').textContent === '1'")

    freeze = play.locator("#hand li[data-card-type='freeze']").first
    freeze.locator("select[name=territory_id]").select_option(label="West New York (Hudson)")
    freeze.locator("button[type=submit]").click()
    until(play, "document.querySelector('#cards-msg').textContent.includes('scheduled')")
    scheduled = play.locator("#scheduled li[data-card-type='freeze']")
    scheduled.wait_for()
    shot(play, "play-cards", at="#cards")
    scheduled.locator("button").click()
    until(play, "document.querySelector('#cards-msg').textContent.includes('cancelled')")
    assert play.locator("#scheduled li").count() == 0
    play.wait_for_selector("#hand li[data-card-type='freeze']")

    # the organizer moves the manual clock an hour on from the organize page
    admin.click("#clock-plus-hour")
    assert admin.input_value("#clock-target") == "2026-10-05T08:00:00-04:00"
    admin.click("#clock-form button[type=submit]")
    assert "Clock moved to Mon 5 Oct, 08:00" in message(admin, "#clock-msg", "ok")
    assert http.get("/api/v1/clock").json()["now"] == "2026-10-05T08:00:00-04:00"
    shot(admin, "admin-clock", at="#clock-control")


def test_api_docs_render_offline_under_our_csp(stack: Stack, phone: Callable[..., Any],
                                                       shot: Callable[..., Path]) -> None:
    """/docs is Swagger UI from the package: it renders every /api/v1 operation with no request to another host
    and no Content-Security-Policy violation (the phone fixture fails on either), each operation declares the
    {reason, message} error body, and the Authorize button offers the bearer scheme."""
    page = phone()
    r = page.goto(stack.base_url + "/docs")
    assert r is not None and r.status == 200 and "default-src 'self'" in r.headers["content-security-policy"]
    # Swagger UI parses the whole document (about 90 operations) in the page before drawing its title: seconds of
    # CPU, longer than the default wait while the other test worker loads the same two cores
    page.wait_for_selector(".swagger-ui .info .title", timeout=60_000)
    assert "Turf War gateway" in page.inner_text(".swagger-ui .info .title")
    page.wait_for_function("document.querySelectorAll('.opblock').length >= 25")
    assert page.locator("button.authorize").count() == 1
    page.locator(".opblock-summary-path[data-path='/api/v1/claims']").first.click()
    page.wait_for_selector(".opblock.is-open .responses-table")
    codes = page.locator(".opblock.is-open .responses-table .response-col_status").all_inner_texts()
    assert {"201", "401", "409", "422", "503"} <= {c.strip() for c in codes}, codes
    shot(page, "docs")


def test_a_plain_http_page_says_location_needs_https(stack: Stack, browser: Any,
                                                             shot: Callable[..., Path]) -> None:
    """Over plain HTTP on a public name a browser never shares its location (not a secure context), so the play page
    says the site needs HTTPS, and where, not "allow it". The public name is served by routing the page's requests
    to the local gateway (its origin stays http://turf.example.test:<port>)."""
    import re

    from tests.browser.conftest import PHONE

    port = stack.base_url.rsplit(":", 1)[1]
    public = f"http://turf.example.test:{port}"

    def forward(route: Any) -> None:
        route.fulfill(response=route.fetch(url=route.request.url.replace(public, stack.base_url, 1)))

    ctx = browser.new_context(viewport=PHONE, permissions=["geolocation"], geolocation=HOBOKEN_FIX)
    try:
        ctx.route(re.compile("^" + re.escape(public) + "/"), forward)
        page = ctx.new_page()
        page.goto(public + "/")
        page.wait_for_selector("body[data-ready='1']")
        assert page.evaluate("window.isSecureContext") is False
        text = page.inner_text("#https-warning")   # shown at once, before anyone signs in
        assert "plain HTTP" in text and f"https://turf.example.test:{port}/" in text, text
        shot(page, "play-insecure")
    finally:
        ctx.close()
