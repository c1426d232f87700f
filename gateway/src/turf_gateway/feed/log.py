"""Issue 19: the gateway's read model of the public feed (``gateway.feed_log``), projected from the feed stream (issue
29: the public subjects alone, sourced from the event stream; ``<stream>_FEED``) by a durable consumer shared by the
gateway replicas, stored through the :class:`~turf_gateway.ports.FeedLog` port (:mod:`turf_gateway.adapters.feed_log`).

The consumer reads every feed subject from the start of the stream (a new gateway fills the table with the season
so far), makes each event the message spectators get (:func:`turf_gateway.feed.relay.feed_message`: public fields only)
and stores it by stream sequence, so a redelivery stores nothing twice. One batch is one transaction, acked once it
has committed; a failing batch is retried here with back-off (the server hands nobody the later events meanwhile).
R30: a batch holding ``season.final_results`` also has the final results mailed
(:mod:`turf_gateway.handlers.resultsmail`) before its ack."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import structlog
from faststream.nats import NatsRouter

from turf_common import bus
from turf_common.contracts import subjects
from turf_gateway import history
from turf_gateway.feed.relay import feed_message, feed_subjects
from turf_gateway.state import AppState

log = structlog.get_logger(__name__)

DURABLE = "gateway-history"


def history_router(state: AppState, stream: str) -> NatsRouter:
    """The durable consumer that fills ``feed_log`` (module docstring), on ``stream``: the feed stream."""
    r = NatsRouter()

    @r.subscriber(**bus.durable(stream, DURABLE, feed_subjects()), title=DURABLE,
                  description="Stores every public feed message by stream sequence (the read model of the "
                              "history and replay routes).")
    async def on_events(_: list[Any], batch: bus.Batch) -> None:
        raws = list(batch.raw_message)
        delay = 0.2
        while True:
            try:
                await store(state, [(r.metadata.sequence.stream, r.subject, r.data) for r in raws])
                if any(r.subject == subjects.SEASON_FINAL_RESULTS for r in raws):
                    # R30: after the store's commit; retried with it (stored rows and queued mail are kept once)
                    await state.results_mail.season_closed()
                break
            except Exception:
                log.exception("feed_log_store_failed", first=raws[0].metadata.sequence.stream, n=len(raws))
                for raw in raws:
                    await raw.in_progress()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
        for raw in raws:
            await raw.ack()

    return r


async def store(state: AppState, events: list[tuple[int, str, bytes]]) -> None:
    """Store ``(seq, subject, data)`` events as their feed messages, once each (a sequence stored is kept)."""
    rows = []
    for seq, subject, data in events:
        msg = await feed_message(state, subject, data, seq)
        if msg is None or not msg.get("at"):
            continue
        rows.append({"seq": seq, "type": msg["type"], "at": datetime.fromisoformat(msg["at"]),
                     "territory_id": msg.get("territory_id"), "players": history.players_of(msg), "body": msg})
    await state.history.record(rows)
