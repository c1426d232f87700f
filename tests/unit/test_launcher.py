"""A service forked from the warm process is a process of its own, as ``python -m`` would make it: its own
pid and session, exactly the environment it was given, its output appended to its log, its exit code or the signal
that ended it reported as :class:`subprocess.Popen` reports them, and the warm imports already there."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from turfwar.launcher import LAUNCHER

MODULE = "tests.support.probe_child"


def _probe(log: Path) -> dict[str, object]:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if log.exists() and log.read_text().strip():
            return json.loads(log.read_text().splitlines()[-1])  # type: ignore[no-any-return]
        time.sleep(0.02)
    raise TimeoutError(f"nothing in {log}")


def test_a_forked_service_has_its_own_session_environment_and_log_and_exits_with_its_code(tmp_path: Path) -> None:
    log = tmp_path / "probe.log"
    log.write_text("")   # appended to, never truncated
    env = {"PATH": os.environ.get("PATH", ""), "TURF_STREAM": "TPROBE", "PROBE_EXIT": "3"}
    proc = LAUNCHER.start(MODULE, env, log)
    assert proc.wait(30) == 3 and proc.returncode == 3 and proc.poll() == 3
    seen = _probe(log)
    assert seen["pid"] == proc.pid != os.getpid()
    assert seen["sid"] == proc.pid                              # start_new_session, as the stack's Popen had it
    assert seen["env"] == env                                   # exactly what it was given, nothing of ours
    assert seen["warm"] is True                                 # the service modules came imported
    assert seen["cwd"] == os.getcwd()
    assert seen["comm"] == MODULE[:15]                          # ps and pgrep name it, not the forkserver


def test_kill_9_and_sigterm_end_a_forked_service_as_they_end_a_process(tmp_path: Path) -> None:
    env = {"PROBE_SLEEP": "60"}
    killed = LAUNCHER.start(MODULE, env, tmp_path / "a.log")
    termed = LAUNCHER.start(MODULE, env, tmp_path / "b.log")
    _probe(tmp_path / "a.log")
    _probe(tmp_path / "b.log")
    with pytest.raises(subprocess.TimeoutExpired):
        killed.wait(0.2)
    assert killed.poll() is None
    os.kill(killed.pid, signal.SIGKILL)
    termed.terminate()
    assert killed.wait(10) == -signal.SIGKILL
    assert termed.wait(10) == -signal.SIGTERM
    with pytest.raises(ProcessLookupError):   # reaped: no zombie left behind under that pid
        os.kill(killed.pid, 0)
