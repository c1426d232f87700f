"""Headless Chromium (Debian's ``chromium`` package) driven by Playwright, for the page tests.

``./turf test`` and ``.ci/run`` install the package when run as root; without it these tests are skipped with the
reason. Screenshots go to ``artifacts/screenshots/`` (git-ignored) at a 390×844 phone viewport."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

CHROMIUM = os.environ.get("TURF_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
PHONE = {"width": 390, "height": 844}
HOBOKEN_FIX = {"latitude": 40.744, "longitude": -74.032, "accuracy": 10}
LOCAL = {"127.0.0.1", "localhost", "::1"}
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: install Debian's chromium package (`./turf test` does it as root)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="module")
def phone(browser: Any) -> Iterator[Callable[..., Any]]:
    """phone(**context_options) → a new page in its own context (own storage) with a 390×844 touch viewport.
    Page errors (uncaught exceptions), Content-Security-Policy violations and requests to any other host than the
    local gateway fail the test at teardown."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(**opts: Any) -> Any:
        # a TV or a desktop passes its own viewport (and is_mobile=False, has_touch=False)
        ctx = browser.new_context(**({"viewport": PHONE, "device_scale_factor": 1, "is_mobile": True,
                                      "has_touch": True, "locale": "en-US"} | opts))
        ctx.set_default_timeout(20_000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
        page.on("console", lambda m: errors.append(f"{page.url}: {m.text}")
                if m.type == "error" and "Content Security Policy" in m.text else None)
        # nothing may load from elsewhere (no CDN): every request goes to the gateway on this machine
        page.on("request", lambda r: None if urlsplit(r.url).hostname in LOCAL or r.url.startswith("data:")
                else errors.append(f"{page.url}: request to another host: {r.url}"))
        return page

    yield make
    for c in contexts:
        c.close()
    assert not errors, errors


@pytest.fixture(scope="session")
def shot() -> Callable[..., Path]:
    """shot(page, name, at=None): a 390×844 screenshot of what the phone shows, from the top of the page or with
    the element ``at`` (a selector) scrolled into view; and ``name-full.png``, the whole page."""
    SHOTS.mkdir(parents=True, exist_ok=True)

    def take(page: Any, name: str, at: str | None = None) -> Path:
        path = SHOTS / f"{name}.png"
        if at:
            page.locator(at).evaluate("el => el.scrollIntoView({block: 'start'})")
        else:
            page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(path))
        page.screenshot(path=str(SHOTS / f"{name}-full.png"), full_page=True)
        return path

    return take
