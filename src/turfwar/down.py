"""``turfwar down``: stop a stack by its ``stack.json`` — the one ``turfwar up`` runs in another terminal, or one
left behind when that supervisor died (its services and embedded servers still holding their ports and data).

The supervisor, when alive, is asked first (SIGTERM: it stops everything in order, as Ctrl-C does). Otherwise each
process is stopped here: services first (the gateway before the rest), then the servers (PostgreSQL by SIGINT,
its fast shutdown), each given ``grace_s`` seconds before SIGKILL. A pid is signalled only while it still runs
one of our programs, so a pid the system has since given to another process is left alone."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

#: what a pid of ours runs (its /proc/<pid>/cmdline holds one of these)
OURS = (b"turf_", b"turfwar", b"nats-server", b"postgres", b"redis-server")
SERVERS = ("nats", "postgres", "redis")


def alive(pid: int) -> bool:
    """``pid`` runs and is one of ours (not a zombie, not a recycled pid)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z" and any(tag in cmdline for tag in OURS)


def _signal(pid: int, sig: int) -> None:
    if alive(pid):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _wait(pids: list[int], grace_s: float) -> list[int]:
    """Wait up to ``grace_s`` for ``pids`` to end; returns those still running."""
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.1)
    return [p for p in pids if alive(p)]


def _stop(pids: list[int], sig: int, grace_s: float) -> None:
    for pid in pids:
        _signal(pid, sig)
    for pid in _wait(pids, grace_s):
        _signal(pid, signal.SIGKILL)
    _wait(pids, 5.0)


def stop_stack(data_dir: Path, grace_s: float = 15.0, say: Callable[[str], None] = print) -> list[str]:
    """Stop the stack of ``data_dir``; returns the names of the processes that were running. Raises
    FileNotFoundError when there is no ``stack.json`` (no stack was started there, or it stopped cleanly)."""
    manifest = data_dir / "stack.json"
    info = json.loads(manifest.read_text())
    pids: dict[str, int] = info.get("pids", {})
    running = [n for n, p in pids.items() if alive(p)]
    supervisor = info.get("supervisor")
    if isinstance(supervisor, int) and alive(supervisor):
        say(f"asking turfwar up (pid {supervisor}) to stop …")
        os.kill(supervisor, signal.SIGTERM)
        _wait([supervisor], grace_s + 30)
    services = sorted((n for n in pids if n.split("#")[0] not in SERVERS),
                      key=lambda n: (not n.startswith("gateway"), n))
    for name in services:
        if alive(pids[name]):
            say(f"stopping {name} (pid {pids[name]})")
    _stop([pids[n] for n in services], signal.SIGTERM, grace_s)
    for name in (s for s in ("redis", "postgres", "nats") if s in pids):   # NATS last: services drain into it
        if alive(pids[name]):
            say(f"stopping {name} (pid {pids[name]})")
        _stop([pids[name]], signal.SIGINT if name == "postgres" else signal.SIGTERM, grace_s)
    with contextlib.suppress(FileNotFoundError):
        manifest.unlink()
    return running
