"""Start-up on a data directory of an earlier version: its durable consumers ``claims-players`` and
``claims-exclusions`` are deleted (no one consumes them any more), and ``claims``, made then for
``clock.day_started`` alone, is deleted to be made again for both subjects (a durable consumer is reused as it is)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from nats.js import api as jsapi
from nats.js.errors import NotFoundError

from turf_claims import entrypoints
from turf_common.bus import retire_consumers
from turf_common.contracts import subjects


class FakeJetStream:
    """The consumer calls of nats-py's JetStreamContext over a dict of durable name -> filter subjects."""

    def __init__(self, consumers: dict[str, list[str]]) -> None:
        self.consumers = consumers

    async def consumer_info(self, stream: str, name: str) -> Any:
        if name not in self.consumers:
            raise NotFoundError
        return SimpleNamespace(config=jsapi.ConsumerConfig(durable_name=name, filter_subjects=self.consumers[name]))

    async def delete_consumer(self, stream: str, name: str) -> bool:
        if name not in self.consumers:
            raise NotFoundError
        del self.consumers[name]
        return True


async def _retire(js: FakeJetStream) -> None:
    await retire_consumers(js, "TURF", entrypoints.DURABLE, entrypoints.CONSUMED,  # type: ignore[arg-type]
                           entrypoints.OBSOLETE)


async def test_the_consumers_of_an_earlier_version_are_deleted_and_other_services_kept() -> None:
    js = FakeJetStream({"claims": [subjects.CLOCK_DAY_STARTED], "claims-players": [subjects.PLAYER_DISQUALIFIED],
                        "claims-exclusions": [subjects.PLAYER_DISQUALIFIED], "scoring": [subjects.TERRITORY_CHANGED]})
    await _retire(js)
    assert js.consumers == {"scoring": [subjects.TERRITORY_CHANGED]}


async def test_the_current_consumer_is_kept_as_it_is() -> None:
    js = FakeJetStream({"claims": list(entrypoints.CONSUMED)})
    await _retire(js)
    await _retire(FakeJetStream({}))   # a new data directory: nothing to do
    assert js.consumers == {"claims": list(entrypoints.CONSUMED)}
