"""The docs site read offline: the claim path's sequence diagram is drawn by the mermaid the site serves itself
(docs/javascripts/vendor/mermaid/), with every request to another host refused, and the players' guide's location
help switches between its iPhone, Android and desktop tabs. The site is built once, strict, and served from a
local HTTP server."""

from __future__ import annotations

import functools
import http.server
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
MKDOCS = Path(sys.executable).parent / "mkdocs"
DESKTOP = {"viewport": {"width": 1280, "height": 900}, "is_mobile": False, "has_touch": False}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    out = tmp_path_factory.mktemp("site")
    r = subprocess.run([str(MKDOCS), "build", "--strict", "--quiet", "--site-dir", str(out)], cwd=ROOT,
                       capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert r.returncode == 0, r.stdout + r.stderr
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _block_other_hosts(page: Any) -> list[str]:
    """Abort every request that would leave the machine, as an offline reader's browser would fail it."""
    left: list[str] = []

    def route(r: Any) -> None:
        if r.request.url.startswith(("http://127.0.0.1:", "data:", "blob:")):
            r.continue_()
        else:
            left.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    return left


def test_the_claim_path_diagram_is_drawn_by_the_sites_own_mermaid_offline(
        site: str, phone: Callable[..., Any]) -> None:
    page = phone(**DESKTOP)
    left = _block_other_hosts(page)
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.goto(f"{site}/architecture/claim-path/")
    # Material replaces the fence's <pre class="mermaid"> with a host holding the drawn SVG (in a closed shadow
    # root); a diagram mermaid cannot parse leaves an empty host and an error on the console
    page.wait_for_function("() => !document.querySelector('pre.mermaid') && "
                           "document.querySelector('div.mermaid')?.getBoundingClientRect().height > 150")
    assert page.evaluate("() => typeof mermaid") == "object"
    assert not problems, problems
    assert not left, f"the page asked other hosts: {left}"


def test_location_help_has_a_tab_for_each_kind_of_device(site: str, phone: Callable[..., Any]) -> None:
    page = phone()
    left = _block_other_hosts(page)
    page.goto(f"{site}/players/location/")
    labels = page.locator(".tabbed-labels label")
    assert [t.strip() for t in labels.all_inner_texts()] == [
        "iPhone and iPad (Safari)", "Android (Chrome)", "Desktop (Chrome, Edge, Firefox, Safari)"]
    assert page.get_by_text("Website Settings").first.is_visible()
    labels.nth(1).click()
    assert page.get_by_text("Use precise location").first.is_visible()
    assert not page.get_by_text("Website Settings").first.is_visible()
    assert not left, f"the page asked other hosts: {left}"
