"""Annotated dependencies: the app state, use cases a route depends on alone (``ClaimsCase``, ``CorrectionsCase``,
``ModesCase``, ``PublicCase``, ``ExportsCase``, ``ClockMoves``, ``CardsCase``, ``NotificationsCase``,
``OutlookCase``, ``PlayersCase``, ``AccountsCase``, ``FlagsCase``, ``HistoryCase``), the calling player, the
organizer."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from turf_gateway.api.errors import ApiError
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
from turf_gateway.handlers.players import Players
from turf_gateway.handlers.profiles import Profiles
from turf_gateway.handlers.public import Public
from turf_gateway.ports import Caller
from turf_gateway.state import AppState


async def get_state(request: Request) -> AppState:
    """The app's state. ``async`` although it awaits nothing: FastAPI runs a plain ``def`` dependency in its thread
    pool, a thread hop on every request that names ``State``."""
    return request.app.state.turf  # type: ignore[no-any-return]


#: the app's state, whose use cases the routes call. One dependency for all of them: the caller's session lookup
#: takes it too and FastAPI solves it once per request, where a dependency per use case would cost a call each
State = Annotated[AppState, Depends(get_state)]


async def get_claims(state: State) -> Claims:
    """The claims use cases (from the state FastAPI has already solved for the request: no second lookup)."""
    return state.claims


#: the claims use cases (check, submit), for the routes that need nothing else of the state
ClaimsCase = Annotated[Claims, Depends(get_claims)]


async def get_corrections(state: State) -> Corrections:
    return state.corrections


#: the organizer's corrections (R28)
CorrectionsCase = Annotated[Corrections, Depends(get_corrections)]


async def get_modes(state: State) -> Modes:
    return state.modes


#: Team Turf games and King of the Hill rooms: opening, reading, moves
ModesCase = Annotated[Modes, Depends(get_modes)]


async def get_public(state: State) -> Public:
    return state.public


#: the public reads: board, territory, leaderboard, results, clock, season
PublicCase = Annotated[Public, Depends(get_public)]


async def get_exports(state: State) -> Exports:
    return state.exports


#: the organizer's claim log and CSV exports
ExportsCase = Annotated[Exports, Depends(get_exports)]


async def get_clock_moves(state: State) -> ManualClock:
    return state.clock_moves


#: the manual clock's moves (``POST /admin/clock``)
ClockMoves = Annotated[ManualClock, Depends(get_clock_moves)]


async def get_cards(state: State) -> Cards:
    return state.cards


#: cards and trades (R12–R20): the hand, plays, schedules, proposals, whom a proposal may name
CardsCase = Annotated[Cards, Depends(get_cards)]


async def get_notifications(state: State) -> Notifications:
    return state.notifications


#: notifications, push subscriptions and announcements
NotificationsCase = Annotated[Notifications, Depends(get_notifications)]


async def get_outlook(state: State) -> Outlook:
    return state.outlook


#: a player's territories and deadlines now
OutlookCase = Annotated[Outlook, Depends(get_outlook)]


async def get_players(state: State) -> Players:
    return state.players


#: players: registration, sign-in, profiles, the roster, status changes (R27)
PlayersCase = Annotated[Players, Depends(get_players)]


async def get_accounts(state: State) -> Accounts:
    return state.accounts


#: R30's mailed links: email confirmation, password resets, the organizer's list of mail
AccountsCase = Annotated[Accounts, Depends(get_accounts)]


async def get_myaccount(state: State) -> MyAccount:
    return state.myaccount


#: R30: the caller's own profile and password changes
MyAccountCase = Annotated[MyAccount, Depends(get_myaccount)]


async def get_mydata(state: State) -> MyData:
    return state.mydata


#: R30: the caller's data export
MyDataCase = Annotated[MyData, Depends(get_mydata)]


async def get_flags(state: State) -> Flags:
    return state.flags


#: the organizer's flagged claims (R7.1)
FlagsCase = Annotated[Flags, Depends(get_flags)]


async def get_history(state: State) -> History:
    return state.history


#: towns' histories, players' journals and the replay
HistoryCase = Annotated[History, Depends(get_history)]


async def get_profiles(state: State) -> Profiles:
    return state.profiles


#: a player's public season: medals, footprint, recap
ProfilesCase = Annotated[Profiles, Depends(get_profiles)]


def bearer_token(request: Request) -> str:
    """The token of ``Authorization: Bearer <token>``; 401 ``unauthenticated`` without one."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ApiError("unauthenticated", "Sign in first (Authorization: Bearer <token>).")
    return token.strip()


#: declares the scheme in the OpenAPI document (/docs' Authorize button); refusals stay ours (401 unauthenticated)
_BEARER = HTTPBearer(auto_error=False, description="The token that `POST /api/v1/sessions` answers.")


async def current_player(request: Request, state: State,
                         _: Annotated[HTTPAuthorizationCredentials | None, Depends(_BEARER)] = None) -> Caller:
    """The signed-in caller (the session cache, else PostgreSQL). 401 ``unauthenticated`` for no token, an
    unknown one or an expired session."""
    return await state.sessions.caller(bearer_token(request))


CurrentPlayer = Annotated[Caller, Depends(current_player)]


async def organizer(caller: CurrentPlayer) -> Caller:
    if caller.role != "organizer":
        raise ApiError("forbidden", "Only the organizer may do this.")
    return caller


Organizer = Annotated[Caller, Depends(organizer)]


async def player(caller: CurrentPlayer) -> Caller:
    """The caller of a player's move (claim, card play, schedule, trade). R27 (amended): the organizer is not a
    player and never makes one (403 ``forbidden``)."""
    if caller.role == "organizer":
        raise ApiError("forbidden", "The organizer is not a player: the organizer account never claims, plays "
                                    "cards or trades (R27).")
    return caller


#: a signed-in player making a move; the organizer is refused 403 (R27)
PlayerOnly = Annotated[Caller, Depends(player)]
