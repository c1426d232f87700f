"""Reading the game clock. Services never call ``datetime.now()`` for game decisions; they ask these readers,
which derive game time from the :class:`ClockState` the clock service keeps in NATS KV (the ``state`` key of the
``<stream>_clock`` bucket, :func:`turf_common.bus.clock_kv`)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import structlog

from turf_common.contracts.clock import ClockState
from turf_common.txguard import no_transaction

log = structlog.get_logger(__name__)

KvSource = Callable[[], Awaitable[Any]]   # returns the clock's nats-py KeyValue bucket
STATE_KEY = "state"


class GameClockReader:
    """One KV read per call. ``kv`` opens the bucket on first use (it may not exist before the clock service)."""

    def __init__(self, kv: KvSource) -> None:
        self._open = kv
        self._kv: Any = None

    async def bucket(self) -> Any:
        if self._kv is None:
            self._kv = await self._open()
        return self._kv

    async def state(self) -> ClockState:
        entry = await (await self.bucket()).get(STATE_KEY)
        return ClockState.model_validate_json(entry.value)

    async def now(self) -> datetime:
        """The current game instant (aware). Raises if the clock service has not published a state yet."""
        st = await self.state()
        return st.now(datetime.now(UTC))


class SteadyGameClock(GameClockReader):
    """:class:`GameClockReader` without a NATS round trip per read while the clock runs by itself: a real or
    accelerated clock's state (mode, factor, anchors) does not change while it runs, so the state read once answers
    later instants from the wall clock; it is read again after :attr:`KEEP_S` (a clock service restarted with new
    settings). A manual clock moves by ``clock.set``, so each read of one asks NATS, as before (a move is seen at
    once). For a process whose NATS user may not watch the bucket (the gateway)."""

    KEEP_S = 30.0

    def __init__(self, kv: KvSource, monotonic: Callable[[], float] = time.monotonic) -> None:
        super().__init__(kv)
        self._kept: tuple[float, ClockState] | None = None
        self._monotonic = monotonic

    async def state(self) -> ClockState:
        kept = self._kept
        if kept is not None and kept[1].mode != "manual" and self._monotonic() - kept[0] < self.KEEP_S:
            return kept[1]
        st = await super().state()
        self._kept = (self._monotonic(), st)
        return st


class WatchedGameClock(GameClockReader):
    """The same answers as :class:`GameClockReader` without a NATS round trip per read: the state is kept in
    memory, replaced by every write to the KV entry, delivered by nats-py's ``kv.watch()`` (an ordered consumer that
    resumes by itself after a reconnect). A write reaches the watcher as the stream stores it; the clock service
    answers ``clock.set`` only after that store, and the gateway answers ``POST /admin/clock`` only after every
    consumer has caught up with the boundaries the move emitted (``wait_idle``), so a request sent after that
    answer is decided on the new time.
    Until the first state arrives, reads ask NATS (and raise while the clock service has published none)."""

    #: seconds between direct reads of the entry, the watch's safety net: the watch's consumer can be lost with
    #: a NATS node (or a server restart) and be rebuilt only after missed heartbeats, or not at all; meanwhile a
    #: manual or accelerated clock's moves would not reach this process and it would judge fixes on an old time
    POLL_S = 1.0

    def __init__(self, kv: KvSource, poll_s: float | None = None) -> None:
        super().__init__(kv)
        self._state: ClockState | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._poll_s = self.POLL_S if poll_s is None else poll_s

    async def start(self) -> None:
        kv = await self.bucket()
        watcher = await kv.watch(STATE_KEY)
        self._tasks = [asyncio.create_task(self._follow(watcher)), asyncio.create_task(self._poll(kv))]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def fresh_now(self) -> datetime:
        """:meth:`now` after reading the entry from NATS KV at this moment (the watch may be behind: its consumer
        lost with a NATS node, the poll not yet round); the state kept moves to the entry when it is newer."""
        no_transaction("clock read")
        self._apply(await (await self.bucket()).get(STATE_KEY))
        return await self.now()

    async def _poll(self, kv: Any) -> None:
        while True:
            await asyncio.sleep(self._poll_s)
            try:
                entry = await kv.get(STATE_KEY)
            except Exception:   # NATS down or the bucket's leader moving: the next round asks again
                continue
            before = self._state
            self._apply(entry)
            if self._state is not before and before is not None and self._state != before:
                log.warning("clock_watch_behind", revision=self._state.revision if self._state else None)

    def _apply(self, entry: Any) -> None:
        if entry is None or not entry.value or getattr(entry, "operation", None) in ("DEL", "PURGE"):
            return   # end of the initial values, or a delete: keep the last state
        try:
            st = ClockState.model_validate_json(entry.value)
        except ValueError:
            return
        if self._state is None or st.revision >= self._state.revision:   # never back to an older manual move
            self._state = st

    async def _follow(self, watcher: Any) -> None:
        try:
            async for entry in watcher:
                self._apply(entry)
        finally:
            with contextlib.suppress(Exception):
                await watcher.stop()

    async def state(self) -> ClockState:
        if self._state is None:
            st = await GameClockReader.state(self)
            if self._state is None:
                self._state = st
        return self._state
