"""No network round trip inside a database transaction (docs/architecture/index.md): a bus request, an outbox
flush or a fresh clock read asked while a unit of work holds its transaction open fails at once, before anything is
sent."""

from __future__ import annotations

from typing import Any, cast

import pytest

from turf_common import txguard
from turf_common.bus import ask_raw
from turf_common.contracts.base import Health
from turf_common.testing import FakeClock, RecordingPublisher


class UnusableBroker:
    """A broker that fails the test if anything is sent through it."""

    async def request(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the request was sent")


async def test_a_bus_request_inside_an_open_transaction_fails_before_it_is_sent() -> None:
    with txguard.transaction("claims"), pytest.raises(txguard.NetworkInTransaction, match=r"claims\.state"):
        await ask_raw(cast(Any, UnusableBroker()), "claims.state", Health(service="x"))
    with pytest.raises(AssertionError, match="the request was sent"):   # outside one, it goes out
        await ask_raw(cast(Any, UnusableBroker()), "claims.state", Health(service="x"))


async def test_the_fakes_of_network_ports_refuse_inside_an_open_transaction_too() -> None:
    """So the unit tests on fakes fail where production would make a round trip inside a transaction."""
    clock, publisher = FakeClock(cast(Any, None)), RecordingPublisher()
    with txguard.transaction("claims"):
        with pytest.raises(txguard.NetworkInTransaction):
            await publisher.flush()
        with pytest.raises(txguard.NetworkInTransaction):
            await clock.fresh_now()
    assert txguard.open_transaction() is None and await publisher.flush() == 0
