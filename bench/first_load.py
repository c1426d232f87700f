"""The play page's first load on a throttled phone, for a signed-in player standing in a town: when the page first
paints, when it shows the sign-in form (never, ideally) and the signed-in state, when the where-am-I sentence names
the town, when the map's towns are drawn; then the same player's second visit (same browser context, cache warm).

    .venv/bin/python -m bench.first_load              # median of 3 runs; --runs N, --out FILE (markdown)

Playwright on Debian's Chromium (``TURF_CHROMIUM``), a 390×844 phone, throttled through the DevTools protocol as
Lighthouse's mobile preset throttles ("Slow 4G": 150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up, the CPU 4×
slower), against a rehearsal stack seeded as bench/lighthouse.py seeds it. Times are from the navigation's start,
read in the page (performance.now()): each state at the first animation frame that shows it (the frame paints right
after), the paints from the browser's own "paint" entries. The anchor, measured in the same run under the same
throttling: a tiny static page's first paint (one request, one paragraph) — the floor of any page here.

The service worker is blocked in the measured contexts: DevTools throttles a page's requests, not those its
worker sends on its behalf, so a second visit through the (network-first) worker would read unthrottled."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

from bench.lighthouse import seed
from tests.support.client import organizer, verified_player
from tests.support.stackfix import running_stack

CHROMIUM = os.environ.get("TURF_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 1.75, "is_mobile": True,
         "has_touch": True}
# Lighthouse 12's mobile preset (constants.throttling.mobileSlow4G)
RTT_MS, DOWN_KBPS, UP_KBPS, CPU = 150, 1638.4, 750, 4
TOWN = "Hoboken"

# what a player sees, recorded at each animation frame (the first one runs once the page may render)
PROBE = """(() => {
  if (window.top !== window) return;
  const t = window.__firstLoad = { fp: null, fcp: null, signin: null, signedin: null, where: null, towns: null,
                                   whereText: null };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.name === "first-paint") t.fp = e.startTime;
      if (e.name === "first-contentful-paint") t.fcp = e.startTime;
    }
  }).observe({ type: "paint", buffered: true });
  const shown = (sel) => {
    const el = document.querySelector(sel);
    return !!el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  };
  const frame = () => {
    const now = performance.now();
    if (t.signin === null && shown("#signin-form")) t.signin = now;
    if (t.signedin === null && (shown("#claim") || shown("#me"))) t.signedin = now;
    const w = document.querySelector("#where");
    if (t.where === null && w && shown("#where") && /^You are in /.test(w.textContent)) {
      t.where = now;
      t.whereText = w.textContent;
    }
    if (t.towns === null && document.querySelector("#map[data-loaded='1']")) t.towns = now;
    if (t.where === null || t.towns === null) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();"""

DONE = "() => window.__firstLoad && window.__firstLoad.where !== null && window.__firstLoad.towns !== null"
ANCHOR_PAGE = (b"<!doctype html><html lang=en><meta charset=utf-8>"
               b"<meta name=viewport content='width=device-width, initial-scale=1'><title>anchor</title>"
               b"<p>A tiny static page: one request, one paragraph.</p>")
GOALS = {"fp": 1500, "where": 3000, "second_where": 1500}
METRICS = [("fp", "first paint"), ("fcp", "first contentful paint"), ("signin", "sign-in form shown"),
           ("signedin", "signed-in state shown"), ("where", "town named (where-am-I)"), ("towns", "map's towns drawn")]


@contextmanager
def anchor_server() -> Iterator[str]:
    class Tiny(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(ANCHOR_PAGE)))
            self.end_headers()
            self.wfile.write(ANCHOR_PAGE)

        def log_message(self, *a: Any) -> None:
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Tiny)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}/"
    finally:
        srv.shutdown()


def throttle(page: Any) -> None:
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": RTT_MS,
        "downloadThroughput": DOWN_KBPS * 1024 / 8, "uploadThroughput": UP_KBPS * 1024 / 8})
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU})


def visit(ctx: Any, url: str) -> dict[str, Any]:
    page = ctx.new_page()
    throttle(page)
    page.goto(url, wait_until="commit")
    page.wait_for_function(DONE, timeout=120_000, polling=250)
    out: dict[str, Any] = page.evaluate("""() => {
      const r = performance.getEntriesByType("resource"), n = performance.getEntriesByType("navigation")[0];
      return { ...window.__firstLoad, requests: r.length + 1,
               bytes: r.reduce((s, e) => s + e.transferSize, n.transferSize),
               resources: r.map((e) => [e.name.replace(location.origin, ""), Math.round(e.startTime),
                                        Math.round(e.responseEnd), e.transferSize]) }; }""")
    page.close()
    return out


def anchor_paint(browser: Any, url: str) -> float:
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    throttle(page)
    page.goto(url)
    fp: float = page.evaluate("""() => new Promise((ok) => new PerformanceObserver((l) => {
      const e = l.getEntries().find((x) => x.name === "first-contentful-paint"); if (e) ok(e.startTime);
    }).observe({ type: "paint", buffered: true }))""")
    ctx.close()
    return fp


# a spectator's pages: their first and largest contentful paints, the largest element named (the paint Lighthouse's
# LCP follows), read once the page has settled
LCP_PROBE = """(() => {
  if (window.top !== window) return;
  const t = window.__paints = { fcp: null, lcp: null, lcpElement: null };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.name === "first-contentful-paint") t.fcp = e.startTime;
  }).observe({ type: "paint", buffered: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      t.lcp = e.startTime;
      const el = e.element;
      t.lcpElement = el ? el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && typeof el.className
        === "string" ? "." + el.className.trim().split(/\\s+/).join(".") : "") : String(e.url || "?");
    }
  }).observe({ type: "largest-contentful-paint", buffered: true });
})();"""
SPECTATOR = {"Watch": "/watch", "TV": "/watch?tv=1", "Modes": "/modes?team-turf={game}"}


def spectator_paints(browser: Any, url: str) -> dict[str, Any]:
    ctx = browser.new_context(**PHONE, service_workers="block")
    ctx.add_init_script(LCP_PROBE)
    page = ctx.new_page()
    throttle(page)
    page.goto(url, wait_until="load", timeout=120_000)
    page.wait_for_timeout(3000)   # the data's first render after the load
    # LCP entries stop at the first input; nothing is typed or tapped here
    out: dict[str, Any] = page.evaluate("() => window.__paints")
    ctx.close()
    return out


def player_fix(base: str) -> tuple[dict[str, Any], dict[str, float]]:
    """A verified player (the session the page keeps) and a fix at TOWN's label point."""
    with httpx.Client(base_url=base, timeout=60) as http:
        p = verified_player(http, organizer(http), "First Load")
        town = next(f["properties"] for f in http.get("/api/v1/board").json()["features"]
                    if f["properties"]["name"] == TOWN)
    lp = town["label_point"]
    return ({"token": p.token, "player_id": p.id, "role": "player"},
            {"latitude": lp["lat"], "longitude": lp["lon"], "accuracy": 10})


def run_once(browser: Any, base: str, session: dict[str, Any], fix: dict[str, float], anchor: str,
             game: str | None = None) -> dict[str, Any]:
    state = {"cookies": [], "origins": [{"origin": base, "localStorage": [
        {"name": "turf.session", "value": json.dumps(session)}]}]}
    ctx = browser.new_context(**PHONE, geolocation=fix, permissions=["geolocation"], storage_state=state,
                              service_workers="block")
    ctx.add_init_script(PROBE)
    first = visit(ctx, base + "/")
    second = visit(ctx, base + "/")
    ctx.close()
    out = {"first": first, "second": second, "anchor": anchor_paint(browser, anchor)}
    if game is not None:
        out["spectator"] = {name: spectator_paints(browser, base + path.format(game=game))
                            for name, path in SPECTATOR.items()}
    return out


def median(runs: list[dict[str, Any]], visit_: str, key: str) -> float | None:
    vals = [r[visit_][key] for r in runs if r[visit_].get(key) is not None]
    return statistics.median(vals) if vals else None


def secs(v: float | None) -> str:
    return "never" if v is None else f"{v / 1000:.2f} s"


def table(runs: list[dict[str, Any]]) -> str:
    lines = ["| moment | first visit | second visit | goal |", "|---|---|---|---|"]
    for key, label in METRICS:
        goal = []
        if key in GOALS:
            goal.append(f"first ≤ {GOALS[key] / 1000:g} s")
        if f"second_{key}" in GOALS:
            goal.append(f"second ≤ {GOALS['second_' + key] / 1000:g} s")
        lines.append(f"| {label} | {secs(median(runs, 'first', key))} | {secs(median(runs, 'second', key))} "
                     f"| {', '.join(goal)} |")
    req = [r["first"]["requests"] for r in runs]
    kb = [r["first"]["bytes"] / 1000 for r in runs]
    lines.append(f"| requests, transferred | {statistics.median(req):.0f}, {statistics.median(kb):.0f} kB "
                 f"| {statistics.median(r['second']['requests'] for r in runs):.0f}, "
                 f"{statistics.median(r['second']['bytes'] / 1000 for r in runs):.0f} kB | |")
    lines.append(f"| anchor: a tiny static page's first contentful paint | "
                 f"{secs(statistics.median(r['anchor'] for r in runs))} | | the floor |")
    if all("spectator" in r for r in runs):
        lines += ["", "| a spectator's page | first contentful paint | largest contentful paint | its element |",
                  "|---|---|---|---|"]
        for name in SPECTATOR:
            got = [r["spectator"][name] for r in runs]
            lcp = sorted(got, key=lambda g: g["lcp"] or 0)[len(got) // 2]
            fcp = statistics.median(g["fcp"] for g in got if g["fcp"] is not None)
            lines.append(f"| {name} | {secs(fcp)} | {secs(lcp['lcp'])} | `{lcp['lcpElement']}` |")
    return "\n".join(lines)


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3, help="runs (each a fresh context: first visit, second visit)")
    ap.add_argument("--out", type=Path, help="also write the table (markdown) here")
    ap.add_argument("--json", type=Path, help="write every run's raw numbers here")
    ap.add_argument("--spectators", action="store_true",
                    help="also each run: Watch, TV and Modes signed out, their first and largest contentful paints")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    started, before = datetime.now(UTC), load()
    with (tempfile.TemporaryDirectory() as tmp, running_stack(Path(tmp) / "stack") as stack, anchor_server() as anchor,
          sync_playwright() as pw):
        game = seed(stack.base_url)
        session, fix = player_fix(stack.base_url)
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        runs = []
        for i in range(args.runs):
            runs.append(run_once(browser, stack.base_url, session, fix, anchor, game if args.spectators else None))
            r = runs[-1]
            print(f"run {i + 1}: first {secs(r['first']['where'])} town named ({r['first']['whereText']!r}), "
                  f"second {secs(r['second']['where'])}, anchor {secs(r['anchor'])}", flush=True)
        browser.close()
    after = load()
    head = (f"Measured {started:%Y-%m-%d %H:%M} UTC, median of {args.runs} runs; load before: {before}; "
            f"after: {after}")
    text = f"{head}\n\n{table(runs)}"
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    if args.json:
        args.json.write_text(json.dumps({"at": started.isoformat(), "load": [before, after], "runs": runs}, indent=1))


if __name__ == "__main__":
    main()
