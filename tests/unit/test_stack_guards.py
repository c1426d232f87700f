"""`turfwar up` refuses, clearly and without touching anything, a second stack on one data directory or a busy
port (a second `up` once deleted the first one's postmaster.pid)."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from turfwar.embedded import port_free
from turfwar.stack import Stack, StackError


def test_one_stack_per_data_dir_across_processes(tmp_path: Path) -> None:
    first = Stack(data_dir=tmp_path)
    first.lock()
    code = ("from pathlib import Path; from turfwar.stack import Stack, StackError\n"
            f"try:\n    Stack(data_dir=Path({str(tmp_path)!r})).lock()\nexcept StackError as e:\n"
            "    print('refused:', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30).stdout
    assert out.startswith("refused: another turfwar stack is running on")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".lock"]


def test_busy_port_is_refused_before_any_service_starts(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert not port_free(port)
        stack = Stack(data_dir=tmp_path, http_port=port, env={"TURF_NATS_URL": "nats://127.0.0.1:1"})
        with pytest.raises(StackError, match=f"port {port} is already in use"):
            stack.start_services()
        assert stack.procs == {}
