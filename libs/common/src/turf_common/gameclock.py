"""Reading the game clock. Services never call ``datetime.now()`` for game decisions; they ask this reader,
which derives game time from the :class:`ClockState` the clock service keeps in NATS KV."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from turf_common.bus import Bus
from turf_common.contracts.clock import ClockState


class GameClockReader:
    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self._kv: Any = None

    async def state(self) -> ClockState:
        if self._kv is None:
            self._kv = await self.bus.clock_kv()
        entry = await self._kv.get("state")
        return ClockState.model_validate_json(entry.value)

    async def now(self) -> datetime:
        """The current game instant (aware). Raises if the clock service has not published a state yet."""
        st = await self.state()
        return st.now(datetime.now(UTC))
