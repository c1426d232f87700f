"""Each fix in :mod:`turf_common.bus.fixes` against the defect it works around, on a real NATS server: the scenarios
(``bus_fix_scenarios.py``) run in two fresh processes, one without the fixes, where each defect must show, and one
with them, where it must not. When an upgrade mends a defect upstream, its test fails here: drop the fix."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from turfwar.embedded import start_nats

pytestmark = pytest.mark.timeout(120)

SCENARIOS = Path(__file__).with_name("bus_fix_scenarios.py")


@pytest.fixture(scope="module")
def seen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, Any]]]:
    """``{"unfixed": observations, "fixed": observations}``, both processes run at once."""
    srv = start_nats(Path(tmp_path_factory.mktemp("nats")))
    try:
        runs = {mode: subprocess.Popen([sys.executable, str(SCENARIOS), srv.url, mode], stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True) for mode in ("unfixed", "fixed")}
        out = {}
        for mode, proc in runs.items():
            stdout, stderr = proc.communicate(timeout=90)
            assert proc.returncode == 0, f"{mode} scenarios failed:\n{stderr[-4000:]}"
            out[mode] = json.loads(stdout)
        yield out
    finally:
        srv.stop()


def test_one_fetch_per_round_a_batch_consumer_no_longer_waits_for_a_full_batch(seen: dict[str, Any]) -> None:
    """FastStream 0.7.8 holds 5 events that are already there for the whole 1 s pull timeout, hoping for 64 (or
    longer, when its loop dies of the built-in TimeoutError with them in hand, below)."""
    unfixed, fixed = seen["unfixed"]["waiting_for_a_full_batch"], seen["fixed"]["waiting_for_a_full_batch"]
    assert unfixed >= 0.8, f"FastStream hands on a partial batch at once now ({unfixed:.2f} s): one_fetch_per_round " \
                           "is no longer needed for it"
    assert fixed < 0.5


def test_one_fetch_per_round_an_event_that_comes_while_idle_is_handed_on_as_it_comes(seen: dict[str, Any]) -> None:
    """An event published while the consumer's pull request waits: FastStream 0.7.8 (and nats-py's batch fetch)
    hold it until the 1 s pull timeout, for the rest of a batch; with the fix the wait is for one event, so the pull
    timeout can be long (few pull requests while idle) without delaying anything."""
    unfixed, fixed = seen["unfixed"]["an_event_while_idle"], seen["fixed"]["an_event_while_idle"]
    assert unfixed >= 0.5, f"FastStream hands on an idle consumer's event at once now ({unfixed:.2f} s)"
    assert fixed < 0.3, fixed


def test_one_fetch_per_round_survives_the_builtin_timeout_error(seen: dict[str, Any]) -> None:
    """nats-py 2.16's fetch raises the built-in TimeoutError at times (nats.py#1008); FastStream's pull loop dies of
    it with fetched events in hand, which then wait for the 30 s ack wait. With the fix, all are handled at once."""
    assert seen["unfixed"]["builtin_timeouts"] > 0, \
        "nats-py's fetch raises only its own TimeoutError now: one_fetch_per_round need not catch the built-in one"
    dropped = seen["unfixed"]["dropped_batch"]
    assert dropped["handled"] < dropped["of"], \
        "FastStream's pull loop survives the built-in TimeoutError now: one_fetch_per_round may be unneeded for it"
    kept = seen["fixed"]["dropped_batch"]
    assert kept["handled"] == kept["of"]


def test_own_inboxes_pull_deliveries_come_to_the_connections_inboxes(seen: dict[str, Any]) -> None:
    """FastStream 0.7.8 gives a pull subscriber ``_INBOX.`` unless told otherwise, not the connection's prefix."""
    for mode in ("unfixed", "fixed"):
        replies = seen[mode]["pull_inboxes"]
        assert not replies["default"].startswith("_INBOX.fix-inbox."), \
            "FastStream's pull subscribers use the connection's inboxes now: OWN_INBOXES is no longer needed"
        assert replies["own"].startswith("_INBOX.fix-inbox.")


def test_bounded_workers_on_asyncio_no_anyio_machinery_per_request(seen: dict[str, Any]) -> None:
    """FastStream 0.7.8's ``max_workers`` passes every request through anyio (memory stream, semaphore, task group):
    about a hundred calls into anyio per request; the fix makes none (CPU per request is in the report only: this
    machine is shared)."""
    unfixed, fixed = seen["unfixed"]["worker_pool"], seen["fixed"]["worker_pool"]
    assert unfixed["anyio_calls_per_request"] >= 20, \
        "FastStream's worker pool no longer goes through anyio per request: bounded_workers_on_asyncio may go"
    assert fixed["anyio_calls_per_request"] < 1


def test_draining_stop_answers_every_request_the_process_took(seen: dict[str, Any]) -> None:
    """FastStream 0.7.8's graceful stop finishes the requests that run and drops those delivered to the process
    and waiting for a worker (their requesters time out: geo-verify, for a claim a stopping claims process took);
    the fix drains the subscription first and answers them all."""
    unfixed, fixed = seen["unfixed"]["stop_mid_burst"], seen["fixed"]["stop_mid_burst"]
    assert unfixed["answered"] < unfixed["of"], \
        "FastStream's graceful stop answers every request delivered now: draining_stop may go"
    assert fixed["answered"] == fixed["of"]
