"""Security headers on every response, CORS for the origins the operator allows (none by default), the Host names
the gateway answers (issue 15: DNS rebinding), and who may read ``/metrics``."""

from __future__ import annotations

import json

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from turf_common.settings import is_loopback

HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"permissions-policy", b"geolocation=(self), camera=(), microphone=()"),
    (b"cross-origin-opener-policy", b"same-origin"),
    # the pages use only their own scripts and styles; tiles, if configured, are images from elsewhere
    (b"content-security-policy",
     b"default-src 'self'; img-src 'self' data: https:; style-src 'self' 'unsafe-inline'; "
     b"connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
]

#: liveness and readiness (readiness.py): answered whatever the Host
PROBES = {"/health", "/ready"}


class SecurityHeaders:
    """ASGI middleware adding :data:`HEADERS` (and HSTS behind HTTPS) to every HTTP response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        https = scope.get("scheme") == "https"

        async def with_headers(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                names = {k.lower() for k, _ in msg.get("headers", [])}
                extra = [(k, v) for k, v in HEADERS if k not in names]
                if https:
                    extra.append((b"strict-transport-security", b"max-age=31536000; includeSubDomains"))
                msg = {**msg, "headers": [*msg.get("headers", []), *extra]}
            await send(msg)

        return await self.app(scope, receive, with_headers)


def host_name(header: str) -> str:
    """The name in a ``Host`` header, without port, lower-case: ``"[::1]:8000"`` → ``"::1"``,
    ``"Example.org:80"`` → ``"example.org"``."""
    h = header.strip().lower()
    if h.startswith("["):
        return h[1:h.find("]")] if "]" in h else h
    return h.rsplit(":", 1)[0] if h.count(":") == 1 else h


def host_allowed(name: str, allowed: list[str]) -> bool:
    """``name`` is one of ``allowed`` (``"*"``: any; ``"*.example.org"``: that domain's subdomains)."""
    for a in allowed:
        if a == "*" or name == a or (a.startswith("*.") and name.endswith(a[1:])):
            return True
    return False


def origin_allowed(origin: str | None, host: str, allowed_hosts: list[str], cors_origins: list[str]) -> bool:
    """Issue 29: whether a websocket from a page of ``origin`` is taken. No ``Origin``: not a browser (a script,
    a TV app), taken; otherwise the page must be this gateway's own (its host and port are the ``Host`` the
    socket was opened to), or one of ``cors_origins`` (``TURF_CORS_ORIGINS``), or on a name of ``allowed_hosts``
    (``TURF_ALLOWED_HOSTS``; its ``*`` admits no foreign page). Anything else (``null``, another site) is not."""
    if origin is None:
        return True
    o = origin.strip().lower()
    if o in (c.strip().lower().rstrip("/") for c in cors_origins):
        return True
    scheme, sep, netloc = o.partition("://")
    if not sep or scheme not in ("http", "https") or not netloc or "/" in netloc:
        return False
    if netloc == host.strip().lower():
        return True
    return host_allowed(host_name(netloc), [a.strip().lower().strip("[]") for a in allowed_hosts
                                            if a.strip() and a.strip() != "*"])


class TrustedHosts:
    """ASGI middleware: a request (or websocket) whose ``Host`` is not one of the allowed names is refused, 400
    ``invalid_input`` (a websocket is closed 1008 before it is accepted). Issue 15: a web page on an attacker's
    name that re-resolves to 127.0.0.1 (DNS rebinding) reaches a loopback gateway with its own name as ``Host``,
    and is refused here. ``/health`` and ``/ready`` answer any Host. Unlike Starlette's TrustedHostMiddleware it reads
    bracketed IPv6 hosts (``[::1]:8000``)."""

    def __init__(self, app: ASGIApp, allowed: list[str]) -> None:
        self.app, self.allowed = app, [a.strip().lower().strip("[]") for a in allowed if a.strip()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        # every Host header, should a client send two (a proxy or framework might read either)
        names = [host_name(v.decode("latin-1")) for k, v in scope.get("headers", []) if k == b"host"] or [""]
        # the probes tell nothing private, and orchestrators' probes name the pod's address as Host
        if scope.get("path") in PROBES or all(host_allowed(n, self.allowed) for n in names):
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket":
            return await send({"type": "websocket.close", "code": 1008, "reason": "unknown host"})
        payload = json.dumps({"reason": "invalid_input",
                              "message": "This server does not answer to that host name."}).encode()
        await send({"type": "http.response.start", "status": 400,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(payload)).encode())]})
        await send({"type": "http.response.body", "body": payload})


def loopback_client(client: tuple[str, int] | None) -> bool:
    """The request's client (after the trusted proxies' ``X-Forwarded-For``) is this machine."""
    return client is not None and is_loopback(client[0])


def install(app: FastAPI, cors_origins: str, allowed_hosts: str = "*") -> None:
    origins = [o.strip() for o in cors_origins.split(",") if o.strip()]
    if origins:
        app.add_middleware(CORSMiddleware, allow_origins=origins, allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["Authorization", "Content-Type", "Idempotency-Key"], max_age=600)
    app.add_middleware(SecurityHeaders)
    # added last, so it runs first: a foreign Host reaches nothing else
    app.add_middleware(TrustedHosts, allowed=allowed_hosts.split(","))
