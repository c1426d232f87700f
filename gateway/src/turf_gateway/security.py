"""Security headers on every response, and CORS for the origins the operator allows (none by default)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

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


class SecurityHeaders:
    """ASGI middleware adding :data:`HEADERS` (and HSTS behind HTTPS) to every HTTP response."""

    def __init__(self, app: object) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):  # type: ignore[no-untyped-def]
        if scope["type"] != "http":
            return await self.app(scope, receive, send)  # type: ignore[operator]
        https = scope.get("scheme") == "https"

        async def with_headers(msg):  # type: ignore[no-untyped-def]
            if msg["type"] == "http.response.start":
                names = {k.lower() for k, _ in msg.get("headers", [])}
                extra = [(k, v) for k, v in HEADERS if k not in names]
                if https:
                    extra.append((b"strict-transport-security", b"max-age=31536000; includeSubDomains"))
                msg = msg | {"headers": [*msg.get("headers", []), *extra]}
            await send(msg)

        return await self.app(scope, receive, with_headers)  # type: ignore[operator]


def install(app: FastAPI, cors_origins: str) -> None:
    origins = [o.strip() for o in cors_origins.split(",") if o.strip()]
    if origins:
        app.add_middleware(CORSMiddleware, allow_origins=origins, allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["Authorization", "Content-Type", "Idempotency-Key"], max_age=600)
    app.add_middleware(SecurityHeaders)  # type: ignore[arg-type]
