"""Ports of the claims service: its store (one unit of work over territories, claims, card effects and the outbox),
the game clock, geo-verify; the outbox relay's port is :class:`turf_common.outbox.OutboxFlush`.

R31: each season has its own board. A unit of work (:meth:`ClaimsStore.begin`, :meth:`ClaimsStore.connect`) is
opened on one season's board: its territories, the claims that moved them and the War reclaim windows on them are
that season's. The store's rows are the plain records below. ``lock=True`` / ``*_for_update`` reads lock what they
return until the transaction ends; in a read-only unit (:meth:`ClaimsStore.connect`) nothing is locked or written.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal, Protocol

from turf_claims.daymemory import DaySnapshot
from turf_common.contracts.base import Event, Message
from turf_common.contracts.claims import ClaimAccepted, FlagOut, TerritoryChanged, TerritoryStateOut
from turf_common.contracts.players import FixOut
from turf_common.rules.cards import TakeRecord
from turf_common.rules.claims import Fortification

Cause = Literal["claim", "war", "war_reclaim", "mulligan", "joker", "trade", "correction", "disqualification",
                "withdrawal"]
ProtectionState = Literal["scheduled", "active", "lapsed", "cancelled"]


@dataclass(frozen=True)
class Territory:
    """One territory's row: its owner and R11 fortification; ``version`` grows by one with every change."""

    id: str
    owner_id: str | None
    progress: int
    last_claim_day: date | None
    fortified: bool
    version: int

    @property
    def fort(self) -> Fortification:
        return Fortification(self.progress, self.last_claim_day, self.fortified)

    def out(self) -> TerritoryStateOut:
        return TerritoryStateOut(id=self.id, owner_id=self.owner_id, progress=self.progress, fortified=self.fortified)


@dataclass(frozen=True)
class TerritoryChange:
    """A territory's new owner and fortification, and why (``cause``, the claim it concerns). Every writer of a
    territory (a claim, a card effect, a correction) states its change so, and :meth:`event` is the one
    ``territory.changed`` it stages."""

    territory_id: str
    owner_id: str | None
    previous_owner_id: str | None
    fort: Fortification
    cause: Cause
    claim_id: str | None = None

    def event(self, version: int, at: datetime) -> TerritoryChanged:
        """The ``territory.changed`` of this change once the row's version is ``version``."""
        return TerritoryChanged(
            occurred_at=at, territory_id=self.territory_id, owner_id=self.owner_id,
            previous_owner_id=self.previous_owner_id, progress=self.fort.progress, fortified=self.fort.fortified,
            version=version, cause=self.cause, claim_id=self.claim_id)


@dataclass(frozen=True)
class Claim:
    """One claim as stored: the fix (R7 audit; ``lat``, ``lon`` in WGS84 degrees and ``accuracy_m`` in metres are
    None once erased, R30), what it replaced (``fort_before``, for Mulligan, War and corrections) and ``undone_by``
    (mulligan | war | correction, None while it stands); ``season_id``: the season whose board it moved (R31; set by
    the store from its unit of work)."""

    id: str
    player_id: str
    territory_id: str
    kind: str
    normal: bool
    game_day: date
    at: datetime
    lat: float | None
    lon: float | None
    accuracy_m: float | None
    fix_time: datetime
    border_distance_m: float | None
    previous_owner_id: str | None
    fort_before: Fortification
    flags: list[str] = field(default_factory=list)
    undone_by: str | None = None
    season_id: str | None = None


@dataclass(frozen=True)
class DayFacts:
    """The claimant's day and R8's card facts about one territory, read after the territory's row lock (R6, R8,
    R10): normal claims made today, Double Trouble / Mulligan extras, who has claimed the territory today, the
    holder of an open War reclaim window on it (R8.2), its owner's active Freeze on it (R8.5) and Blockade against
    the claimant (R8.6) today. ``claimed_today_by`` leaves out disqualified players (R28: their locks end);
    ``took_it_today``: the claimant won it today by a War reclaim or a Joker award (R8.7, amended)."""

    normal_claims_today: int
    extra_claims: int
    replacement_claims: int
    claimed_today_by: list[str]
    war_holder: str | None
    frozen: bool
    blockaded: bool
    took_it_today: bool = False


@dataclass(frozen=True)
class CardFacts:
    """R8's card facts about one territory for one claimant at one instant (R8.2, R8.5, R8.6)."""

    war_reclaim_holder: str | None
    frozen: bool
    blockade_against_claimant: bool


@dataclass(frozen=True)
class Protection:
    """One scheduled (or resolved) Freeze or Blockade card (R15, R16) for game day ``day``."""

    card_id: str
    kind: Literal["freeze", "blockade"]
    player_id: str
    territory_id: str | None
    rival_id: str | None
    day: date
    state: ProtectionState


@dataclass(frozen=True)
class OwnedFacts:
    """One territory of a player, for their countdowns: whether they claimed it today (R8.7, amended),
    whether a normal claim of it today locks it (R10, leaving out disqualified players: R28), their active Freeze on
    it today (R15), an open reclaim window on it (R14) and how they got it (their latest take, for the victim's War
    window)."""

    territory: Territory
    claimed_today: bool
    locked_today: bool
    frozen_today: bool
    reclaim_holder: str | None
    reclaim_until: datetime | None
    take: TakeRecord | None


@dataclass(frozen=True)
class StolenFacts:
    """A territory stolen from the player by a steal that still stands: its owner now and that owner's latest take
    of it (R14: War applies to that one only)."""

    territory_id: str
    owner_id: str | None
    take: TakeRecord | None


@dataclass(frozen=True)
class HeldWindow:
    """An open War reclaim window the player holds (R14)."""

    territory_id: str
    owner_id: str | None
    until: datetime


@dataclass(frozen=True)
class OutlookFacts:
    owned: list[OwnedFacts]
    stolen: list[StolenFacts]
    held: list[HeldWindow]


class Locks(Protocol):
    """Serialisation: advisory locks and territory row locks, held until the transaction ends."""

    async def lock(self, key: str) -> None:
        """Hold ``key`` (``player:<id>``, ``freeze:<territory>:<day>`` …) until the transaction ends; concurrent
        holders queue. Locks are taken players first (sorted), then territory rows."""
        ...

    async def lock_all(self, keys: Sequence[str]) -> None:
        """:meth:`lock` of every key, in the order given (sorted by the caller), in one round trip."""
        ...

    async def lock_territories(self, territory_ids: Sequence[str]) -> None:
        """Lock the territories' rows until the transaction ends, in the order given (sorted by the caller), in one
        round trip (the group commit takes every row lock of its batch before deciding any claim)."""
        ...


class Messages(Protocol):
    """The inbox (each event handled once) and the outbox (events published once committed)."""

    async def first_time(self, event_id: str, subject: str) -> bool:
        """Record ``event_id`` as handled; False if it already was (a redelivery)."""
        ...

    async def stage(self, subject: str, event: Event) -> None:
        """Queue ``event`` for publication once this transaction commits (the outbox)."""
        ...


class Replies(Protocol):
    """Stored replies, so that a repeated command or claim answers its first reply (idempotency)."""

    async def command_reply(self, command_id: str) -> str | None:
        """Serialise on the command id, then its stored reply (JSON) if it ran before, else None."""
        ...

    async def store_command_reply(self, command_id: str, kind: str, player_id: str, reply: Message,
                                  at: datetime) -> None:
        """Keep the reply of a card effect or correction that has just run, for its repeats."""
        ...

    async def idempotent_reply(self, player_id: str, key: str) -> str | None:
        """The stored reply (JSON) of the player's claim with this Idempotency-Key, else None."""
        ...

    async def store_idempotent_reply(self, player_id: str, key: str, reply: Message, at: datetime) -> None: ...


class Ownership(Protocol):
    """The territories: their owners and fortification (R11), and the one writer of a change."""

    async def territory(self, territory_id: str, lock: bool = False) -> Territory | None: ...

    async def owner_of(self, territory_id: str) -> str | None: ...

    async def owners(self, territory_ids: tuple[str, ...] | None = None) -> dict[str, str | None]:
        """Owner of each territory (of ``territory_ids``, or of the whole board)."""
        ...

    async def territories(self, territory_id: str | None = None) -> list[Territory]:
        """Every territory, or the one asked for (none if unknown)."""
        ...

    async def owned_for_update(self, player_id: str) -> list[Territory]:
        """The player's territories, locked, by id."""
        ...

    async def change_territory(self, change: TerritoryChange, at: datetime) -> int:
        """The territory writer of card effects and corrections: set owner and fortification, version + 1, and
        stage ``change.event(version)``. Returns the new version."""
        ...


class ClaimLog(Protocol):
    """The claims made: recording one, the claimant's day (R6, R8, R10), undoing one, the log."""

    async def day_facts(self, territory_id: str, owner_id: str | None, player_id: str, day: date,
                        now: datetime) -> DayFacts:
        """See :class:`DayFacts`, in one round trip."""
        ...

    async def record_claim(self, claim: Claim, change: TerritoryChange, accepted: ClaimAccepted,
                           changed: TerritoryChanged) -> int:
        """An accepted claim's writes (the claim row, the territory's new state with version + 1, then
        ``claim.accepted`` and ``territory.changed`` staged in that order), as one statement. Returns the version
        stored."""
        ...

    async def claim(self, claim_id: str) -> Claim | None: ...

    async def undo_claim(self, claim_id: str, by: str) -> None:
        """Mark the claim undone (``by``: mulligan | war | correction)."""
        ...

    async def standing_claim_after(self, territory_id: str, at: datetime) -> bool:
        """Whether a claim of the territory made after ``at`` still stands."""
        ...

    async def take_record(self, territory_id: str, owner_id: str | None) -> TakeRecord | None:
        """How the current owner got the territory by a claim: their latest take, steal or War reclaim of it
        (R14, amended: latest by time, then by the order claims were logged, so ties at one instant are settled)."""
        ...

    async def normal_claims(self, player_id: str, day: date) -> int:
        """R6: normal claims the player made on ``day`` (undone ones included)."""
        ...

    async def claims_log(self, game_day: date | None, player_id: str | None, limit: int,
                         after: str | None = None) -> list[Claim]:
        """The logged claims (of ``game_day``, of ``player_id`` when given), in the order they were logged, at most
        ``limit``; with ``after`` (a claim id) only those logged after that claim (a page's cursor).
        Raises LookupError when ``after`` is no logged claim."""
        ...

    async def erase_claim_places(self, player_id: str | None) -> int:
        """R30: the position of each claim of ``player_id`` (every player's when None) is erased: its ``lat``,
        ``lon`` and ``accuracy_m`` become None; the claim stays in the log with its time, territory and moves.
        How many claims changed (a claim erased before is not counted again)."""
        ...


class Trail(Protocol):
    """R7.1: the anti-spoofing flags geo-verify found on players' fixes (it keeps the trails)."""

    async def erase_fixes(self, player_id: str) -> None:
        """R30: the player withdrew: every fix of theirs kept here before geo-verify kept the trails is deleted
        (geo-verify erases its own trail of them)."""
        ...

    async def erase_all_fixes(self) -> int:
        """R30: the season is long closed: every fix kept here is deleted; how many."""
        ...

    async def player_fixes(self, player_id: str) -> list[FixOut]:
        """R30: the fixes of ``player_id`` kept here (before geo-verify kept the trails), oldest first."""
        ...

    async def erase_flag_places(self, player_id: str | None) -> int:
        """R30: the coordinates kept as evidence on the flags of ``player_id`` (every player's when None) are
        erased (:func:`turf_common.rules.antispoof.without_places`); each flag stays, with its kind, claim, count
        and times. How many flags changed."""
        ...

    async def add_flag(self, flag_id: str, at: datetime, player_id: str, claim_id: str | None, kind: str,
                       evidence: dict[str, Any]) -> None:
        """A new flag raised at ``at``: count 1, last seen ``at``."""
        ...

    async def recent_flags(self, player_id: str, kind: str, since: datetime, limit: int) -> list[FlagOut]:
        """The player's flags of ``kind`` that name no claim, first raised at or after ``since``, the
        most recent first, at most ``limit``: those a repeat may merge into."""
        ...

    async def repeat_flag(self, flag_id: str, at: datetime) -> None:
        """``flag_id`` was raised again at ``at``: its count + 1, last seen ``at``."""
        ...

    async def flags(self, after: tuple[datetime, str] | None = None, limit: int | None = None) -> list[FlagOut]:
        """The anti-spoofing flags, oldest first (by time, then id): those after ``after`` = (time, id), at most
        ``limit`` (every one when None)."""
        ...


class Allowances(Protocol):
    """A player's extra claims of a day: Double Trouble (R17) and Mulligan replacements (R19)."""

    async def player_day(self, player_id: str, day: date) -> tuple[int, int]:
        """(Double Trouble extra claims, Mulligan replacement claims) of the player on ``day``."""
        ...

    async def grant_extra_claim(self, player_id: str, day: date) -> None:
        """R17: the player's extra claims on ``day`` become 1."""
        ...

    async def add_replacement_claim(self, player_id: str, day: date) -> None:
        """R19: one more replacement claim on ``day``."""
        ...


class Cards(Protocol):
    """The card effects' own records: War reclaim windows (R14), Joker awards (R8.7) and R8's facts."""

    async def card_facts(self, territory_id: str, owner_id: str | None, player_id: str, day: date,
                         now: datetime) -> CardFacts: ...

    async def open_war_window(self, war_id: str, territory_id: str, holder_id: str, victim_id: str,
                              steal_claim_id: str, opened_at: datetime, until: datetime) -> None: ...

    async def mark_reclaimed(self, territory_id: str, holder_id: str, claim_id: str) -> None:
        """R14: the attacker's reclaim ends their window."""
        ...

    async def end_war_windows(self, holder_id: str) -> list[str]:
        """R28 (amended): a disqualification ends the player's open reclaim windows (state ``ended``). Returns the
        territories whose window ended."""
        ...

    async def record_joker_award(self, command_id: str, player_id: str, territory_id: str, day: date,
                                 at: datetime) -> None:
        """R8.7 (amended): remember the award, which counts as the player's claim of the territory on ``day``."""
        ...


class Protections(Protocol):
    """Freeze and Blockade cards scheduled for a day, then activated, lapsed or cancelled (R15, R16)."""

    async def protection_scheduled(self, kind: str, day: date, territory_id: str | None = None,
                                   player_id: str | None = None, rival_id: str | None = None) -> bool:
        """A live (scheduled or active) Freeze on ``territory_id``, or Blockade by ``player_id`` against
        ``rival_id``, for ``day``."""
        ...

    async def schedule_protection(self, p: Protection, command_id: str, at: datetime) -> None:
        """Schedule the card (a card cancelled or lapsed before is scheduled again)."""
        ...

    async def protection_for_update(self, card_id: str) -> Protection | None: ...

    async def due_protections_for_update(self, day: date) -> list[Protection]:
        """Cards scheduled for ``day`` or earlier, by scheduling time then card id."""
        ...

    async def scheduled_protections_involving_for_update(self, player_id: str) -> list[Protection]:
        """Scheduled Freezes/Blockades of ``player_id`` and Blockades against them (R16, R28), by scheduling time
        then card id."""
        ...

    async def resolve_protection(self, card_id: str, state: ProtectionState, at: datetime) -> None: ...


class Exclusions(Protocol):
    """Disqualified players (R16, R28)."""

    async def excluded_players(self) -> set[str]: ...

    async def exclude_player(self, player_id: str, at: datetime) -> None:
        """R16/R28: remember the player is out (a second call changes nothing)."""
        ...


class Days(Protocol):
    """Game days whose start work is done (R5)."""

    async def mark_day_started(self, day: date, at: datetime) -> None: ...

    async def day_started(self, day: date) -> bool: ...


class Outlook(Protocol):
    """The player's countdowns, read in one go."""

    async def outlook_facts(self, player_id: str, day: date | None, now: datetime) -> OutlookFacts:
        """See :class:`OutlookFacts`: the player's territories by id (``day``: today's game day, None when today is
        none: then nothing was claimed or frozen today), the standing steals of their territories, and the reclaim
        windows they hold open at ``now``."""
        ...


class ClaimsTx(Protocol):
    """One unit of work of the claims store: commits when its block ends, rolls back if it raises. It exposes the
    store's roles (each use case names the few it needs), all over the one transaction."""

    @property
    def locks(self) -> Locks: ...

    @property
    def messages(self) -> Messages: ...

    @property
    def replies(self) -> Replies: ...

    @property
    def ownership(self) -> Ownership: ...

    @property
    def claims(self) -> ClaimLog: ...

    @property
    def trail(self) -> Trail: ...

    @property
    def allowances(self) -> Allowances: ...

    @property
    def cards(self) -> Cards: ...

    @property
    def protections(self) -> Protections: ...

    @property
    def exclusions(self) -> Exclusions: ...

    @property
    def days(self) -> Days: ...

    @property
    def outlook(self) -> Outlook: ...


class ClaimsStore(Protocol):
    """The claims service's store: :meth:`begin` for a unit of work, :meth:`connect` for reads."""

    def begin(self, season_id: str) -> AbstractAsyncContextManager[ClaimsTx]:
        """A unit of work on the board of ``season_id`` (R31)."""
        ...

    def connect(self, season_id: str) -> AbstractAsyncContextManager[ClaimsTx]:
        """A unit for reads only (no transaction of its own, nothing locked), on the board of ``season_id``."""
        ...

    async def seed_territories(self, season_id: str, territory_ids: list[str]) -> None:
        """Unowned rows for the board's territories that have none yet on the board of ``season_id`` (R31: a new
        season's board starts so: no owners, no fortification); idempotent."""
        ...

    async def day_snapshot(self, season_id: str, day: date, now: datetime) -> DaySnapshot:
        """The growing facts of ``day`` and the territories' owners on the board of ``season_id`` (``day``'s
        season), read at once outside any transaction (see :class:`turf_claims.daymemory.DaySnapshot`)."""
        ...

    async def refuse(self, player_id: str, key: str | None, reply: Message, subject: str, event: Event,
                     at: datetime) -> str | None:
        """A refusal decided from memory, kept in one statement outside any transaction (no lock is needed: it
        changes no game state): the reply under ``key`` and ``event`` staged in the outbox. With a ``key`` already
        used, nothing is kept and that first reply (JSON) is returned."""
        ...


class Clock(Protocol):
    """The game clock."""

    async def now(self) -> datetime: ...

    async def fresh_now(self) -> datetime:
        """:meth:`now` read afresh from the clock's source (a watched clock may be behind); raises when the source
        cannot be reached."""
        ...

