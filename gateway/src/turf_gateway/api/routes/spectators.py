"""``WS /ws/scores``: a snapshot of the leaderboard and the recent feed, then one message per change."""

from __future__ import annotations

import contextlib
import json

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from turf_gateway.api.routes.public import leaderboard_body
from turf_gateway.state import AppState

router = APIRouter(tags=["spectators"])


@router.websocket("/ws/scores")
async def scores(ws: WebSocket) -> None:
    state: AppState = ws.app.state.turf
    await ws.accept()
    client = state.hub.join()
    try:
        # beyond API.md's snapshot: ``recent``, the last feed stories (oldest first), so the page is not empty
        await ws.send_text(json.dumps({"type": "snapshot", "leaderboard": await leaderboard_body(state),
                                       "recent": list(state.hub.recent)}, default=str))
        while True:
            msg = await client.queue.get()
            if msg is None:
                await ws.send_text(json.dumps({"type": "resync", "message": "You fell behind; reconnect."}))
                await ws.close(code=4000)
                return
            await ws.send_text(msg)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        state.hub.leave(client)
        with contextlib.suppress(Exception):
            await ws.close()
