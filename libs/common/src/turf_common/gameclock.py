"""Reading the game clock. Services never call ``datetime.now()`` for game decisions; they ask this reader,
which derives game time from the :class:`ClockState` the clock service keeps in NATS KV."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime
from typing import Any

from turf_common.bus import CLOCK_BUCKET, Bus
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


class WatchedGameClock(GameClockReader):
    """The same answers as :class:`GameClockReader` without a NATS round trip per read: the state is kept in
    memory, replaced by every write to the KV entry as the clock service makes it.

    Immediacy: ``kv.put`` is a publish on ``$KV.<bucket>.state``; this reader subscribes to that subject with a
    core subscription on the service's connection. The server routes the published message to its subscribers
    as it hands it to the stream, before the stream stores and acknowledges it, and the clock service answers
    ``clock.set`` only after that acknowledgement (and its day-boundary transaction), so a manual move reaches this
    process ahead of any request sent after ``POST /admin/clock`` returned; the subscription's callback sets the
    state itself, so it has run before that request's handler reads the clock (one connection, messages are
    dispatched in arrival order). A re-read every ``refresh`` seconds covers what a reconnect may have missed (an
    update that arrives meanwhile wins over the re-read). Until the first state is known, every read asks NATS
    (and raises, as :class:`GameClockReader` does, while the clock service has published none)."""

    def __init__(self, bus: Bus, refresh: float = 1.0) -> None:
        super().__init__(bus)
        self.refresh = refresh
        self._state: ClockState | None = None
        self._updates = 0  # pushed updates seen, so that a slower re-read never overwrites a newer push
        self._sub: Any = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._kv = await self.bus.clock_kv()
        subject = getattr(self._kv, "_pre", f"$KV.{self.bus.stream}_{CLOCK_BUCKET}.") + "state"
        self._sub = await self.bus.nc.subscribe(subject, cb=self._on_update)  # before the first read: none missed
        with contextlib.suppress(Exception):
            await self._reread()
        self._task = asyncio.create_task(self._reread_forever())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        if self._sub is not None:
            with contextlib.suppress(Exception):
                await self._sub.unsubscribe()

    async def _on_update(self, msg: Any) -> None:
        if not msg.data or (msg.headers and msg.headers.get("KV-Operation")):  # a delete or purge: keep the last
            return
        try:
            st = ClockState.model_validate_json(msg.data)
        except ValueError:
            return
        self._updates += 1
        self._state = st

    async def _reread(self) -> None:
        seen = self._updates
        st = await GameClockReader.state(self)
        # a re-read may return the entry as it was before a push that has already arrived (the push reaches
        # subscribers before the stream answers reads with it): never go back to an older manual move
        if self._updates == seen and (self._state is None or st.revision >= self._state.revision):
            self._state = st

    async def _reread_forever(self) -> None:
        while True:
            await asyncio.sleep(self.refresh)
            with contextlib.suppress(Exception):
                await self._reread()

    async def state(self) -> ClockState:
        if self._state is None:
            await self._reread()
            assert self._state is not None
        return self._state
