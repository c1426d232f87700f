"""Shared pieces of the benchmarks: rows of the results table, timing helpers, machine description."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ANCHOR_PG = os.environ.get("BENCH_PG", "host=127.0.0.1 port=5432 user=postgres")


@dataclass
class Row:
    """One line of the results table: our figure, its anchor measured in the same run, the ratio and the goal."""

    bench: str
    metric: str
    ours: float | None
    unit: str
    anchor: str = ""
    anchor_value: float | None = None
    higher_is_better: bool = True
    goal: str = ""
    met: bool | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.ours is None or self.anchor_value is None or self.ours == 0 or self.anchor_value == 0:
            return None
        return self.ours / self.anchor_value if self.higher_is_better else self.anchor_value / self.ours


@dataclass
class Section:
    name: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    profile: str = ""   # profile summary, kept for goals not met
    seconds: float = 0.0


def fmt(v: float | None) -> str:
    if v is None:
        return "—"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.0f}"
    if a >= 10:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def print_row(r: Row) -> None:
    ratio = "—" if r.ratio is None else f"{r.ratio:.1f}×" if r.ratio >= 1 else f"{r.ratio:.2g}×"
    met = {True: "met", False: "NOT MET", None: ""}[r.met]
    anchor = f"{r.anchor} {fmt(r.anchor_value)}" if r.anchor else ""
    print(f"  {r.metric}: {fmt(r.ours)} {r.unit} | {anchor} | ratio {ratio} | {r.goal} {met} {r.note}".rstrip(),
          flush=True)


def median_of(fn: Callable[[], float], repeats: int) -> tuple[float, list[float]]:
    vals = [fn() for _ in range(repeats)]
    return statistics.median(vals), vals


def percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))
    return s[k]


def timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def machine() -> dict[str, str]:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{kb / 1024 / 1024:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return {
        "cpu": cpu, "cores": str(os.cpu_count()), "memory": mem, "os": platform.platform(terse=True),
        "python": platform.python_version(), "commit": commit.stdout.strip() or "?",
        "load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
    }


def loadavg() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())
