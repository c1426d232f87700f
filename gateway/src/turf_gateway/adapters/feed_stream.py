"""The :class:`~turf_gateway.ports.FeedStream` port over JetStream: the feed stream's stored events read back by
sequence with an ordered consumer (``<stream>_FEED``, the public subjects alone, the only stream
the gateway's NATS user may make consumers on)."""

from __future__ import annotations

import contextlib
from typing import Any

import nats.errors
from nats.js import api as jsapi

from turf_common.bus import jetstream
from turf_gateway.feed.relay import feed_subjects
from turf_gateway.feed.resend import resumable

#: seconds to wait for the next stored event while reading back; the stream holds them already, so a longer wait
#: means the server is gone (the client then gets a snapshot)
READ_WAIT = 5.0


class NatsFeedStream:
    """``stream``: the feed stream's name; ``max_span``: ``TURF_WS_RESEND_MAX``, the most sequences one read-back
    may span."""

    def __init__(self, broker: Any, stream: str, max_span: int) -> None:
        self.broker, self.stream, self.max_span = broker, stream, max_span

    async def read_back(self, since: int, upto: int) -> list[tuple[int, str, bytes]] | None:
        js = jetstream(self.broker)
        info = await js.stream_info(self.stream)
        if not resumable(since, upto, info.state.first_seq, info.state.last_seq, self.max_span):
            return None
        if since >= upto:
            return []
        sub = await js.subscribe(
            "", stream=self.stream, ordered_consumer=True,
            config=jsapi.ConsumerConfig(filter_subjects=feed_subjects(),
                                        deliver_policy=jsapi.DeliverPolicy.BY_START_SEQUENCE,
                                        opt_start_seq=since + 1))
        out: list[tuple[int, str, bytes]] = []
        try:
            while True:
                try:
                    m = await sub.next_msg(timeout=READ_WAIT)
                except nats.errors.TimeoutError:
                    return None
                md = m.metadata
                seq = md.sequence.stream
                if seq > upto:
                    break   # the live queue has it
                out.append((seq, m.subject, m.data))
                if seq == upto or md.num_pending == 0:
                    break
        finally:
            with contextlib.suppress(Exception):
                await sub.unsubscribe()
        return out
