"""The :class:`~turf_gateway.ports.FeedStream` port over JetStream: the feed stream's stored events read back by
sequence with an ordered consumer (``<stream>_FEED``, the public subjects alone, the only stream
the gateway's NATS user may make consumers on)."""

from __future__ import annotations

import contextlib
from typing import Any

import nats.errors
from nats.js import api as jsapi

from turf_common.bus import jetstream

#: seconds to wait for the next stored event while reading back; the stream holds them already, so a longer wait
#: means the server is gone (the client then gets a snapshot)
READ_WAIT = 5.0


def resumable(since: int, upto: int, first_seq: int, last_seq: int, max_span: int) -> bool:
    """Whether the messages after ``since`` up to ``upto`` (the hub's sequence) can be resent: the stream still
    holds them (``first_seq``..``last_seq``, its first and last stored sequences), ``since`` is no sequence the
    stream never reached, and at most ``max_span`` sequences lie between."""
    if since < 0 or since > last_seq:
        return False
    if since >= upto:
        return True   # nothing to read back (a client of another replica may be a few events ahead)
    return since + 1 >= first_seq and upto - since <= max_span


class NatsFeedStream:
    """``stream``: the feed stream's name; ``max_span``: ``TURF_WS_RESEND_MAX``, the most sequences one read-back
    may span; ``subjects``: the feed's subjects (:func:`turf_gateway.feed.relay.feed_subjects`), the only ones
    read back."""

    def __init__(self, broker: Any, stream: str, max_span: int, subjects: list[str]) -> None:
        self.broker, self.stream, self.max_span, self.subjects = broker, stream, max_span, subjects

    async def read_back(self, since: int, upto: int) -> list[tuple[int, str, bytes]] | None:
        js = jetstream(self.broker)
        info = await js.stream_info(self.stream)
        if not resumable(since, upto, info.state.first_seq, info.state.last_seq, self.max_span):
            return None
        if since >= upto:
            return []
        sub = await js.subscribe(
            "", stream=self.stream, ordered_consumer=True,
            config=jsapi.ConsumerConfig(filter_subjects=self.subjects,
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
