"""The gateway's ports: what its use cases and routes need from the outside, as Protocols. The adapters
(:mod:`turf_gateway.adapters`) implement them over NATS and PostgreSQL; :mod:`turf_gateway.bootstrap` wires them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol, TypeVar

from turf_common.contracts.base import Message
from turf_common.contracts.claims import PlayerStatus
from turf_common.contracts.notify import QueueMail
from turf_common.rules.seasons import Season

M = TypeVar("M", bound=Message)


class Services(Protocol):
    """Requests to the services (claims, cards, scoring, notify, clock), typed both ways."""

    async def ask(self, subject: str, msg: Message, reply: type[M], timeout: float = 5.0) -> M:
        """The reply to ``msg`` on ``subject``, decoded into ``reply``. Raises ApiError on the service's refusal
        (its rule code, R29), BusError when nobody answers in ``timeout`` seconds."""
        ...


#: public lists (histories, the roster) are read a page at a time: the default and largest page
HISTORY_PAGE = 1000
ROSTER_PAGE = 1000


@dataclass(frozen=True)
class Point:
    lat: float
    lon: float


@dataclass(frozen=True)
class Caller:
    """The signed-in caller of a request: player id, role (player | organizer), status (R27), display name."""

    id: str
    role: Literal["player", "organizer"]
    status: PlayerStatus
    display_name: str
    home: Point | None = None   # the geocoded home (R27), private; the day's first fix is compared with it (R7.1)
    #: R31: the ids of the seasons the player joined, read with the session (a join drops the cached caller), so
    #: the claim path's ``not_joined`` costs no query
    seasons: frozenset[str] = frozenset()


class Limiter(Protocol):
    """Rate limits by name and who (``TURF_RATE_LIMITS``); over one: ApiError 429 ``rate_limited``."""

    async def hit(self, name: str, who: str, *more: tuple[str, str]) -> None: ...

    async def note(self, name: str, who: str, *more: tuple[str, str]) -> None: ...

    async def check(self, name: str, who: str, *more: tuple[str, str]) -> None: ...

    async def over(self, name: str, who: str) -> bool: ...

    async def undo(self, name: str, who: str, *more: tuple[str, str]) -> None: ...

    async def remember(self, name: str, who: str, seconds: int) -> None: ...

    async def remembers(self, name: str, who: str) -> bool: ...


class IdempotencyKeys(Protocol):
    async def same_body_or_refuse(self, route: str, caller: str, key: str, body: Any) -> None:
        """Remember ``body`` as the first of ``caller``'s ``key`` on ``route``; ApiError 422 ``invalid_input``
        when the key was first used with another body."""
        ...


class GameClock(Protocol):
    async def now(self) -> datetime:
        """The game's current instant (the clock service's, R1), timezone-aware."""
        ...



@dataclass(frozen=True)
class PlayerRow:
    """A player as stored (R27): private fields included; ``home`` the geocoded home address (WGS84)."""

    id: str
    name: str
    email: str
    discord: str
    home_address: str | None
    role: str
    status: str
    status_reason: str | None
    created_at: datetime
    address_norm: str | None
    home: Point | None
    email_confirmed: bool = False   # R30: by the link mailed to ``email``
    announcements_by_mail: bool = True   # R30: optional announcements mailed (rule changes always are)


@dataclass(frozen=True)
class RosterRow:
    """A verified player on the public roster: join index (registration order), id, public display name."""

    join_index: int
    id: str
    display_name: str


@dataclass(frozen=True)
class Account:
    """What a sign-in checks: the player's id, role, argon2 password hash and status (R27: pending, verified,
    rejected, disqualified)."""

    id: str
    role: str
    password_hash: str
    status: str = "verified"


@dataclass(frozen=True)
class NewPlayer:
    name: str
    email: str
    discord: str
    home_address: str
    password_hash: str


@dataclass(frozen=True)
class ProfileChange:
    """R30: what a player changes of their profile (None: unchanged). A new home address comes with its
    normalised form, its geocoded point (None: not found or no geocoder) and the reason it is not verified yet;
    ``verify_at`` (game time) when the geocoder verifies it at once; ``at`` (game time) the change's instant, for
    the ``player.renamed`` event a new Discord username stages (R30)."""

    name: str | None = None
    discord: str | None = None
    email: str | None = None
    home_address: str | None = None
    address_norm: str | None = None
    home: Point | None = None
    status_reason: str | None = None
    verify_at: datetime | None = None
    announcements_by_mail: bool | None = None
    at: datetime | None = None
    #: R30 (amended 2026-12-07): with a new ``email``, the message that tells the address it replaces (no link that
    #: acts on the account), staged with the change
    notice: QueueMail | None = None


@dataclass(frozen=True)
class StatusChange:
    """An organizer's (or the geocoder's) status change (R27, R28): ``at`` game time; ``note`` private."""

    player_id: str
    new: str
    by: str
    reason: str
    note: str | None
    at: datetime
    post_season: bool
    #: R27: the message telling the player of the change (a verification: they may play), staged with it when the
    #: status changes
    mail: QueueMail | None = None


class PlayerStore(Protocol):
    """The gateway's players (R27) and the organizer's action log."""

    async def standing(self, player_id: str) -> tuple[str, str] | None:
        """``(role, status)`` of a player, None for an unknown id."""
        ...

    async def get(self, player_id: str) -> PlayerRow | None: ...

    async def players(self) -> list[PlayerRow]:
        """Every player (not the organizer) in registration order."""
        ...

    async def roster(self, after: int, limit: int) -> list[RosterRow]:
        """The verified players whose join index (0 for the first player who registered, whatever their
        status, never the organizer) is over ``after``, in join order, at most ``limit``."""
        ...

    async def account(self, email: str) -> Account | None:
        """The account of ``email`` (compared case-insensitively)."""
        ...

    async def display_names(self, ids: list[str]) -> dict[str, str]:
        """Public display names by id ("" for an unknown id); never email or address."""
        ...

    async def create(self, new: NewPlayer) -> str:
        """Register a pending player; its id. ApiError ``email_taken``, ``discord_taken`` or ``conflict``."""
        ...

    async def place(self, player_id: str, address_norm: str, home: Point | None, status_reason: str | None,
                    verify_at: datetime | None) -> None:
        """Store the geocoded home; with ``verify_at`` (game time) also verify, in one transaction."""
        ...

    async def update_profile(self, player_id: str, change: ProfileChange) -> None:
        """R30: apply ``change`` in one transaction. A new email is unconfirmed; a new home address makes a verified
        player ``pending`` (logged) until verified again (R27), then verified at once with ``verify_at``. ApiError
        ``email_taken`` or ``discord_taken`` (nothing changed)."""
        ...

    async def withdraw(self, player_id: str, at: datetime, post_season: bool) -> None:
        """R30: the player withdraws, in one transaction: status ``withdrawn``, their personal data erased (name and
        display name "a withdrawn player", email, Discord name, home address, password), their sessions and
        tokens deleted, logged as a disqualification (R28) with ``player.disqualified`` (``withdrawn``) staged.
        ApiError ``conflict`` for a player already disqualified or withdrawn."""
        ...

    async def erase_homes(self) -> int:
        """R30: every player's home address (text, normalised form, point) erased; how many were still held."""
        ...

    async def set_password(self, player_id: str, password_hash: str, keep_session: str | None) -> None:
        """R30: the new password hash; every session of the player but ``keep_session`` (a token hash) ends."""
        ...

    async def change_status(self, change: StatusChange) -> str:
        """Apply ``change`` with its admin-log entry and event (and, for a disqualification, its correction
        record); the status before. ApiError ``not_found``, ``conflict`` for a transition R27 does not allow."""
        ...

    async def log_action(self, by: str, action: str, target: str | None, reason: str | None,
                         detail: dict[str, Any]) -> None:
        """Append an entry to the organizer's action log."""
        ...

    async def ensure_organizer(self, email: str, password_hash: str,
                               same_password: Callable[[str], Awaitable[bool]]) -> list[str]:
        """The organizer account exists with ``password_hash`` (one gateway at a time); the ids whose sessions
        were deleted: its own when its stored password was another (``same_password(stored_hash)`` false), and
        every other organizer account's (``TURF_ORGANIZER_EMAIL`` changed: the old account is demoted to
        ``former_organizer``, with no usable password)."""
        ...


class AccountTokens(Protocol):
    """R30: the single-use links sent by mail, by the SHA-256 of their token (the token is never stored). A token is
    usable until used, voided (a newer one of its player and purpose) or expired."""

    async def issue(self, token_hash: str, player_id: str, purpose: str, email: str, expires_at: datetime,
                    mail: QueueMail | None = None) -> None:
        """Store a token of ``purpose`` (``email_confirmation`` for ``email``, ``password_reset``); the player's
        earlier tokens of that purpose are void from now on. ``mail``, the message carrying its link, is staged in
        the same transaction (an outbox row, ``notify.mail``, asked of notify after the commit by the relay): a
        gateway that stops after the commit leaves it to the next sweep, never loses it."""
        ...

    async def holder(self, token_hash: str, purpose: str, now: datetime) -> str | None:
        """The player whose token of ``purpose`` is usable at ``now``, else None; changes nothing."""
        ...

    async def confirm_email(self, token_hash: str, now: datetime) -> str | None:
        """Use a confirmation token: its player's email is confirmed when it is still the address the link went
        to. The player's id, None for a token not usable (nothing changed)."""
        ...

    async def reset_password(self, token_hash: str, password_hash: str, now: datetime) -> str | None:
        """Use a reset token: the new password hash stored and every session of the player deleted, in one
        transaction. The player's id, None for a token not usable (nothing changed)."""
        ...


class SessionStore(Protocol):
    """Sessions by the SHA-256 of their bearer token."""

    async def lookup(self, token_hash: str) -> tuple[Caller, datetime, datetime | None] | None:
        """The caller, the session's absolute expiry and its idle deadline (UTC; None: a session made before idle
        deadlines were kept), None for an unknown token."""
        ...

    async def create(self, token_hash: str, player_id: str, expires_at: datetime,
                     idle_until: datetime | None = None) -> None: ...

    async def touch(self, token_hash: str, idle_until: datetime) -> None:
        """Move the session's idle deadline (a use; never past its absolute expiry, which the caller computed)."""
        ...

    async def delete(self, token_hash: str) -> None: ...

    async def purge(self, now: datetime) -> int:
        """Delete the sessions expired by ``now`` (absolute or idle); how many."""
        ...


class Revocations(Protocol):
    async def revoke(self, *, player_id: str | None = None, token_hash: str | None = None) -> None:
        """Forget cached sessions (a token's, or every one of a player) in every gateway, once the change that
        ends them has committed."""
        ...


@dataclass(frozen=True)
class Clearance:
    """A flag's first clearance (R7.1): ``at`` game time (ISO 8601, the season's zone), by whom, why."""

    at: str
    by: str
    reason: str | None


class FlagClearances(Protocol):
    async def all(self) -> dict[str, Clearance]:
        """Flag id → its first clearance."""
        ...

    async def clear(self, flag_id: str, by: str, reason: str | None, detail: dict[str, Any]) -> Clearance:
        """Clear ``flag_id`` once (a repeat, also a concurrent one, keeps the first); the first clearance."""
        ...


#: R31: the instants ``[start, end)`` a season's feed messages fall in (None: open on that side)
Window = tuple[datetime | None, datetime | None]
EVER: Window = (None, None)


class FeedLog(Protocol):
    """The public feed's messages by stream sequence, as spectators got them. ``window``: only those whose ``at``
    falls in it (one season's, R31)."""

    async def store(self, rows: list[dict[str, Any]]) -> None:
        """Store rows ``{seq, type, at, territory_id, players, body}``, once per sequence."""
        ...

    async def territory_changes(self, territory_id: str, after_seq: int = 0, limit: int = HISTORY_PAGE,
                                window: Window = EVER) -> tuple[list[dict[str, Any]], int | None]:
        """The ``territory.changed`` messages of one town after stream sequence ``after_seq``, oldest first, at
        most ``limit``, and the next page's ``after_seq`` (None on the last page)."""
        ...

    async def player_messages(self, player_id: str, after_seq: int = 0, limit: int = HISTORY_PAGE,
                              window: Window = EVER) -> tuple[list[dict[str, Any]], int | None]:
        """The messages that concern the player after ``after_seq``, oldest first, at most ``limit``, and the next
        page's ``after_seq`` (None on the last page)."""
        ...

    async def replay_page(self, start: datetime | None, end: datetime | None, after_seq: int,
                          limit: int) -> tuple[list[dict[str, Any]], int | None]:
        """At most ``limit`` messages with ``start`` <= at < ``end`` and seq > ``after_seq``, in stream order, and
        the ``after_seq`` of the next page (None on the last)."""
        ...


# ---- the corrections log (R28) --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Asked:
    """A recorded correction request: its command id, the log record's time and season flag, the body first asked,
    and its state (``asked``, ``logged``, ``refused`` with ``refusal`` {reason, message})."""

    id: str
    at: datetime
    post_season: bool
    request: dict[str, Any]
    state: str
    refusal: dict[str, str] | None


@dataclass(frozen=True)
class Record:
    """A logged correction (R28): ``at`` UTC; ``request`` the body asked (with the organizer's private ``note``)."""

    id: str
    at: datetime
    action: str
    by: str
    reason: str
    request: dict[str, Any]
    territory_id: str | None
    player_id: str | None
    before: Any
    after: Any
    post_season: bool


class Settling(Protocol):
    """One request, held (a concurrent settlement waits) until the caller leaves :meth:`CorrectionLog.settling`."""

    asked: Asked

    async def record(self) -> dict[str, Any]:
        """The logged record, as the route answers it."""
        ...

    async def refuse(self, reason: str, message: str) -> None:
        """The owning service refused: remember the refusal for repeats."""
        ...

    async def log(self, *, by: str, action: str, reason: str, before: Any, after: Any, territory_id: str | None,
                  player_id: str | None) -> dict[str, Any]:
        """Append the record (and its ``correction.applied``), mark the request logged; the record."""
        ...


class CorrectionLog(Protocol):
    async def open_request(self, *, by: str, key: str | None, at: datetime, post_season: bool, action: str,
                           request: dict[str, Any]) -> str:
        """Record a request before its service is asked (committed on return); its command id (the first
        request's, for an ``Idempotency-Key`` already used by ``by``)."""
        ...

    async def asked(self, cid: str) -> Asked:
        """The request ``cid`` as it stands (no lock held)."""
        ...

    async def records(self) -> list[Record]:
        """The whole log, oldest first."""
        ...

    def settling(self, cid: str) -> AbstractAsyncContextManager[Settling]:
        """The request ``cid`` to settle, its row held only for this short transaction; whatever is done inside
        commits together on a clean exit. Never hold it across a request to a service."""
        ...


class FeedStream(Protocol):
    """The feed stream's stored events, for a spectator resuming with ``since``."""

    async def read_back(self, since: int, upto: int) -> list[tuple[int, str, bytes]] | None:
        """The stored feed events of sequences ``since`` < seq <= ``upto``, oldest first, as ``(seq, subject,
        data)``; None when they cannot be resent (:func:`turf_gateway.adapters.feed_stream.resumable`: gone from
        the stream, a sequence it never reached, or more than ``TURF_WS_RESEND_MAX`` of them) or the stream does
        not answer."""
        ...


class SeasonStore(Protocol):
    """The organizer's seasons and who joined which (R31). ``create`` raises
    :class:`turf_gateway.adapters.season_store.SeasonIdTaken` for an id in use; ``create`` and ``update`` stage
    ``season.created`` / ``season.updated`` with the row; ``ensure`` writes the configuration file's season once,
    joining every player registered then; ``join`` stages ``season.joined`` with the row and answers whether the
    player joined now (a repeat changes nothing: False)."""

    async def all(self) -> list[Season]: ...

    async def create(self, season: Season, by: str, at: datetime) -> None: ...

    async def update(self, season: Season, by: str, at: datetime) -> None: ...

    async def ensure(self, season: Season, at: datetime) -> bool: ...

    async def join(self, season_id: str, player_id: str, home_address: str, at: datetime) -> bool: ...

    async def joined(self, player_id: str) -> dict[str, str]: ...

    async def members(self, season_id: str) -> set[str]: ...
