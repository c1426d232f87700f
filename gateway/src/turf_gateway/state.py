"""What the gateway holds while it runs (built by :mod:`turf_gateway.bootstrap`): the use cases the routes call, and
the spectator feed's in-memory state (:mod:`turf_gateway.feed.state`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from turf_common.settings import Settings
from turf_gateway.adapters.ratelimit import RateLimiter
from turf_gateway.adapters.readiness import Readiness
from turf_gateway.feed.state import FeedState
from turf_gateway.handlers.accounts import Accounts
from turf_gateway.handlers.cards import Cards
from turf_gateway.handlers.claims import Claims
from turf_gateway.handlers.clock import ManualClock
from turf_gateway.handlers.corrections import Corrections
from turf_gateway.handlers.exports import Exports
from turf_gateway.handlers.flags import Flags
from turf_gateway.handlers.history import History
from turf_gateway.handlers.modes import Modes
from turf_gateway.handlers.myaccount import MyAccount
from turf_gateway.handlers.mydata import MyData
from turf_gateway.handlers.notifications import Notifications
from turf_gateway.handlers.outlook import Outlook
from turf_gateway.handlers.players import Players, Sessions
from turf_gateway.handlers.profiles import Profiles
from turf_gateway.handlers.public import Public
from turf_gateway.handlers.resultsmail import ResultsMail
from turf_gateway.handlers.seasons import Seasons
from turf_gateway.ports import FeedStream


@dataclass
class AppState:
    """Wiring only: the use cases the routes and the feed's consumers call, and what the websocket and operator
    routes need beside them. No connection, store or service port: those live inside the use cases and adapters."""

    settings: Settings
    readiness: Readiness      # GET /ready's checks of NATS, PostgreSQL and Redis
    limiter: RateLimiter      # the websocket's resend limit (HTTP routes reach it through their use cases)
    feed_stream: FeedStream   # the feed stream read back for a spectator resuming (WS /ws/scores?since=)
    claims: Claims
    players: Players
    accounts: Accounts
    myaccount: MyAccount
    mydata: MyData
    sessions: Sessions
    corrections: Corrections
    flags: Flags
    clock_moves: ManualClock
    history: History
    modes: Modes
    public: Public            # shares ``feed`` with the relay (wire passes both the same FeedState)
    exports: Exports
    cards: Cards
    notifications: Notifications
    outlook: Outlook
    profiles: Profiles
    results_mail: ResultsMail   # R30: the final results by mail, at the season's close (feed/log.py)
    seasons: Seasons            # R31: the organizer's seasons, joining, the season in force
    feed: FeedState = field(default_factory=FeedState)
