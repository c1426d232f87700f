"""The boundary log's contract harness (conftest.py builds one per backend)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from turf_clock.ports import BoundaryLog
from turf_common.outbox import OutboxFlush


@dataclass
class Outbox:
    """A boundary log and the relay that publishes what it commits; ``sent()``: (subject, event id) published so
    far, in order."""

    log: BoundaryLog
    relay: OutboxFlush
    published: Callable[[], list[tuple[str, str]]]

    @property
    def sent(self) -> list[tuple[str, str]]:
        return self.published()
