"""Run every performance benchmark in one go and write ``bench/results.md``.

    .venv/bin/python -m bench            # full run (about 15 minutes), rewrites bench/results.md
    .venv/bin/python -m bench --small    # CI-sized smoke run, prints the table (writes only with --out)
    .venv/bin/python -m bench --only geo,scoring
    .venv/bin/python -m bench --only bell,bell2 --ladder 50,100   # the opening bell on 1 and on 2×2 processes
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import os
import sys
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path

import uvloop

from bench.common import ROOT, Row, Section, fmt, loadavg, machine, print_row

BENCHES = ("geo", "stack", "scoring", "board", "history", "bell", "bell2")


def _quiet() -> None:
    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    os.environ.setdefault("XDG_RUNTIME_DIR", f"/tmp/runtime-{os.getuid()}")
    Path(os.environ["XDG_RUNTIME_DIR"]).mkdir(parents=True, exist_ok=True)


def _run_one(name: str, small: bool, ladder: tuple[int, ...] | None = None) -> list[Section]:
    if name == "geo":
        from bench import geo

        return [geo.run(small)]
    if name == "stack":
        from bench import stackbench

        return stackbench.run(small)
    if name == "scoring":
        from bench import scoring

        return [scoring.run(small)]
    if name == "board":
        from bench import boardbuild

        return [boardbuild.run(small)]
    if name == "bell":
        from bench import openingbell

        return [openingbell.run(small, ladder)]
    if name == "bell2":   # the same bell on 2 gateways and 2 claims replicas (scale-out on the bus)
        from bench import openingbell

        return [openingbell.run(small, ladder, scale_out=True)]
    if name == "history":
        from bench import history

        return [history.run(small)]
    raise ValueError(name)


def table(sections: list[Section]) -> str:
    out = ["| benchmark | metric | ours | anchor (same run) | anchor value | ratio | goal | met |",
           "|---|---|---|---|---|---|---|---|"]
    for s in sections:
        for r in s.rows:
            ratio = "" if r.ratio is None else f"{r.ratio:.1f}×" if r.ratio >= 1 else f"{r.ratio:.2g}×"
            met = {True: "✅ met", False: "❌ not met", None: ""}[r.met]
            note = f" ({r.note})" if r.note else ""
            out.append(f"| {s.name} | {r.metric}{note} | {fmt(r.ours)} {r.unit} | {r.anchor} | "
                       f"{fmt(r.anchor_value)} | {ratio} | {r.goal} | {met} |")
    return "\n".join(out)


def write_results(path: Path, sections: list[Section], info: dict[str, str], started: datetime,
                  seconds: float, argv: list[str], load_end: str) -> None:
    from bench.explain import ANALYSIS, scale

    lines = [
        "# Performance benchmarks",
        "",
        "Written by `.venv/bin/python -m bench` (" + " ".join(argv or ["full run"]) + "); every row below was "
        "measured in that one run, with its anchor measured in the same run on the same machine. Rerun to refresh.",
        "",
        f"- **Run**: {started:%Y-%m-%d %H:%M} UTC, {seconds / 60:.1f} min, commit `{info['commit']}`",
        f"- **Machine**: {info['cpu']}, {info['cores']} cores, {info['memory']} RAM, {info['os']}, "
        f"Python {info['python']}",
        f"- **Load average** (1/5/15 min) at start: {info['load']}; at end: {load_end}. The machine is shared "
        "with other work; figures measured while it was busy are lower than on an idle machine (the ratios less "
        "so, since anchor and figure share the conditions).",
        "",
        table(sections),
        "",
        "## Notes per benchmark",
        "",
    ]
    for s in sections:
        lines.append(f"### {s.name}" + (f" ({s.seconds:.0f} s)" if s.seconds >= 1 else ""))
        lines.append("")
        lines += [f"- {n}" for n in s.notes] or ["- (no notes)"]
        lines.append("")
    missed = [(s, r) for s in sections for r in s.rows if r.met is False]
    lines += ["## Goals not met: profile, reason, next step", ""]
    if not missed:
        lines.append("Every goal was met in this run.")
    done: set[str] = set()
    for s, r in missed:
        lines.append(f"### {s.name}: {r.metric} ({fmt(r.ours)} {r.unit}, goal {r.goal})")
        lines.append("")
        key = next((k for k in ANALYSIS if k in s.name), None)
        if key and key not in done:
            lines.append(ANALYSIS[key])
            lines.append("")
            done.add(key)
        if s.profile and s.name not in done:
            lines += ["```", s.profile, "```", ""]
            done.add(s.name)
    profiled = [s for s in sections if s.profile and s.name not in done]
    if profiled:
        lines += ["## Other profiles kept", ""]
        for s in profiled:
            lines += [f"### {s.name}", "", "```", s.profile, "```", ""]
    lines += ["## Scaling out", "", scale(sections), ""]
    path.write_text("\n".join(lines) + kept_ab_runs(path))


def kept_ab_runs(path: Path) -> str:
    """The ``## A/B …`` sections at the end of the current file (before/after runs of a change, measured in one
    session on two commits): a full run rewrites the file but keeps them, as they are the record of a change."""
    text = path.read_text() if path.exists() else ""
    at = text.find("\n## A/B")
    return text[at:] if at >= 0 else ""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--small", action="store_true", help="CI-sized smoke run (small counts, no board build)")
    ap.add_argument("--only", default=",".join(BENCHES), help=f"comma-separated subset of {','.join(BENCHES)}")
    ap.add_argument("--ladder", default=None,
                    help="bell, bell2: comma-separated numbers of players, the rungs to climb (default: the full "
                         "ladder, 125 … 20,000; with --small 50,100)")
    ap.add_argument("--out", type=Path, default=None,
                    help="results file (default: bench/results.md for a full run, none for --small or --only)")
    ap.add_argument("--render", type=Path, default=None,
                    help="only rewrite the results file from a saved run (bench/results.json), e.g. after editing "
                         "bench/explain.py")
    args = ap.parse_args(argv)
    ladder = tuple(sorted(int(x) for x in args.ladder.split(",") if x.strip())) if args.ladder else None
    if args.render is not None:
        saved = json.loads(args.render.read_text())
        secs = [Section(d["name"], [Row(**r) for r in d["rows"]], d["notes"], d["profile"], d["seconds"])
                for d in saved["sections"]]
        out = args.out or ROOT / "bench" / "results.md"
        write_results(out, secs, saved["info"], datetime.fromisoformat(saved["started"]), saved["seconds"],
                      saved["argv"], saved["load_end"])
        print(f"wrote {out}")
        return 0
    _quiet()
    # The load generators (HTTP clients, 1,000 websocket spectators) run on uvloop like the stack they measure:
    # on the default loop the spectators' own Python took twice the gateway's CPU on the same two cores.
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    started = datetime.now(UTC)
    info = machine()
    print(f"bench: {info['cpu']}, {info['cores']} cores, load {info['load']}, commit {info['commit']}", flush=True)
    t0 = time.perf_counter()
    sections: list[Section] = []
    failed = False
    for name in [b.strip() for b in args.only.split(",") if b.strip()]:
        print(f"== {name}", flush=True)
        try:
            for s in _run_one(name, args.small, ladder):
                print(f"-- {s.name} ({s.seconds:.0f} s)", flush=True)
                for r in s.rows:
                    print_row(r)
                for n in s.notes:
                    print(f"     {n}", flush=True)
                sections.append(s)
        except Exception:
            failed = True
            traceback.print_exc()
            sections.append(Section(f"{name} (failed)", [Row(name, "failed, see the run's output", None, "")],
                                    notes=[traceback.format_exc(limit=3)]))
    # results.md keeps one full run (every row measured in the same run): a small or partial run writes only with --out
    full = not args.small and ladder is None and {b.strip() for b in args.only.split(",") if b.strip()} == set(BENCHES)
    out = args.out or (ROOT / "bench" / "results.md" if full else None)
    if out is not None:
        run_argv = sys.argv[1:] if argv is None else argv
        seconds, load_end = time.perf_counter() - t0, loadavg()
        write_results(out, sections, info, started, seconds, run_argv, load_end)
        out.with_suffix(".json").write_text(json.dumps({
            "info": info, "started": started.isoformat(), "seconds": seconds, "argv": run_argv, "load_end": load_end,
            "sections": [dataclasses.asdict(sec) for sec in sections]}, indent=1, default=str))
        print(f"wrote {out}")
    return 1 if failed else 0
