"""The card forms in a real browser on a 390×844 phone, against the real stack with its manual clock: each card's form
offers only what the rules allow now (War: the steals of my towns still inside their 5 game hours, R14; Mulligan:
today's claims, from the server, R19; Blockade: the rivals, R16; Joker: both modes, R20; Trade: the towns of Trade
card holders, R18, never one in a War dispute, R14), cards of one type grouped "×N"; the map's colour-blind-safe
palette in join order, the legend in my own colour; dark mode from the system; a popup near the screen's edge kept
in view. Under our CSP."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.a11y import serious_violations
from tests.browser.test_pages import PALETTE, message, open_page, rgb, show_tab, sign_in_page, until
from tests.support.cards import claim, hand
from tests.support.client import Player, move_clock, register, sign_in
from turfwar.stack import Stack

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
TUE = datetime.fromisoformat("2026-10-06T07:00:00-04:00")
HOBOKEN, JERSEY_CITY, WEST_NEW_YORK = "3401732250", "3401736000", "3401779610"
UNION_CITY, BAYONNE, WEEHAWKEN = "3401774630", "3401703580", "3401777930"


def verified(http: httpx.Client, org: Player, name: str) -> tuple[Player, str, str]:
    pid, email, password = register(http, name)
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    return sign_in(http, email, password), email, password


def set_owner(org: Player, territory_id: str, player_id: str) -> None:
    r = org.post("/admin/corrections", {"action": "set_owner", "territory_id": territory_id,
                                        "player_id": player_id, "reason": "browser test setup"})
    assert r.status_code == 201, r.text


def options(page: Any, card_type: str, name: str) -> list[str]:
    """The option labels of the form's select ``name`` in the hand's item for ``card_type``."""
    sel = f"#hand li[data-card-type='{card_type}'] select[name={name}] option"
    return [" ".join(t.split()) for t in page.locator(sel).all_inner_texts()]


def adjust_hand(org: Player, player_id: str, add: tuple[str, ...] = (), remove: tuple[str, ...] = ()) -> None:
    """The organizer's ``adjust_hand`` correction (R28, API.md) over HTTP: Playwright's loop forbids asyncio here."""
    r = org.post("/admin/corrections", {"action": "adjust_hand", "player_id": player_id, "add": list(add),
                                        "remove": list(remove), "reason": "browser test hand"})
    assert r.status_code == 201, r.text


@pytest.fixture(scope="module")
def world(stack: Stack, http: httpx.Client, org: Player) -> dict[str, Any]:
    """Me, a thief who stole Hoboken from me on Tuesday at 07:00 and holds West New York (never mine), both with a
    Trade card as a holder with Union City, a player without one with Bayonne; my claim of Jersey City today; my
    hand."""
    move_clock(org, MON)
    me, email, password = verified(http, org, "Forms Me")
    thief, _, _ = verified(http, org, "Forms Thief")
    holder, _, _ = verified(http, org, "Forms Holder")
    other, _, _ = verified(http, org, "Forms None")
    assert claim(me, HOBOKEN, MON).status_code == 201
    move_clock(org, TUE)
    r = claim(thief, HOBOKEN, TUE)
    assert r.status_code == 201 and r.json()["kind"] == "steal", r.text
    assert claim(me, JERSEY_CITY, TUE).status_code == 201
    set_owner(org, WEST_NEW_YORK, thief.id)
    set_owner(org, UNION_CITY, holder.id)
    set_owner(org, BAYONNE, other.id)
    set_owner(org, WEEHAWKEN, me.id)
    for p in (me, thief, holder, other):   # the day starts' random draws (R12) out: each hand is what we give
        adjust_hand(org, p.id, remove=tuple(c["type"] for c in hand(p)))
    adjust_hand(org, holder.id, add=("trade",))
    adjust_hand(org, thief.id, add=("trade",))
    adjust_hand(org, other.id, add=("freeze",))
    adjust_hand(org, me.id, add=("war", "mulligan", "mulligan", "mulligan", "trade", "blockade", "joker"))
    names = {p.id: http.get(f"/api/v1/players/{p.id}").json()["display_name"] for p in (me, thief, holder, other)}
    return {"me": me, "thief": thief, "holder": holder, "other": other, "email": email, "password": password,
            "names": names}


def signed_in(phone: Callable[..., Any], stack: Stack, w: dict[str, Any], **opts: Any) -> Any:
    page = phone(**opts)
    open_page(page, stack.base_url + "/")
    sign_in_page(page, w["email"], w["password"])
    show_tab(page, "cards")
    page.wait_for_selector("#hand li[data-card-type='mulligan']")
    return page


def test_each_card_form_offers_only_what_the_rules_allow_now(
        stack: Stack, phone: Callable[..., Any], world: dict[str, Any], shot: Callable[..., Path]) -> None:
    w, names = world, world["names"]
    page = signed_in(phone, stack, w)

    # R14: exactly the town stolen from me, with the game time left; not West New York, a rival's never mine
    assert options(page, "war", "territory_id") == [
        f"Hoboken, stolen by {names[w['thief'].id]}: 5 h 00 min of game time left"]
    # R19: today's claim, from the server
    assert options(page, "mulligan", "claim_id") == ["Jersey City (take, 07:00)"]
    # three Mulligans, one item: "Mulligan ×3"; every card with its rule
    assert page.locator("#hand li[data-card-type='mulligan']").count() == 1
    assert page.inner_text("#hand li[data-card-type='mulligan'] .cardname") == "Mulligan ×3"
    assert page.inner_text("#hand li[data-card-type='war'] .cardname") == "War"
    for kind in ("war", "mulligan", "trade", "blockade", "joker"):
        assert page.inner_text(f"#hand li[data-card-type='{kind}'] .rule").strip()
    # R18: only Trade card holders' towns are asked for, not Bayonne (no card), nor Hoboken, in dispute while my
    # War window is open (R14 territory_in_dispute); my own towns are offered
    assert sorted(options(page, "trade", "want_territory_id")) == [
        f"Union City ({names[w['holder'].id]})", f"West New York ({names[w['thief'].id]})"]
    assert options(page, "trade", "offer_territory_id") == ["Jersey City (Hudson)", "Weehawken (Hudson)"]
    # R16: every rival by name, never myself
    assert sorted(options(page, "blockade", "rival_id")) == sorted(
        names[p.id] for p in (w["thief"], w["holder"], w["other"]))
    # R20: both modes, each explained
    joker = page.locator("#hand li[data-card-type='joker'] label.choice")
    assert joker.count() == 2
    assert page.locator("#hand li[data-card-type='joker'] input[name=mode]").evaluate_all(
        "els => els.map(e => e.value)") == ["cluster_edge", "random"]
    assert all("random" in t for t in joker.all_inner_texts())
    shot(page, "play-card-forms", at="#cards")

    # the Mulligan list comes from the server, not this browser: after a reload (and with nothing stored) it is there
    assert page.evaluate("Object.keys(localStorage).filter(k => k.includes('lastClaim'))") == []
    page.reload()
    page.wait_for_selector("#hand li[data-card-type='mulligan'] select[name=claim_id]")
    assert options(page, "mulligan", "claim_id") == ["Jersey City (take, 07:00)"]
    # and playing it undoes exactly that claim
    page.locator("#hand li[data-card-type='mulligan'] button[type=submit]").click()
    assert "Mulligan: Jersey City handed back" in message(page, "#cards-msg", "ok")
    until(page, "document.querySelector(\"#hand li[data-card-type='mulligan'] .cardname\").textContent"
                " === 'Mulligan ×2'")
    assert page.inner_text("#hand li[data-card-type='mulligan'] .none") == "No claim of yours today can be undone."

    # War takes Hoboken back; the thief's reclaim window keeps it in dispute, so the Trade form does not offer it
    page.locator("#hand li[data-card-type='war'] button[type=submit]").click()
    until(page, "document.querySelector('#cards-msg').textContent.includes('War! Hoboken is yours again')")
    until(page, "document.querySelector(\"#hand li[data-card-type='trade'] select[name=offer_territory_id]\")"
                " && !document.querySelector(\"#hand li[data-card-type='war']\")")
    assert options(page, "trade", "offer_territory_id") == ["Weehawken (Hudson)"]
    # and My turf says so: in dispute, the thief may reclaim it until a time
    show_tab(page, "turf")
    hoboken = f"#my-turf li[data-territory-id='{HOBOKEN}']"
    until(page, f"!!document.querySelector(\"{hoboken} .badge.dispute\")")
    assert f"{names[w['thief'].id]} may reclaim it until" in page.inner_text(f"{hoboken} .warn")


def test_players_get_palette_colours_in_join_order_and_my_legend_is_my_colour(
        stack: Stack, http: httpx.Client, phone: Callable[..., Any], world: dict[str, Any]) -> None:
    w = world
    order = {p["id"]: p["join_index"] for p in http.get("/api/v1/players").json()["players"]}
    me, thief = w["me"].id, w["thief"].id
    assert order[thief] == order[me] + 1
    page = signed_in(phone, stack, w)
    until(page, "document.querySelector('#my-count').textContent !== '—'")
    fill = page.evaluate("id => turf.board.layers.get(id).options.fillColor", WEEHAWKEN)
    rival = page.evaluate("id => turf.board.layers.get(id).options.fillColor", WEST_NEW_YORK)
    assert fill == PALETTE[order[me] % len(PALETTE)] and rival == PALETTE[order[thief] % len(PALETTE)]
    assert fill != rival
    until(page, "getComputedStyle(document.querySelector('.legend .mine'), '::before').backgroundColor"
                f" === '{rgb(fill)}'")


def test_dark_mode_follows_the_system(stack: Stack, phone: Callable[..., Any],
                                             shot: Callable[..., Path]) -> None:
    background = "getComputedStyle(document.documentElement).backgroundColor"
    light = phone()
    open_page(light, stack.base_url + "/")
    dark = phone(color_scheme="dark")
    open_page(dark, stack.base_url + "/")
    assert light.evaluate(background) == "rgb(244, 246, 248)"
    assert dark.evaluate(background) == "rgb(17, 22, 27)"
    # the panels follow: light text on a dark card
    assert dark.evaluate("getComputedStyle(document.querySelector('section.panel')).backgroundColor") \
        == "rgb(28, 35, 41)"
    shot(dark, "play-dark")


def test_a_popup_near_the_screen_edge_stays_inside_the_viewport(
        stack: Stack, phone: Callable[..., Any]) -> None:
    page = phone()
    open_page(page, stack.base_url + "/")
    # Hoboken's centre moved to the map's top right corner, then its popup opened where it is
    page.evaluate("""id => {
      const m = turf.board.map, c = turf.board.layers.get(id).getCenter();
      const p = m.latLngToContainerPoint(c), size = m.getSize();
      m.panBy([p.x - (size.x - 6), p.y - 6], { animate: false });
      turf.board.select(id, { pan: false });
    }""", HOBOKEN)
    page.wait_for_selector(".leaflet-popup")
    until(page, "document.querySelector('.leaflet-popup-content').textContent.includes('Hoboken')")
    page.wait_for_timeout(800)   # the pan to the popup is animated (0.25 s)
    box = page.locator(".leaflet-popup-content-wrapper").bounding_box()
    view = page.viewport_size
    assert box["x"] >= 0 and box["y"] >= 0, box
    assert box["x"] + box["width"] <= view["width"] and box["y"] + box["height"] <= view["height"], box
    # and inside the map, whose edges would clip it
    m = page.locator("#map").bounding_box()
    assert m["x"] <= box["x"] and box["x"] + box["width"] <= m["x"] + m["width"], (box, m)
    assert m["y"] <= box["y"] and box["y"] + box["height"] <= m["y"] + m["height"], (box, m)

    # a long popup (a town with a long story) scrolls inside the map instead of running off the screen
    page.evaluate("""id => { turf.board.layers.get(id).setPopupContent(
      '<b>Hoboken</b>' + '<p>a long story line</p>'.repeat(60)); }""", HOBOKEN)
    page.wait_for_selector(".leaflet-popup.leaflet-popup-scrolled, .leaflet-popup .leaflet-popup-scrolled")
    page.wait_for_timeout(800)
    box = page.locator(".leaflet-popup-content-wrapper").bounding_box()
    assert m["y"] <= box["y"] and box["y"] + box["height"] <= m["y"] + m["height"], (box, m)
    assert m["x"] <= box["x"] and box["x"] + box["width"] <= m["x"] + m["width"], (box, m)


def test_the_card_forms_in_dark_mode_pass_the_accessibility_check(
        stack: Stack, phone: Callable[..., Any], world: dict[str, Any]) -> None:
    # axe-core (tests/browser/a11y.py): labels of every form, contrast of the dark palette
    page = signed_in(phone, stack, world, color_scheme="dark")
    page.wait_for_selector("#hand li[data-card-type='joker'] label.choice")
    assert serious_violations(page) == []
