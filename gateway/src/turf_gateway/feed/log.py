"""The gateway's read model of the public feed (``gateway.feed_log``), projected from the feed stream (the
public subjects alone, sourced from the event stream; ``<stream>_FEED``) by a durable consumer shared by the
gateway replicas, stored through the :class:`~turf_gateway.ports.FeedLog` port (:mod:`turf_gateway.adapters.feed_log`).

The consumer reads every feed subject from the start of the stream (a new gateway fills the table with the season
so far), makes each event the message spectators get (:func:`turf_gateway.feed.relay.feed_message`: public fields only)
and stores it by stream sequence, so a redelivery stores nothing twice. One batch is one transaction, acked once it
has committed; a failing batch is stored again one event at a time, each retried with back-off
(:func:`turf_common.bus.settle_batch`: the server hands nobody the later events meanwhile). R30: once a batch holding
``season.final_results`` is stored, the final results are mailed (:mod:`turf_gateway.handlers.resultsmail`) before
its ack, and again if it is delivered again (the mail queue keeps one message per player and season)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Any

from faststream.nats import NatsRouter

from turf_common import bus
from turf_common.contracts import subjects
from turf_gateway.feed.relay import Names, feed_message, feed_subjects
from turf_gateway.handlers import history_entries

DURABLE = "gateway-history"

#: stores feed-log rows (``{seq, type, at, territory_id, players, body}``), once each
#: (:meth:`turf_gateway.handlers.history.History.record`)
Record = Callable[[list[dict[str, Any]]], Awaitable[None]]
#: one stored event: (stream sequence, subject, data)
Stored = tuple[int, str, bytes]
#: mails the final results to every verified player who wants optional mail (R30;
#: :meth:`turf_gateway.handlers.resultsmail.ResultsMail.season_closed`)
SeasonClosed = Callable[[str | None], Awaitable[object]]


def history_router(record: Record, names: Names, season_closed: SeasonClosed, stream: str) -> NatsRouter:
    """The durable consumer that fills ``feed_log`` (module docstring), on ``stream``: the feed stream."""
    r = NatsRouter()

    async def store_all(events: Sequence[Stored]) -> None:
        await store(record, names, list(events))
        # after the store's commit; retried with it. R31: each for the season it names (the clock may pass a
        # season's close and the next one's first opening in one move)
        closed = [json.loads(data).get("season_id") for _, subject, data in events
                  if subject == subjects.SEASON_FINAL_RESULTS]
        for season_id in dict.fromkeys(closed):
            await season_closed(season_id)

    async def store_one(event: Stored) -> None:
        await store_all([event])

    @r.subscriber(**bus.durable(stream, DURABLE, feed_subjects()), title=DURABLE,
                  description="Stores every public feed message by stream sequence (the read model of the "
                              "history and replay routes).")
    async def on_events(_: list[Any], batch: bus.Batch) -> None:
        events = [(raw.metadata.sequence.stream, raw.subject, raw.data) for raw in batch.raw_message]
        await bus.settle_batch(batch, events, store_all, store_one, DURABLE)

    return r


async def store(record: Record, names: Names, events: list[Stored]) -> None:
    """Store ``(seq, subject, data)`` events as their feed messages, once each (a sequence stored is kept)."""
    rows = []
    for seq, subject, data in events:
        msg = await feed_message(names, subject, data, seq)
        if msg is None or not msg.get("at"):
            continue
        rows.append({"seq": seq, "type": msg["type"], "at": datetime.fromisoformat(msg["at"]),
                     "territory_id": msg.get("territory_id"), "players": history_entries.players_of(msg),
                     "body": msg})
    await record(rows)
