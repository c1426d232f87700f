"""What a spectator missed: the feed messages after a sequence, read back from the JetStream feed stream (issue 19,
``WS /ws/scores?since=<seq>``; the public subjects alone, sourced from the event stream, whose sequences
the feed's ``seq`` are).

The stream keeps every feed event (limits retention, no age limit), so any sequence it still holds can be resent;
the bound is ours: at most ``TURF_WS_RESEND_MAX`` stream sequences (10,000 by default, about five thousand claims
with their score updates), so one reconnecting spectator cannot make the gateway read and re-serialise a whole
season. Further behind, or at a sequence the stream does not hold (a restored or a new stream), the client gets a
snapshot instead. The stream is read through the :class:`~turf_gateway.ports.FeedStream` port
(:mod:`turf_gateway.adapters.feed_stream`)."""

from __future__ import annotations

import json

from turf_gateway.feed.relay import feed_message
from turf_gateway.state import AppState


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
    stored = await state.feed_stream.read_back(since, upto)
    if stored is None:
        return None
    out: list[tuple[int, str]] = []
    for seq, subject, data in stored:
        msg = await feed_message(state, subject, data, seq)
        if msg is not None:
            out.append((seq, json.dumps(msg, default=str)))
    return out
