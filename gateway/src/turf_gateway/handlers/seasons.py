"""Seasons as use cases (R31, API.md "Seasons"): the catalog, the organizer's new season and changes before its
first opening, a player joining, and what ``GET /clock`` says of the season in force and the next one.

The catalog is a handful of rows read again at most every :data:`FRESH_S` seconds (every gateway replica sees a
season another replica made within that time; the replica that made it at once), so ``GET /clock`` costs no query."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import structlog

from turf_common.bus import BusError
from turf_common.contracts import subjects
from turf_common.contracts.clock import SeasonCalendar, SeasonsSet, SetSeasons
from turf_common.outbox import OutboxFlush
from turf_common.rules import seasons as rules
from turf_common.rules.cards import seed_commitment
from turf_common.rules.refusals import Refused
from turf_common.rules.seasons import Problem, Season
from turf_common.seasonbook import SeasonBook
from turf_gateway.adapters.season_store import SeasonIdTaken
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.clock import game_now_or_none
from turf_gateway.ports import Caller, GameClock, PlayerStore, Revocations, SeasonStore, Services, Window

log = structlog.get_logger(__name__)

FRESH_S = 5.0


@dataclass(frozen=True)
class Archived:
    """A season's own reads (:meth:`Seasons.archive`): ``season`` (None: no season at all), whether it is the
    season in force, and the instants ``[start, end)`` of its feed messages."""

    season: Season | None
    in_force: bool
    window: Window

    @property
    def season_id(self) -> str | None:
        """The ``season_id`` of a request to the services: None for the season in force (today's paths)."""
        return None if self.in_force or self.season is None else self.season.id


def _refused(problems: list[Problem]) -> ApiError:
    """The first problem as the API's refusal (422 ``invalid_input`` naming the field, 409 for the others)."""
    p = problems[0]
    where = f"{p.field}: " if p.field and p.code == "invalid_input" else ""
    return ApiError(p.code, where + p.message)


@dataclass
class Seasons:
    """``seed`` is ``TURF_SEED`` (private): a new season's card seed is derived from it (R12.1) and only the
    commitment leaves. ``services`` reaches the clock service, which keeps the catalog for every process (R31:
    a new season's board opens at its first opening, without a restart). ``revocations`` drops the joining
    player's cached sessions (their :attr:`Caller.seasons`) in every gateway; ``relay`` publishes what a join
    staged at once. ``book``: the calendars of the catalog, which the gateway's other use cases play by
    (``book.config_at(now)``), filled from the catalog each time it is read."""

    store: SeasonStore
    players: PlayerStore
    clock: GameClock
    seed: str
    services: Services | None = None
    revocations: Revocations | None = None
    relay: OutboxFlush | None = None
    book: SeasonBook | None = None
    _cache: tuple[float, list[Season]] | None = field(default=None, init=False, repr=False)
    _told: SetSeasons | None = field(default=None, init=False, repr=False)

    async def catalog(self) -> list[Season]:
        """Every season, rehearsals included, at most :data:`FRESH_S` old."""
        if self._cache is None or time.monotonic() - self._cache[0] > FRESH_S:
            self._cache = (time.monotonic(), await self.store.all())
            if self.book is not None and self._cache[1]:
                self.book.apply(self._calendars(self._cache[1]).model_dump_json())
        return self._cache[1]

    @staticmethod
    def _calendars(catalog: list[Season]) -> SetSeasons:
        return SetSeasons(seasons=[SeasonCalendar(
            config=s.config.to_dict(), seed_commitment=s.seed_commitment, rehearsal=s.rehearsal,
            prizes=[f"{p.amount:.2f}" for p in sorted(s.prizes, key=lambda p: p.place)]) for s in catalog])

    def _forget(self) -> None:
        self._cache = None

    async def _reread(self) -> None:
        """The catalog read again now (a season saved here): this replica's book has it at once."""
        self._forget()
        await self.catalog()

    async def ensure(self, season: Season) -> None:
        """The configuration file's season in the catalog (the first start after seasons became data), unless a
        season of the catalog overlaps it (R31: two seasons' days never overlap; the catalog wins)."""
        now = await self.clock.now()
        clash = [p for p in rules.validate(season, await self.store.all(), now) if p.code == "season_overlaps"]
        if clash:
            log.warning("season_file_overlaps_catalog", season=season.id, why=clash[0].message)
            return
        if await self.store.ensure(season, now):
            await self._reread()

    async def find(self, season_id: str) -> Season:
        """The season ``season_id``; 404 ``not_found``. A season missing from the cached catalog is looked for in
        the store once more: another replica may have made it within the last :data:`FRESH_S` seconds, and a
        player joining it from a link must not be told it does not exist."""
        for fresh in (False, True):
            if fresh:
                self._forget()
            for s in await self.catalog():
                if s.id == season_id:
                    return s
        raise ApiError("not_found", f"No season {season_id!r}.")

    async def tell_clock(self) -> bool:
        """R31: the whole catalog to the clock service (``clock.seasons``), which stores it for every process's
        season book and emits what it makes due; True once told. Not told (NATS or the clock down) is logged, and
        :meth:`keep_clock_told` tells it again, so a season saved is never a season the services miss."""
        if self.services is None:
            return False
        # read afresh: the callers forgot the cached catalog first, so the book is refreshed with it too
        catalog = self._calendars(await self.catalog())
        if catalog == self._told:
            return True
        try:
            await self.services.ask(subjects.CLOCK_SEASONS, catalog, SeasonsSet, 30)
        except (BusError, ApiError) as e:
            log.warning("seasons_not_told_to_clock", error=str(e))
            return False
        self._told = catalog
        return True

    async def keep_clock_told(self, every_s: float = FRESH_S) -> None:
        """:meth:`tell_clock` now and every ``every_s`` seconds (a no-op while the catalog is what was told), so
        a change another replica made, or one the clock missed while down, reaches it."""
        while True:
            try:
                self._forget()
                await self.tell_clock()   # the catalog read afresh: this replica's book follows other replicas
            except Exception:   # the database down: the next round tries again
                log.exception("seasons_tell_clock_failed")
            await asyncio.sleep(every_s)

    # ---- public reads -------------------------------------------------------------------------------------------

    async def listing(self) -> dict[str, Any]:
        """``GET /seasons``: every season but rehearsals, newest first."""
        now = await self.clock.now()
        shown = sorted((s for s in await self.catalog() if not s.rehearsal), key=lambda s: s.first_opening,
                       reverse=True)
        return {"seasons": [{"id": s.id, "name": s.name, "first_day": s.config.first_day.isoformat(),
                             "last_day": s.config.last_day.isoformat(), "state": rules.phase(s, now)}
                            for s in shown]}

    async def one(self, season_id: str) -> dict[str, Any]:
        """``GET /seasons/{id}``; 404 ``not_found``."""
        return (await self.find(season_id)).body(await self.clock.now())

    async def clock_fields(self, now: datetime) -> dict[str, Any]:
        """``GET /clock``'s ``season_id`` (the season in force) and ``next_season`` (``{id, name, first_opening}``)."""
        catalog = await self.catalog()
        current, upcoming = rules.in_force(catalog, now), rules.next_season(catalog, now)
        return {"season_id": current.id if current else None,
                "next_season": None if upcoming is None else {
                    "id": upcoming.id, "name": upcoming.name, "first_opening": upcoming.first_opening.isoformat()}}

    async def refusal(self, joined: set[str] | frozenset[str]) -> Refused | None:
        """R31: why a player's action is refused by the calendar of seasons now (None: it may go ahead)."""
        return rules.action_refusal(await self.catalog(), await self.clock.now(), joined)

    async def not_joined(self, caller: Caller) -> Refused | None:
        """R31: ``not_joined`` for a verified player who has not joined the running season (a claim, a check, a
        card play), from the seasons the session carries (:attr:`Caller.seasons`): no query. Between seasons the
        services refuse (``season_closed``, told as ``season_not_started`` by the claim path); the organizer and
        a player not verified are refused by the services for that (R27). A player who joined every season of the
        catalog costs not even the clock's read."""
        if caller.role != "player" or caller.status != "verified":
            return None
        catalog = await self.catalog()
        if all(s.id in caller.seasons for s in catalog):
            return None
        refused = rules.action_refusal(catalog, await self.clock.now(), caller.seasons)
        return refused if refused is not None and refused.reason == "not_joined" else None

    async def archive(self, season_id: str | None) -> Archived:
        """What a season's own read (``/seasons/{id}/…``; None: the season in force's, the routes without the
        prefix) reads (R31, "the past stays on show"): the season, whether it is the one in force (the services'
        reads without a season), and its window of the feed log: from its first opening (the first season's:
        from the start) to the next season's first opening, so that post-season corrections belong to the season
        they correct (R28). 404 ``not_found`` for an unknown season, 409 ``season_not_started`` for an upcoming one
        (the season in force before any has opened has nothing to show yet but answers as the routes without the
        prefix)."""
        catalog = await self.catalog()
        current = rules.in_force(catalog, await self.clock.now())
        if season_id is None:
            if current is None:
                return Archived(None, True, (None, None))
            season = current
        else:
            season = await self.find(season_id)
        if current is None or (current.id != season.id and season.first_opening > current.first_opening):
            raise ApiError("season_not_started", f"The {season.name} season has not opened yet: nothing to show.")
        ordered = sorted(catalog, key=lambda s: s.first_opening)
        i = next(k for k, s in enumerate(ordered) if s.id == season.id)
        window = (None if i == 0 else season.first_opening,
                  ordered[i + 1].first_opening if i + 1 < len(ordered) else None)
        return Archived(season, current.id == season.id, window)

    # ---- the organizer ------------------------------------------------------------------------------------------

    async def create(self, by: str, form: dict[str, Any]) -> dict[str, Any]:
        """``POST /admin/seasons``: 201 the season; 422 ``invalid_input`` naming the field; 409 ``season_overlaps``,
        ``conflict`` (id in use). Publishes ``season.created`` with the seed's commitment (R12.1)."""
        now, catalog = await self.clock.now(), await self.store.all()
        last = max(catalog, key=lambda s: s.first_opening, default=None)
        made = rules.parse_season(form, defaults=last, commitment=seed_commitment(
            rules.season_seed(self.seed, str(form.get("id", "")))), rehearsal=bool(form.get("rehearsal")))
        if isinstance(made, list):
            raise _refused(made)
        if any(s.id == made.id for s in catalog):
            raise ApiError("conflict", f"A season {made.id!r} exists already; change it with PATCH.")
        if problems := rules.validate(made, catalog, now):
            raise _refused(problems)
        try:
            await self.store.create(made, by, now)
        except SeasonIdTaken:
            raise ApiError("conflict", f"A season {made.id!r} exists already; change it with PATCH.") from None
        await self._reread()
        await self.tell_clock()
        return made.body(now)

    async def update(self, by: str, season_id: str, changes: dict[str, Any]) -> dict[str, Any]:
        """``PATCH /admin/seasons/{id}``: 200 the season; 409 ``season_started`` once it has opened (R31: then only
        corrections, R28); the same refusals as :meth:`create` for the fields changed."""
        now, catalog = await self.clock.now(), await self.store.all()
        season = next((s for s in catalog if s.id == season_id), None)
        if season is None:
            raise ApiError("not_found", f"No season {season_id!r}.")
        if started := rules.edit_refusal(season, now):
            raise _refused([started])
        changed = rules.with_changes(season, changes, commitment=season.seed_commitment)
        if isinstance(changed, list):
            raise _refused(changed)
        if problems := rules.validate(changed, catalog, now):
            raise _refused(problems)
        await self.store.update(changed, by, now)
        await self._reread()
        await self.tell_clock()
        return changed.body(now)

    # ---- players ------------------------------------------------------------------------------------------------

    async def joined(self, player_id: str) -> list[str]:
        """The ids of the seasons ``player_id`` joined (``GET /me``'s ``seasons``), oldest first."""
        return await self.in_order(set(await self.store.joined(player_id)))

    async def in_order(self, ids: set[str] | frozenset[str]) -> list[str]:
        """Season ids oldest first (``GET /me``'s ``seasons``, from the session's :attr:`Caller.seasons`)."""
        order = {s.id: s.first_opening for s in await self.catalog()}
        return sorted(ids, key=lambda sid: (order.get(sid) is None, order.get(sid) or 0, sid))  # type: ignore[operator]

    async def join(self, caller: Caller, season_id: str) -> dict[str, Any]:
        """``POST /seasons/{id}/join`` (R31): the caller takes part in the season, confirming their home address.
        ``status`` as in ``GET /me``: ``pending`` while the organizer has not verified them (R27), as after a change of
        home address until verified again. 409 ``season_closed`` for a closed
        season; a repeat changes nothing."""
        now = await self.clock.now()
        season = await self.find(season_id)
        if rules.phase(season, now) == "closed":
            raise ApiError("season_closed", f"The {season.name} season is over; join the next one.")
        if caller.role == "organizer":
            raise ApiError("forbidden", "The organizer is not a player and joins no season (R27).")
        row = await self.players.get(caller.id)
        assert row is not None   # the caller's own account
        if await self.store.join(season.id, caller.id, row.home_address or "", now):
            # the session's cached caller carries the seasons joined: dropped in every gateway, so the next
            # request (a claim, GET /me) reads them again (R31)
            if self.revocations is not None:
                await self.revocations.revoke(player_id=caller.id)
            await self._publish()
        # a changed home address already made the player pending until verified again (PATCH /me, R27)
        return {"season_id": season.id, "status": "verified" if row.status == "verified" else "pending"}

    async def join_on_registration(self, player_id: str, home_address: str) -> None:
        """R31: registering joins the season in force while it runs, else the next one (none: the latest). A
        registration never waits on the bus: with the game clock unreadable (NATS down) the player is registered
        without a season, and the play page offers the join."""
        now = await game_now_or_none(self.clock)
        if now is None:
            log.warning("registration_joined_no_season", player_id=player_id, why="the game clock is unreadable")
            return
        catalog = await self.catalog()
        current = rules.in_force(catalog, now)
        target = (current if current is not None and rules.phase(current, now) != "closed"
                  else rules.next_season(catalog, now) or current)
        if target is not None and await self.store.join(target.id, player_id, home_address, now):
            await self._publish()

    async def _publish(self) -> None:
        """What a join staged (``season.joined``) out now rather than at the relay's next sweep; a failure waits
        for the sweep (the row and its event are committed)."""
        if self.relay is not None:
            try:
                await self.relay.flush()
            except Exception as e:
                log.warning("season_joined_not_flushed", error=f"{type(e).__name__}: {e}")
