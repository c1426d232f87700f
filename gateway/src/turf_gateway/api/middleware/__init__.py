"""The HTTP edge: the ASGI middleware every request passes through (trace context, metrics and access log;
security headers, CORS and allowed hosts; compression of public answers; no-store on private ones)."""
