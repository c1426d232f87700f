"""The play page's first load on a 390×844 phone, signed out, against a stack of its own: the requests it makes and
the bytes it transfers (bodies as sent, gzip where the server compresses), the board's own share apart. No network
throttling: this counts bytes, not seconds (bench/lighthouse.py times the throttled load).

    .venv/bin/python -m bench.page_bytes
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from tests.support.stackfix import running_stack

CHROMIUM = "/usr/bin/chromium"


def measure(base_url: str) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"], headless=True)
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
        page = ctx.new_page()
        seen: list[Any] = []
        page.on("requestfinished", lambda r: seen.append(r))
        page.goto(base_url + "/")
        page.wait_for_selector("body[data-ready='1']")
        page.wait_for_load_state("networkidle")
        sizes = [(r.url, r.sizes()["responseBodySize"] + r.sizes()["responseHeadersSize"]) for r in seen]
        browser.close()
    board = sum(n for url, n in sizes if "/api/v1/board" in url)
    return {"requests": len(sizes), "bytes": sum(n for _, n in sizes), "board_bytes": board}


def main() -> None:
    with tempfile.TemporaryDirectory() as d, running_stack(Path(d)) as stack:
        out = measure(stack.base_url)
    print(f"requests {out['requests']}, transferred {out['bytes']:,} B, of which the board {out['board_bytes']:,} B")


if __name__ == "__main__":
    main()
