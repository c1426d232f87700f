"""``WS /ws/scores``: a snapshot of the leaderboard and the recent feed (or, with ``?since=<seq>``, every message the
client missed), then one message per change, each with its stream ``seq``."""

from __future__ import annotations

import asyncio
import contextlib
import json

import structlog
from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from turf_gateway.adapters.ratelimit import address_key
from turf_gateway.api.errors import ApiError
from turf_gateway.api.middleware.security import origin_allowed
from turf_gateway.feed import resend
from turf_gateway.feed.hub import Client
from turf_gateway.state import AppState

log = structlog.get_logger(__name__)
router = APIRouter(tags=["spectators"])


#: close code for a socket over the caps (RFC 6455 1008: policy violation)
POLICY = 1008


@router.websocket("/ws/scores")
async def scores(ws: WebSocket, since: str | None = None) -> None:
    """Every message after the first carries ``seq``, the stream sequence of its event, strictly increasing. Without
    ``since`` (or one that cannot be resent: :func:`turf_gateway.adapters.feed_stream.resumable`) the first message
    is ``{type: "snapshot", seq, leaderboard, recent}``, ``seq`` the last event it reflects: the messages after it
    follow. With ``since=<seq>`` the messages after ``seq`` come first, in order, read back from the stream, then
    the live ones, none twice. A ``since`` that is no non-negative integer gets the snapshot.

    At most ``TURF_WS_MAX_PER_IP`` sockets per client address and ``TURF_WS_MAX_TOTAL`` in all per
    gateway; one more is accepted and closed at once with 1008 (policy violation) and a reason.

    An IPv6 client counts by its /64 (:func:`turf_gateway.adapters.ratelimit.address_key`); a browser page of
    another site (``Origin`` not allowed: :func:`turf_gateway.api.middleware.security.origin_allowed`) is closed
    with 1008; and ``since`` resends count against ``resends_ip`` (over it: a snapshot)."""
    state: AppState = ws.app.state.turf
    ip = address_key(ws.client.host) if ws.client else "unknown"
    await ws.accept()
    if not origin_allowed(ws.headers.get("origin"), ws.headers.get("host", ""),
                          state.settings.allowed_hosts.split(","), state.settings.cors_origins.split(","),
                          ws.url.scheme):
        await ws.close(code=POLICY, reason="origin not allowed")
        return
    per_ip, total = state.feed.ws_per_ip.get(ip, 0), sum(state.feed.ws_per_ip.values())
    if per_ip >= state.settings.ws_max_per_ip or total >= state.settings.ws_max_total:
        why = "too many connections from your address" if per_ip >= state.settings.ws_max_per_ip else "server full"
        await ws.close(code=POLICY, reason=why)
        return
    state.feed.ws_per_ip[ip] = per_ip + 1
    client = state.feed.hub.join()
    watch = asyncio.create_task(_until_gone(ws, client))
    # joined before reading the hub's sequence, in one step: every message after ``upto`` is in the queue
    upto = state.feed.hub.last_seq
    try:
        sent = await _resend(ws, state, _sequence(since), upto, ip)
        if sent is None:
            # beyond API.md's snapshot: ``recent``, the last feed stories (oldest first), so the page is not empty
            await ws.send_text(json.dumps({"type": "snapshot", "seq": upto,
                                           "leaderboard": await state.public.leaderboard(),
                                           "recent": list(state.feed.hub.recent)}, default=str))
            sent = upto
        while True:
            item = await client.queue.get()
            if client.gone:
                return
            if item is None:
                await ws.send_text(json.dumps({"type": "resync", "message": "You fell behind; reconnect."}))
                await ws.close(code=4000)
                return
            seq, text = item
            if seq > sent:   # a client resuming ahead of this gateway was sent these already
                await ws.send_text(text)
                sent = seq
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        watch.cancel()
        state.feed.hub.leave(client)
        if (left := state.feed.ws_per_ip.get(ip, 1) - 1) > 0:
            state.feed.ws_per_ip[ip] = left
        else:
            state.feed.ws_per_ip.pop(ip, None)
        with contextlib.suppress(Exception):
            await ws.close()


def _sequence(since: str | None) -> int | None:
    """``since`` as a stream sequence, or None (absent or not a non-negative integer: the client gets a snapshot)."""
    if since is None or not since.isdigit() or len(since) > 19:
        return None
    return int(since)


async def _resend(ws: WebSocket, state: AppState, since: int | None, upto: int, ip: str) -> int | None:
    """Send the messages after ``since`` up to ``upto``; the last sequence the client has then (``since`` when
    it is ahead), or None when they cannot be resent (the client needs a snapshot; also when ``ip`` is over
    ``resends_ip``: a resend may read ``TURF_WS_RESEND_MAX`` stream entries, a snapshot reads none)."""
    if since is None:
        return None
    try:
        await state.limiter.hit("resends_ip", ip)
    except ApiError:
        log.info("ws_resend_throttled", since=since)
        return None
    except Exception:   # Redis does not answer: a snapshot costs nothing to read
        log.warning("ws_resend_limit_failed", exc_info=True)
        return None
    try:
        missed = await resend.missed(state.feed_stream, state.public.named_changes, since, upto)
    except Exception:   # the stream does not answer: a snapshot is always possible
        log.warning("ws_resend_failed", since=since, upto=upto, exc_info=True)
        return None
    if missed is None:
        return None
    for _, text in missed:
        await ws.send_text(text)
    return max(since, upto)


async def _until_gone(ws: WebSocket, client: Client) -> None:
    """Read the socket until the spectator leaves (spectators send nothing that matters), then wake the writer:
    a closed socket frees its place under the caps at once, not at the next feed message."""
    with contextlib.suppress(Exception):
        while (await ws.receive())["type"] != "websocket.disconnect":
            pass
    client.gone = True
    with contextlib.suppress(asyncio.QueueFull):
        client.queue.put_nowait(None)
