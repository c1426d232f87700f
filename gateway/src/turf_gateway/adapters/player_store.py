"""The gateway's players, sessions and organizer's log in PostgreSQL (R27, R28): the
:class:`~turf_gateway.ports.PlayerStore` and :class:`~turf_gateway.ports.SessionStore` ports. The use cases are in
:mod:`turf_gateway.handlers.players`."""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import String, bindparam, delete, func, insert, or_, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from turf_common.contracts import subjects
from turf_common.outbox import stage, stage_command
from turf_gateway.adapters import account_store, correction_store
from turf_gateway.adapters import tables as t
from turf_gateway.adapters.account_store import SUBJECT, WITHDRAWN_NAME, change_status, erased, log_action
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.events import disqualification, renaming
from turf_gateway.ports import Account, Caller, NewPlayer, PlayerRow, Point, ProfileChange, RosterRow, StatusChange

#: one organizer start at a time (pg_advisory_xact_lock's key)
ORGANIZER_LOCK = 724502


def _row(r: Any) -> PlayerRow:
    return PlayerRow(id=r.id, name=r.name, email=r.email, discord=r.discord, home_address=r.home_address,
                     role=r.role, status=r.status, status_reason=r.status_reason, created_at=r.created_at,
                     address_norm=r.address_norm,
                     home=Point(r.home_lat, r.home_lon) if r.home_lat is not None else None,
                     email_confirmed=bool(r.email_confirmed), announcements_by_mail=bool(r.announcements_by_mail))


class SqlPlayers:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        # display names, kept for the process's life; R30: a rename updates this gateway's copy at once, and every
        # other replica's when its ``player.renamed`` arrives (:meth:`renamed`)
        self._names: dict[str, str] = {}

    def renamed(self, player_id: str, display_name: str) -> None:
        """R30: ``player.renamed`` from the bus: this replica names the player so from now on."""
        self._names[player_id] = display_name

    async def standing(self, player_id: str) -> tuple[str, str] | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(t.players.c.role, t.players.c.status)
                                      .where(t.players.c.id == player_id))).first()
        return None if row is None else (row.role, row.status)

    async def get(self, player_id: str) -> PlayerRow | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(t.players).where(t.players.c.id == player_id))).first()
        return None if row is None else _row(row)

    async def players(self) -> list[PlayerRow]:
        async with self.engine.connect() as conn:
            rows = (await conn.execute(select(t.players).where(t.players.c.role == "player")
                                       .order_by(t.players.c.created_at, t.players.c.id))).all()
        return [_row(r) for r in rows]

    async def roster(self, after: int, limit: int) -> list[RosterRow]:
        p = t.players.c
        numbered = (select(p.id, p.discord, p.status,
                           (func.row_number().over(order_by=(p.created_at, p.id)) - 1).label("join_index"))
                    .where(p.role == "player").subquery())
        q = (select(numbered).where(numbered.c.status == "verified", numbered.c.join_index > after)
             .order_by(numbered.c.join_index).limit(limit))
        async with self.engine.connect() as conn:
            rows = (await conn.execute(q)).all()
        return [RosterRow(r.join_index, r.id, r.discord) for r in rows]

    async def account(self, email: str) -> Account | None:
        cols = (t.players.c.id, t.players.c.role, t.players.c.password_hash, t.players.c.status)
        async with self.engine.connect() as conn:
            row = (await conn.execute(select(*cols).where(t.players.c.email_norm == email.lower()))).first()
            if row is None:   # R30 (amended): the address a change replaces signs in until the new one is confirmed
                row = (await conn.execute(select(*cols).join(
                    t.account_tokens, t.account_tokens.c.player_id == t.players.c.id).where(
                    t.account_tokens.c.purpose == account_store.PREVIOUS_EMAIL,
                    func.lower(t.account_tokens.c.email) == email.lower()))).first()
        return None if row is None else Account(row.id, row.role, row.password_hash, row.status)

    async def display_names(self, ids: list[str]) -> dict[str, str]:
        missing = [i for i in ids if i not in self._names]
        if missing:
            async with self.engine.connect() as conn:
                rows = (await conn.execute(select(t.players.c.id, t.players.c.discord)
                                           .where(t.players.c.id.in_(missing)))).all()
            self._names.update({r.id: r.discord for r in rows})
        return {i: self._names.get(i, "") for i in ids}

    async def create(self, new: NewPlayer) -> str:
        pid = uuid.uuid4().hex
        async with self.engine.begin() as conn:
            # two rows when the email is one player's and the Discord name another's: the email is named then
            # (reading the first row of no order named either, by chance)
            taken = (await conn.execute(select(t.players.c.email_norm, t.players.c.discord_norm).where(
                (t.players.c.email_norm == new.email.lower()) | (t.players.c.discord_norm == new.discord.lower())
            ))).all()
            if any(r.email_norm == new.email.lower() for r in taken) or await _previous_of(conn, new.email, ""):
                raise ApiError("email_taken", "An account with this email already exists.")
            if taken:
                raise ApiError("discord_taken", "An account with this Discord username already exists.")
            try:
                await conn.execute(insert(t.players).values(
                    id=pid, name=new.name, email=new.email, email_norm=new.email.lower(), discord=new.discord,
                    discord_norm=new.discord.lower(), home_address=new.home_address,
                    password_hash=new.password_hash, status="pending", status_reason=None, role="player",
                    created_at=datetime.now(UTC), announcements_by_mail=False))   # R30: optional mail is opt-in
            except IntegrityError:
                raise ApiError("conflict", "That email or Discord username was just taken.") from None
        self._names[pid] = new.discord
        return pid

    async def place(self, player_id: str, address_norm: str, home: Point | None, status_reason: str | None,
                    verify_at: datetime | None) -> None:
        """Store the geocoded home; with ``verify_at`` (game time) also verify the player, in one transaction."""
        values: dict[str, Any] = {"address_norm": address_norm, "status_reason": status_reason}
        if home is not None:
            values |= {"home_lat": home.lat, "home_lon": home.lon}
        async with self.engine.begin() as conn:
            await conn.execute(update(t.players).where(t.players.c.id == player_id).values(**values))
            if verify_at is not None:
                await change_status(conn, player_id, "verified", by="geocoder",
                                    reason="home address inside the board", game_now=verify_at)

    async def update_profile(self, player_id: str, change: ProfileChange) -> None:
        c, p = change, t.players.c
        values: dict[str, Any] = {}
        if c.name is not None:
            values["name"] = c.name
        if c.announcements_by_mail is not None:
            values["announcements_by_mail"] = c.announcements_by_mail
        if c.discord is not None:
            values |= {"discord": c.discord, "discord_norm": c.discord.lower()}
        if c.email is not None:
            values |= {"email": c.email, "email_norm": c.email.lower(), "email_confirmed": False}
        if c.home_address is not None:
            values |= {"home_address": c.home_address, "address_norm": c.address_norm, "status_reason": c.status_reason,
                       "home_lat": c.home.lat if c.home else None, "home_lon": c.home.lon if c.home else None}
        async with self.engine.begin() as conn:
            await _refuse_taken(conn, player_id, c.email, c.discord)
            row = (await conn.execute(select(p.status, p.discord, p.email).where(p.id == player_id)
                                      .with_for_update())).one()
            if c.email is not None:
                await _keep_previous(conn, player_id, row.email, c.email)
                if c.notice is not None:
                    await stage_command(conn, t.outbox, subjects.NOTIFY_MAIL, c.notice.command_id, c.notice)
            if c.discord is not None and c.discord != row.discord:   # R30: notify and the other replicas learn it
                await stage(conn, t.outbox, subjects.PLAYER_RENAMED,
                            renaming(player_id, c.at or datetime.now(UTC), c.discord))
            if c.home_address is not None and row.status == "verified":   # R30, R27: pending until verified
                values["status"] = "pending"
                await log_action(conn, player_id, "player_pending", player_id, "new home address",
                                 {"before": "verified", "after": "pending"})
            try:
                if values:   # a patch that changes nothing (empty, or the same email) has no SET to write
                    await conn.execute(update(t.players).where(p.id == player_id).values(**values))
            except IntegrityError:
                raise ApiError("conflict", "That email or Discord username was just taken.") from None
            if c.verify_at is not None and values.get("status", row.status) == "pending":
                await change_status(conn, player_id, "verified", by="geocoder",
                                    reason="home address inside the board", game_now=c.verify_at)
        if c.discord is not None:
            self._names[player_id] = c.discord

    async def withdraw(self, player_id: str, at: datetime, post_season: bool) -> None:
        p = t.players.c
        async with self.engine.begin() as conn:
            row = (await conn.execute(select(p.status, p.email).where(p.id == player_id).with_for_update())).one()
            if row.status in ("disqualified", "withdrawn"):
                raise ApiError("conflict", f"This account is {row.status} already.")
            o, to = t.outbox.c, '"to":' + json.dumps(row.email)   # R30: mail requests to the address go with it
            await conn.execute(delete(t.outbox).where(o.subject == subjects.NOTIFY_MAIL,
                                                      o.payload.contains(to, autoescape=True)))
            await conn.execute(update(t.players).where(p.id == player_id).values(**erased(player_id)))
            await conn.execute(delete(t.sessions).where(t.sessions.c.player_id == player_id))
            await conn.execute(delete(t.account_tokens).where(t.account_tokens.c.player_id == player_id))
            await log_action(conn, player_id, "player_withdrawn", player_id, "the player withdrew (R30)",
                             {"before": row.status, "after": "withdrawn"})
            await correction_store.append(
                conn, cid=uuid.uuid4().hex, at=at, by=player_id, action="withdrawal",
                reason="the player withdrew (R30)", post_season=post_season, request={"player_id": player_id},
                before={"status": row.status}, after={"status": "withdrawn"}, player_id=player_id)
            await stage(conn, t.outbox, SUBJECT["disqualified"], disqualification(player_id, at, withdrawn=True))
        self._names[player_id] = WITHDRAWN_NAME

    async def erase_homes(self) -> int:
        p = t.players.c
        async with self.engine.begin() as conn:
            done = await conn.execute(update(t.players).where(p.role == "player", p.home_address != "")
                                      .values(home_address="", address_norm=None, home_lat=None, home_lon=None))
            return int(done.rowcount or 0)

    async def set_password(self, player_id: str, password_hash: str, keep_session: str | None) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(update(t.players).where(t.players.c.id == player_id)
                               .values(password_hash=password_hash))
            await conn.execute(delete(t.sessions).where(t.sessions.c.player_id == player_id,
                                                        t.sessions.c.token_hash != (keep_session or "")))

    async def change_status(self, change: StatusChange) -> str:
        c = change
        async with self.engine.begin() as conn:
            before = await change_status(conn, c.player_id, c.new, by=c.by, reason=c.reason or None,
                                         game_now=c.at, note=c.note)
            if c.mail is not None and before != c.new:
                await stage_command(conn, t.outbox, subjects.NOTIFY_MAIL, c.mail.command_id, c.mail)
            if c.new == "disqualified" and before != c.new:   # R28: also a correction, logged with it
                await correction_store.append(
                    conn, cid=uuid.uuid4().hex, at=c.at, by=c.by, action="disqualify", reason=c.reason or "-",
                    post_season=c.post_season,
                    request={"player_id": c.player_id} | ({"note": c.note} if c.note else {}),
                    before={"status": before}, after={"status": c.new}, player_id=c.player_id)
        return before

    async def log_action(self, by: str, action: str, target: str | None, reason: str | None,
                         detail: dict[str, Any]) -> None:
        async with self.engine.begin() as conn:
            await log_action(conn, by, action, target, reason, detail)

    async def ensure_organizer(self, email: str, password_hash: str,
                               same_password: Callable[[str], Awaitable[bool]]) -> list[str]:
        """The organizer account exists with ``password_hash``; returns the ids whose sessions were deleted: the
        organizer's when its stored password was another (``await same_password(stored_hash)`` false), and every
        former organizer's (another email than ``email``: demoted, see :data:`account_store.FORMER_ORGANIZER`)."""
        revoked: list[str] = []
        async with self.engine.begin() as conn:
            # gateways start together (two replicas on a new database): one at a time, so the second finds the
            # account the first made instead of failing its start on the unique email
            await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": ORGANIZER_LOCK})
            former = (await conn.execute(select(t.players.c.id).where(
                t.players.c.role == "organizer", t.players.c.email_norm != email.lower()))).scalars().all()
            for fid in former:   # TURF_ORGANIZER_EMAIL changed: the old account keeps no power, password or session
                await conn.execute(delete(t.sessions).where(t.sessions.c.player_id == fid))
                await conn.execute(update(t.players).where(t.players.c.id == fid).values(
                    role=account_store.FORMER_ORGANIZER, password_hash="", discord=account_store.former_discord(fid),
                    discord_norm=account_store.former_discord(fid)))
                revoked.append(fid)
            row = (await conn.execute(select(t.players.c.id, t.players.c.password_hash)
                                      .where(t.players.c.email_norm == email.lower()))).first()
            if row is not None:
                if not await same_password(row.password_hash):
                    await conn.execute(delete(t.sessions).where(t.sessions.c.player_id == row.id))
                    revoked.append(row.id)
                await conn.execute(update(t.players).where(t.players.c.id == row.id).values(
                    role="organizer", status="verified", password_hash=password_hash))
            else:
                await conn.execute(insert(t.players).values(
                    id=uuid.uuid4().hex, name="Organizer", email=email, email_norm=email.lower(),
                    discord="organizer", discord_norm="organizer", home_address="-", password_hash=password_hash,
                    status="verified", role="organizer", created_at=datetime.now(UTC)))
        return revoked


async def _previous_of(conn: Any, email: str, player_id: str) -> bool:
    """Whether ``email`` is the address another player's change replaced, which still signs in (R30, amended)."""
    k = t.account_tokens.c
    return (await conn.execute(select(k.player_id).where(
        k.purpose == account_store.PREVIOUS_EMAIL, func.lower(k.email) == email.lower(),
        k.player_id != player_id))).first() is not None


async def _keep_previous(conn: Any, player_id: str, current: str, new: str) -> None:
    """R30 (amended 2026-12-07): a new address is not yet the account's only one. The address it replaces is kept
    (as a ``previous_email`` row of ``account_tokens``, which no link uses) and signs in until the new one is
    confirmed; a second change before that keeps the first address; a change back to it drops it."""
    k = t.account_tokens.c
    kept = (await conn.execute(select(k.email).where(k.player_id == player_id,
                                                     k.purpose == account_store.PREVIOUS_EMAIL))).scalar()
    if kept is not None and kept.lower() == new.lower():
        await conn.execute(delete(t.account_tokens).where(k.player_id == player_id,
                                                          k.purpose == account_store.PREVIOUS_EMAIL))
    elif kept is None:
        await conn.execute(insert(t.account_tokens).values(
            token_hash=account_store.previous_key(player_id), player_id=player_id,
            purpose=account_store.PREVIOUS_EMAIL, email=current, expires_at=account_store.NEVER))


async def _refuse_taken(conn: Any, player_id: str, email: str | None, discord: str | None) -> None:
    """409 ``email_taken`` / ``discord_taken`` when another player has the address or name (R27, R30), or still
    signs in with the address (R30, amended)."""
    p = t.players.c
    if email is not None and ((await conn.execute(select(p.id).where(
            p.email_norm == email.lower(), p.id != player_id))).first() is not None
            or await _previous_of(conn, email, player_id)):
        raise ApiError("email_taken", "An account with this email already exists.")
    if discord is not None and (await conn.execute(select(p.id).where(
            p.discord_norm == discord.lower(), p.id != player_id))).first() is not None:
        raise ApiError("discord_taken", "An account with this Discord username already exists.")


#: R31: the seasons the player joined, read with the session in the same statement (its primary key's index)
_JOINED = (select(func.array_agg(t.season_players.c.season_id))
           .where(t.season_players.c.player_id == t.players.c.id).scalar_subquery())
# built once: the lookup runs on every authenticated request
_SESSION = (select(t.players.c.id, t.players.c.role, t.players.c.status, t.players.c.discord, t.players.c.home_lat,
                   t.players.c.home_lon, t.sessions.c.expires_at, t.sessions.c.idle_until, _JOINED.label("joined"))
            .join(t.sessions, t.sessions.c.player_id == t.players.c.id)
            .where(t.sessions.c.token_hash == bindparam("h", type_=String)))


class SqlSessions:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def lookup(self, token_hash: str) -> tuple[Caller, datetime, datetime | None] | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(_SESSION, {"h": token_hash})).first()
        if row is None:
            return None
        home = Point(row.home_lat, row.home_lon) if row.home_lat is not None else None
        return (Caller(row.id, row.role, row.status, row.discord, home, frozenset(row.joined or ())),
                row.expires_at, row.idle_until)

    async def create(self, token_hash: str, player_id: str, expires_at: datetime,
                     idle_until: datetime | None = None) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(insert(t.sessions).values(token_hash=token_hash, player_id=player_id,
                                                         expires_at=expires_at, idle_until=idle_until))

    async def touch(self, token_hash: str, idle_until: datetime) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(update(t.sessions).where(t.sessions.c.token_hash == token_hash)
                               .values(idle_until=idle_until))

    async def delete(self, token_hash: str) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(delete(t.sessions).where(t.sessions.c.token_hash == token_hash))

    async def purge(self, now: datetime) -> int:
        async with self.engine.begin() as conn:
            return int((await conn.execute(delete(t.sessions).where(
                or_(t.sessions.c.expires_at <= now, t.sessions.c.idle_until <= now)))).rowcount or 0)
