"""What a spectator missed: the feed messages after a sequence, read back from the JetStream feed stream (issue 19,
``WS /ws/scores?since=<seq>``; issue 29: the public subjects alone, sourced from the event stream, whose sequences
the feed's ``seq`` are).

The stream keeps every feed event (limits retention, no age limit), so any sequence it still holds can be resent;
the bound is ours: at most ``TURF_WS_RESEND_MAX`` stream sequences (10,000 by default, about five thousand claims
with their score updates), so one reconnecting spectator cannot make the gateway read and re-serialise a whole
season. Further behind, or at a sequence the stream does not hold (a restored or a new stream), the client gets a
snapshot instead."""

from __future__ import annotations

import contextlib
import json

import nats.errors
from nats.js import api as jsapi

from turf_common.bus import feed_stream, jetstream
from turf_gateway.feed.relay import feed_message, feed_subjects
from turf_gateway.state import AppState

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


async def missed(state: AppState, since: int, upto: int) -> list[tuple[int, str]] | None:
    """The feed messages of the stream sequences ``since`` < seq <= ``upto``, oldest first, as ``(seq, text)``;
    None when they cannot be resent (:func:`resumable`, or the stream does not answer in time)."""
    js = jetstream(state.broker)
    stream = feed_stream(state.settings.stream)
    info = await js.stream_info(stream)
    if not resumable(since, upto, info.state.first_seq, info.state.last_seq, state.settings.ws_resend_max):
        return None
    if since >= upto:
        return []
    sub = await js.subscribe(
        "", stream=stream, ordered_consumer=True,
        config=jsapi.ConsumerConfig(filter_subjects=feed_subjects(),
                                    deliver_policy=jsapi.DeliverPolicy.BY_START_SEQUENCE, opt_start_seq=since + 1))
    out: list[tuple[int, str]] = []
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
            msg = await feed_message(state, m.subject, m.data, seq)
            if msg is not None:
                out.append((seq, json.dumps(msg, default=str)))
            if seq == upto or md.num_pending == 0:
                break
    finally:
        with contextlib.suppress(Exception):
            await sub.unsubscribe()
    return out
