"""The organizer's seasons and who joined which (R31), in the gateway's schema: :class:`SqlSeasons`.

A season is written with its ``season.created`` / ``season.updated`` event (outbox, one transaction) and a line of
the organizer's action log; a join is a row ``(season, player)`` that a repeat leaves as it is."""

from __future__ import annotations

import uuid
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from turf_common.contracts import subjects
from turf_common.contracts.seasons import SeasonCreated, SeasonJoined, SeasonUpdated
from turf_common.outbox import stage
from turf_common.rules.gametime import SeasonConfig
from turf_common.rules.seasons import Prize, Season
from turf_gateway.adapters import tables as t


class SeasonIdTaken(Exception):
    """A season of that id exists already (R31: ids are unique)."""


def prizes_json(season: Season) -> list[dict[str, str | int]]:
    return [{"place": p.place, "amount": f"{p.amount:.2f}"} for p in season.prizes]


def announced(season: Season, at: datetime, *, created: bool) -> SeasonCreated | SeasonUpdated:
    """The season's ``season.created`` (or ``season.updated``) event at game instant ``at``."""
    kind = SeasonCreated if created else SeasonUpdated
    return kind(occurred_at=at, season_id=season.id, name=season.name, config=season.config.to_dict(),
                prizes=prizes_json(season), seed_commitment=season.seed_commitment, rehearsal=season.rehearsal)


def joined_event(season_id: str, player_id: str, at: datetime) -> SeasonJoined:
    """R31: ``season.joined``, once per player and season (its event id says which)."""
    return SeasonJoined(event_id=f"joined:{season_id}:{player_id}", occurred_at=at, season_id=season_id,
                        player_id=player_id)


def from_row(row: Any) -> Season:
    return Season(SeasonConfig.from_dict(row.config), row.name,
                  tuple(Prize(int(p["place"]), Decimal(p["amount"])) for p in row.prizes), row.seed_commitment,
                  row.rehearsal)


class SqlSeasons:
    """:class:`turf_gateway.ports.SeasonStore` on PostgreSQL."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def all(self) -> list[Season]:
        async with self.engine.connect() as conn:
            return [from_row(r) for r in await conn.execute(select(t.seasons))]

    async def create(self, season: Season, by: str, at: datetime) -> None:
        """Insert ``season`` with its ``season.created`` and a log line; :class:`SeasonIdTaken` for an id in use."""
        try:
            async with self.engine.begin() as conn:
                await self._insert(conn, season, by, at)
                await self._log(conn, at, by, "season_created", season)
        except IntegrityError as e:
            raise SeasonIdTaken(season.id) from e

    async def update(self, season: Season, by: str, at: datetime) -> None:
        async with self.engine.begin() as conn:
            await conn.execute(update(t.seasons).where(t.seasons.c.id == season.id).values(
                name=season.name, config=season.config.to_dict(), prizes=prizes_json(season), updated_at=at))
            await stage(conn, t.outbox, subjects.SEASON_UPDATED, announced(season, at, created=False))
            await self._log(conn, at, by, "season_updated", season)

    async def ensure(self, season: Season, at: datetime) -> bool:
        """The season of the configuration file, written once (True the first time), with every player registered
        then joined to it: they played it before seasons were data (R31)."""
        async with self.engine.begin() as conn:
            made = (await conn.execute(pg_insert(t.seasons).values(**self._row(season, "system", at))
                                       .on_conflict_do_nothing().returning(t.seasons.c.id))).first()
            if made is None:
                return False
            await stage(conn, t.outbox, subjects.SEASON_CREATED, announced(season, at, created=True))
            players = select(t.players.c.id, t.players.c.created_at, t.players.c.home_address).where(
                t.players.c.role == "player")
            rows = [{"season_id": season.id, "player_id": p.id, "joined_at": p.created_at,
                     "home_address": p.home_address} for p in await conn.execute(players)]
            if rows:
                await conn.execute(insert(t.season_players), rows)
            for r in rows:   # cards deals and scoring ranks the season's joined players (R31)
                await stage(conn, t.outbox, subjects.SEASON_JOINED, joined_event(season.id, r["player_id"], at))
            return True

    async def join(self, season_id: str, player_id: str, home_address: str, at: datetime) -> bool:
        """The row and its ``season.joined`` in one transaction; True when the player joined now (a repeat
        writes and stages nothing)."""
        async with self.engine.begin() as conn:
            made = (await conn.execute(pg_insert(t.season_players).values(
                season_id=season_id, player_id=player_id, joined_at=at, home_address=home_address)
                .on_conflict_do_nothing().returning(t.season_players.c.player_id))).first()
            if made is not None:
                await stage(conn, t.outbox, subjects.SEASON_JOINED, joined_event(season_id, player_id, at))
            return made is not None

    async def joined(self, player_id: str) -> dict[str, str]:
        """The seasons ``player_id`` joined: ``{season id: the home address confirmed then}``."""
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(t.season_players.c.season_id, t.season_players.c.home_address)
                                      .where(t.season_players.c.player_id == player_id))
            return {r.season_id: r.home_address for r in rows}

    async def members(self, season_id: str) -> set[str]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(t.season_players.c.player_id)
                                      .where(t.season_players.c.season_id == season_id))
            return {r.player_id for r in rows}

    @staticmethod
    def _row(season: Season, by: str, at: datetime) -> dict[str, Any]:
        return {"id": season.id, "name": season.name, "config": season.config.to_dict(),
                "prizes": prizes_json(season), "seed_commitment": season.seed_commitment,
                "rehearsal": season.rehearsal, "created_at": at, "created_by": by, "updated_at": at}

    async def _insert(self, conn: AsyncConnection, season: Season, by: str, at: datetime) -> None:
        await conn.execute(insert(t.seasons).values(**self._row(season, by, at)))
        await stage(conn, t.outbox, subjects.SEASON_CREATED, announced(season, at, created=True))

    @staticmethod
    async def _log(conn: AsyncConnection, at: datetime, by: str, action: str, season: Season) -> None:
        await conn.execute(insert(t.admin_log).values(
            id=uuid.uuid4().hex, at=at, by=by, action=action, target=season.id, reason=None,
            detail={"season": season.config.to_dict(), "name": season.name, "prizes": prizes_json(season)}))
