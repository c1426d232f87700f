"""Posting to the league's Discord channel through its webhook (``TURF_DISCORD_WEBHOOK_URL``), on httpx.

Discord limits webhooks per channel and answers ``429`` with ``Retry-After`` (seconds; also ``retry_after`` in the
JSON body) when a sender goes too fast: the sender waits that long and tries again. Between posts it keeps at least
``min_interval`` seconds, so a burst of steals stays under the limit instead of bouncing off it."""

from __future__ import annotations

import asyncio
import time

import httpx
import structlog

log = structlog.get_logger(__name__)

LIMIT = 2000          # characters Discord takes in one message's content
MAX_WAIT = 60.0       # a Retry-After longer than this is cut to it (then tried again)


class DiscordError(RuntimeError):
    """Discord did not take the post (after ``attempts`` tries, or refused it outright)."""


class DiscordWebhook:
    def __init__(self, url: str, min_interval: float = 1.0, attempts: int = 5, timeout: float = 10.0) -> None:
        self.url, self.min_interval, self.attempts = url, min_interval, attempts
        self.client = httpx.AsyncClient(timeout=timeout)
        self._last = float("-inf")

    async def send(self, content: str) -> None:
        """Post ``content`` (mentions disabled: a display name like ``@everyone`` pings nobody). Raises
        :class:`DiscordError` when Discord refuses it (4xx other than 429) or still limits or fails after
        ``attempts`` tries."""
        body = {"content": content[:LIMIT], "allowed_mentions": {"parse": []}}
        for attempt in range(1, self.attempts + 1):
            wait = self._last + self.min_interval - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            try:
                resp = await self.client.post(self.url, json=body)
            except httpx.HTTPError as e:
                log.warning("discord_unreachable", attempt=attempt, error=type(e).__name__)
                await asyncio.sleep(min(2.0 ** attempt, MAX_WAIT))
                continue
            self._last = time.monotonic()
            if resp.status_code == 429:
                await asyncio.sleep(min(retry_after(resp), MAX_WAIT))
                continue
            if resp.status_code >= 500:
                await asyncio.sleep(min(2.0 ** attempt, MAX_WAIT))
                continue
            if resp.status_code >= 400:
                raise DiscordError(f"Discord refused the post: HTTP {resp.status_code}")
            return
        raise DiscordError(f"Discord did not take the post after {self.attempts} tries")

    async def close(self) -> None:
        await self.client.aclose()


def retry_after(resp: httpx.Response) -> float:
    """Seconds to wait from a 429: the ``Retry-After`` header, else the body's ``retry_after``, else 1."""
    for raw in (resp.headers.get("retry-after"), _body_retry(resp)):
        try:
            if raw is not None:
                return max(0.0, float(raw))
        except ValueError:
            continue
    return 1.0


def _body_retry(resp: httpx.Response) -> str | None:
    try:
        v = resp.json().get("retry_after")
    except Exception:
        return None
    return None if v is None else str(v)
