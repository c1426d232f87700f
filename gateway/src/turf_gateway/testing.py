"""Fakes of the gateway's ports, for unit tests (no servers): null objects (no limits, no idempotency keys, no
players) and the gateway's stores in memory, each checked against its SQL adapter by the contract suite
(``gateway/tests/contract``)."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any, TypeVar

from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.notify import Done, QueueMail
from turf_common.contracts.seasons import SeasonJoined
from turf_common.rules.seasons import Season
from turf_gateway.adapters import account_store, correction_store, idempotency
from turf_gateway.api.errors import ApiError
from turf_gateway.handlers.events import disqualification, renaming, verification
from turf_gateway.ports import (
    EVER,
    HISTORY_PAGE,
    Account,
    Asked,
    Caller,
    Clearance,
    NewPlayer,
    PlayerRow,
    Point,
    ProfileChange,
    Record,
    RosterRow,
    Services,
    Settling,
    StatusChange,
    Window,
)

M = TypeVar("M", bound=Message)


@dataclass
class MemoryRelay:
    """A :class:`~turf_common.outbox.OutboxFlush` over :attr:`MemoryTables.outbox`: each flush hands the mail requests
    committed since the last one (R30, ``notify.mail``) to ``services``, one at a time, as the gateway's relay does
    (:class:`turf_gateway.adapters.outboxbus.OutboxBus`); a request that fails stays for the next flush. Events
    stay in the outbox for the tests to read."""

    tables: MemoryTables
    services: Services
    done: set[int] = field(default_factory=set)   # the ids of the requests handed on

    async def flush(self) -> int:
        sent = 0
        for subject, msg in list(self.tables.outbox):
            if subject == subjects.NOTIFY_MAIL and id(msg) not in self.done:
                await self.services.ask(subject, msg, Done)
                self.done.add(id(msg))
                sent += 1
        return sent


class NoLimits:
    """A :class:`~turf_gateway.ports.Limiter` that refuses nothing."""

    async def hit(self, name: str, who: str, *more: tuple[str, str]) -> None:
        return None

    async def note(self, name: str, who: str, *more: tuple[str, str]) -> None:
        return None

    async def check(self, name: str, who: str, *more: tuple[str, str]) -> None:
        return None

    async def over(self, name: str, who: str) -> bool:
        return False

    async def undo(self, name: str, who: str, *more: tuple[str, str]) -> None:
        return None

    async def remember(self, name: str, who: str, seconds: int) -> None:
        return None

    async def remembers(self, name: str, who: str) -> bool:
        return False


class CannedServices:
    """A :class:`~turf_gateway.ports.Services` answering from ``answers``: per subject, a reply or a function of
    the request returning one (raise ApiError in it for a refusal); every request is recorded in ``asked``. A
    subject with no answer fails the test (AssertionError), so a use case asking more than expected shows."""

    def __init__(self, answers: dict[str, Message | Callable[[Any], Message]] | None = None) -> None:
        self.answers: dict[str, Message | Callable[[Any], Message]] = dict(answers or {})
        self.asked: list[tuple[str, Message]] = []

    async def ask(self, subject: str, msg: Message, reply: type[M], timeout: float = 5.0) -> M:
        self.asked.append((subject, msg))
        assert subject in self.answers, f"unexpected request on {subject}: {msg!r}"
        answer = self.answers[subject]
        out = answer if isinstance(answer, Message) else answer(msg)
        assert isinstance(out, reply), f"{subject} answered {type(out).__name__}, not {reply.__name__}"
        return out

    def subjects(self) -> list[str]:
        """The subjects asked, in order."""
        return [s for s, _ in self.asked]


class NoKeys:
    """An :class:`~turf_gateway.ports.IdempotencyKeys` that remembers nothing (as the gateway without Redis)."""

    async def same_body_or_refuse(self, route: str, caller: str, key: str, body: Any) -> None:
        return None


class MemoryIdempotencyKeys:
    """:class:`~turf_gateway.ports.IdempotencyKeys` in memory: the first body's digest per (route, caller, key), as
    :class:`~turf_gateway.adapters.idempotency.RedisIdempotencyKeys` keeps it (the contract suite runs both)."""

    def __init__(self) -> None:
        self.first: dict[tuple[str, str, str], str] = {}

    async def same_body_or_refuse(self, route: str, caller: str, key: str, body: Any) -> None:
        digest = idempotency.body_hash(body)
        idempotency.refuse_another_body(self.first.setdefault((route, caller, key), digest), digest)


class NoFeedStream:
    """A :class:`~turf_gateway.ports.FeedStream` that holds nothing: every resume gets a snapshot."""

    async def read_back(self, since: int, upto: int) -> list[tuple[int, str, bytes]] | None:
        return None


class NoPlayers:
    """A :class:`~turf_gateway.ports.PlayerStore` that knows no player (its other methods are not faked)."""

    async def standing(self, player_id: str) -> tuple[str, str] | None:
        return None


# ---- the stores in memory ----------------------------------------------------------------------------------------
# The same answers as the SQL adapters (gateway/tests/contract runs every case on both): the same ApiError reason
# codes and messages, orders and paging cursors; times come back in UTC as PostgreSQL's do; what the SQL keeps in a
# JSON column is kept as its JSON round trip. Each write checks before it changes anything, so one that raises leaves
# the tables as it found them (a rolled-back transaction). The fakes share one MemoryTables as the SQL adapters
# share one database: a disqualification ends sessions and appends a correction record, a flag clearance is an entry
# of the organizer's action log.


class DuplicateKey(Exception):
    """A write the SQL tables' unique keys refuse (IntegrityError there), such as a second session of one token."""


def _json(value: Any) -> Any:
    """``value`` as a JSON column gives it back (tuples become lists, keys strings)."""
    return json.loads(json.dumps(value))


def _utc(at: datetime) -> datetime:
    return at.astimezone(UTC)


@dataclass
class _Player:
    id: str
    name: str
    email: str
    discord: str
    home_address: str
    password_hash: str
    status: str
    role: str
    created_at: datetime
    status_reason: str | None = None
    address_norm: str | None = None
    home: Point | None = None
    email_confirmed: bool = False
    announcements_by_mail: bool = True

    def row(self) -> PlayerRow:
        return PlayerRow(id=self.id, name=self.name, email=self.email, discord=self.discord,
                         home_address=self.home_address, role=self.role, status=self.status,
                         status_reason=self.status_reason, created_at=self.created_at, address_norm=self.address_norm,
                         home=self.home, email_confirmed=self.email_confirmed,
                         announcements_by_mail=self.announcements_by_mail)


@dataclass(frozen=True)
class LogEntry:
    """An entry of the organizer's action log (``admin_log``): ``at`` UTC wall time, ``detail`` JSON."""

    id: str
    at: datetime
    by: str
    action: str
    target: str | None
    reason: str | None
    detail: dict[str, Any]


@dataclass(frozen=True)
class FeedRow:
    seq: int
    type: str
    at: datetime
    territory_id: str | None
    players: list[str]
    body: dict[str, Any]


@dataclass
class MemoryTables:
    """The gateway schema's tables in memory (``tables.py``), shared by the fakes."""

    players: dict[str, _Player] = field(default_factory=dict)
    # token hash → (player id, expiry, idle deadline)
    sessions: dict[str, tuple[str, datetime, datetime | None]] = field(default_factory=dict)
    admin_log: list[LogEntry] = field(default_factory=list)                   # in (at, id) order: appended
    corrections: list[Record] = field(default_factory=list)                   # in seq order: appended
    requests: dict[str, Asked] = field(default_factory=dict)                  # correction requests by command id
    keys: dict[tuple[str, str], str] = field(default_factory=dict)            # (by, Idempotency-Key) → command id
    feed: dict[int, FeedRow] = field(default_factory=dict)                    # by stream sequence
    # (subject, event), in commit order; R30: the mail requests (notify.mail, a QueueMail) with them
    outbox: list[tuple[str, Message]] = field(default_factory=list)
    # R30: token hash → (player id, purpose, email, expires_at, used_at)
    tokens: dict[str, tuple[str, str, str, datetime, datetime | None]] = field(default_factory=dict)
    # the SQL's locks, as every adapter on one database shares them: the organizer's start (an advisory lock), each
    # correction request being settled (its row lock)
    organizer_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    held: dict[str, asyncio.Lock] = field(default_factory=dict)
    # R31: (season id, player id) → the home address confirmed then (``season_players``); MemorySeasons(joins=…)
    joins: dict[tuple[str, str], str] = field(default_factory=dict)

    def joined_at(self) -> datetime:
        """A new player's ``created_at``: now, and after every other (the SQL orders ties of one microsecond by
        the random id; two creates here can fall in one microsecond, which would make the join order a draw)."""
        last = max((p.created_at for p in self.players.values()), default=None)
        now = datetime.now(UTC)
        return now if last is None or now > last else last + timedelta(microseconds=1)

    def log_action(self, by: str, action: str, target: str | None, reason: str | None,
                   detail: dict[str, Any]) -> None:
        self.admin_log.append(LogEntry(uuid.uuid4().hex, datetime.now(UTC), by, action, target, reason,
                                       _json(detail)))

    def append_correction(self, rec: Record) -> None:
        """:func:`turf_gateway.adapters.correction_store.append`: the record and its ``correction.applied``."""
        self.corrections.append(rec)
        self.outbox.append((subjects.CORRECTION_APPLIED, correction_store.applied(
            cid=rec.id, at=rec.at, action=rec.action, reason=rec.reason, territory_id=rec.territory_id,
            player_id=rec.player_id, post_season=rec.post_season)))

    def change_status(self, player_id: str, new: str, *, by: str, reason: str | None, game_now: datetime,
                      note: str | None = None) -> str:
        """:func:`turf_gateway.adapters.account_store.change_status`: the status before."""
        p = self.players.get(player_id)
        if not account_store.changes(None if p is None else (p.role, p.status), new):
            return new
        assert p is not None
        before, p.status, p.status_reason = p.status, new, None
        if new == "disqualified":   # the sessions end with the status change
            self.sessions = {h: s for h, s in self.sessions.items() if s[0] != player_id}
        self.log_action(by, f"player_{new}", player_id, reason,
                        {"before": before, "after": new} | ({"note": note} if note else {}))
        if new == "disqualified":
            self.outbox.append((account_store.SUBJECT[new], disqualification(player_id, game_now)))
        elif new == "verified":
            self.outbox.append((account_store.SUBJECT[new], verification(player_id, game_now, p.discord)))
        return before


class MemoryPlayers:
    """:class:`~turf_gateway.ports.PlayerStore` in memory (:class:`~turf_gateway.adapters.player_store.SqlPlayers`)."""

    def __init__(self, tables: MemoryTables | None = None) -> None:
        self.t = tables or MemoryTables()

    def _by_email(self, email: str) -> _Player | None:
        return next((p for p in self.t.players.values() if p.email.lower() == email.lower()), None)

    def _by_previous(self, email: str) -> _Player | None:
        """R30 (amended): the player whose email change replaced ``email``, until the new one is confirmed."""
        return next((self.t.players[v[0]] for v in self.t.tokens.values()
                     if v[1] == account_store.PREVIOUS_EMAIL and v[2].lower() == email.lower()), None)

    async def standing(self, player_id: str) -> tuple[str, str] | None:
        p = self.t.players.get(player_id)
        return None if p is None else (p.role, p.status)

    async def get(self, player_id: str) -> PlayerRow | None:
        p = self.t.players.get(player_id)
        return None if p is None else p.row()

    def _joined(self) -> list[_Player]:
        return sorted((p for p in self.t.players.values() if p.role == "player"), key=lambda p: (p.created_at, p.id))

    async def players(self) -> list[PlayerRow]:
        return [p.row() for p in self._joined()]

    async def roster(self, after: int, limit: int) -> list[RosterRow]:
        return [RosterRow(i, p.id, p.discord) for i, p in enumerate(self._joined())
                if p.status == "verified" and i > after][:limit]

    async def account(self, email: str) -> Account | None:
        p = self._by_email(email) or self._by_previous(email)
        return None if p is None else Account(p.id, p.role, p.password_hash, p.status)

    async def display_names(self, ids: list[str]) -> dict[str, str]:
        return {i: p.discord if (p := self.t.players.get(i)) is not None else "" for i in ids}

    async def create(self, new: NewPlayer) -> str:
        if self._by_email(new.email) is not None or self._by_previous(new.email) is not None:
            raise ApiError("email_taken", "An account with this email already exists.")
        if any(p.discord.lower() == new.discord.lower() for p in self.t.players.values()):
            raise ApiError("discord_taken", "An account with this Discord username already exists.")
        pid = uuid.uuid4().hex
        self.t.players[pid] = _Player(pid, new.name, new.email, new.discord, new.home_address, new.password_hash,
                                      "pending", "player", self.t.joined_at(), announcements_by_mail=False)
        return pid

    async def place(self, player_id: str, address_norm: str, home: Point | None, status_reason: str | None,
                    verify_at: datetime | None) -> None:
        p = self.t.players.get(player_id)
        if verify_at is not None:   # checked first: a refused verification leaves the home unstored too
            account_store.changes(None if p is None else (p.role, p.status), "verified")
        if p is None:
            return
        p.address_norm, p.status_reason = address_norm, status_reason
        if home is not None:
            p.home = home
        if verify_at is not None:
            self.t.change_status(player_id, "verified", by="geocoder", reason="home address inside the board",
                                 game_now=verify_at)

    async def update_profile(self, player_id: str, change: ProfileChange) -> None:
        c, p = change, self.t.players[player_id]
        others = [q for q in self.t.players.values() if q.id != player_id]
        previous = None if c.email is None else self._by_previous(c.email)
        if c.email is not None and (any(q.email.lower() == c.email.lower() for q in others)
                                    or (previous is not None and previous.id != player_id)):
            raise ApiError("email_taken", "An account with this email already exists.")
        if c.discord is not None and any(q.discord.lower() == c.discord.lower() for q in others):
            raise ApiError("discord_taken", "An account with this Discord username already exists.")
        if c.name is not None:
            p.name = c.name
        if c.announcements_by_mail is not None:
            p.announcements_by_mail = c.announcements_by_mail
        if c.discord is not None and c.discord != p.discord:
            p.discord = c.discord
            self.t.outbox.append((subjects.PLAYER_RENAMED, renaming(player_id, c.at or datetime.now(UTC), c.discord)))
        if c.email is not None:
            key = account_store.previous_key(player_id)
            kept = self.t.tokens.get(key)
            if kept is not None and kept[2].lower() == c.email.lower():
                del self.t.tokens[key]
            elif kept is None:
                self.t.tokens[key] = (player_id, account_store.PREVIOUS_EMAIL, p.email, account_store.NEVER, None)
            if c.notice is not None:
                self.t.outbox.append((subjects.NOTIFY_MAIL, c.notice))
            p.email, p.email_confirmed = c.email, False
        if c.home_address is not None:
            p.home_address, p.address_norm, p.home = c.home_address, c.address_norm, c.home
            p.status_reason = c.status_reason
            if p.status == "verified":   # R30, R27: pending until verified
                p.status = "pending"
                self.t.log_action(player_id, "player_pending", player_id, "new home address",
                                  {"before": "verified", "after": "pending"})
            if c.verify_at is not None and p.status == "pending":
                self.t.change_status(player_id, "verified", by="geocoder", reason="home address inside the board",
                                     game_now=c.verify_at)

    async def withdraw(self, player_id: str, at: datetime, post_season: bool) -> None:
        p = self.t.players[player_id]
        if p.status in ("disqualified", "withdrawn"):
            raise ApiError("conflict", f"This account is {p.status} already.")
        before, e = p.status, account_store.erased(player_id)
        self.t.outbox = [(s, m) for s, m in self.t.outbox if not (isinstance(m, QueueMail) and m.to == p.email)]
        p.status, p.status_reason, p.name, p.discord = "withdrawn", None, e["name"], e["discord"]
        p.email, p.email_confirmed, p.announcements_by_mail = e["email"], False, False
        p.home_address, p.address_norm, p.home, p.password_hash = "", None, None, e["password_hash"]
        self.t.sessions = {h: s for h, s in self.t.sessions.items() if s[0] != player_id}
        self.t.tokens = {h: v for h, v in self.t.tokens.items() if v[0] != player_id}
        self.t.log_action(player_id, "player_withdrawn", player_id, "the player withdrew (R30)",
                          {"before": before, "after": "withdrawn"})
        self.t.append_correction(Record(
            uuid.uuid4().hex, _utc(at), "withdrawal", player_id, "the player withdrew (R30)",
            {"player_id": player_id}, None, player_id, {"status": before}, {"status": "withdrawn"}, post_season))
        self.t.outbox.append((account_store.SUBJECT["disqualified"], disqualification(player_id, at, withdrawn=True)))

    async def erase_homes(self) -> int:
        held = [p for p in self.t.players.values() if p.role == "player" and p.home_address != ""]
        for p in held:
            p.home_address, p.address_norm, p.home = "", None, None
        return len(held)

    async def set_password(self, player_id: str, password_hash: str, keep_session: str | None) -> None:
        self.t.players[player_id].password_hash = password_hash
        self.t.sessions = {h: s for h, s in self.t.sessions.items() if s[0] != player_id or h == keep_session}

    async def change_status(self, change: StatusChange) -> str:
        c = change
        before = self.t.change_status(c.player_id, c.new, by=c.by, reason=c.reason or None, game_now=c.at,
                                      note=c.note)
        if c.mail is not None and before != c.new:
            self.t.outbox.append((subjects.NOTIFY_MAIL, c.mail))
        if c.new == "disqualified" and before != c.new:   # R28: also a correction, logged with it
            self.t.append_correction(Record(
                uuid.uuid4().hex, _utc(c.at), "disqualify", c.by, c.reason or "-",
                _json({"player_id": c.player_id} | ({"note": c.note} if c.note else {})), None, c.player_id,
                {"status": before}, {"status": c.new}, c.post_season))
        return before

    async def log_action(self, by: str, action: str, target: str | None, reason: str | None,
                         detail: dict[str, Any]) -> None:
        self.t.log_action(by, action, target, reason, detail)

    async def ensure_organizer(self, email: str, password_hash: str,
                               same_password: Callable[[str], Awaitable[bool]]) -> list[str]:
        async with self.t.organizer_lock:   # one organizer start at a time
            revoked: list[str] = []
            for q in list(self.t.players.values()):
                if q.role == "organizer" and q.email.lower() != email.lower():   # the email changed: demoted
                    self.t.sessions = {h: s for h, s in self.t.sessions.items() if s[0] != q.id}
                    q.role, q.password_hash = account_store.FORMER_ORGANIZER, ""
                    q.discord = account_store.former_discord(q.id)
                    revoked.append(q.id)
            p = self._by_email(email)
            if p is None:
                if any(q.discord.lower() == "organizer" for q in self.t.players.values()):
                    raise DuplicateKey("players.discord_norm: 'organizer' exists")
                pid = uuid.uuid4().hex
                self.t.players[pid] = _Player(pid, "Organizer", email, "organizer", "-", password_hash, "verified",
                                              "organizer", self.t.joined_at())
                return revoked
            if not await same_password(p.password_hash):
                self.t.sessions = {h: s for h, s in self.t.sessions.items() if s[0] != p.id}
                revoked.append(p.id)
            p.role, p.status, p.password_hash = "organizer", "verified", password_hash
            return revoked


class MemoryAccountTokens:
    """:class:`~turf_gateway.ports.AccountTokens` in memory (as :class:`~turf_gateway.adapters.tokens.SqlAccountTokens`
    does it)."""

    def __init__(self, tables: MemoryTables | None = None) -> None:
        self.t = tables or MemoryTables()

    async def issue(self, token_hash: str, player_id: str, purpose: str, email: str, expires_at: datetime,
                    mail: QueueMail | None = None) -> None:
        self.t.tokens = {h: v for h, v in self.t.tokens.items() if (v[0], v[1]) != (player_id, purpose)}
        self.t.tokens[token_hash] = (player_id, purpose, email, _utc(expires_at), None)
        if mail is not None:
            self.t.outbox.append((subjects.NOTIFY_MAIL, mail))

    async def holder(self, token_hash: str, purpose: str, now: datetime) -> str | None:
        v = self.t.tokens.get(token_hash)
        return v[0] if v is not None and v[1] == purpose and v[4] is None and v[3] > now else None

    def _use(self, token_hash: str, purpose: str, now: datetime) -> tuple[str, str] | None:
        v = self.t.tokens.get(token_hash)
        if v is None or v[1] != purpose or v[4] is not None or v[3] <= now:
            return None
        self.t.tokens[token_hash] = (*v[:4], now)
        return v[0], v[2]

    async def confirm_email(self, token_hash: str, now: datetime) -> str | None:
        used = self._use(token_hash, "email_confirmation", now)
        if used is None:
            return None
        p = self.t.players.get(used[0])
        if p is not None and p.email.lower() == used[1].lower():
            p.email_confirmed = True
            self.t.tokens.pop(account_store.previous_key(p.id), None)
        return used[0]

    async def reset_password(self, token_hash: str, password_hash: str, now: datetime) -> str | None:
        used = self._use(token_hash, "password_reset", now)
        if used is None:
            return None
        self.t.players[used[0]].password_hash = password_hash
        self.t.sessions = {h: s for h, s in self.t.sessions.items() if s[0] != used[0]}
        return used[0]


class MemorySessions:
    """:class:`~turf_gateway.ports.SessionStore` in memory (:class:`~turf_gateway.adapters.player_store.SqlSessions`):
    a session of a player the tables do not hold is found by no lookup (the SQL's join)."""

    def __init__(self, tables: MemoryTables | None = None) -> None:
        self.t = tables or MemoryTables()

    async def lookup(self, token_hash: str) -> tuple[Caller, datetime, datetime | None] | None:
        found = self.t.sessions.get(token_hash)
        p = None if found is None else self.t.players.get(found[0])
        if found is None or p is None:
            return None
        joined = frozenset(sid for (sid, pid) in self.t.joins if pid == p.id)
        return Caller(p.id, p.role, p.status, p.discord, p.home, joined), found[1], found[2]  # type: ignore[arg-type]

    async def create(self, token_hash: str, player_id: str, expires_at: datetime,
                     idle_until: datetime | None = None) -> None:
        if token_hash in self.t.sessions:
            raise DuplicateKey(f"sessions.token_hash: {token_hash!r} exists")
        self.t.sessions[token_hash] = (player_id, _utc(expires_at), None if idle_until is None else _utc(idle_until))

    async def touch(self, token_hash: str, idle_until: datetime) -> None:
        found = self.t.sessions.get(token_hash)
        if found is not None:
            self.t.sessions[token_hash] = (found[0], found[1], _utc(idle_until))

    async def delete(self, token_hash: str) -> None:
        self.t.sessions.pop(token_hash, None)

    async def purge(self, now: datetime) -> int:
        kept = {h: s for h, s in self.t.sessions.items() if s[1] > now and (s[2] is None or s[2] > now)}
        gone, self.t.sessions = len(self.t.sessions) - len(kept), kept
        return gone


class MemoryFlagClearances:
    """:class:`~turf_gateway.ports.FlagClearances` in memory: entries ``flag_cleared`` of the action log, the first
    of each flag kept (R7.1)."""

    def __init__(self, tables: MemoryTables | None = None) -> None:
        self.t = tables or MemoryTables()

    async def all(self) -> dict[str, Clearance]:
        out: dict[str, Clearance] = {}
        for e in self.t.admin_log:
            if e.action == "flag_cleared" and e.target is not None:
                out.setdefault(e.target, Clearance(at=e.detail.get("at") or e.at.isoformat(), by=e.by,
                                                   reason=e.reason))
        return out

    async def clear(self, flag_id: str, by: str, reason: str | None, detail: dict[str, Any]) -> Clearance:
        # no await before the entry is written: a concurrent clear of the same flag finds it (the SQL's lock)
        if flag_id not in await self.all():
            self.t.log_action(by, "flag_cleared", flag_id, reason, detail)
        return (await self.all())[flag_id]


def _within(at: datetime, window: Window) -> bool:
    return (window[0] is None or at >= window[0]) and (window[1] is None or at < window[1])


class MemoryFeedLog:
    """:class:`~turf_gateway.ports.FeedLog` in memory: rows by stream sequence, the first kept."""

    def __init__(self, tables: MemoryTables | None = None) -> None:
        self.t = tables or MemoryTables()

    async def store(self, rows: list[dict[str, Any]]) -> None:
        for r in rows:
            self.t.feed.setdefault(r["seq"], FeedRow(r["seq"], r["type"], _utc(r["at"]), r["territory_id"],
                                                     list(r["players"]), _json(r["body"])))

    def _page(self, match: Callable[[FeedRow], bool], after_seq: int,
              limit: int) -> tuple[list[dict[str, Any]], int | None]:
        rows = [r for _, r in sorted(self.t.feed.items()) if r.seq > after_seq and match(r)][:limit + 1]
        more = len(rows) > limit
        rows = rows[:limit]
        return [_json(r.body) for r in rows], (rows[-1].seq if more else None)

    async def territory_changes(self, territory_id: str, after_seq: int = 0, limit: int = HISTORY_PAGE,
                                window: Window = EVER) -> tuple[list[dict[str, Any]], int | None]:
        return self._page(lambda r: r.territory_id == territory_id and r.type == subjects.TERRITORY_CHANGED
                          and _within(r.at, window), after_seq, limit)

    async def player_messages(self, player_id: str, after_seq: int = 0, limit: int = HISTORY_PAGE,
                              window: Window = EVER) -> tuple[list[dict[str, Any]], int | None]:
        return self._page(lambda r: player_id in r.players and _within(r.at, window), after_seq, limit)

    async def replay_page(self, start: datetime | None, end: datetime | None, after_seq: int,
                          limit: int) -> tuple[list[dict[str, Any]], int | None]:
        return self._page(lambda r: (start is None or r.at >= start) and (end is None or r.at < end),
                          after_seq, limit)


class MemoryCorrectionLog:
    """:class:`~turf_gateway.ports.CorrectionLog` in memory (R28). :meth:`settling` holds the request's own lock
    (the SQL's row lock: a concurrent settlement of it waits) and commits what was done inside on a clean exit
    only. ``tz``: the season's zone, in which a record is answered
    (:func:`~turf_gateway.adapters.correction_store.view`)."""

    def __init__(self, tables: MemoryTables | None = None, tz: tzinfo = UTC) -> None:
        self.t, self.tz = tables or MemoryTables(), tz

    def holding(self) -> bool:
        """Whether a settlement holds a request now (never while its service is asked)."""
        return any(lock.locked() for lock in self.t.held.values())

    async def open_request(self, *, by: str, key: str | None, at: datetime, post_season: bool, action: str,
                           request: dict[str, Any]) -> str:
        if key is not None and (by, key) in self.t.keys:
            return self.t.keys[(by, key)]
        cid = uuid.uuid4().hex
        self.t.requests[cid] = Asked(cid, _utc(at), post_season, _json(request), "asked", None)
        if key is not None:
            self.t.keys[(by, key)] = cid
        return cid

    async def asked(self, cid: str) -> Asked:
        return self.t.requests[cid]

    async def records(self) -> list[Record]:
        return list(self.t.corrections)

    @asynccontextmanager
    async def settling(self, cid: str) -> AsyncIterator[Settling]:
        async with self.t.held.setdefault(cid, asyncio.Lock()):
            s = _MemorySettling(self, self.t.requests[cid])
            yield s
            if s.logged is not None:
                self.t.append_correction(s.logged)
            self.t.requests[cid] = s.asked_now


class _MemorySettling:
    def __init__(self, book: MemoryCorrectionLog, asked: Asked) -> None:
        self.book, self.asked, self.asked_now = book, asked, asked
        self.logged: Record | None = None   # appended when the block ends cleanly

    async def record(self) -> dict[str, Any]:
        rec = self.logged or next(r for r in self.book.t.corrections if r.id == self.asked.id)
        return correction_store.view(rec, self.book.tz)

    async def refuse(self, reason: str, message: str) -> None:
        self.asked_now = replace(self.asked_now, state="refused", refusal={"reason": reason, "message": message})

    async def log(self, *, by: str, action: str, reason: str, before: Any, after: Any, territory_id: str | None,
                  player_id: str | None) -> dict[str, Any]:
        a = self.asked
        self.logged = Record(a.id, a.at, action, by, reason, a.request, territory_id, player_id, _json(before),
                             _json(after), a.post_season)
        self.asked_now = replace(self.asked_now, state="logged", refusal=None)
        return await self.record()


@dataclass
class MemorySeasons:
    """:class:`turf_gateway.ports.SeasonStore` in memory; ``events`` the season events it would have staged
    (``season.joined`` as its :class:`SeasonJoined`). ``joins``: :attr:`MemoryTables.joins` for sessions that
    carry the seasons joined."""

    seasons: dict[str, Season] = field(default_factory=dict)
    joins: dict[tuple[str, str], str] = field(default_factory=dict)
    events: list[tuple[str, Season | SeasonJoined]] = field(default_factory=list)

    async def all(self) -> list[Season]:
        return list(self.seasons.values())

    async def create(self, season: Season, by: str, at: datetime) -> None:
        from turf_gateway.adapters.season_store import SeasonIdTaken

        if season.id in self.seasons:
            raise SeasonIdTaken(season.id)
        self.seasons[season.id] = season
        self.events.append((subjects.SEASON_CREATED, season))

    async def update(self, season: Season, by: str, at: datetime) -> None:
        self.seasons[season.id] = season
        self.events.append((subjects.SEASON_UPDATED, season))

    async def ensure(self, season: Season, at: datetime) -> bool:
        if season.id in self.seasons:
            return False
        self.seasons[season.id] = season
        return True

    async def join(self, season_id: str, player_id: str, home_address: str, at: datetime) -> bool:
        from turf_gateway.adapters.season_store import joined_event

        if (season_id, player_id) in self.joins:
            return False
        self.joins[(season_id, player_id)] = home_address
        self.events.append((subjects.SEASON_JOINED, joined_event(season_id, player_id, at)))
        return True

    async def joined(self, player_id: str) -> dict[str, str]:
        return {s: a for (s, p), a in self.joins.items() if p == player_id}

    async def members(self, season_id: str) -> set[str]:
        return {p for (s, p) in self.joins if s == season_id}
