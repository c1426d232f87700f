"""Fakes shared by the services' unit tests: one game clock and one recording publisher, in place of the
five clocks and six publishers each test folder wrote for itself. No servers, no I/O; never wired in production."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

from turf_common.contracts.base import Event
from turf_common.txguard import no_transaction

#: what an outbox fake hands the publisher when it flushes: the (subject, event) pairs committed since the last
#: flush, in commit order
Drain = Callable[[], Sequence[tuple[str, Event]]]


class FakeClock:
    """The game clock at :attr:`at`: :meth:`now` and :meth:`fresh_now` answer it (tests move it by assigning
    ``at`` or by :meth:`advance`). :attr:`fresh_reads` counts the :meth:`fresh_now` calls (R7: a fix ahead of the
    watched clock makes claims read it afresh); a subclass overrides :meth:`fresh_now` for a clock whose watch is
    behind."""

    def __init__(self, at: datetime) -> None:
        self.at = at
        self.fresh_reads = 0

    async def now(self) -> datetime:
        return self.at

    async def fresh_now(self) -> datetime:
        no_transaction("clock read")   # NATS KV in production
        self.fresh_reads += 1
        return self.at

    def advance(self, by: timedelta) -> datetime:
        self.at += by
        return self.at


class RecordingPublisher:
    """Both publishing ports of the services (:mod:`turf_common.outbox`), recording what goes through:

    * :class:`~turf_common.outbox.OutboxFlush`, the outbox relay (``flush() -> int``: claims, cards, clock, modes,
      notify): each flush takes what ``drain`` answers (the memory store's committed events) into :attr:`sent`, in
      order; :attr:`flushes` counts the calls. Without a ``drain`` nothing is ever staged and a flush sends 0.
    * :class:`~turf_common.outbox.StreamPublisher` (``publish(subject, data, msg_id)``, scoring): :attr:`raw` keeps
      (subject, decoded JSON payload, Nats-Msg-Id)."""

    def __init__(self, drain: Drain | None = None) -> None:
        self.drain = drain
        self.sent: list[tuple[str, Event]] = []
        self.raw: list[tuple[str, dict[str, Any], str]] = []
        self.flushes = 0

    async def flush(self) -> int:
        no_transaction("outbox flush")   # JetStream in production
        self.flushes += 1
        fresh = list(self.drain()) if self.drain is not None else []
        self.sent.extend(fresh)
        return len(fresh)

    async def publish(self, subject: str, data: bytes, msg_id: str, traceparent: str | None = None) -> None:
        no_transaction(subject)
        self.raw.append((subject, json.loads(data), msg_id))

    def events(self, prefix: str = "") -> list[tuple[str, Event]]:
        """The flushed (subject, event) pairs whose subject starts with ``prefix``."""
        return [(s, e) for s, e in self.sent if s.startswith(prefix)]

    def of(self, subject: str) -> list[tuple[dict[str, Any], str]]:
        """The direct publishes on ``subject``: (payload, Nats-Msg-Id), in order."""
        return [(p, m) for s, p, m in self.raw if s == subject]

    def last(self, subject: str) -> dict[str, Any]:
        """The payload of the latest direct publish on ``subject`` (StopIteration if none)."""
        return next(p for s, p, _ in reversed(self.raw) if s == subject)
