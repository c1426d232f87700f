"""Players and sessions (R27): registration, sign-in, the caller's profile."""

from __future__ import annotations

import re
import secrets
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator
from sqlalchemy import delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from turf_common.contracts import subjects
from turf_common.contracts.claims import PlayerReply, PlayerRequest
from turf_gateway import session_revocation
from turf_gateway import tables as t
from turf_gateway.accounts import change_status
from turf_gateway.api import schemas as S
from turf_gateway.api.deps import CurrentPlayer, State, bearer_token, token_hash
from turf_gateway.commands import ask_model
from turf_gateway.errors import ApiError
from turf_gateway.geocoding import GeocoderUnavailable, NoGeocoder, normalise_address
from turf_gateway.passwords import dummy_hash, hash_password, verify_password
from turf_gateway.ratelimit import client_ip

router = APIRouter(tags=["players"])
#: expired sessions are deleted at a sign-in at most this often (seconds) per gateway process
PURGE_EVERY_S = 60.0

EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$")
# Discord usernames: 2–32 characters, lower-case letters, digits, "_" and "."; no ".." (Discord's 2023 rules)
DISCORD = re.compile(r"^(?!.*\.\.)[a-z0-9_.]{2,32}$")
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]


class Registration(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    email: Annotated[str, StringConstraints(strip_whitespace=True, max_length=320)]
    discord: Annotated[str, StringConstraints(strip_whitespace=True, max_length=32)]
    home_address: Text
    password: Annotated[str, Field(min_length=8, max_length=200)]

    @field_validator("email")
    @classmethod
    def _email(cls, v: str) -> str:
        if not EMAIL.match(v):
            raise ValueError("not a valid email address")
        return v

    @field_validator("discord")
    @classmethod
    def _discord(cls, v: str) -> str:
        if not DISCORD.match(v.lower()):
            raise ValueError("a Discord username has 2–32 letters, digits, '_' or '.'")
        return v


class Registered(BaseModel):
    id: str
    status: str


class Credentials(BaseModel):
    model_config = ConfigDict(extra="forbid")
    email: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=320)]
    password: Annotated[str, Field(min_length=1, max_length=200)]


class SessionOut(BaseModel):
    token: str
    player_id: str
    role: str


class PublicProfile(BaseModel):
    id: str
    display_name: str
    status: str


async def create_player(state: Any, reg: Registration, role: str = "player", status: str = "pending") -> str:
    pid = uuid.uuid4().hex
    password_hash = await hash_password(reg.password)   # off the event loop (issue 15)
    async with state.engine.begin() as conn:
        taken = (await conn.execute(select(t.players.c.email_norm, t.players.c.discord_norm).where(
            (t.players.c.email_norm == reg.email.lower()) | (t.players.c.discord_norm == reg.discord.lower())
        ))).first()
        if taken is not None:
            if taken.email_norm == reg.email.lower():
                raise ApiError("email_taken", "An account with this email already exists.")
            raise ApiError("discord_taken", "An account with this Discord username already exists.")
        try:
            await conn.execute(insert(t.players).values(
                id=pid, name=reg.name, email=reg.email, email_norm=reg.email.lower(), discord=reg.discord,
                discord_norm=reg.discord.lower(), home_address=reg.home_address,
                password_hash=password_hash, status=status, status_reason=None, role=role,
                created_at=datetime.now(UTC)))
        except IntegrityError:
            raise ApiError("conflict", "That email or Discord username was just taken.") from None
    state.display_names[pid] = reg.discord
    return pid


@router.post("/players", status_code=201, response_model=Registered)
async def register(reg: Registration, state: State, request: Request) -> Registered:
    """Register a player (R27). The home address is geocoded (TURF_GEOCODER); a point inside the board verifies
    the player at once, otherwise the player is ``pending`` with a ``status_reason`` (``not_in_board``,
    ``address_not_found``, ``geocoder_unavailable``) until the organizer decides. Two players at one normalised
    address are both registered and flagged for the organizer (``GET /admin/players``)."""
    await state.limiter.hit("players_ip", client_ip(request))
    pid = await create_player(state, reg)
    reason: str | None = None
    point = None
    try:
        point = await state.geocoder.geocode(reg.home_address)
        if point is None and not isinstance(state.geocoder, NoGeocoder):
            reason = "address_not_found"
    except GeocoderUnavailable:
        reason = "geocoder_unavailable"
    status = "pending"
    async with state.engine.begin() as conn:
        values: dict[str, Any] = {"address_norm": normalise_address(reg.home_address), "status_reason": reason}
        if point is not None:
            values |= {"home_lat": point.lat, "home_lon": point.lon}
            if state.board.locate(point.lat, point.lon).territory_id is None:
                values["status_reason"] = "not_in_board"
        await conn.execute(update(t.players).where(t.players.c.id == pid).values(**values))
        if point is not None and values["status_reason"] is None:
            await change_status(conn, pid, "verified", by="geocoder", reason="home address inside the board",
                                game_now=await state.clock.now())
            status = "verified"
    if status == "verified":
        await state.relay.flush()
    return Registered(id=pid, status=status)


async def purge_expired_sessions(state: Any, now: datetime) -> int:
    """Delete the sessions expired before ``now``; returns how many."""
    async with state.engine.begin() as conn:
        return int((await conn.execute(delete(t.sessions).where(t.sessions.c.expires_at <= now))).rowcount or 0)


@router.post("/sessions", response_model=SessionOut)
async def sign_in(cred: Credentials, state: State, request: Request) -> SessionOut:
    """Sign in: 200 ``{token, player_id, role}``; 401 ``unauthenticated`` for a wrong email or password.

    Issue 15: failed sign-ins are throttled per account *and* client address (``sessions_email``), and per client
    address over all accounts (``sessions_fail_ip``): a client that keeps failing gets 429 ``rate_limited`` with
    ``Retry-After``, and only that client: the right password from another client is never refused for someone
    else's failures. Every attempt also counts against ``sessions_ip``. The argon2 check runs in a small thread
    pool, never on the event loop."""
    ip, email = client_ip(request), cred.email.lower()
    await state.limiter.hit("sessions_ip", ip)
    failures = ("sessions_email", f"{email}|{ip}"), ("sessions_fail_ip", ip)
    await state.limiter.check(*failures[0], failures[1])
    async with state.engine.connect() as conn:
        row = (await conn.execute(select(t.players).where(t.players.c.email_norm == email))).first()
    # an unknown email costs the same hash as a known one, so timing does not tell who is registered
    ok = await verify_password(row.password_hash if row is not None else dummy_hash(), cred.password)
    if row is None or not ok:
        await state.limiter.note(*failures[0], failures[1])
        raise ApiError("unauthenticated", "Wrong email or password.")
    now = datetime.now(UTC)
    if time.monotonic() - state.sessions_purged_at >= PURGE_EVERY_S:
        state.sessions_purged_at = time.monotonic()
        await purge_expired_sessions(state, now)
    token = secrets.token_urlsafe(32)
    async with state.engine.begin() as conn:
        await conn.execute(insert(t.sessions).values(
            token_hash=token_hash(token), player_id=row.id,
            expires_at=now + timedelta(hours=state.settings.session_ttl_hours)))
    return SessionOut(token=token, player_id=row.id, role=row.role)


@router.delete("/sessions", status_code=204)
async def sign_out(caller: CurrentPlayer, state: State, request: Request) -> Response:
    """Sign out: 204, and the token is refused from then on (401). 401 for a token already unknown."""
    h = token_hash(bearer_token(request))
    async with state.engine.begin() as conn:
        await conn.execute(delete(t.sessions).where(t.sessions.c.token_hash == h))
    await session_revocation.revoke(state, token_hash=h)   # issue 21: refused from now on by every gateway
    return Response(status_code=204)


@router.get("/me", response_model=S.Me)
async def me(caller: CurrentPlayer, state: State) -> dict[str, Any]:
    """The caller's own profile, private fields included (R27: only the player and the organizer see them)."""
    async with state.engine.connect() as conn:
        row = (await conn.execute(select(t.players).where(t.players.c.id == caller.id))).one()
    left = await ask_model(state, subjects.CLAIMS_PLAYER, PlayerRequest(player_id=caller.id), PlayerReply)
    return {"id": row.id, "name": row.name, "display_name": row.discord, "email": row.email,
            "discord": row.discord, "home_address": row.home_address, "role": row.role, "status": row.status,
            "status_reason": row.status_reason, "claims_left_today": left.claims_left_today}


@router.get("/players/{player_id}", response_model=PublicProfile)
async def public_profile(player_id: str, state: State) -> PublicProfile:
    async with state.engine.connect() as conn:
        row = (await conn.execute(select(t.players.c.id, t.players.c.discord, t.players.c.status)
                                  .where(t.players.c.id == player_id))).first()
    if row is None:
        raise ApiError("not_found", "No such player.")
    return PublicProfile(id=row.id, display_name=row.discord, status=row.status)
