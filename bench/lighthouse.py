"""Lighthouse (mobile preset, simulated throttling) on the play page, the watch page, the TV mode and the modes page
(a Team Turf game open on it, its map drawn), against a rehearsal stack (manual clock, embedded servers) with a
dozen claimed towns.

    npm i -E lighthouse@12.2.3 --prefix artifacts/lighthouse    # once (Node 20); artifacts/ is git-ignored
    .venv/bin/python -m bench.lighthouse                        # prints the table; --out FILE writes it too

``TURF_LIGHTHOUSE`` names another lighthouse executable, ``TURF_CHROMIUM`` the browser (Debian's by default).
Goals: performance ≥ 95 on all four, accessibility and best practices 100, cumulative layout shift < 0.1. Performance is
measured on this machine's CPU: on a loaded, shared machine it reads lower than on a quiet one."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from tests.support.client import move_clock, organizer, register, sign_in
from tests.support.stackfix import running_stack

ROOT = Path(__file__).resolve().parents[1]
PAGES = {"Play": "/", "Watch": "/watch", "TV": "/watch?tv=1", "Modes": "/modes?team-turf={game}"}
# Team Turf on three neighbouring towns of Hudson county: Hoboken, Jersey City, Weehawken
TEAM_TURF = {"teams": ["red", "blue"], "towns": ["3401732250", "3401736000", "3401777930"],
             "homes": {"red": "3401732250", "blue": "3401777930"}}
MON = datetime.fromisoformat("2026-10-05T07:00:00-04:00")
CLAIMED = 12


def lighthouse() -> str:
    exe = os.environ.get("TURF_LIGHTHOUSE") or str(ROOT / "artifacts/lighthouse/node_modules/.bin/lighthouse")
    if not Path(exe).exists():
        raise SystemExit(f"{exe} is missing: npm i -E lighthouse@12.2.3 --prefix artifacts/lighthouse")
    return exe


def seed(base: str) -> str:
    """A morning of play: CLAIMED players each take a town of Hudson or Essex county (at its label point), and the
    organizer opens a Team Turf game (the modes page's map); returns the game's id."""
    with httpx.Client(base_url=base, timeout=60) as http:
        org = organizer(http)
        move_clock(org, MON)
        towns = [f["properties"] for f in http.get("/api/v1/board").json()["features"]
                 if f["properties"]["county"] in ("Hudson", "Essex")][:CLAIMED]
        for i, t in enumerate(towns):
            pid, email, password = register(http, f"Rehearsal {i}")
            assert org.post(f"/admin/players/{pid}/verify", {"reason": "lighthouse"}).status_code == 200
            p = t["label_point"]
            sign_in(http, email, password).claim(p["lat"], p["lon"], MON)
        r = org.post("/modes/team-turf", TEAM_TURF)
        assert r.status_code in (200, 201), r.text
        return str(r.json()["game_id"])


def audit(exe: str, url: str, out: Path) -> dict[str, Any]:
    cmd = [exe, url, "--quiet", "--output=json", f"--output-path={out}",
           "--only-categories=performance,accessibility,best-practices",
           "--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage"]
    env = os.environ | {"CHROME_PATH": os.environ.get("TURF_CHROMIUM", "/usr/bin/chromium")}
    # Lighthouse's own trace recording fails now and then (NO_NAVSTART, "please run Lighthouse again"): once more
    if subprocess.run(cmd, env=env).returncode:
        subprocess.run(cmd, env=env, check=True)
    lhr = json.loads(out.read_text())
    cat, aud = lhr["categories"], lhr["audits"]
    return {"performance": round(cat["performance"]["score"] * 100),
            "accessibility": round(cat["accessibility"]["score"] * 100),
            "best_practices": round(cat["best-practices"]["score"] * 100),
            "cls": aud["cumulative-layout-shift"]["numericValue"],
            "tbt_ms": aud["total-blocking-time"]["numericValue"],
            "lcp_ms": aud["largest-contentful-paint"]["numericValue"]}


def table(rows: dict[str, dict[str, Any]], game: str = "…") -> str:
    lines = ["| page | performance | accessibility | best practices | CLS | TBT | LCP |",
             "|---|---|---|---|---|---|---|"]
    for name, r in rows.items():
        lines.append(f"| {name} (`{PAGES[name].format(game=game)}`) | {r['performance']} | {r['accessibility']} "
                     f"| {r['best_practices']} "
                     f"| {r['cls']:.3f} | {r['tbt_ms']:.0f} ms | {r['lcp_ms'] / 1000:.1f} s |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="also write the table here")
    ap.add_argument("--keep", type=Path, help="keep each page's Lighthouse report (JSON) in this folder, for its "
                                               "diagnostics (blocking time, long tasks, render-blocking requests)")
    ap.add_argument("--page", choices=PAGES, action="append", help="audit only this page (repeatable)")
    ap.add_argument("--runs", type=int, default=1, help="audit each page this many times, the pages in turn, and "
                                                        "report each page's median run (by performance)")
    args = ap.parse_args()
    exe = lighthouse()
    pages = {n: p for n, p in PAGES.items() if not args.page or n in args.page}
    with tempfile.TemporaryDirectory() as tmp, running_stack(Path(tmp) / "stack") as stack:
        game = seed(stack.base_url)
        keep = args.keep or Path(tmp)
        keep.mkdir(parents=True, exist_ok=True)
        runs: dict[str, list[dict[str, Any]]] = {name: [] for name in pages}
        for i in range(args.runs):
            for name, path in pages.items():
                suffix = f"-{i + 1}" if args.runs > 1 else ""
                runs[name].append(audit(exe, stack.base_url + path.format(game=game), keep / f"{name}{suffix}.json"))
                print(name, i + 1, runs[name][-1], flush=True)
    rows = {name: sorted(rs, key=lambda r: r["performance"])[len(rs) // 2] for name, rs in runs.items()}
    text = table(rows, "<game>")
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
