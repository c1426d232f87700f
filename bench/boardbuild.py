"""Benchmark 5: the full board from raw data (``turfwar board build --out <tmp>``, the committed board untouched).
Anchor, same run: reading every raw boundary file with the pipeline's own readers (the floor of any build)."""

from __future__ import annotations

import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import Row, Section, loadavg
from bench.profiling import py_spy, summarize
from turf_common.board import DEFAULT_BOARD_DIR


def run(small: bool = False) -> Section:
    from turfwar.board_cli import DEFAULT_RAW
    from turfwar.boardbuild import sources

    sec = Section("5. board build")
    t_start = time.perf_counter()
    t = time.perf_counter()
    sources.read_nj(DEFAULT_RAW)
    sources.read_ny_cousub(DEFAULT_RAW)
    sources.read_ny_places(DEFAULT_RAW)
    sources.read_nybb(DEFAULT_RAW)
    read_s = time.perf_counter() - t
    if small:
        sec.rows.append(Row("board", "board build (skipped in --small)", None, "s", "read raw inputs", read_s,
                            higher_is_better=False))
        sec.seconds = time.perf_counter() - t_start
        return sec
    out = Path(tempfile.mkdtemp(prefix="turf-bench-board-"))
    for f in ("playable_area.json", "overrides.json"):
        shutil.copy(DEFAULT_BOARD_DIR / f, out / f)
    exe = str(Path(sys.executable).parent / "turfwar")
    raw_profile = out / "profile.raw"
    spy = py_spy()
    cmd = [exe, "board", "build", "--out", str(out)]
    if spy:
        cmd = [spy, "record", "-r", "50", "-f", "raw", "-o", str(raw_profile), "--", *cmd]
    before = os.times()
    load0 = loadavg()
    t = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    same = all(filecmp.cmp(out / f, DEFAULT_BOARD_DIR / f, shallow=False)
               for f in ("territories.geojson", "adjacency.json", "display.geojson"))
    sec.rows += [
        Row("board", "board build, wall", wall if p.returncode == 0 else None, "s", "read raw inputs", read_s,
            higher_is_better=False, goal="< 60 s", met=p.returncode == 0 and wall < 60,
            note=f"CPU {cpu:.1f} s (single process); output identical to the committed board: {same}"),
    ]
    sec.notes.append(f"load average before/after: {load0} / {loadavg()}; py-spy at 50 Hz attached "
                     f"({'yes' if spy else 'no'}).")
    if p.returncode != 0:
        sec.notes.append("build failed: " + (p.stderr or p.stdout)[-500:])
    sec.profile = summarize(raw_profile, "turfwar board build (py-spy)")
    shutil.rmtree(out, ignore_errors=True)
    sec.seconds = time.perf_counter() - t_start
    return sec
