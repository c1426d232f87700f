"""Per-message metrics and tracing for every handled command and event (FastStream middleware)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from turf_common import metrics, tracing
from turf_common.bus.replies import ReplyLimit


class Observed(ReplyLimit):
    """Every handled message is timed and counted (``turf_handler_seconds``, ``turf_handler_errors_total`` by
    service and subject) and runs in a span continuing the sender's trace, its trace id in the log lines.

    Kept rather than FastStream's ``NatsPrometheusMiddleware`` and ``NatsTelemetryMiddleware``
    (``python -m bench.middleware``, CPU per request over none): this one, metrics and span, +0.065 ms; theirs
    +0.07 ms for the metrics alone, +0.27 ms for the spans, +0.35 ms both. They also name and label the series
    otherwise (``*_received_processed_messages_duration_seconds{app_name,broker,handler}`` where tests and
    dashboards read ``turf_handler_seconds{service,subject}``), and leave the trace id out of the log lines.
    A durable consumer's events get their own spans and counts in :func:`~turf_common.bus.settle`. Its replies
    are held to the payload limit as :class:`~turf_common.bus.replies.ReplyLimit` says."""

    async def consume_scope(self, call_next: Callable[[Any], Awaitable[Any]], msg: Any) -> Any:
        raw = msg.raw_message
        first = raw[0] if isinstance(raw, list) and raw else raw
        subject = getattr(first, "subject", "") or ""
        if subject.startswith("_INBOX."):
            # a reply to our own request (the broker runs it through its middlewares too): not a handled message,
            # and its unique inbox subject would make a new metric series per request
            return await call_next(msg)
        svc = metrics.SERVICE["name"]
        started = time.perf_counter()
        try:
            with tracing.span(subject, getattr(first, "headers", None)):
                return await call_next(msg)
        except Exception:
            metrics.HANDLER_ERRORS.labels(svc, subject).inc()
            raise
        finally:
            metrics.HANDLER_SECONDS.labels(svc, subject).observe(time.perf_counter() - started)
