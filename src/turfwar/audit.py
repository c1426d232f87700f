"""``turfwar audit draws``: read the whole event stream of a running (or finished) stack and replay every draw and
Joker pick of a season from its seed (:mod:`turf_cards.audit`)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import nats
from nats.js import api as jsapi

from turf_cards.audit import AuditReport, audit_draws, season_config
from turf_common.board import Board
from turf_common.bus import server_list
from turf_common.rules import gametime

#: seconds an audit's consumer outlives an audit that died before deleting it
AUDIT_CONSUMER_IDLE_S = 5.0


async def read_stream(nats_url: str, stream: str, batch: int = 1000) -> list[tuple[str, dict[str, Any]]]:
    """Every event of the stream in stream order, through an ephemeral consumer without a filter, deleted once
    read: left to expire, it would count every later event as pending for its inactivity threshold, and the
    manual clock's wait for every consumer to catch up (``turf_common.bus.idle``) would wait that long after each
    audit (a ``POST /admin/clock`` took 59 s instead of 0.05 s). Should the process die first, it expires after
    :data:`AUDIT_CONSUMER_IDLE_S`."""
    nc = await nats.connect(servers=server_list(nats_url))
    try:
        js = nc.jetstream()
        info = await js.add_consumer(stream, config=jsapi.ConsumerConfig(
            deliver_policy=jsapi.DeliverPolicy.ALL, ack_policy=jsapi.AckPolicy.NONE,
            inactive_threshold=AUDIT_CONSUMER_IDLE_S))
        try:
            return await _read_all(js, stream, info.name, batch)
        finally:
            await js.delete_consumer(stream, info.name)
    finally:
        await nc.close()


async def _read_all(js: Any, stream: str, consumer: str, batch: int) -> list[tuple[str, dict[str, Any]]]:
    sub = await js.pull_subscribe_bind(name=consumer, stream=stream)
    pending = (await js.stream_info(stream)).state.messages
    out: list[tuple[str, dict[str, Any]]] = []
    while len(out) < pending:
        try:
            msgs = await sub.fetch(batch, timeout=2.0)
        except TimeoutError:   # nats-py 2.16 also raises the built-in one (turf_common.bus.fixes)
            break
        for m in msgs:
            try:
                out.append((m.subject, json.loads(m.data)))
            except ValueError:
                continue
    await sub.unsubscribe()
    return out


def audit_stream(nats_url: str, stream: str, board: Board, cfg: gametime.SeasonConfig,
                 seed: str | None = None, commitment: str | None = None,
                 season: str | None = None) -> AuditReport:
    """``cfg``: the configuration file's season, audited unless ``season`` names another (R31: its configuration
    as the organizer announced it in the stream)."""
    events = asyncio.run(read_stream(nats_url, stream))
    audited = cfg
    if season is not None and season != cfg.season_id:
        found = season_config(events, season)
        if found is None:
            return AuditReport("none", mismatches=[f"no season {season!r} was announced (season.created)"])
        audited = found
    return audit_draws(events, audited, graph=board.graph, territories=board.territories, seed=seed,
                       commitment=commitment, file_season=audited.season_id == cfg.season_id)
