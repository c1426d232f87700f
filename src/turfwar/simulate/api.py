"""The gateway's public HTTP API (API.md) as the bots use it: one pooled async client, limited concurrency, and a
log of every request with its answer. Every non-2xx answer is checked to carry a rule code (R29)."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import httpx

from turf_common.rules.refusals import MESSAGES

API = "/api/v1"
#: codes API.md and RULINGS.md name (R29), with the HTTP status each may answer
GENERIC = {"invalid_input": 422, "unauthenticated": 401, "forbidden": 403, "not_found": 404, "conflict": 409,
           "rate_limited": 429, "unavailable": 503, "payload_too_large": 413}
RULE_CODES = set(MESSAGES) | {"card_not_in_hand", "not_owner", "already_scheduled", "invalid_target",
                              "trade_no_longer_valid", "email_taken", "discord_taken", "not_in_board",
                              "season_not_closed", "clock_backwards"}
QUIET = {"/board"}   # answers too big for the action log


@dataclass
class Reply:
    status: int
    body: Any
    seconds: float = 0.0
    retry_after: float | None = None   # the answer's Retry-After (seconds), when it carried one


    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def reason(self) -> str | None:
        if self.ok or not isinstance(self.body, dict):
            return None
        r = self.body.get("reason")
        return r if isinstance(r, str) else None

    def json(self) -> dict[str, Any]:
        return self.body if isinstance(self.body, dict) else {}


def refusal_problem(status: int, body: Any) -> str | None:
    """Why a non-2xx answer breaks R29 / API.md (None when it is a proper refusal)."""
    if status >= 500 and status != 503:
        return f"server error {status}"
    if not isinstance(body, dict):
        return f"{status} without a JSON object body"
    reason, message = body.get("reason"), body.get("message")
    if not isinstance(reason, str) or not reason:
        return f"{status} without a reason code"
    if not isinstance(message, str) or not message.strip():
        return f"{status} {reason} without a message"
    if reason in GENERIC:
        if GENERIC[reason] != status:
            return f"{reason} answered with status {status}, not {GENERIC[reason]}"
        return None
    if reason not in RULE_CODES:
        return f"unknown reason code {reason!r} ({status})"
    if status != 409:
        return f"rule refusal {reason} answered with status {status}, not 409"
    return None


class Api:
    def __init__(self, base_url: str, concurrency: int, log_path: Path | None) -> None:
        n = max(1, concurrency)
        self.client = httpx.AsyncClient(base_url=base_url.rstrip("/") + API, timeout=180.0,
                                        limits=httpx.Limits(max_connections=n + 2, max_keepalive_connections=n + 2))
        self.sem = asyncio.Semaphore(n)
        self.now: datetime | None = None          # the game time, for the log
        self._log: IO[str] | None = open(log_path, "w", encoding="utf-8") if log_path else None
        self.calls = 0
        self.refusals: Counter[str] = Counter()
        self.problems: list[dict[str, Any]] = []  # answers that break the contract, transport failures
        self.by_route: Counter[str] = Counter()
        self.seconds = 0.0

    async def close(self) -> None:
        await self.client.aclose()
        if self._log is not None:
            self._log.close()
            self._log = None

    async def call(self, method: str, path: str, who: str = "-", token: str | None = None, body: Any = None,
                   log_body: bool = True) -> Reply:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        t0 = time.perf_counter()
        retry_after: float | None = None
        async with self.sem:
            try:
                r = await self.client.request(method, path, json=body, headers=headers)
                status = r.status_code
                retry_after = _seconds(r.headers.get("Retry-After"))
                try:
                    data: Any = r.json()
                except ValueError:
                    data = r.text[:500]
            except httpx.HTTPError as e:
                status, data = 0, {"reason": "transport", "message": f"{type(e).__name__}: {e}"}
        dt = time.perf_counter() - t0
        self.calls += 1
        self.seconds += dt
        route = f"{method} {_route(path)}"
        self.by_route[route] += 1
        reply = Reply(status, data, dt, retry_after)
        if not reply.ok:
            problem = "no answer (transport error)" if status == 0 else refusal_problem(status, data)
            self.refusals[f"{route} {reply.reason or status}"] += 1
            if problem is not None:
                self.problems.append({"at": self.now.isoformat() if self.now else None, "who": who,
                                      "request": f"{method} {API}{path}", "body": _masked(body),
                                      "status": status, "answer": data, "problem": problem})
        if self._log is not None:
            entry = {"at": self.now.isoformat() if self.now else None, "who": who, "method": method,
                     "path": API + path, "body": _masked(body), "status": status,
                     "answer": data if (log_body and path not in QUIET) else "…",
                     "ms": round(dt * 1000, 1)}
            self._log.write(json.dumps(entry, default=str) + "\n")
        return reply


    async def call_hashing(self, method: str, path: str, who: str = "-", body: Any = None) -> Reply:
        """:meth:`call` for a route that hashes a password (registration, sign-in). The gateway's hashing queue is
        bounded (503 ``unavailable`` when full) and fair per client address (429 ``rate_limited`` past one
        address's share, ``TURF_PASSWORD_QUEUE_PER_CLIENT``): the bots all come from this one address, so, as any
        well-behaved client, wait what ``Retry-After`` says and ask again. A wait longer than
        :data:`HASHING_WAIT_MAX` is a real limit (e.g. failed sign-ins), not a busy queue: that answer is returned."""
        r = await self.call(method, path, who, None, body)
        for _ in range(HASHING_TRIES - 1):
            if r.status not in (429, 503):
                break
            wait = r.retry_after if r.retry_after is not None else 1.0
            if wait > HASHING_WAIT_MAX:
                break
            await asyncio.sleep(max(wait, 0.1))
            r = await self.call(method, path, who, None, body)
        return r


#: how often a hashing route is asked while the queue answers 429/503, and the longest Retry-After waited for
HASHING_TRIES = 60
HASHING_WAIT_MAX = 10.0


def _seconds(value: str | None) -> float | None:
    """A ``Retry-After`` in seconds (the gateway sends delta-seconds; an HTTP date or junk counts as absent)."""
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _masked(body: Any) -> Any:
    if isinstance(body, dict) and "password" in body:
        return body | {"password": "***"}
    return body


def _route(path: str) -> str:
    """``/cards/abc/schedule`` → ``/cards/{id}/schedule``: counts per route, not per id."""
    parts = path.split("?")[0].split("/")
    out = []
    for i, p in enumerate(parts):
        if i >= 2 and parts[i - 1] in {"trades", "cards", "players", "territories"} and p not in {"play"}:
            out.append("{id}")
        else:
            out.append(p)
    return "/".join(out)
