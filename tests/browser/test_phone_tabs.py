"""A page a player can use at a street corner, on a 390×844 phone against the real stack: under the first
screen, My turf, Cards, Every town, Notifications and How to play are tabs (the WAI-ARIA tabs pattern: one tab in
the Tab order, arrows, Home and End, the bell opening Notifications), not one long scroll, and switching them or
what loads into them does not move the page under the player; body text is 16 px or more and labels (chips,
badges, times, the legend, the map's town names) 12 px or more in every tab; the organize page's rows are 44 px
tall or more, so each is a target."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.a11y import serious_violations
from tests.browser.test_pages import open_page, overflowing, show_tab, sign_in_page, until
from tests.support.client import Player, move_clock, register, sign_in
from tests.support.stackfix import ORGANIZER

pytestmark = pytest.mark.timeout(600)

MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
HOBOKEN = {"latitude": 40.7440, "longitude": -74.0320, "accuracy": 10}
TABS = ["turf", "cards", "towns", "notes", "howto"]
#: what a label is (12 px at least: a chip, a badge, a time in a list, the legend, a map name (the board's or My
#: season's footprint's), a column heading, the raw coordinates under the where-am-I sentence); any other text is
#: body text (16 px at least)
LABELS = (".chip, .badge, .count, .when, .legend, .legend *, .town-label, .town-label *, .fp-name, th, .coords, "
          ".leaflet-control-attribution, .leaflet-control-attribution *")

#: visible elements of the root with text of their own, and their font size: [{what, px, label}]
TEXT_SIZES = """([root, labels]) => {
  const out = [];
  for (const el of document.querySelectorAll(root + ', ' + root + ' *')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const r = el.getBoundingClientRect();
    if (!own || !r.width || !r.height || el.closest('.sr-only')) continue;
    out.push({ what: (el.id || el.className || el.tagName) + ': ' + el.textContent.trim().slice(0, 30),
      px: parseFloat(getComputedStyle(el).fontSize), label: el.matches(labels) });
  }
  return out;
}"""


def too_small(page: Any, root: str) -> list[str]:
    """Texts under ``root`` (shown ones) below 16 px (body) or 12 px (labels)."""
    sizes = page.evaluate(TEXT_SIZES, [root, LABELS])
    assert sizes, f"no text shown under {root}"
    return [f"{s['what']} {s['px']}px" for s in sizes if s["px"] < (12 if s["label"] else 16)]


def shown_panes(page: Any) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('[role=tabpanel].sheet-pane')]"
                         ".filter((p) => !p.hidden).map((p) => p.id)")  # type: ignore[no-any-return]


def test_the_rest_of_the_play_page_is_tabs_with_phone_sizes(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any], shot: Callable[..., Path]) -> None:
    move_clock(org, MON)
    pid, email, password = register(http, "Tabs Player")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    assert sign_in(http, email, password).claim(HOBOKEN["latitude"], HOBOKEN["longitude"], MON).status_code == 201

    page = phone(geolocation=HOBOKEN, permissions=["geolocation"])
    open_page(page, stack.base_url + "/")
    # signed out: only what needs no account is offered, Every town shown
    assert page.is_hidden("#tab-turf") and page.is_hidden("#tab-cards")
    assert shown_panes(page) == ["pane-towns"]
    sign_in_page(page, email, password)
    page.wait_for_selector("#notif-btn:not([hidden])")
    until(page, "document.querySelector('#where').dataset.territoryId === '3401732250'", timeout=40)
    page.wait_for_selector("#hand li, #cards-none:not([hidden])", state="attached")

    # the pattern: a tablist of five tabs, each naming its panel, the panel named by its tab; one panel shown
    tablist = page.locator("#more-tabs")
    assert tablist.get_attribute("role") == "tablist" and tablist.get_attribute("aria-label")
    for name in TABS:
        tab = page.locator(f"#tab-{name}")
        assert tab.get_attribute("role") == "tab" and tab.is_visible()
        assert tab.get_attribute("aria-controls") == f"pane-{name}"
        assert page.get_attribute(f"#pane-{name}", "role") == "tabpanel"
        assert page.get_attribute(f"#pane-{name}", "aria-labelledby") == f"tab-{name}"
    assert shown_panes(page) == ["pane-turf"] and page.get_attribute("#tab-turf", "aria-selected") == "true"
    # one long scroll no more (8,057 px before): the first screen and one panel
    assert page.evaluate("document.documentElement.scrollHeight") < 3 * 844

    # the keyboard: one tab in the Tab order, the arrows move along (wrapping), Home and End to the ends
    assert page.evaluate("[...document.querySelectorAll('#more-tabs [role=tab]')].map((t) => t.tabIndex)") \
        == [0, -1, -1, -1, -1]
    page.focus("#tab-turf")
    for key, name in [("ArrowRight", "cards"), ("ArrowRight", "towns"), ("End", "howto"), ("ArrowRight", "turf"),
                      ("ArrowLeft", "howto"), ("Home", "turf"), ("ArrowLeft", "howto")]:
        page.keyboard.press(key)
        assert page.evaluate("document.activeElement.id") == f"tab-{name}", key
        assert shown_panes(page) == [f"pane-{name}"] and page.get_attribute(f"#tab-{name}", "aria-selected") == "true"
    page.keyboard.press("Tab")   # out of the tablist, not along it
    assert not page.evaluate("document.activeElement.closest('#more-tabs')")

    # the bell opens the Notifications tab; the skip link the towns' search box
    page.click("#notif-btn")
    assert shown_panes(page) == ["pane-notes"] and page.is_visible("#notif-list")
    assert page.get_attribute("#notif-btn", "aria-expanded") == "true"
    # a reload keeps the player's tab
    page.reload()
    page.wait_for_selector("#pane-notes:not([hidden])")

    # no jump: with the tab bar scrolled to the top, each tab's panel starts under it, where the last one did
    show_tab(page, "turf")
    page.wait_for_selector("#my-turf[data-loaded]")
    page.locator("#more-tabs").evaluate("el => el.scrollIntoView({ block: 'start' })")
    bar = page.locator("#more-tabs").bounding_box()
    top = bar["y"]
    assert abs(top) < 1
    for name in TABS:
        page.locator(f"#tab-{name}").dispatch_event("click")   # a tap where it is (Playwright's click would scroll)
        assert abs(page.locator("#more-tabs").bounding_box()["y"] - top) < 1, name
        # right under the bar (which wraps onto a second row on a phone, so every tab is on the screen)
        assert 0 <= page.locator(f"#pane-{name}").bounding_box()["y"] - (top + bar["height"]) < 30, name

    # sizes: 16 px body text and 12 px labels in the header, the first screen and every tab; the map's names
    page.evaluate("window.scrollTo(0, 0)")
    for name in TABS:
        show_tab(page, name)
        assert too_small(page, "main") == [], name
        # and nothing wider than the phone: every panel inside the screen, every control inside its panel
        assert page.evaluate("""[...document.querySelectorAll('body *')].filter((e) => e.offsetParent
          && !e.closest('.sheet-tabs, .leaflet-container') && e.getBoundingClientRect().right > 391)
          .map((e) => `${e.tagName}#${e.id}.${e.className} ${e.getBoundingClientRect().right}`)""") == [], name
        assert page.evaluate("document.documentElement.scrollWidth") <= 390, name
        assert overflowing(page) == [], name
    assert too_small(page, "header.top") == []
    until(page, "document.querySelectorAll('.town-label span').length > 0")
    assert too_small(page, "#map") == []
    show_tab(page, "turf")
    shot(page, "play-phone-tabs", at="#more-tabs")
    assert serious_violations(page) == []


def test_the_organize_pages_rows_are_44_px_targets(
        stack: Any, http: httpx.Client, org: Player, phone: Callable[..., Any]) -> None:
    move_clock(org, MON)
    pid, email, password = register(http, "Row Player")
    assert org.post(f"/admin/players/{pid}/verify", {"reason": "test"}).status_code == 200
    sign_in(http, email, password).claim(HOBOKEN["latitude"], HOBOKEN["longitude"], MON)
    pending, _, _ = register(http, "Waiting Player")   # a row in the list of players to verify
    admin = phone()
    open_page(admin, stack.base_url + "/admin")
    sign_in_page(admin, ORGANIZER[0], ORGANIZER[1])
    admin.wait_for_selector("#console:not([hidden])")
    admin.wait_for_selector(f"li[data-player-id='{pending}']")
    admin.click("#claims-today summary")
    admin.wait_for_selector("#claims-today-list li")
    rows = admin.evaluate("""[...document.querySelectorAll('#console ul.list > li, #console tbody tr, summary')]
      .map((el) => [el.textContent.trim().slice(0, 30), el.getBoundingClientRect().height])
      .filter(([, h]) => h > 0)""")
    assert len(rows) >= 2
    assert [r for r in rows if r[1] < 44] == []
    assert too_small(admin, "#console") == []
