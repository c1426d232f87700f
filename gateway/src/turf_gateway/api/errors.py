"""Every error body is ``{"reason", "message"}`` (API.md); bad input never answers 500."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from turf_common.bus import BusError, BusUnavailable

STATUS = {
    "invalid_input": 422, "unauthenticated": 401, "forbidden": 403, "not_found": 404, "conflict": 409,
    "rate_limited": 429, "unavailable": 503, "payload_too_large": 413,
}


class ApiError(Exception):
    def __init__(self, reason: str, message: str, status: int | None = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.reason, self.message, self.headers = reason, message, headers
        # game refusals (R29) are 409 unless the code is one of the generic ones
        self.status = status or STATUS.get(reason, 409)


class ErrorBody(BaseModel):
    """Every refusal's body (API.md): a reason code clients branch on and a sentence people read."""

    reason: str = Field(description="a code such as unauthenticated, forbidden, not_found, a rule code (R29)")
    message: str = Field(description="what happened and what to do, in a sentence")


#: declared on every /api/v1 route, so the OpenAPI document (and /docs) shows the error body of each status
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": why} for code, why in (
        (400, "Malformed request"), (401, "Not signed in"), (403, "Not allowed for this account"),
        (404, "Not found"), (409, "Refused by a rule: the reason names it"), (413, "Body too large"),
        (422, "Invalid input"), (429, "Rate limited (see Retry-After)"), (503, "A server is not answering"))}


def body(reason: str, message: str) -> dict[str, str]:
    return {"reason": reason, "message": message}


#: pydantic's ways of saying a date-time is not one, said once in words a person acts on
_NOT_A_TIME = {"datetime_parsing", "datetime_from_date_parsing", "datetime_type", "datetime_object_invalid",
               "timezone_aware"}
TIME_EXAMPLE = "2026-10-05T07:00:00-04:00"


def _sentence(loc: str, e: Any) -> str:
    """One validation error as a sentence: a date-time that is none says how to write one (the organizer's clock
    field, a fix time), a rule of ours says itself (without pydantic's "Value error, ")."""
    kind, msg = e.get("type"), str(e.get("msg", "invalid"))
    if kind in _NOT_A_TIME:
        given = e.get("input")
        shown = f"“{given[:40]}” is not" if isinstance(given, str) and given.strip() else "it is not"
        need = "a date and time with its UTC offset" if kind == "timezone_aware" else "a date and time"
        return f"{loc}: {shown} {need} the game can read; write it like {TIME_EXAMPLE} (New York is -04:00 " \
               "until November 1, then -05:00)."
    return f"{loc}: {msg.removeprefix('Value error, ')}"


def _describe(exc: RequestValidationError) -> str:
    parts = []
    for e in exc.errors()[:5]:
        loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
        if e.get("type") == "json_invalid":
            return "The request body is not valid JSON."
        parts.append(_sentence(loc or "body", e))
    return "Invalid input — " + "; ".join(parts) if parts else "Invalid input."


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(body(exc.reason, exc.message), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(body("invalid_input", _describe(exc)), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        status = exc.status_code
        if status == 400:  # a body FastAPI could not parse (bad UTF-8, nesting too deep): malformed input
            return JSONResponse(body("invalid_input", "The request body could not be parsed."), status_code=422)
        reason = {401: "unauthenticated", 403: "forbidden", 404: "not_found", 405: "invalid_input",
                  413: "payload_too_large", 429: "rate_limited"}.get(status, "invalid_input")
        return JSONResponse(body(reason, str(exc.detail)), status_code=status, headers=getattr(exc, "headers", None))

    @app.exception_handler(BusError)
    async def bus_down(_: Request, exc: BusError) -> JSONResponse:
        return JSONResponse(body("unavailable", "A game service is not answering; try again shortly."),
                            status_code=503)


def install_fallbacks(app: FastAPI) -> None:
    import structlog
    from sqlalchemy.exc import DataError, DBAPIError, InterfaceError, OperationalError

    log = structlog.get_logger("turf_gateway.api.errors")

    @app.exception_handler(DBAPIError)
    async def db_error(_: Request, exc: DBAPIError) -> JSONResponse:
        if isinstance(exc, DataError) or isinstance(exc.orig, ValueError):
            # e.g. a NUL byte, which PostgreSQL text cannot hold: the input is malformed
            return JSONResponse(body("invalid_input", "The input contains characters that cannot be stored."),
                                status_code=422)
        if isinstance(exc, OperationalError | InterfaceError):
            return JSONResponse(body("unavailable", "The database is not answering; try again shortly."),
                                status_code=503)
        log.error("database_error", error=str(exc.orig), exc_info=exc)
        return JSONResponse(body("internal", "Something went wrong on our side."), status_code=500)

    @app.exception_handler(BusUnavailable)
    async def nats_down(_: Request, exc: Exception) -> JSONResponse:
        # NATS itself (the clock's KV read, a JetStream call) rather than a service behind it (BusError)
        log.warning("nats_unavailable", error=type(exc).__name__)
        return JSONResponse(body("unavailable", "The game's message bus is not answering; try again shortly."),
                            status_code=503)

    from redis.exceptions import ConnectionError as RedisConnectionError
    from redis.exceptions import TimeoutError as RedisTimeoutError

    @app.exception_handler(RedisConnectionError)
    @app.exception_handler(RedisTimeoutError)
    async def redis_down(_: Request, exc: Exception) -> JSONResponse:
        # the rate limits and the leaderboard live in Redis: without it a request cannot be judged, so it is
        # refused as a whole (nothing was changed before the limiter or the board was asked)
        log.warning("redis_unavailable", error=str(exc))
        return JSONResponse(body("unavailable", "The game's cache is not answering; try again shortly."),
                            status_code=503)


MAX_BODY = 64 * 1024


class BodyLimit:
    """ASGI middleware: answer 413 ``payload_too_large`` for bodies over 64 KiB, declared or streamed (chunked).
    The body is read here, up to the limit, and handed on whole."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        for k, v in scope.get("headers", []):
            if k == b"content-length" and v.isdigit() and int(v) > self.limit:
                return await self._reject(send)
        chunks: list[bytes] = []
        seen = 0
        while True:
            msg = await receive()
            if msg["type"] != "http.request":
                return await self.app(scope, _replay([msg]), send)
            chunk = msg.get("body", b"")
            seen += len(chunk)
            if seen > self.limit:
                return await self._reject(send)
            chunks.append(chunk)
            if not msg.get("more_body", False):
                break
        whole = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        return await self.app(scope, _replay([whole], receive), send)

    @staticmethod
    async def _reject(send: Send) -> None:
        import json
        data = json.dumps(body("payload_too_large", "The request body is over 64 KiB.")).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]})
        await send({"type": "http.response.body", "body": data})


def _replay(messages: list[Message], then: Receive | None = None) -> Receive:
    pending = list(messages)

    async def receive() -> Message:
        if pending:
            return pending.pop(0)
        if then is not None:
            return await then()
        return {"type": "http.disconnect"}

    return receive
