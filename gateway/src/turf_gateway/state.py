"""What the gateway holds while it runs: settings, NATS broker, engine, board, clock reader, spectator hub."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from faststream.nats import NatsBroker
from sqlalchemy.ext.asyncio import AsyncEngine

from turf_common.board import Board
from turf_common.gameclock import GameClockReader
from turf_common.outbox import OutboxRelay
from turf_common.rules.gametime import SeasonConfig
from turf_common.settings import Settings
from turf_gateway.board_cache import BoardCache
from turf_gateway.correction_log import CorrectionLog
from turf_gateway.geocoding import Geocoder
from turf_gateway.handlers.claims import Claims
from turf_gateway.ports import Services
from turf_gateway.ratelimit import RateLimiter
from turf_gateway.session_cache import SessionCache
from turf_gateway.ws import Hub


@dataclass
class AppState:
    settings: Settings
    broker: NatsBroker   # FastStream: requests to the services, the feed's subscribers, the outbox's publisher
    engine: AsyncEngine
    board: Board
    clock: GameClockReader
    season: SeasonConfig
    hub: Hub
    relay: OutboxRelay
    limiter: RateLimiter
    geocoder: Geocoder
    corrections: CorrectionLog   # R28: requests recorded before the owning service is asked, then logged
    services: Services           # typed requests to the services over NATS
    claims: Claims               # the claim use cases (check, submit)
    display_names: dict[str, str] = field(default_factory=dict)
    # the snapshot request in flight, shared by callers, with the count of score.updated seen when it was sent
    leaderboard_inflight: tuple[int, asyncio.Future[dict[str, Any]]] | None = None
    score_updates: int = 0
    sessions_purged_at: float = float("-inf")   # time.monotonic() of the last purge of expired sessions
    ws_per_ip: dict[str, int] = field(default_factory=dict)   # open spectator websockets by client address
    # issue 19: GET /board's cached body, and the ownership version it must be of (board_cache.py)
    board_cache: BoardCache = field(default_factory=BoardCache)
    board_version: int = 0
    # issue 21: session lookups kept for a few seconds, dropped on sign-out and status changes (session_cache.py)
    sessions: SessionCache[Any] = field(default_factory=SessionCache)
