"""The claims store in memory, for unit tests of the use cases (no PostgreSQL): the fake of the store's roles. Same
answers as the SQL store for one process at a time (tests/contract runs the same cases on both): locks are no-ops,
and a unit of work that raises leaves the state as it found it. R31: each season has its own board
(``State.boards``); ``State.territories`` is the first season's, 2026's (the configuration file's). The clock and
publisher fakes are :mod:`turf_common.testing`'s."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any

from turf_claims.daymemory import DaySnapshot
from turf_claims.ports import (
    CardFacts,
    Claim,
    DayFacts,
    HeldWindow,
    OutlookFacts,
    OwnedFacts,
    Protection,
    ProtectionState,
    StolenFacts,
    Territory,
    TerritoryChange,
)
from turf_common import txguard
from turf_common.contracts import subjects
from turf_common.contracts.base import Event, Message
from turf_common.contracts.claims import ClaimAccepted, FlagOut, TerritoryChanged
from turf_common.contracts.players import FixOut
from turf_common.rules import cards as rules
from turf_common.rules.antispoof import without_places


class DuplicateKey(Exception):
    """A write the SQL store's unique constraints refuse (IntegrityError there): the unit of work is rolled back."""


def _unique(ok: bool, constraint: str, key: object) -> None:
    if not ok:
        raise DuplicateKey(f"{constraint}: {key!r} exists")


_LIVE = ("scheduled", "active")


def _same_slot(p: Protection, q: Protection) -> bool:
    """R15/R29, R16: two live cards on one slot (one Freeze per territory and day, one Blockade per player, rival
    and day), which the SQL store's partial unique indexes refuse."""
    if p.kind != q.kind or p.day != q.day or p.state not in _LIVE or q.state not in _LIVE:
        return False
    return p.territory_id == q.territory_id if p.kind == "freeze" else (p.player_id, p.rival_id) == (q.player_id,
                                                                                                     q.rival_id)


@dataclass
class WarWindow:
    id: str
    territory_id: str
    holder_id: str
    victim_id: str
    steal_claim_id: str
    opened_at: datetime
    until: datetime
    state: str = "open"
    reclaim_claim_id: str | None = None
    season_id: str = ""


#: the configuration file's season, whose board ``State.territories`` is
FIRST_SEASON = "2026"


@dataclass
class State:
    boards: dict[str, dict[str, Territory]] = field(default_factory=dict)   # season -> its board (R31)
    claims: dict[str, Claim] = field(default_factory=dict)
    player_days: dict[tuple[str, date], tuple[int, int]] = field(default_factory=dict)
    idempotency: dict[tuple[str, str], str] = field(default_factory=dict)
    commands: dict[str, str] = field(default_factory=dict)
    inbox: set[str] = field(default_factory=set)
    outbox: list[tuple[str, Event]] = field(default_factory=list)   # (subject, event), in commit order
    flags: list[FlagOut] = field(default_factory=list)
    wars: list[WarWindow] = field(default_factory=list)
    protections: dict[str, Protection] = field(default_factory=dict)
    scheduled_at: dict[str, datetime] = field(default_factory=dict)     # card id -> when it was (last) scheduled
    excluded: set[str] = field(default_factory=set)
    days_started: set[date] = field(default_factory=set)
    jokers: list[tuple[str, str, date]] = field(default_factory=list)   # (player, territory, day) (R8.7)
    seq: dict[str, int] = field(default_factory=dict)                    # claim id -> log order (R14)

    @property
    def territories(self) -> dict[str, Territory]:
        """The first season's board (what the tests of one season read and set)."""
        return self.board(FIRST_SEASON)

    def board(self, season_id: str) -> dict[str, Territory]:
        return self.boards.setdefault(season_id, {})


class MemoryClaimsTx:
    """:class:`~turf_claims.ports.ClaimsTx` over a :class:`State`, on the board of season ``sid`` (R31)."""

    def __init__(self, s: State, sid: str) -> None:
        self.s = s
        self.sid = sid
        # every role of the unit of work (ports.ClaimsTx) is served by this one object
        self.locks = self.messages = self.replies = self.ownership = self.claims = self.trail = self
        self.allowances = self.cards = self.protections = self.exclusions = self.days = self.outlook = self

    # ---- serialisation, idempotency and events
    async def lock(self, key: str) -> None:
        return None

    async def lock_all(self, keys: Sequence[str]) -> None:
        return None

    async def lock_territories(self, territory_ids: Sequence[str]) -> None:
        return None

    async def first_time(self, event_id: str, subject: str) -> bool:
        if event_id in self.s.inbox:
            return False
        self.s.inbox.add(event_id)
        return True

    async def stage(self, subject: str, event: Event) -> None:
        self.s.outbox.append((subject, event))

    async def command_reply(self, command_id: str) -> str | None:
        return self.s.commands.get(command_id)

    async def store_command_reply(self, command_id: str, kind: str, player_id: str, reply: Message,
                                  at: datetime) -> None:
        _unique(command_id not in self.s.commands, "effect_commands", command_id)
        self.s.commands[command_id] = reply.model_dump_json()

    async def idempotent_reply(self, player_id: str, key: str) -> str | None:
        return self.s.idempotency.get((player_id, key))

    async def store_idempotent_reply(self, player_id: str, key: str, reply: Message, at: datetime) -> None:
        _unique((player_id, key) not in self.s.idempotency, "idempotency", (player_id, key))
        self.s.idempotency[(player_id, key)] = reply.model_dump_json()

    # ---- territories
    @property
    def _board(self) -> dict[str, Territory]:
        return self.s.board(self.sid)

    def _claims(self) -> list[Claim]:
        """The claims that moved this season's board."""
        return [c for c in self.s.claims.values() if c.season_id == self.sid]

    async def territory(self, territory_id: str, lock: bool = False) -> Territory | None:
        return self._board.get(territory_id)

    async def owner_of(self, territory_id: str) -> str | None:
        t = self._board.get(territory_id)
        return t.owner_id if t else None

    async def owners(self, territory_ids: tuple[str, ...] | None = None) -> dict[str, str | None]:
        return {tid: t.owner_id for tid, t in self._board.items()
                if territory_ids is None or tid in territory_ids}

    async def territories(self, territory_id: str | None = None) -> list[Territory]:
        return [t for tid, t in self._board.items() if territory_id is None or tid == territory_id]

    async def owned_for_update(self, player_id: str) -> list[Territory]:
        return sorted((t for t in self._board.values() if t.owner_id == player_id), key=lambda t: t.id)

    def _set(self, change: TerritoryChange) -> int:
        t, f = self._board[change.territory_id], change.fort
        self._board[t.id] = replace(t, owner_id=change.owner_id, progress=f.progress,
                                           last_claim_day=f.last_claim_day, fortified=f.fortified,
                                           version=t.version + 1)
        return t.version + 1

    async def change_territory(self, change: TerritoryChange, at: datetime) -> int:
        version = self._set(change)
        await self.stage(subjects.TERRITORY_CHANGED, change.event(version, at))
        return version

    # ---- claims
    async def day_facts(self, territory_id: str, owner_id: str | None, player_id: str, day: date,
                        now: datetime) -> DayFacts:
        today = [c for c in self.s.claims.values() if c.game_day == day and c.normal]
        extra, replacement = await self.player_day(player_id, day)
        cards = await self.card_facts(territory_id, owner_id, player_id, day, now)
        took = (player_id, territory_id, day) in self.s.jokers or any(
            c.kind == "war_reclaim" and (c.player_id, c.territory_id, c.game_day) == (player_id, territory_id, day)
            for c in self.s.claims.values())
        return DayFacts(sum(1 for c in today if c.player_id == player_id), extra, replacement,
                        sorted({c.player_id for c in today if c.territory_id == territory_id
                                and c.player_id not in self.s.excluded}),
                        cards.war_reclaim_holder, cards.frozen, cards.blockade_against_claimant, took)

    async def card_facts(self, territory_id: str, owner_id: str | None, player_id: str, day: date,
                         now: datetime) -> CardFacts:
        wars = sorted((w for w in self.s.wars if w.season_id == self.sid and w.territory_id == territory_id
                       and w.state == "open" and w.until > now), key=lambda w: w.opened_at, reverse=True)
        active = [p for p in self.s.protections.values() if p.player_id == owner_id and p.day == day
                  and p.state == "active"]
        return CardFacts(wars[0].holder_id if wars else None,
                         any(p.kind == "freeze" and p.territory_id == territory_id for p in active),
                         any(p.kind == "blockade" and p.rival_id == player_id for p in active))

    async def erase_fixes(self, player_id: str) -> None:
        pass   # the memory store never kept fixes: geo-verify keeps the trails (turf_geo.testing.MemoryTrails)

    async def erase_all_fixes(self) -> int:
        return 0

    async def erase_claim_places(self, player_id: str | None) -> int:
        erased = [c for c in self.s.claims.values() if player_id in (None, c.player_id) and c.lat is not None]
        for c in erased:
            self.s.claims[c.id] = replace(c, lat=None, lon=None, accuracy_m=None)
        return len(erased)

    async def player_fixes(self, player_id: str) -> list[FixOut]:
        # the memory store keeps no trail fixes: only the positions its claims were made from
        return sorted((FixOut(lat=c.lat, lon=c.lon, accuracy_m=c.accuracy_m, fix_time=c.fix_time, received_at=c.at)
                       for c in self.s.claims.values()
                       if c.player_id == player_id and c.lat is not None and c.lon is not None
                       and c.accuracy_m is not None), key=lambda x: x.received_at)

    async def erase_flag_places(self, player_id: str | None) -> int:
        changed = 0
        for i, f in enumerate(self.s.flags):
            if player_id in (None, f.player_id) and (ev := without_places(f.evidence)) != f.evidence:
                self.s.flags[i] = f.model_copy(update={"evidence": ev})
                changed += 1
        return changed

    async def add_flag(self, flag_id: str, at: datetime, player_id: str, claim_id: str | None, kind: str,
                       evidence: dict[str, Any]) -> None:
        self.s.flags.append(FlagOut(id=flag_id, at=at, player_id=player_id, claim_id=claim_id, kind=kind,
                                    evidence=evidence, last_at=at))

    async def recent_flags(self, player_id: str, kind: str, since: datetime, limit: int) -> list[FlagOut]:
        mine = [f for f in self.s.flags if f.player_id == player_id and f.kind == kind and f.claim_id is None
                and f.at >= since]
        return sorted(mine, key=lambda f: (f.at, f.id), reverse=True)[:limit]

    async def repeat_flag(self, flag_id: str, at: datetime) -> None:
        i = next(i for i, f in enumerate(self.s.flags) if f.id == flag_id)
        f = self.s.flags[i]
        self.s.flags[i] = f.model_copy(update={"count": f.count + 1, "last_at": max(f.last_at or f.at, at)})

    async def record_claim(self, claim: Claim, change: TerritoryChange, accepted: ClaimAccepted,
                           changed: TerritoryChanged) -> int:
        self.s.claims[claim.id] = replace(claim, season_id=self.sid)
        self.s.seq[claim.id] = len(self.s.seq) + 1
        version = self._set(change)
        await self.stage(subjects.CLAIM_ACCEPTED, accepted)
        await self.stage(subjects.TERRITORY_CHANGED, changed)
        return version

    async def claim(self, claim_id: str) -> Claim | None:
        return self.s.claims.get(claim_id)

    async def undo_claim(self, claim_id: str, by: str) -> None:
        self.s.claims[claim_id] = replace(self.s.claims[claim_id], undone_by=by)

    async def standing_claim_after(self, territory_id: str, at: datetime) -> bool:
        return any(c.territory_id == territory_id and c.undone_by is None and c.at > at
                   for c in self._claims())

    async def take_record(self, territory_id: str, owner_id: str | None) -> rules.TakeRecord | None:
        mine = sorted((c for c in self._claims() if c.territory_id == territory_id
                       and c.player_id == owner_id and c.kind != "reinforce"),
                      key=lambda c: (c.at, self.s.seq.get(c.id, 0)))
        if owner_id is None or not mine:
            return None
        c = mine[-1]
        return rules.TakeRecord(c.id, c.kind, c.player_id, c.previous_owner_id, c.at,  # type: ignore[arg-type]
                                undone=c.undone_by is not None, fort_before=c.fort_before)

    async def normal_claims(self, player_id: str, day: date) -> int:
        return sum(1 for c in self.s.claims.values() if c.game_day == day and c.normal and c.player_id == player_id)

    async def player_day(self, player_id: str, day: date) -> tuple[int, int]:
        return self.s.player_days.get((player_id, day), (0, 0))

    async def grant_extra_claim(self, player_id: str, day: date) -> None:
        _, replacement = await self.player_day(player_id, day)
        self.s.player_days[(player_id, day)] = (1, replacement)

    async def add_replacement_claim(self, player_id: str, day: date) -> None:
        extra, replacement = await self.player_day(player_id, day)
        self.s.player_days[(player_id, day)] = (extra, replacement + 1)

    # ---- War, Freeze, Blockade, exclusions
    async def open_war_window(self, war_id: str, territory_id: str, holder_id: str, victim_id: str,
                              steal_claim_id: str, opened_at: datetime, until: datetime) -> None:
        self.s.wars.append(WarWindow(war_id, territory_id, holder_id, victim_id, steal_claim_id, opened_at, until,
                                     season_id=self.sid))

    async def mark_reclaimed(self, territory_id: str, holder_id: str, claim_id: str) -> None:
        for w in self.s.wars:
            if w.season_id == self.sid and w.territory_id == territory_id and w.holder_id == holder_id \
                    and w.state == "open":
                w.state, w.reclaim_claim_id = "used", claim_id

    async def end_war_windows(self, holder_id: str) -> list[str]:
        ended = [w for w in self.s.wars if w.season_id == self.sid and w.holder_id == holder_id and w.state == "open"]
        for w in ended:
            w.state = "ended"
        return [w.territory_id for w in ended]

    async def record_joker_award(self, command_id: str, player_id: str, territory_id: str, day: date,
                                 at: datetime) -> None:
        self.s.jokers.append((player_id, territory_id, day))

    async def protection_scheduled(self, kind: str, day: date, territory_id: str | None = None,
                                   player_id: str | None = None, rival_id: str | None = None) -> bool:
        return any(p.kind == kind and p.day == day and p.state in ("scheduled", "active")
                   and (p.territory_id == territory_id if kind == "freeze"
                        else (p.player_id, p.rival_id) == (player_id, rival_id))
                   for p in self.s.protections.values())

    async def schedule_protection(self, p: Protection, command_id: str, at: datetime) -> None:
        old = self.s.protections.get(p.card_id)
        if old is None or old.state in ("cancelled", "lapsed"):
            _unique(not any(_same_slot(p, q) for q in self.s.protections.values() if q.card_id != p.card_id),
                    "uq_protections_" + p.kind, p.card_id)
            self.s.protections[p.card_id] = p
            self.s.scheduled_at[p.card_id] = at

    async def protection_for_update(self, card_id: str) -> Protection | None:
        return self.s.protections.get(card_id)

    def _by_scheduling(self, ps: Iterable[Protection]) -> list[Protection]:
        return sorted(ps, key=lambda p: (self.s.scheduled_at[p.card_id], p.card_id))

    async def due_protections_for_update(self, day: date) -> list[Protection]:
        return self._by_scheduling(p for p in self.s.protections.values() if p.state == "scheduled" and p.day <= day)

    async def scheduled_protections_involving_for_update(self, player_id: str) -> list[Protection]:
        return self._by_scheduling(p for p in self.s.protections.values()
                                   if p.state == "scheduled" and player_id in (p.player_id, p.rival_id))

    async def resolve_protection(self, card_id: str, state: ProtectionState, at: datetime) -> None:
        self.s.protections[card_id] = replace(self.s.protections[card_id], state=state)

    async def excluded_players(self) -> set[str]:
        return set(self.s.excluded)

    async def exclude_player(self, player_id: str, at: datetime) -> None:
        self.s.excluded.add(player_id)

    async def mark_day_started(self, day: date, at: datetime) -> None:
        self.s.days_started.add(day)

    async def day_started(self, day: date) -> bool:
        return day in self.s.days_started

    async def flags(self, after: tuple[datetime, str] | None = None, limit: int | None = None) -> list[FlagOut]:
        ordered = [f for f in sorted(self.s.flags, key=lambda f: (f.at, f.id)) if after is None or (f.at, f.id) > after]
        return ordered if limit is None else ordered[:limit]

    async def outlook_facts(self, player_id: str, day: date | None, now: datetime) -> OutlookFacts:
        owned = sorted((t for t in self._board.values() if t.owner_id == player_id), key=lambda t: t.id)
        wars_here = [w for w in self.s.wars if w.season_id == self.sid]
        facts = []
        for t in owned:
            today = [c for c in self.s.claims.values() if c.territory_id == t.id and c.game_day == day
                     and c.player_id not in self.s.excluded]
            claimed = (player_id, t.id, day) in self.s.jokers or any(
                c.player_id == player_id and (c.normal or c.kind == "war_reclaim") for c in today)
            frozen = any(p.kind == "freeze" and p.player_id == player_id and p.territory_id == t.id and p.day == day
                         and p.state == "active" for p in self.s.protections.values())
            wars = sorted((w for w in wars_here if w.territory_id == t.id and w.state == "open" and w.until > now),
                          key=lambda w: (w.opened_at, w.id))
            facts.append(OwnedFacts(t, claimed, any(c.normal for c in today), frozen,
                                    wars[-1].holder_id if wars else None, wars[-1].until if wars else None,
                                    await self.take_record(t.id, player_id)))
        stolen_ids = sorted({c.territory_id for c in self._claims() if c.previous_owner_id == player_id
                             and c.kind == "steal" and c.undone_by is None})
        stolen = []
        for tid in stolen_ids:
            owner = self._board[tid].owner_id
            take = await self.take_record(tid, owner)
            if take is not None:
                stolen.append(StolenFacts(tid, owner, take))
        held = [HeldWindow(w.territory_id, self._board[w.territory_id].owner_id, w.until)
                for w in sorted(wars_here, key=lambda w: (w.opened_at, w.id))
                if w.holder_id == player_id and w.state == "open" and w.until > now]
        return OutlookFacts(facts, stolen, held)

    async def claims_log(self, game_day: date | None, player_id: str | None, limit: int,
                         after: str | None = None) -> list[Claim]:
        if after is not None and after not in self.s.seq:
            raise LookupError(after)
        since = 0 if after is None else self.s.seq[after]
        # dicts keep insertion order: the order claims were logged in (the SQL store's seq)
        return [c for c in self.s.claims.values() if game_day in (None, c.game_day)
                and player_id in (None, c.player_id) and self.s.seq.get(c.id, 0) > since][:limit]


class MemoryClaimsStore:
    """:class:`~turf_claims.ports.ClaimsStore` in memory; ``state`` is what tests read."""

    def __init__(self) -> None:
        self.state = State()

    @asynccontextmanager
    async def begin(self, season_id: str) -> AsyncIterator[MemoryClaimsTx]:
        before = copy.deepcopy(self.state)
        try:
            with txguard.transaction("claims"):   # as the SQL store's (txguard)
                yield MemoryClaimsTx(self.state, season_id)
        except BaseException:
            self.state.__dict__.update(before.__dict__)
            raise

    @asynccontextmanager
    async def connect(self, season_id: str) -> AsyncIterator[MemoryClaimsTx]:
        yield MemoryClaimsTx(self.state, season_id)

    async def day_snapshot(self, season_id: str, day: date, now: datetime) -> DaySnapshot:
        s = self.state
        windows = [w.until for w in s.wars if w.season_id == season_id and w.state == "open" and w.until > now]
        return DaySnapshot(season_id,
            [(c.id, c.player_id, c.territory_id) for c in s.claims.values()
             if c.game_day == day and c.normal and c.player_id not in s.excluded],
            {pid: ed for (pid, d), ed in s.player_days.items() if d == day}, max(windows, default=None),
            {tid: (ter.owner_id, ter.version) for tid, ter in s.board(season_id).items()})

    async def refuse(self, player_id: str, key: str | None, reply: Message, subject: str, event: Event,
                     at: datetime) -> str | None:
        if key is not None and (prev := self.state.idempotency.get((player_id, key))) is not None:
            return prev
        if key is not None:
            self.state.idempotency[(player_id, key)] = reply.model_dump_json()
        self.state.outbox.append((subject, event))
        return None

    async def seed_territories(self, season_id: str, territory_ids: list[str]) -> None:
        for tid in territory_ids:
            self.state.board(season_id).setdefault(tid, Territory(tid, None, 0, None, False, 0))

    def take_staged(self) -> list[tuple[str, Event]]:
        """The committed events not yet published, in commit order, now taken (the outbox relay's part:
        :class:`turf_common.testing.RecordingPublisher` calls it on flush)."""
        staged, self.state.outbox = self.state.outbox, []
        return staged
