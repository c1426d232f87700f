"""The services' messaging, on FastStream: one broker factory and the few helpers no library has.

* :mod:`~turf_common.bus.broker`: :func:`make_broker` (every process's broker), :func:`jetstream`.
* :mod:`~turf_common.bus.requests`: commands (``claims.submit``, ``geo.locate`` …) are typed FastStream
  subscribers in a queue group named after the service, with bounded concurrency (``max_workers``); :func:`ask`
  sends one and decodes the reply (or a :class:`Refusal`).
* :mod:`~turf_common.bus.commands`: a service's commands as one table of :class:`Command` rows, each declared
  the same typed subscriber in the service's queue group by :func:`serve`.
* :mod:`~turf_common.bus.streams`: the one event stream (:func:`ensure_stream`), the spectators' feed stream sourced
  from it (:func:`feed_stream`) and the clock's KV bucket, declared
  by the bus set-up alone (``turfwar.bussetup``); services wait for them (:func:`clock_kv`).
* :mod:`~turf_common.bus.publisher`: services publish events from their outbox with ``Nats-Msg-Id`` = event id
  (:class:`EventPublisher`), so the stream drops a re-publish inside its duplicate window.
* :mod:`~turf_common.bus.consumers`: durable pull subscribers taking ordered batches with explicit acks
  (:func:`durable`, :func:`settle`).
* :mod:`~turf_common.bus.ordered`: ordered consumers (:func:`ordered_config`) and the stream sequence of what they
  deliver (:func:`stream_seq`).
* :mod:`~turf_common.bus.idle`: :func:`wait_idle` (tests, ``simulate`` and the manual clock only).
* :mod:`~turf_common.bus.fixes`: our fixes to FastStream and nats-py, each tested against its defect.
* :mod:`~turf_common.bus.observed`: per-message metrics and spans.
"""

from turf_common.bus.broker import (
    BusError,
    BusUnavailable,
    inbox_prefix,
    jetstream,
    make_broker,
    quiet_faststream,
    server_list,
)
from turf_common.bus.commands import Command, serve
from turf_common.bus.consumers import Batch, durable, retire_consumers, settle, settle_batch
from turf_common.bus.idle import caught_up, consumers_idle, wait_idle
from turf_common.bus.ordered import RawMessage, ordered_config, stream_seq
from turf_common.bus.publisher import EventPublisher
from turf_common.bus.requests import ask, ask_raw
from turf_common.bus.streams import EVENT_SUBJECTS, clock_kv, ensure_stream, feed_stream

__all__ = [
    "EVENT_SUBJECTS", "Batch", "BusError", "BusUnavailable", "Command", "EventPublisher", "RawMessage", "ask",
    "ask_raw", "caught_up", "clock_kv", "consumers_idle", "durable", "ensure_stream", "feed_stream", "inbox_prefix",
    "jetstream", "make_broker", "ordered_config", "quiet_faststream", "retire_consumers", "serve", "server_list",
    "settle", "settle_batch", "stream_seq", "wait_idle",
]
