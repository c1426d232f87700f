"""Issue 27: the suite runs on two pytest-xdist workers (``./turf test``: ``-n 2 --dist loadfile``, so a module and
its stack stay on one worker), and a module marked ``serial`` runs with no other module beside it: the races at an
opening instant and the tests that bound a latency would measure the other worker's load, not the code.

The gate is a readers-writer lock across the workers, two ``flock`` files in a directory of this run: every module
holds the room shared while it runs; a serial one holds it alone, and holds the turnstile meanwhile so that no
module starts while it waits (no starvation). Outside xdist there is nothing to share and no lock is taken.

Ports: each worker's stacks choose ports of their own lane (``TURF_PORT_LANE``, see
:func:`turfwar.embedded.free_port`), so two workers never pick the same free port at the same moment."""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER")   # gw0, gw1 …
    if worker:
        os.environ["TURF_PORT_LANE"] = f"{int(worker.removeprefix('gw'))}/{os.environ['PYTEST_XDIST_WORKER_COUNT']}"


def _gate_dir() -> Path | None:
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run:
        return None
    d = Path(tempfile.gettempdir()) / f"turf-serial-{run}"
    d.mkdir(exist_ok=True)
    return d


@pytest.fixture(scope="module", autouse=True)
def _serial_gate(request: pytest.FixtureRequest) -> Iterator[None]:
    """Before the module's other fixtures (its stack included) and after their teardown: the room, shared or, for
    a module marked ``serial``, alone."""
    d = _gate_dir()
    if d is None:
        yield
        return
    alone = request.node.get_closest_marker("serial") is not None
    with open(d / "turnstile", "a+") as turnstile, open(d / "room", "a+") as room:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        fcntl.flock(room, fcntl.LOCK_EX if alone else fcntl.LOCK_SH)
        if not alone:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(room, fcntl.LOCK_UN)
            with contextlib.suppress(OSError):
                fcntl.flock(turnstile, fcntl.LOCK_UN)
