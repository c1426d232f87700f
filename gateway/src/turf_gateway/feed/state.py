"""The spectator feed's in-memory state in this process, shared by the relay that moves it on and the public reads
that keep their board body and leaderboard in it."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from turf_gateway.adapters.board_cache import BoardCache
from turf_gateway.feed.hub import Hub


@dataclass
class FeedState:
    """The spectator feed's memory in this process: the hub of websocket clients; the leaderboard snapshot request
    in flight, shared by callers, with the count of score.updated seen when it was sent; open websockets by client
    address; GET /board's cached body and the ownership version it must be of (board_cache.py)."""

    hub: Hub = field(default_factory=Hub)
    leaderboard_inflight: tuple[int, asyncio.Future[dict[str, Any]]] | None = None
    score_updates: int = 0
    ws_per_ip: dict[str, int] = field(default_factory=dict)
    board_cache: BoardCache = field(default_factory=BoardCache)
    topo_cache: BoardCache = field(default_factory=BoardCache)   # the same board as TopoJSON (?format=topojson)
    board_version: int = 0
