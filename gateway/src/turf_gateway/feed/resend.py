"""What a spectator missed: the feed messages after a sequence, read back from the JetStream feed stream
(``WS /ws/scores?since=<seq>``; the public subjects alone, sourced from the event stream, whose sequences
the feed's ``seq`` are).

The stream keeps every feed event (limits retention, no age limit), so any sequence it still holds can be resent;
the bound is ours: at most ``TURF_WS_RESEND_MAX`` stream sequences (10,000 by default, about five thousand claims
with their score updates), so one reconnecting spectator cannot make the gateway read and re-serialise a whole
season. Further behind, or at a sequence the stream does not hold (a restored or a new stream), the client gets a
snapshot instead. The stream is read through the :class:`~turf_gateway.ports.FeedStream` port
(:mod:`turf_gateway.adapters.feed_stream`)."""

from __future__ import annotations

import json

from turf_gateway.feed.relay import Names, feed_message
from turf_gateway.ports import FeedStream


async def missed(stream: FeedStream, names: Names, since: int, upto: int) -> list[tuple[int, str]] | None:
    """The feed messages of the stream sequences ``since`` < seq <= ``upto``, oldest first, as ``(seq, text)``;
    None when they cannot be resent
    (:func:`turf_gateway.adapters.feed_stream.resumable`, or the stream does not answer in time)."""
    stored = await stream.read_back(since, upto)
    if stored is None:
        return None
    out: list[tuple[int, str]] = []
    for seq, subject, data in stored:
        msg = await feed_message(names, subject, data, seq)
        if msg is not None:
            out.append((seq, json.dumps(msg, default=str)))
    return out
