"""Players and sessions as use cases (R27, R28): registration, sign-in and out, the caller behind a token, profiles,
the organizer's status changes. They stay in the gateway: the session lookup is on every request's path, and a
players service would add a NATS round trip to each (the gateway's cache answers most lookups without one)."""

from __future__ import annotations

import asyncio
import re
import secrets
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from turf_common.board import Board
from turf_common.contracts import subjects
from turf_common.contracts.claims import PlayerReply, PlayerRequest
from turf_common.contracts.notify import QueueMail
from turf_common.contracts.players import PlayerApplied
from turf_common.outbox import OutboxFlush
from turf_common.rules import gametime
from turf_common.rules.households import Home, households
from turf_gateway.adapters.geocoding import Geocoder, GeocoderUnavailable, NoGeocoder, normalise_address
from turf_gateway.adapters.passwords import dummy_hash, hash_password, verify_password
from turf_gateway.adapters.ratelimit import KNOWN_FOR_S
from turf_gateway.adapters.session_cache import SessionCache
from turf_gateway.api import schemas as S
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers import password_policy
from turf_gateway.handlers.calendar import SeasonSource, config_at
from turf_gateway.handlers.events import disqualification, verification
from turf_gateway.handlers.seasons import Seasons
from turf_gateway.handlers.session_idle import IdlePolicy
from turf_gateway.handlers.tokens import token_hash
from turf_gateway.ports import (
    ROSTER_PAGE,
    Caller,
    GameClock,
    Limiter,
    NewPlayer,
    PlayerStore,
    Point,
    Revocations,
    RosterRow,
    Services,
    SessionStore,
    StatusChange,
)

if TYPE_CHECKING:
    from turf_gateway.handlers.accounts import Accounts

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
    # the schema's bounds are as the OpenAPI document has them; guessability (and 8 characters once runs of spaces
    # count as one) is the password policy's (``register``: 422 ``weak_password`` with its sentence)
    password: Annotated[str, Field(min_length=8, max_length=password_policy.MAX_LENGTH)]

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


@dataclass
class Sessions:
    """The caller behind a bearer token: from the session cache (a few seconds), else the store."""

    store: SessionStore
    cache: SessionCache[Caller]
    idle: IdlePolicy = field(default_factory=IdlePolicy)

    async def caller(self, token: str) -> Caller:
        """401 ``unauthenticated`` for an unknown token, an expired session or one unused for longer than its
        idle time (:class:`~turf_gateway.handlers.session_idle.IdlePolicy`); a use moves the idle deadline on."""
        h = token_hash(token)
        now = datetime.now(UTC)
        hit = self.cache.get(h)
        if hit is not None and hit.expires_at > now:
            return hit.caller
        generation = self.cache.generation
        found = await self.store.lookup(h)
        if found is None or self.idle.ends(found[1], found[2]) <= now:
            raise ApiError("unauthenticated", "Your session is unknown or has expired; sign in again.")
        caller, expires_at, idle_until = found
        moved = self.idle.moved(caller.role, now, expires_at, idle_until)
        if moved is not None:
            await self.store.touch(h, moved)
            idle_until = moved
        self.cache.put(h, caller.id, caller, self.idle.ends(expires_at, idle_until), generation)
        return caller


@dataclass
class Players:
    players: PlayerStore
    sessions: SessionStore
    revocations: Revocations
    services: Services
    limiter: Limiter
    geocoder: Geocoder
    board: Board
    clock: GameClock
    season: SeasonSource   # R31: the season in force (a change after its close is post-season, R28)
    relay: OutboxFlush
    session_ttl: timedelta
    accounts: Accounts | None = None   # R30: the email confirmation mailed at registration
    purged_at: float = field(default=float("-inf"))   # time.monotonic() of the last purge of expired sessions
    idle: IdlePolicy = field(default_factory=IdlePolicy)
    profiles: SessionCache[Caller] | None = None   # GET /me's profiles kept with the sessions, dropped with them
    seasons: Seasons | None = None   # R31: registering joins a season; GET /me lists the seasons joined

    async def register(self, reg: Registration, ip: str) -> S.Registered:
        """Register a pending player (R27); a geocoded home inside the board verifies at once, otherwise the
        ``status_reason`` says why not (``not_in_board``, ``address_not_found``, ``geocoder_unavailable``). A
        password the policy refuses (:mod:`turf_gateway.handlers.password_policy`) is 422 ``weak_password`` and changes
        nothing."""
        weak = password_policy.refusal(reg.password, reg.email, (reg.name, reg.discord))
        if weak is not None:
            raise ApiError(weak.reason, weak.message, 422)
        await self.limiter.hit("players_ip", ip)
        pid = await self.players.create(NewPlayer(reg.name, reg.email, reg.discord, reg.home_address,
                                                  await hash_password(reg.password, client=ip)))   # off the loop
        home, reason = await self.judge_home(reg.home_address)
        verified = home is not None and reason is None
        await self.players.place(pid, normalise_address(reg.home_address), home, reason,
                                 await self.clock.now() if verified else None)
        if self.seasons is not None:
            await self.seasons.join_on_registration(pid, reg.home_address)
        if verified:
            await self.relay.flush()
        if self.accounts is not None:
            await self.accounts.send_confirmation(pid, reg.email, reg.name)
        return S.Registered(id=pid, status="verified" if verified else "pending")

    async def judge_home(self, address: str) -> tuple[Point | None, str | None]:
        """R27: the geocoded home and why it does not verify the player (None: inside the board):
        ``address_not_found``, ``geocoder_unavailable``, ``not_in_board``. No geocoder: no point, no reason."""
        reason: str | None = None
        home = None
        try:
            point = await self.geocoder.geocode(address)
            if point is None and not isinstance(self.geocoder, NoGeocoder):
                reason = "address_not_found"
            home = Point(point.lat, point.lon) if point is not None else None
        except GeocoderUnavailable:
            reason = "geocoder_unavailable"
        if home is not None and self.board.locate(home.lat, home.lon).territory_id is None:
            reason = "not_in_board"
        return home, reason

    async def sign_in(self, email: str, password: str, ip: str) -> S.SessionOut:
        """A new session; 401 for a wrong email or password; 403 ``not_eligible`` for a disqualified or rejected
        player's right password; 429 (:meth:`_admit`); 503 ``unavailable`` with ``Retry-After`` when the
        hashing queue is full (:mod:`turf_gateway.adapters.passwords`). The argon2 check runs off the event loop."""
        account = email.lower()
        known, failures = await self._admit(account, ip)
        wrong = False
        try:
            acc = await self.players.account(email)
            # an unknown email costs the same hash as a known one, so timing does not tell who is registered;
            # the organizer's account and an address the account signed in from are never starved by strangers
            priority = acc is not None and (known or acc.role == "organizer")
            ok = await verify_password(acc.password_hash if acc is not None else dummy_hash(), password,
                                       client=f"{account}|{ip}" if priority else ip, priority=priority)
            wrong = acc is None or not ok
        finally:   # a right password, a full hashing queue (503) or a store that failed: no failure to count
            if not wrong:
                await self.limiter.undo(*failures[0], *failures[1:])
        if wrong or acc is None:
            raise ApiError("unauthenticated", "Wrong email or password.")
        await self.limiter.remember("sessions_known", f"{account}|{ip}", KNOWN_FOR_S)
        if acc.status in ("disqualified", "rejected"):
            raise ApiError("not_eligible", f"This account is {acc.status} (R27, R28); it can no longer sign in.",
                           403)
        now = datetime.now(UTC)
        if time.monotonic() - self.purged_at >= PURGE_EVERY_S:
            self.purged_at = time.monotonic()
            await self.sessions.purge(now)
        token = secrets.token_urlsafe(32)
        expires_at = now + self.session_ttl
        await self.sessions.create(token_hash(token), acc.id, expires_at, self.idle.first(acc.role, now, expires_at))
        return S.SessionOut(token=token, player_id=acc.id, role=acc.role)

    async def _admit(self, account: str, ip: str) -> tuple[bool, list[tuple[str, str]]]:
        """Count this attempt against the sign-in limits, before any hash; whether the account signed in from
        this address before, and the failure counters it took provisionally (to be undone on a success).
        Every attempt per address (``sessions_ip``), failures per account and address (``sessions_email``) and
        per address (``sessions_fail_ip``). The failure
        is counted (one atomic INCR) before the hash, not after: 40 concurrent guesses all read the count before
        any was written, and all got 401. And failures per account from every address (``sessions_account``):
        over it, each address the account never signed in from is slowed for that account: one attempt per
        ``sessions_account_slow`` window and ``sessions_account_client`` attempts per quarter hour (429 with
        ``Retry-After``). The slow-down is per (account, client), never one slot per account: an attacker hammering
        from elsewhere used to take every slot, and the owner's right password from a new address got 429 for as
        long as the attack lasted; now the owner's first attempt from anywhere is taken at once, and a botnet's
        addresses each get a few guesses a quarter hour."""
        await self.limiter.hit("sessions_ip", ip)
        pair = f"{account}|{ip}"
        known = await self.limiter.remembers("sessions_known", pair)
        if not known and await self.limiter.over("sessions_account", account):
            await self.limiter.hit("sessions_account_slow", pair, ("sessions_account_client", pair))
        failures = [("sessions_email", pair), ("sessions_fail_ip", ip)]
        await self.limiter.hit(*failures[0], failures[1])
        await self.limiter.note("sessions_account", account)
        return known, [*failures, ("sessions_account", account)]

    async def sign_out(self, token: str) -> None:
        h = token_hash(token)
        await self.sessions.delete(h)
        await self.revocations.revoke(token_hash=h)   # refused from now on by every gateway

    async def me(self, caller: Caller) -> S.Me:
        """The profile from the session cache's memory when it holds it (dropped with the player's
        sessions, by the status and role changes that alone change it), else the store; the claims left from the
        claims service, which keeps them."""
        row = self.profiles.profile(caller.id) if self.profiles is not None else None
        if row is None:
            generation = self.profiles.generation if self.profiles is not None else 0
            row = await self.players.get(caller.id)
            assert row is not None   # the session's player
            if self.profiles is not None:
                self.profiles.keep_profile(caller.id, row, generation)
        left = await self.services.ask(subjects.CLAIMS_PLAYER, PlayerRequest(player_id=caller.id), PlayerReply)
        return S.Me(id=row.id, name=row.name, display_name=row.discord, email=row.email, discord=row.discord,
                    home_address=row.home_address, role=row.role, status=row.status,  # type: ignore[arg-type]
                    status_reason=row.status_reason, claims_left_today=left.claims_left_today,
                    email_confirmed=row.email_confirmed, announcements_by_mail=row.announcements_by_mail,
                    # R31: as the session carries them (a join drops the cached caller)
                    seasons=await self.seasons.in_order(caller.seasons) if self.seasons is not None else [])

    async def profile(self, player_id: str) -> S.PublicProfile:
        row = await self.players.get(player_id)
        if row is None:
            raise ApiError("not_found", "No such player.")
        return S.PublicProfile(id=row.id, display_name=row.discord, status=row.status)

    async def roster(self, after: int = -1, limit: int = ROSTER_PAGE) -> tuple[list[RosterRow], int | None]:
        """A page of the verified players in join order (see PlayerStore.roster), after join index
        ``after``, and the next page's ``after`` (None on the last page)."""
        rows = await self.players.roster(after, limit + 1)
        return rows[:limit], (rows[limit - 1].join_index if len(rows) > limit else None)

    async def set_status(self, by: str, player_id: str, new: str, reason: str, note: str | None) -> S.PlayerStatus:
        """Change a player's status (R27). A disqualification is also a correction (R28): its log record commits
        with the status change, and the answer waits until claims and scoring have applied it (the territories
        freed, the player out of the standings: the next read shows it; a repeat asks again, applied once); a
        verification waits for scoring likewise (the player in the standings).
        ``note`` goes to the organizer's logs only, never to the public record or the feed."""
        now = await self.clock.now()
        before = await self.players.change_status(StatusChange(
            player_id, new, by, reason, note, now, gametime.season_state(config_at(self.season, now), now) == "closed",
            await self._verified_mail(player_id) if new == "verified" else None))
        if before != new:   # no gateway answers the old status (or a dead session) from its cache
            await self.revocations.revoke(player_id=player_id)
        await self.relay.flush()
        # read-your-writes for the organizer (and everyone after): the services that own the effect apply it now
        if new == "disqualified":   # R28: territories freed, out of the standings
            ev = disqualification(player_id, now)
            await asyncio.gather(*(self.services.ask(subject, ev, PlayerApplied, 15)
                                   for subject in (subjects.CLAIMS_DISQUALIFY, subjects.SCORING_DISQUALIFY)))
        elif new == "verified":   # R25: in the standings at 0
            name = (await self.players.display_names([player_id]))[player_id]
            await self.services.ask(subjects.SCORING_VERIFY, verification(player_id, now, name), PlayerApplied, 15)
        return S.PlayerStatus(id=player_id, status=new)

    async def _verified_mail(self, player_id: str) -> QueueMail | None:
        """R27: the mail telling a player the organizer verified them, with the play page's link (none without
        the accounts' mail, or for no such player)."""
        row = await self.players.get(player_id)
        if self.accounts is None or row is None or row.role != "player":
            return None
        return QueueMail(command_id=uuid.uuid4().hex, to=row.email, kind="verified", name=row.name,
                         link=self.accounts.base_url + "/", at=await self.clock.now())

    async def admin_players(self) -> S.AdminPlayers:
        """Every player with private fields and the R27 duplicate-address flag, for the organizer."""
        rows = await self.players.players()
        # By geocoded point where both have one ("1 Main St" and "1 Main Street"), else by the string
        shared = households([Home(r.id, r.address_norm, (r.home.lat, r.home.lon) if r.home else None)
                             for r in rows])
        return S.AdminPlayers(players=[S.AdminPlayer(
            id=r.id, name=r.name, display_name=r.discord, email=r.email, discord=r.discord,
            home_address=r.home_address, status=r.status, status_reason=r.status_reason,
            email_confirmed=r.email_confirmed, created_at=r.created_at.isoformat(),
            home=S.Point(lat=r.home.lat, lon=r.home.lon) if r.home else None,
            same_address_as=shared[r.id]) for r in rows])

    async def ensure_organizer(self, email: str, password: str) -> None:
        """The organizer account exists at start with the configured password (the operator's choice: no player
        rules). When it was another, every session of the organizer ends (a password changed because it
        leaked also shuts out whoever signed in with it). A changed ``TURF_ORGANIZER_EMAIL`` demotes the old
        account (no organizer rights, no usable password) and ends its sessions: before, it stayed organizer
        with its old password, or the new account's start failed on the name ``organizer``."""
        async def same(stored: str) -> bool:
            return await verify_password(stored, password, bounded=False)

        revoked = await self.players.ensure_organizer(email, await hash_password(password, bounded=False), same)
        for player_id in revoked:   # a replica not restarted yet forgets these sessions too (the session cache)
            await self.revocations.revoke(player_id=player_id)

