"""With ``OTEL_EXPORTER_OTLP_ENDPOINT`` set (and the ``otlp`` extra installed), a process's spans reach an
OpenTelemetry collector over OTLP/HTTP, in the trace the caller's ``traceparent`` named, under the service's
name. The collector here is a local HTTP server that keeps what it is sent."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PROBE = f"""
from opentelemetry import trace
from turf_common import tracing
tracing.setup("probe-service")
with tracing.span("claims.submit", {{"traceparent": "00-{TRACE_ID}-00f067aa0ba902b7-01"}}):
    pass
trace.get_tracer_provider().force_flush()
"""


def test_spans_are_exported_to_the_configured_collector() -> None:
    received: list[tuple[str, bytes]] = []

    class Collector(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append((self.path, self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = HTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = os.environ | {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{server.server_port}"}
        r = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
    finally:
        server.shutdown()
    assert [path for path, _ in received] == ["/v1/traces"]
    req = ExportTraceServiceRequest.FromString(received[0][1])
    (rs,) = req.resource_spans
    attrs = {a.key: a.value.string_value for a in rs.resource.attributes}
    spans = [s for ss in rs.scope_spans for s in ss.spans]
    assert attrs["service.name"] == "probe-service"
    assert [(s.name, s.trace_id.hex()) for s in spans] == [("claims.submit", TRACE_ID)]
