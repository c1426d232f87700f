"""The gateway's lean edge (edge.py): one ASGI middleware carries the request's trace context (the caller's
continued, or a new one), records a span only when an exporter is configured, counts every answer by route
template and status, and writes a sampled access log."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest
import structlog
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from turf_common import metrics, tracing
from turf_gateway.api.middleware.edge import Edge, parse_traceparent

CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER = f"00-{CALLER_TRACE}-00f067aa0ba902b7-01"


async def seen(request: Request) -> JSONResponse:
    """What a handler sees: the traceparent it would send on NATS, its log context, whether its span records."""
    return JSONResponse({"outgoing": tracing.current_traceparent(),
                         "log_trace_id": structlog.contextvars.get_contextvars().get("trace_id"),
                         "recording": trace.get_current_span().is_recording()})


async def broken(request: Request) -> JSONResponse:
    raise RuntimeError("a bug")


def app(**opts: Any) -> Edge:
    inner = Starlette(routes=[Route("/towns/{tid}", seen), Route("/broken", broken)])
    return Edge(inner, **opts)


def client(asgi: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=asgi, raise_app_exceptions=False),
                             base_url="http://testserver")


async def test_the_callers_trace_is_continued_in_the_answer_the_bus_and_the_logs() -> None:
    async with client(app()) as http:
        r = await http.get("/towns/1", headers={"traceparent": CALLER})
    body = r.json()
    version, trace_id, span_id, flags = r.headers["traceparent"].split("-")
    assert (version, trace_id, flags) == ("00", CALLER_TRACE, "01")
    assert span_id != "00f067aa0ba902b7"   # a span id of our own, under the caller's
    assert body["outgoing"] == r.headers["traceparent"]   # what NATS requests made for it carry on
    assert body["log_trace_id"] == CALLER_TRACE
    assert structlog.contextvars.get_contextvars().get("trace_id") is None   # unbound after the request


@pytest.mark.parametrize("header", [None, "00-" + "0" * 32 + "-00f067aa0ba902b7-01", "00-xyz-00f067aa0ba902b7-01",
                                    "01-" + CALLER_TRACE + "-00f067aa0ba902b7-01", "garbage"])
async def test_without_a_valid_traceparent_each_request_starts_its_own_trace(header: str | None) -> None:
    headers = {"traceparent": header} if header else {}
    async with client(app()) as http:
        a = (await http.get("/towns/1", headers=headers)).headers["traceparent"]
        b = (await http.get("/towns/1", headers=headers)).headers["traceparent"]
    assert parse_traceparent(a) is not None and parse_traceparent(b) is not None
    assert a.split("-")[1] != b.split("-")[1]
    assert CALLER_TRACE not in a


async def test_no_span_is_recorded_without_an_exporter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(tracing._exporting, "on", False)
    async with client(app()) as http:
        assert (await http.get("/towns/1", headers={"traceparent": CALLER})).json()["recording"] is False


async def test_with_an_exporter_the_request_is_a_span_of_the_callers_trace(monkeypatch: pytest.MonkeyPatch) -> None:
    exported = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exported))
    monkeypatch.setattr(tracing, "_tracer", provider.get_tracer("test"))
    monkeypatch.setitem(tracing._exporting, "on", True)
    async with client(app()) as http:
        r = await http.get("/towns/1", headers={"traceparent": CALLER})
    assert r.json()["recording"] is True
    [span] = exported.get_finished_spans()
    assert span.name == "HTTP GET /towns/1"
    assert format(span.context.trace_id, "032x") == CALLER_TRACE
    assert r.headers["traceparent"] == f"00-{CALLER_TRACE}-{span.context.span_id:016x}-01"


def count(route: str, status: str) -> float:
    return metrics.HTTP_REQUESTS.labels("GET", route, status)._value.get()   # type: ignore[no-any-return]


async def test_every_answer_is_counted_by_route_template_and_status_errors_too() -> None:
    before_ok, before_err = count("/towns/{tid}", "200"), count("/broken", "500")
    async with client(app()) as http:
        assert (await http.get("/towns/1")).status_code == 200
        assert (await http.get("/towns/2")).status_code == 200
        assert (await http.get("/broken")).status_code == 500
    assert count("/towns/{tid}", "200") - before_ok == 2
    assert count("/broken", "500") - before_err == 1


def test_the_access_log_keeps_errors_slow_requests_sampled_traces_and_a_share_of_the_rest() -> None:
    draws = iter([0.5, 0.005])
    edge = app(sample=0.01, slow_s=1.0, draw=lambda: next(draws))
    assert edge.logged(500, 0.01, False) and edge.logged(503, 0.01, False)
    assert edge.logged(200, 1.5, False)
    assert edge.logged(200, 0.01, True)
    assert not edge.logged(200, 0.01, False)   # draw 0.5: not in the 1 %
    assert edge.logged(409, 0.01, False)       # draw 0.005: in it
    off = app(access_log=False)
    assert not off.logged(500, 5.0, True)


async def test_an_access_line_names_the_request_its_status_and_time(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="uvicorn.access")
    async with client(app(sample=0.0)) as http:
        await http.get("/towns/7?x=1", headers={"traceparent": CALLER})   # sampled by the caller: logged
        await http.get("/towns/8")                                         # sample 0: not
    lines = [r.getMessage() for r in caplog.records if r.name == "uvicorn.access"]
    assert len(lines) == 1 and '"GET /towns/7?x=1 HTTP/1.1" 200' in lines[0], lines
