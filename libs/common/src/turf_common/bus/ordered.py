"""Ordered consumers (ephemeral, unacked, re-created by nats-py from the last sequence delivered): where one starts,
and the stream sequence of what it delivers."""

from __future__ import annotations

from collections.abc import Sequence

from nats.aio.msg import Msg
from nats.js import api as jsapi

#: the raw message a subscriber decoded as received (``decoder=``) hands its handler
RawMessage = Msg


def ordered_config(subjects: Sequence[str], after_seq: int | None) -> jsapi.ConsumerConfig:
    """An ordered consumer of ``subjects`` that starts right after stream sequence ``after_seq``, or with the next
    new message when it is None."""
    start = ({"deliver_policy": jsapi.DeliverPolicy.NEW} if after_seq is None else
             {"deliver_policy": jsapi.DeliverPolicy.BY_START_SEQUENCE, "opt_start_seq": after_seq + 1})
    return jsapi.ConsumerConfig(filter_subjects=list(subjects), **start)   # type: ignore[arg-type]


def stream_seq(m: Msg) -> int | None:
    """The JetStream stream sequence of ``m``; None for a message that did not come through a consumer."""
    try:
        return int(m.metadata.sequence.stream)
    except Exception:   # nats-py raises on a message without a JetStream reply subject
        return None
