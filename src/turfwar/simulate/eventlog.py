"""The season's event log: every message of the stack's JetStream stream, oldest first, as JSON lines."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import nats
from nats.js import api as jsapi

from turf_common.bus import EVENT_SUBJECTS, server_list


async def read_stream(nats_url: str, stream: str, batch: int = 1000) -> list[dict[str, Any]]:
    """Every event in ``stream`` through an ephemeral consumer from the start (deleted afterwards, so the
    services' "all consumers idle" checks never wait on it)."""
    nc = await nats.connect(servers=server_list(nats_url), connect_timeout=5, max_reconnect_attempts=3)
    try:
        js = nc.jetstream(timeout=30)
        info = await js.stream_info(stream)
        last = info.state.last_seq
        subjects = list(info.config.subjects or EVENT_SUBJECTS)
        sub = await js.pull_subscribe(subjects[0] if len(subjects) == 1 else "", stream=stream,
                                      config=jsapi.ConsumerConfig(
                                          deliver_policy=jsapi.DeliverPolicy.ALL, ack_policy=jsapi.AckPolicy.NONE,
                                          filter_subjects=subjects if len(subjects) > 1 else None,
                                          inactive_threshold=60.0, mem_storage=True))
        out: list[dict[str, Any]] = []
        try:
            while True:
                try:
                    msgs = await sub.fetch(batch, timeout=2.0)
                except (TimeoutError, nats.errors.TimeoutError):
                    break
                for m in msgs:
                    md = m.metadata
                    try:
                        data: Any = json.loads(m.data)
                    except ValueError:
                        data = m.data.decode(errors="replace")
                    out.append({"seq": md.sequence.stream, "subject": m.subject,
                                "time": md.timestamp.isoformat() if md.timestamp else None, "data": data})
                if out and out[-1]["seq"] >= last:
                    break
        finally:
            await sub.unsubscribe()
        return out
    finally:
        await nc.close()


def dump(events: list[dict[str, Any]], path: Path) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for e in events:
            fh.write(json.dumps(e, separators=(",", ":"), default=str) + "\n")


def read_all(nats_url: str, stream: str) -> list[dict[str, Any]]:
    return asyncio.run(read_stream(nats_url, stream))
