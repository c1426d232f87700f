"""Security headers on every response, CORS for the origins the operator allows (none by default), the Host names
the gateway answers (DNS rebinding), and who may read ``/metrics``."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from urllib.parse import urlsplit

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
]
#: a Host header fit to be named in the CSP (TrustedHosts has checked the name; its "*" lets any through)
_CSP_HOST = re.compile(r"^[a-z0-9.\-]+(:[0-9]{1,5})?$|^\[[0-9a-f:.]+\](:[0-9]{1,5})?$")


def tile_source(tile_url: str) -> str | None:
    """The CSP source of a Leaflet tile template's host (``TURF_TILES_URL``): ``https://{s}.tile.example.org/{z}/..``
    → ``https://*.tile.example.org``; None for no template or one that is not http(s)."""
    parts = urlsplit(tile_url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    host = re.sub(r"\{[a-z]+\}", "*", parts.netloc.lower())
    return f"{parts.scheme}://{host}" if re.fullmatch(r"[a-z0-9.\-*:]+", host) else None


def content_security_policy(host: str, secure: bool, tile_url: str = "", script_hashes: Sequence[str] = ()) -> bytes:
    """The pages' CSP: their own scripts and styles; images from here and the deployment's tile host only
    (``TURF_TILES_URL``); connections to this gateway and its own websocket (``wss://`` + the request's Host) only.
    Before: ``img-src https:`` and ``connect-src ws: wss:`` let an injected script send anything anywhere.
    ``script_hashes``: the pages' own inline scripts (``'sha256-…'``, pages.inline_script_hashes), each allowed by
    its exact text and nothing else inline."""
    tiles = tile_source(tile_url)
    h = host.strip().lower()
    own_ws = f" {'wss' if secure else 'ws'}://{h}" if _CSP_HOST.match(h) else ""
    scripts = f"script-src 'self' {' '.join(script_hashes)}; " if script_hashes else ""
    return (f"default-src 'self'; {scripts}img-src 'self' data:{' ' + tiles if tiles else ''}; "
            f"style-src 'self' 'unsafe-inline'; connect-src 'self'{own_ws}; frame-ancestors 'none'; "
            f"base-uri 'none'; form-action 'self'").encode()

#: liveness and readiness (readiness.py): answered whatever the Host
PROBES = {"/health", "/ready"}


class SecurityHeaders:
    """ASGI middleware adding :data:`HEADERS`, the :func:`content_security_policy` (and HSTS behind HTTPS) to every
    HTTP response."""

    def __init__(self, app: ASGIApp, tile_url: str = "", script_hashes: Sequence[str] = ()) -> None:
        self.app, self.tile_url, self.script_hashes = app, tile_url, tuple(script_hashes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        https = scope.get("scheme") == "https"
        host = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == b"host"), "")
        csp = (b"content-security-policy", content_security_policy(host, https, self.tile_url,
                                                                     self.script_hashes))

        async def with_headers(msg: Message) -> None:
            if msg["type"] == "http.response.start":
                names = {k.lower() for k, _ in msg.get("headers", [])}
                extra = [(k, v) for k, v in (*HEADERS, csp) if k not in names]
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


def _origin(scheme: str, netloc: str) -> tuple[str, str, int] | None:
    """``(scheme, host name, port)`` of an origin, the scheme's default port filled in; None when unreadable."""
    try:
        parts = urlsplit(f"{scheme}://{netloc}")
        return scheme, host_name(netloc), parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        return None


def origin_allowed(origin: str | None, host: str, allowed_hosts: list[str], cors_origins: list[str],
                   scheme: str) -> bool:
    """Whether a websocket from a page of ``origin`` is taken. No ``Origin``: not a browser (a script,
    a TV app), taken; otherwise the page must be one of ``cors_origins`` (``TURF_CORS_ORIGINS``), or have this
    gateway's own scheme and port (``scheme``: the socket's, ``ws`` or ``wss``; the port of ``Host``) and its
    host or a name of ``allowed_hosts`` (``TURF_ALLOWED_HOSTS``; its ``*`` admits no foreign page). Exact: a page
    on another port or scheme of an allowed name (another program on the same machine) is refused, as are
    ``null`` and other sites."""
    if origin is None:
        return True
    o = origin.strip().lower()
    if o in (c.strip().lower().rstrip("/") for c in cors_origins):
        return True
    page_scheme, sep, netloc = o.partition("://")
    if not sep or page_scheme not in ("http", "https") or not netloc or "/" in netloc:
        return False
    page = _origin(page_scheme, netloc)
    own = _origin("https" if scheme in ("wss", "https") else "http", host.strip().lower())
    if page is None or own is None or page[0] != own[0] or page[2] != own[2]:
        return False
    return page[1] == own[1] or host_allowed(page[1], [a.strip().lower().strip("[]") for a in allowed_hosts
                                                       if a.strip() and a.strip() != "*"])


class TrustedHosts:
    """ASGI middleware: a request (or websocket) whose ``Host`` is not one of the allowed names is refused, 400
    ``invalid_input`` (a websocket is closed 1008 before it is accepted). A web page on an attacker's
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


def install(app: FastAPI, cors_origins: str, allowed_hosts: str = "*", tile_url: str = "",
            script_hashes: Sequence[str] = ()) -> None:
    origins = [o.strip() for o in cors_origins.split(",") if o.strip()]
    if origins:
        app.add_middleware(CORSMiddleware, allow_origins=origins, allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["Authorization", "Content-Type", "Idempotency-Key"], max_age=600)
    app.add_middleware(SecurityHeaders, tile_url=tile_url, script_hashes=script_hashes)
    # added last, so it runs first: a foreign Host reaches nothing else
    app.add_middleware(TrustedHosts, allowed=allowed_hosts.split(","))
