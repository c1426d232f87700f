"""``WS /ws/scores``: a snapshot of the leaderboard and the recent feed, then one message per change."""

from __future__ import annotations

import asyncio
import contextlib
import json

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from turf_gateway.api.routes.public import leaderboard_body
from turf_gateway.state import AppState
from turf_gateway.ws import Client

router = APIRouter(tags=["spectators"])


#: close code for a socket over the caps (RFC 6455 1008: policy violation)
POLICY = 1008


@router.websocket("/ws/scores")
async def scores(ws: WebSocket) -> None:
    """Issue 15: at most ``TURF_WS_MAX_PER_IP`` sockets per client address and ``TURF_WS_MAX_TOTAL`` in all per
    gateway; one more is accepted and closed at once with 1008 (policy violation) and a reason."""
    state: AppState = ws.app.state.turf
    ip = ws.client.host if ws.client else "unknown"
    await ws.accept()
    per_ip, total = state.ws_per_ip.get(ip, 0), sum(state.ws_per_ip.values())
    if per_ip >= state.settings.ws_max_per_ip or total >= state.settings.ws_max_total:
        why = "too many connections from your address" if per_ip >= state.settings.ws_max_per_ip else "server full"
        await ws.close(code=POLICY, reason=why)
        return
    state.ws_per_ip[ip] = per_ip + 1
    client = state.hub.join()
    watch = asyncio.create_task(_until_gone(ws, client))
    try:
        # beyond API.md's snapshot: ``recent``, the last feed stories (oldest first), so the page is not empty
        await ws.send_text(json.dumps({"type": "snapshot", "leaderboard": await leaderboard_body(state),
                                       "recent": list(state.hub.recent)}, default=str))
        while True:
            msg = await client.queue.get()
            if client.gone:
                return
            if msg is None:
                await ws.send_text(json.dumps({"type": "resync", "message": "You fell behind; reconnect."}))
                await ws.close(code=4000)
                return
            await ws.send_text(msg)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        watch.cancel()
        state.hub.leave(client)
        if (left := state.ws_per_ip.get(ip, 1) - 1) > 0:
            state.ws_per_ip[ip] = left
        else:
            state.ws_per_ip.pop(ip, None)
        with contextlib.suppress(Exception):
            await ws.close()


async def _until_gone(ws: WebSocket, client: Client) -> None:
    """Read the socket until the spectator leaves (spectators send nothing that matters), then wake the writer:
    a closed socket frees its place under the caps at once, not at the next feed message."""
    with contextlib.suppress(Exception):
        while (await ws.receive())["type"] != "websocket.disconnect":
            pass
    client.gone = True
    with contextlib.suppress(asyncio.QueueFull):
        client.queue.put_nowait(None)
