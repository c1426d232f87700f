"""Players and sessions (R27): registration, sign-in, the caller's profile. The use cases are
:class:`turf_gateway.handlers.players.Players`."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from turf_gateway.adapters.ratelimit import client_ip
from turf_gateway.api import schemas as S
from turf_gateway.api.deps import CurrentPlayer, PlayersCase, bearer_token
from turf_gateway.handlers.players import Registration

router = APIRouter(tags=["players"])


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")
    email: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=320)]
    password: Annotated[str, Field(min_length=1, max_length=200)]


@router.post("/players", status_code=201, response_model=S.Registered)
async def register(reg: Registration, players: PlayersCase, request: Request) -> S.Registered:
    """Register a player (R27). The home address is geocoded (TURF_GEOCODER); a point inside the board verifies
    the player at once, otherwise the player is ``pending`` with a ``status_reason`` (``not_in_board``,
    ``address_not_found``, ``geocoder_unavailable``) until the organizer decides. Two players at one normalised
    address are both registered and flagged for the organizer (``GET /admin/players``). 503 ``unavailable`` with
    ``Retry-After`` when the password-hashing queue is full."""
    return await players.register(reg, client_ip(request))


@router.post("/sessions", response_model=S.SessionOut)
async def sign_in(cred: Credentials, players: PlayersCase, request: Request) -> S.SessionOut:
    """Sign in: 200 ``{token, player_id, role}``; 401 ``unauthenticated`` for a wrong email or password.

    Failed sign-ins are throttled per account *and* client address (``sessions_email``), and per client
    address over all accounts (``sessions_fail_ip``): a client that keeps failing gets 429 ``rate_limited`` with
    ``Retry-After``, and only that client: the right password from another client is never refused for someone
    else's failures. Every attempt also counts against ``sessions_ip``. The argon2 check runs in a small thread
    pool, never on the event loop.

    An attempt counts as a failure from before its hash (concurrent guesses are throttled like sequential
    ones); an account failing from many addresses (``sessions_account``) is slowed for addresses it never signed
    in from (``sessions_account_slow``), never locked; 503 ``unavailable`` with ``Retry-After`` when the hashing
    queue is full (``TURF_PASSWORD_QUEUE``); 403 ``not_eligible`` for a disqualified or rejected player's right
    password (a pending player signs in)."""
    return await players.sign_in(cred.email, cred.password, client_ip(request))


@router.delete("/sessions", status_code=204)
async def sign_out(caller: CurrentPlayer, players: PlayersCase, request: Request) -> Response:
    """Sign out: 204, and the token is refused from then on (401). 401 for a token already unknown."""
    await players.sign_out(bearer_token(request))
    return Response(status_code=204)


@router.get("/me", response_model=S.Me)
async def me(caller: CurrentPlayer, players: PlayersCase) -> S.Me:
    """The caller's own profile, private fields included (R27: only the player and the organizer see them)."""
    return await players.me(caller)


@router.get("/players/{player_id}", response_model=S.PublicProfile)
async def public_profile(player_id: str, players: PlayersCase) -> S.PublicProfile:
    return await players.profile(player_id)
