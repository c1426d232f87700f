"""The play page's first load on a 390×844 phone, signed out, against a stack of its own: the requests it makes and
the bytes it transfers (bodies as sent, gzip where the server compresses), the board's own share apart. No network
throttling: this counts bytes, not seconds (bench/lighthouse.py times the throttled load). Then a second visit in the
same browser: what still goes over the network once its cache is warm.

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
        second = second_visit(browser, base_url)
        browser.close()
    board = sum(n for url, n in sizes if "/api/v1/board" in url)
    return {"requests": len(sizes), "bytes": sum(n for _, n in sizes), "board_bytes": board, "second": second}


def second_visit(browser: Any, base_url: str) -> dict[str, Any]:
    """The play page opened again in the same browser (its HTTP cache warm, as a phone's the next morning): the
    requests that still go over the network (a 304 revalidation counts: it is a round trip) and their bytes. Without
    the service worker, which fetches through the same cache: its own requests are not the page's to count."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                              service_workers="block")
    page = ctx.new_page()
    page.goto(base_url + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_load_state("networkidle")
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    sent: dict[str, str] = {}
    cached: set[str] = set()
    statuses: dict[str, int] = {}
    sizes: dict[str, int] = {}

    def received(e: dict[str, Any]) -> None:
        statuses.setdefault(e["requestId"], e["response"]["status"])
        if e["response"].get("fromDiskCache"):
            cached.add(e["requestId"])

    cdp.on("Network.requestWillBeSent", lambda e: sent.__setitem__(e["requestId"], e["request"]["url"]))
    cdp.on("Network.requestServedFromCache", lambda e: cached.add(e["requestId"]))
    cdp.on("Network.responseReceived", received)
    # the status on the wire (a revalidated page is reported above with its cached 200)
    cdp.on("Network.responseReceivedExtraInfo", lambda e: statuses.__setitem__(e["requestId"], e["statusCode"]))
    cdp.on("Network.loadingFinished", lambda e: sizes.__setitem__(e["requestId"], int(e["encodedDataLength"])))
    page.goto(base_url + "/")
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_load_state("networkidle")
    ctx.close()
    net = [rid for rid in sent if rid not in cached and not sent[rid].startswith("data:")]
    return {"requests": len(net), "bytes": sum(sizes.get(rid, 0) for rid in net),
            "revalidated": sum(1 for rid in net if statuses.get(rid) == 304),
            "urls": sorted(f"{statuses.get(rid, '-')} {sent[rid].removeprefix(base_url)}" for rid in net)}


def main() -> None:
    with tempfile.TemporaryDirectory() as d, running_stack(Path(d)) as stack:
        out = measure(stack.base_url)
    print(f"requests {out['requests']}, transferred {out['bytes']:,} B, of which the board {out['board_bytes']:,} B")
    s = out["second"]
    print(f"second visit: {s['requests']} requests over the network ({s['revalidated']} of them 304), "
          f"{s['bytes']:,} B")
    for u in s["urls"]:
        print("  " + u)


if __name__ == "__main__":
    main()
