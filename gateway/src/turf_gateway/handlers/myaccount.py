"""R30's "my account": a player changes their name, Discord name, email and home address, and their password (the
current one required; their other sessions end). A new email is unconfirmed until its mailed link is used; a new
home address makes the player ``pending`` until verified again (R27), what they own untouched; an address outside
the board is refused and changes nothing."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Annotated

import structlog
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from turf_common.bus import BusError
from turf_common.contracts import subjects
from turf_common.contracts.notify import Done, ForgetMail
from turf_common.contracts.players import EraseTrails, PlayerApplied, TrailsErased
from turf_common.rules import gametime
from turf_gateway.adapters.geocoding import normalise_address
from turf_gateway.adapters.passwords import dummy_hash, hash_password, verify_password
from turf_gateway.api import schemas as S
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers import password_policy
from turf_gateway.handlers.accounts import Accounts
from turf_gateway.handlers.calendar import config_at
from turf_gateway.handlers.events import disqualification
from turf_gateway.handlers.players import DISCORD, EMAIL, Players
from turf_gateway.handlers.tokens import token_hash
from turf_gateway.ports import Caller, PlayerRow, ProfileChange

log = structlog.get_logger(__name__)


class ProfilePatch(BaseModel):
    """``PATCH /me``: any of the profile's fields, validated as at registration."""

    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)] | None = None
    email: Annotated[str, StringConstraints(strip_whitespace=True, max_length=320)] | None = None
    discord: Annotated[str, StringConstraints(strip_whitespace=True, max_length=32)] | None = None
    home_address: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)] | None = None
    announcements_by_mail: bool | None = None   # R30: optional mail (announcements, final results; never rule changes)

    @field_validator("email")
    @classmethod
    def _email(cls, v: str | None) -> str | None:
        if v is not None and not EMAIL.match(v):
            raise ValueError("not a valid email address")
        return v

    @field_validator("discord")
    @classmethod
    def _discord(cls, v: str | None) -> str | None:
        if v is not None and not DISCORD.match(v.lower()):
            raise ValueError("a Discord username has 2–32 letters, digits, '_' or '.'")
        return v

    @model_validator(mode="after")
    def _something(self) -> ProfilePatch:
        if not self.model_fields_set:
            raise ValueError("give at least one of name, email, discord, home_address, announcements_by_mail")
        return self


class Withdrawal(BaseModel):
    model_config = ConfigDict(extra="forbid")
    password: Annotated[str, Field(min_length=1, max_length=password_policy.MAX_LENGTH)]


class PasswordChange(BaseModel):
    model_config = ConfigDict(extra="forbid")
    current_password: Annotated[str, Field(min_length=1, max_length=password_policy.MAX_LENGTH)]
    new_password: Annotated[str, Field(min_length=1, max_length=password_policy.MAX_LENGTH)]


@dataclass
class MyAccount:
    players: Players
    accounts: Accounts

    async def update(self, caller: Caller, patch: ProfilePatch) -> S.Me:
        """R30: 200 the profile as ``GET /me``; 409 ``email_taken`` / ``discord_taken``, 409 ``not_in_board`` for a
        new home outside the board (nothing changed); 403 for the organizer (its account is the deployment's)."""
        if caller.role == "organizer":
            raise ApiError("forbidden", "The organizer's account is set by the deployment (TURF_ORGANIZER_*).")
        row = await self.players.players.get(caller.id)
        assert row is not None
        renamed = patch.discord is not None and patch.discord != row.discord
        email = patch.email if patch.email and patch.email != row.email else None
        # R30 (amended 2026-12-07): the address a change replaces is told, and signs in until the new one is confirmed
        notice = (self.accounts.address_changed(row.email, patch.name or row.name, await self.players.clock.now())
                  if email is not None else None)
        change = ProfileChange(name=patch.name, discord=patch.discord, email=email,
                               announcements_by_mail=patch.announcements_by_mail,
                               at=await self.players.clock.now() if renamed else None, notice=notice)
        if patch.home_address is not None and patch.home_address != row.home_address:   # the same: no change
            home, reason = await self.players.judge_home(patch.home_address)
            if reason == "not_in_board":
                raise ApiError("not_in_board", "That home address is outside the game's board; your address is "
                                               "unchanged (R27).")
            verified = home is not None and reason is None
            change = ProfileChange(
                name=change.name, discord=change.discord, email=change.email,
                announcements_by_mail=change.announcements_by_mail, home_address=patch.home_address,
                address_norm=normalise_address(patch.home_address), home=home, status_reason=reason,
                verify_at=await self.players.clock.now() if verified else None, at=change.at, notice=notice)
        await self.players.players.update_profile(caller.id, change)
        await self.players.revocations.revoke(player_id=caller.id)   # no gateway answers the old status from cache
        await self.players.relay.flush()   # player.verified (a verification at once), player.renamed (R30)
        if change.email is not None:
            await self.accounts.send_confirmation(caller.id, change.email, patch.name or row.name, change=True)
        return await self.players.me(caller)

    async def _check_password(self, caller: Caller, password: str) -> PlayerRow:
        """The caller's row when ``password`` is theirs; 401 ``unauthenticated`` otherwise (``password_player``
        counts each try: 429 past it)."""
        await self.players.limiter.hit("password_player", caller.id)
        row = await self.players.players.get(caller.id)
        stored = await self.players.players.account(row.email) if row is not None else None
        ok = await verify_password(stored.password_hash if stored is not None else dummy_hash(), password)
        if row is None or stored is None or not ok:
            raise ApiError("unauthenticated", "Your password is not right; nothing was changed.")
        return row

    async def check_password(self, caller: Caller, password: str) -> None:
        """R30: 401 ``unauthenticated`` unless ``password`` is the caller's (counted as every password asked of a
        signed-in player: 429 past ``password_player``); changes nothing."""
        await self._check_password(caller, password)

    async def withdraw(self, caller: Caller, password: str) -> None:
        """R30: the player leaves for good, their password required (401 otherwise): as a disqualification (R28:
        towns unclaimed, windows, schedules and trades ended, out of the standings, answered once claims and
        scoring applied it), no more sign-in, personal data erased here and in every service (the event's
        ``withdrawn``). 403 for the organizer."""
        if caller.role == "organizer":
            raise ApiError("forbidden", "The organizer is not a player and cannot withdraw (R27).")
        row = await self._check_password(caller, password)
        p = self.players
        now = await p.clock.now()
        await p.players.withdraw(caller.id, now, gametime.season_state(config_at(p.season, now), now) == "closed")
        await p.revocations.revoke(player_id=caller.id)
        await p.relay.flush()
        ev = disqualification(caller.id, now, withdrawn=True)
        await asyncio.gather(*(p.services.ask(subject, ev, PlayerApplied, 15)
                               for subject in (subjects.CLAIMS_DISQUALIFY, subjects.SCORING_DISQUALIFY)))
        try:   # the trail geo-verify keeps of their fixes (R7.1; not answered: logged, it expires by itself)
            await p.services.ask(subjects.GEO_ERASE_TRAILS, EraseTrails(player_id=caller.id), TrailsErased, 15)
        except BusError:
            log.warning("trail_not_erased")
        try:   # the mail queue's copies of their address (a bus that does not answer: logged, kept)
            await p.services.ask(subjects.NOTIFY_MAIL_FORGET, ForgetMail(to=row.email), Done)
        except BusError:
            log.warning("mail_not_forgotten")

    async def change_password(self, caller: Caller, body: PasswordChange, token: str) -> None:
        """R30: 401 ``unauthenticated`` for a wrong current password, 422 ``weak_password``; the caller's other
        sessions end (this one stays). Wrong guesses count against ``password_player`` (429 past it)."""
        acc = await self._check_password(caller, body.current_password)
        if refused := password_policy.refusal(body.new_password, acc.email, (acc.name, acc.discord)):
            raise ApiError(refused.reason, refused.message, 422)
        await self.players.players.set_password(caller.id, await hash_password(body.new_password),
                                                keep_session=token_hash(token))
        await self.players.revocations.revoke(player_id=caller.id)   # the ended sessions, from every cache
