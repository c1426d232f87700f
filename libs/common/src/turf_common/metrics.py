"""Prometheus metrics shared by every process. Services serve them on ``TURF_METRICS_PORT`` (the stack gives each
process a port of its own and lists it in ``stack.json``); the gateway serves them at ``/metrics``."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram, start_http_server

HANDLER_SECONDS = Histogram(
    "turf_handler_seconds", "Time to handle one command or event", ["service", "subject"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0))
HANDLER_ERRORS = Counter("turf_handler_errors_total", "Handlers that raised", ["service", "subject"])
CLAIMS = Counter("turf_claims_total", "Claim decisions", ["result", "reason"])
OUTBOX_LAG = Gauge("turf_outbox_lag", "Committed events not yet published", ["service"])
REDELIVERIES = Counter("turf_consumer_redeliveries_total", "Events delivered more than once", ["service", "durable"])
REPLIES_TOO_LARGE = Counter("turf_replies_too_large_total", "Replies over the payload limit", ["service"])
STREAM_FILL = Gauge("turf_stream_fill_ratio", "Share of a stream's byte limit in use: the event stream and its feed "
                    "stream", ["stream"])
EVENTS_HANDLED = Counter("turf_events_handled_total", "Events handled by a consumer", ["service", "durable"])

# the gateway's HTTP requests, by route template (never the raw path: ids would make a series per player)
HTTP_REQUESTS = Counter("turf_http_requests_total", "HTTP requests answered", ["method", "route", "status"])
HTTP_SECONDS = Histogram("turf_http_request_seconds", "Time to answer an HTTP request", ["method", "route"],
                         buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0))

SERVICE = {"name": "unknown"}


def serve(service: str, port: int | None, host: str = "127.0.0.1") -> None:
    """Name this process's metrics and, when ``port`` is given, serve them over HTTP on ``host``
    (``TURF_METRICS_HOST``): loopback by default, so nobody on the network reads them; a deployment
    whose Prometheus scrapes from outside the pod sets 0.0.0.0."""
    SERVICE["name"] = service
    if port:
        start_http_server(port, addr=host)
