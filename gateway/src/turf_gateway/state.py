"""What the gateway holds while it runs (built by :mod:`turf_gateway.bootstrap`): its connections and board, the use
cases the routes call, and the spectator feed's in-memory state."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from faststream.nats import NatsBroker
from sqlalchemy.ext.asyncio import AsyncEngine

from turf_common.board import Board
from turf_common.outbox import OutboxRelay
from turf_common.rules.gametime import SeasonConfig
from turf_common.settings import Settings
from turf_gateway.board_cache import BoardCache
from turf_gateway.feed.hub import Hub
from turf_gateway.handlers.cards import Cards
from turf_gateway.handlers.claims import Claims
from turf_gateway.handlers.clock import ManualClock
from turf_gateway.handlers.corrections import Corrections
from turf_gateway.handlers.flags import Flags
from turf_gateway.handlers.history import History
from turf_gateway.handlers.modes import Modes
from turf_gateway.handlers.notifications import Notifications
from turf_gateway.handlers.outlook import Outlook
from turf_gateway.handlers.players import Players, Sessions
from turf_gateway.ports import CorrectionLog, FeedLog, GameClock, PlayerStore, Services
from turf_gateway.ratelimit import RateLimiter


@dataclass
class FeedState:
    """The spectator feed's memory in this process: the hub of websocket clients; the leaderboard snapshot request
    in flight, shared by callers, with the count of score.updated seen when it was sent; open websockets by client
    address; GET /board's cached body and the ownership version it must be of (issue 19, board_cache.py)."""

    hub: Hub = field(default_factory=Hub)
    leaderboard_inflight: tuple[int, asyncio.Future[dict[str, Any]]] | None = None
    score_updates: int = 0
    ws_per_ip: dict[str, int] = field(default_factory=dict)
    board_cache: BoardCache = field(default_factory=BoardCache)
    board_version: int = 0


@dataclass
class AppState:
    settings: Settings
    broker: NatsBroker   # FastStream: requests to the services, the feed's subscribers, the outbox's publisher
    engine: AsyncEngine  # readiness's check
    board: Board
    clock: GameClock
    season: SeasonConfig
    relay: OutboxRelay
    limiter: RateLimiter
    # ports the read routes use directly, and the use cases
    services: Services
    player_store: PlayerStore
    correction_log: CorrectionLog
    claims: Claims
    players: Players
    sessions: Sessions
    corrections: Corrections
    flags: Flags
    clock_moves: ManualClock
    history: History
    modes: Modes
    feed_log: FeedLog
    cards: Cards
    notifications: Notifications
    outlook: Outlook
    feed: FeedState = field(default_factory=FeedState)
