"""The clock state in NATS KV: the ``state`` key of the ``<stream>_clock`` bucket (:func:`turf_common.bus.clock_kv`),
read by every service's :class:`turf_common.gameclock.GameClockReader`."""

from __future__ import annotations

from typing import Any

import structlog

from turf_common.contracts.clock import ClockState, SetSeasons
from turf_common.gameclock import STATE_KEY
from turf_common.seasonbook import SEASONS_KEY

log = structlog.get_logger(__name__)


class KvClockStore:
    """:class:`turf_clock.ports.ClockStore` over a nats-py ``KeyValue`` bucket."""

    def __init__(self, kv: Any) -> None:
        self.kv = kv

    async def load(self) -> ClockState | None:
        # no key (a first start) or anything unreadable counts as no state: the clock starts from its settings
        try:
            return ClockState.model_validate_json((await self.kv.get(STATE_KEY)).value)
        except Exception as e:
            log.info("clock_state_not_loaded", error=type(e).__name__)
            return None

    async def save(self, state: ClockState) -> None:
        await self.kv.put(STATE_KEY, state.model_dump_json().encode())

    async def load_seasons(self) -> str | None:
        try:
            return (await self.kv.get(SEASONS_KEY)).value.decode()
        except Exception as e:   # none stored yet: the book keeps the configuration file's season
            log.info("clock_seasons_not_loaded", error=type(e).__name__)
            return None

    async def save_seasons(self, catalog: SetSeasons) -> None:
        await self.kv.put(SEASONS_KEY, catalog.model_dump_json().encode())
