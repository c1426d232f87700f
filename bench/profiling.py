"""Process CPU accounting (/proc) and py-spy profile summaries for the results file."""

from __future__ import annotations

import collections
import os
import shutil
import subprocess
import sys
from pathlib import Path


def cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def tree_cpu_seconds(pid: int) -> float:
    """CPU of a process and its live direct children (PostgreSQL's backends are children of the postmaster)."""
    total = cpu_seconds(pid)
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                if int(Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    total += cpu_seconds(int(p))
            except (OSError, IndexError, ValueError):
                pass
    return total


def py_spy() -> str | None:
    exe = Path(sys.executable).parent / "py-spy"
    return str(exe) if exe.exists() else shutil.which("py-spy")


def start_py_spy(pid: int, seconds: int, out: Path, rate: int = 100) -> subprocess.Popen[bytes] | None:
    exe = py_spy()
    if exe is None:
        return None
    return subprocess.Popen([exe, "record", "-p", str(pid), "-d", str(seconds), "-r", str(rate), "-f", "raw",
                             "-o", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


IDLE = ("Condition.wait", "EpollSelector.select", "select (selectors.py", "_worker (concurrent/futures")


def summarize(raw: Path, title: str, top: int = 12) -> str:
    """Top functions by own time and the project's functions by inclusive time, over busy samples."""
    if not raw.exists():
        return f"{title}: no profile (py-spy unavailable or failed)"
    own: collections.Counter[str] = collections.Counter()
    incl: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, n_s = line.rpartition(" ")
        if not stack or not n_s.isdigit():
            continue
        frames = stack.split(";")
        if any(frames[-1].startswith(i) or i in frames[-1] for i in IDLE):
            continue
        n = int(n_s)
        total += n
        own[frames[-1]] += n
        for f in set(frames):
            incl[f] += n
    lines = [f"{title}: {total} busy samples"]
    lines.append("  own time:")
    lines += [f"    {v / total:6.1%}  {k[:130]}" for k, v in own.most_common(top)] if total else []
    proj = [(k, v) for k, v in incl.most_common(300)
            if any(s in k for s in ("turf_", "/bench/")) and "__main__" not in k and "<module>" not in k
            and "serve_forever" not in k and "main (" not in k]
    lines.append("  inclusive, project code:")
    lines += [f"    {v / total:6.1%}  {k[:130]}" for k, v in proj[:top]] if total else []
    return "\n".join(lines)
