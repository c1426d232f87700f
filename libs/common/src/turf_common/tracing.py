"""OpenTelemetry trace context across HTTP and NATS, so one claim is one trace: the gateway continues (or
starts) the caller's W3C ``traceparent``, every NATS request and every published event carries it (events keep it
in their payload too, as the outbox stores payloads), and each handler runs in a span of that trace, with the
trace id bound into its JSON log lines. Spans are exported only when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set and
the OTLP exporter package is installed; the context travels either way."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

import structlog
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.propagate import extract, inject
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider

_tracer = trace.get_tracer("turfwar")
_exporting = {"on": False}


def setup(service: str) -> None:
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    _exporting["on"] = False
    if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
            from opentelemetry.sdk.trace.export import BatchSpanProcessor

            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
            _exporting["on"] = True
        except ImportError:  # pragma: no cover - exporter not installed
            structlog.get_logger(__name__).warning("otlp_exporter_missing")
    trace.set_tracer_provider(provider)


def exporting() -> bool:
    """Whether spans go anywhere (an OTLP exporter set up by :func:`setup`): if not, an edge may carry the trace
    context alone, without recording spans nobody receives."""
    return _exporting["on"]


def outgoing_headers() -> dict[str, str]:
    """The current trace context as headers for a NATS message (``traceparent``, maybe ``tracestate``)."""
    carrier: dict[str, str] = {}
    inject(carrier)
    return carrier


def current_traceparent() -> str | None:
    return outgoing_headers().get("traceparent")


@contextmanager
def span(name: str, headers: Mapping[str, str] | None = None) -> Iterator[trace.Span]:
    """Run the block in a span continuing the trace in ``headers`` (or the current one), with ``trace_id`` bound
    into the structured log context."""
    ctx = extract(dict(headers)) if headers else None
    with _tracer.start_as_current_span(name, context=ctx) as s:
        sc = s.get_span_context()
        tokens = structlog.contextvars.bind_contextvars(trace_id=format(sc.trace_id, "032x"))
        try:
            yield s
        finally:
            structlog.contextvars.reset_contextvars(**tokens)


def current_context() -> otel_context.Context:
    """The current trace context, to continue it later in another task (:func:`continued`)."""
    return otel_context.get_current()


@contextmanager
def continued(ctx: otel_context.Context) -> Iterator[None]:
    """Run the block in ``ctx`` (from :func:`current_context`), with its trace id in the log context: work done for
    several requests in one task (the claims service's group commit) stamps each request's events with its own trace."""
    token = otel_context.attach(ctx)
    sc = trace.get_current_span(ctx).get_span_context()
    bound = structlog.contextvars.bind_contextvars(trace_id=format(sc.trace_id, "032x")) if sc.is_valid else {}
    try:
        yield
    finally:
        if bound:
            structlog.contextvars.reset_contextvars(**bound)
        otel_context.detach(token)
