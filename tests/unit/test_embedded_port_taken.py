"""An embedded server whose chosen port is taken between free_port's probe and its own bind (another suite or
lane got there first) starts on another port instead of failing the module's stack (CI: a PostgreSQL that 'exited
with 2 before listening'); a port given by the caller is never changed behind its back."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from turfwar import embedded


@pytest.fixture
def taken() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))   # bound, not listening: the server's bind fails, and nobody answers there
        yield int(s.getsockname()[1])


def test_a_chosen_port_taken_meanwhile_is_chosen_again(tmp_path: Path, taken: int,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    real = embedded.free_port
    offered = iter([taken])
    monkeypatch.setattr(embedded, "free_port", lambda: next(offered, None) or real())
    srv = embedded.start_redis(tmp_path)
    try:
        assert srv.proc.poll() is None
        assert f":{taken}/" not in srv.url
    finally:
        srv.stop()


def test_a_port_the_caller_gave_is_kept_and_the_failure_shows_the_log(tmp_path: Path, taken: int) -> None:
    with pytest.raises(RuntimeError, match="in use"):
        embedded.start_redis(tmp_path, port=taken)
