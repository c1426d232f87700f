"""`turfwar status` exits non-zero when any part is down and says which; `turfwar down` stops a stack
left behind (no `turfwar up` supervising it) by its stack.json: every service and embedded server, nothing else."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from turf_common.contracts import subjects
from turfwar.down import alive
from turfwar.stack import Stack

TURFWAR = str(Path(sys.executable).parent / "turfwar")


def turfwar(stack: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURF_")} | {
        "TURF_DATA_DIR": str(stack.data_dir), "COLUMNS": "200"}
    return subprocess.run([TURFWAR, *args], capture_output=True, text=True, env=env, timeout=120)


def test_status_is_zero_only_while_every_part_is_healthy_and_down_stops_what_was_left_behind(stack: Stack) -> None:
    stack.write_manifest()   # as `turfwar up` does; no supervisor: the stack is "left behind"
    ok = turfwar(stack, "status")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    # 3 servers, every service and the gateway, each ok
    parts = 3 + len(subjects.SERVICES) + 1
    assert "not healthy" not in ok.stdout and ok.stdout.count(" ok ") == parts, ok.stdout

    stack.kill("scoring")
    r = turfwar(stack, "status")
    assert r.returncode == 1 and "not healthy: scoring" in r.stdout, r.stdout

    pids = json.loads((stack.data_dir / "stack.json").read_text())["pids"]
    assert [n for n, p in pids.items() if alive(p)] == [n for n in pids if n != "scoring"]
    r = turfwar(stack, "down", "--grace", "10")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"stopped ({len(pids) - 1} processes were running)" in r.stdout, r.stdout
    assert [n for n, p in pids.items() if alive(p)] == []
    assert not (stack.data_dir / "stack.json").exists()

    r = turfwar(stack, "status")
    assert r.returncode == 1 and "not healthy: nats, postgres, redis" in r.stdout, r.stdout
    assert turfwar(stack, "down").stdout.startswith("no stack runs in")
