"""Group commit: claims that arrive while others are being decided are decided together, in one
transaction, instead of one transaction each.

A claim's own work stays the same (its territory read under the row lock, its day facts, its trail, its writes
and outbox rows, its answer); what a batch shares is the transaction's begin and commit, the connection, the
player locks (one statement), the territory row locks (one statement) and the outbox flush after the commit. At
low load nothing waits: a claim that finds no batch running runs at once, alone. Should a batch fail as a whole
(a deadlock detected by PostgreSQL, a lost connection), nothing of it is committed and each of its claims is run
again alone, so one claim's failure never becomes another's answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import structlog

log = structlog.get_logger(__name__)

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class GroupCommit(Generic[T, R]):
    """``submit(item)`` answers ``run_one(item)``'s result, or the item's result of ``run_many(items)`` when it
    arrived while ``max_running`` batches were under way; at most ``max_batch`` items a batch, in arrival order.
    ``run_many`` returns one result per item, in order, and is all or nothing (one transaction)."""

    run_one: Callable[[T], Awaitable[R]]
    run_many: Callable[[Sequence[T]], Awaitable[list[R]]]
    max_batch: int = 32
    max_running: int = 2
    _queue: list[tuple[T, asyncio.Future[R]]] = field(default_factory=list)
    _running: int = 0
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    batches: int = 0          # batches of more than one item run (for tests and the benchmark)
    fallbacks: int = 0        # of those, how many failed as a whole and were run item by item

    async def submit(self, item: T) -> R:
        fut: asyncio.Future[R] = asyncio.get_running_loop().create_future()
        self._queue.append((item, fut))
        if self._running < self.max_running:
            self._running += 1
            await self._drain(until=fut)
        return await fut

    async def _drain(self, until: asyncio.Future[R] | None = None) -> None:
        """Run what is queued, batch after batch, in the submitter's own task (the first claim of a quiet moment
        pays no task switch) until its own item is answered; then a task of its own takes over what is left, so
        no submitter waits for other claims' batches after its own."""
        handed_on = False
        try:
            while self._queue and not (until is not None and until.done()):
                batch = self._queue[:self.max_batch]
                del self._queue[:self.max_batch]
                await self._run(batch)
            if self._queue:
                task = asyncio.create_task(self._drain())
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
                handed_on = True
        finally:
            if not handed_on:
                self._running -= 1

    async def _run(self, batch: list[tuple[T, asyncio.Future[R]]]) -> None:
        try:
            await self._decide(batch)
        except BaseException as e:   # cancelled (a stop): nobody is left waiting for ever
            for _, fut in batch:
                if not fut.done():
                    fut.set_exception(e if isinstance(e, Exception) else RuntimeError("stopped"))
            raise

    async def _decide(self, batch: list[tuple[T, asyncio.Future[R]]]) -> None:
        if len(batch) > 1:
            self.batches += 1
            try:
                results = await self.run_many([item for item, _ in batch])
            except Exception as e:
                self.fallbacks += 1
                log.warning("group_commit_failed_one_at_a_time", claims=len(batch), error=f"{type(e).__name__}: {e}")
            else:
                for (_, fut), res in zip(batch, results, strict=True):
                    if not fut.done():
                        fut.set_result(res)
                return
        for item, fut in batch:
            try:
                res = await self.run_one(item)
            except Exception as e:
                if not fut.done():
                    fut.set_exception(e)
            else:
                if not fut.done():
                    fut.set_result(res)
