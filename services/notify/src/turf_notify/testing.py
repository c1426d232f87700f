"""In-memory fakes of the notify service's ports, for unit tests: the same behaviour as the SQL store (one lock for
the whole store stands in for row locks; a transaction's changes are applied on a copy and kept only on success)."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from turf_common.contracts.base import Event
from turf_common.contracts.notify import AnnouncementOut, NotificationOut
from turf_common.rules.medals import Award, Change
from turf_notify.ports import MAX_SUBSCRIPTIONS, MailRecord, PendingPush, Post, QueuedMail, Reminder, Subscription
from turf_notify.rules import Draft


@dataclass
class State:
    inbox: set[str] = field(default_factory=set)
    players: dict[str, tuple[str | None, str]] = field(default_factory=dict)   # id → (display name, status)
    notifications: list[tuple[str, NotificationOut]] = field(default_factory=list)
    next_id: int = 1
    staged: list[tuple[str, Event]] = field(default_factory=list)
    pushes: list[PendingPush] = field(default_factory=list)
    posts: list[Post] = field(default_factory=list)
    sent_posts: set[int] = field(default_factory=set)
    reminders: dict[str, Reminder] = field(default_factory=dict)
    scores: dict[str, dict[str, int]] = field(default_factory=dict)   # season → player → total
    announcements: dict[str, AnnouncementOut] = field(default_factory=dict)   # command id → announcement
    reads: dict[str, int] = field(default_factory=dict)
    subscriptions: dict[tuple[str, str], Subscription] = field(default_factory=dict)   # in saving order
    keys: dict[str, str] = field(default_factory=dict)
    # R30: the mail queued in transactions, key → (to, kind, subject, text, html)
    mails: dict[str, tuple[str, str, str, str, str]] = field(default_factory=dict)
    # event id → (season, change), in stream order
    medal_changes: dict[str, tuple[str, Change]] = field(default_factory=dict)
    medal_awards: dict[tuple[str, str], Award] = field(default_factory=dict)   # (season, award key) → award


class MemoryTx:
    def __init__(self, s: State) -> None:
        self.s = s
        # every role of the unit of work (ports.NotifyTx) is served by this one object
        self.messages = self.roster = self.notifications = self.deliveries = self.reminders = self
        self.standings = self.announcements = self.mail = self.medals = self

    async def record_changes(self, season_id: str, changes: Sequence[tuple[str, Change]]) -> set[str]:
        kept = set()
        for eid, c in changes:
            if eid not in self.s.medal_changes:
                self.s.medal_changes[eid] = (season_id, c)
                kept.add(eid)
        return kept

    async def changes_naming(self, season_id: str, player_ids: set[str]) -> list[Change]:
        return [c for s, c in self.s.medal_changes.values()
                if s == season_id and {c.owner_id, c.previous_owner_id} & player_ids]

    async def medal_players(self, season_id: str) -> set[str]:
        return {p for s, c in self.s.medal_changes.values() if s == season_id
                for p in (c.owner_id, c.previous_owner_id) if p}

    async def awarded(self, season_id: str, player_ids: set[str]) -> set[str]:
        return {k for (s, k), a in self.s.medal_awards.items() if s == season_id and a.player_id in player_ids}

    async def add_awards(self, season_id: str, awards: Sequence[Award]) -> None:
        for a in awards:
            self.s.medal_awards.setdefault((season_id, a.key), a)

    async def first_times(self, events: Sequence[tuple[str, str]]) -> set[str]:
        new = {eid for eid, _ in events} - self.s.inbox
        self.s.inbox |= new
        return new

    async def save_player(self, player_id: str, display_name: str | None, status: str) -> None:
        old = self.s.players.get(player_id, (None, status))[0]
        self.s.players[player_id] = (display_name if display_name is not None else old, status)

    async def rename_player(self, player_id: str, display_name: str) -> None:
        known = self.s.players.get(player_id)
        if known is not None and (known[0] is not None or known[1] != "disqualified"):   # not an erased name
            self.s.players[player_id] = (display_name, known[1])

    async def erase_player(self, player_id: str) -> None:
        s = self.s
        s.notifications = [(p, n) for p, n in s.notifications if p != player_id]
        s.reads.pop(player_id, None)
        s.subscriptions = {k: v for k, v in s.subscriptions.items() if k[0] != player_id}
        s.pushes = [p for p in s.pushes if p.player_id != player_id]
        s.reminders = {k: r for k, r in s.reminders.items() if r.player_id != player_id}
        s.players[player_id] = (None, s.players.get(player_id, (None, "disqualified"))[1])

    async def player_names(self, player_ids: set[str]) -> dict[str, str]:
        return {p: n for p in player_ids if (n := self.s.players.get(p, (None, ""))[0])}

    async def players(self) -> list[str]:
        return sorted(p for p, (_, st) in self.s.players.items() if st == "verified")

    async def add(self, draft: Draft) -> NotificationOut:
        n = NotificationOut(id=self.s.next_id, at=draft.at, kind=draft.kind, message=draft.message, data=draft.data)
        self.s.next_id += 1
        self.s.notifications.append((draft.player_id, n))
        return n

    async def stage(self, subject: str, event: Event) -> None:
        self.s.staged.append((subject, event))

    async def queue_mail(self, key: str, to: str, kind: str, subject: str, text: str, html: str,
                         now: datetime, at: datetime | None = None) -> None:
        self.s.mails.setdefault(key, (to, kind, subject, text, html))

    async def queue_push(self, n: NotificationOut, player_id: str, not_before: datetime,
                         hold_until: datetime) -> None:
        if any(s.player_id == player_id for s in self.s.subscriptions.values()):
            self.s.pushes.append(PendingPush(n.id, player_id, n.kind, n.message, not_before, hold_until))

    async def queue_post(self, content: str) -> None:
        self.s.posts.append(Post(len(self.s.posts) + 1, content))

    async def add_reminder(self, r: Reminder) -> None:
        self.s.reminders.setdefault(r.id, r)

    async def drop_reminders(self, player_id: str, territory_id: str) -> None:
        for k, r in list(self.s.reminders.items()):
            if r.player_id == player_id and r.territory_id == territory_id:
                del self.s.reminders[k]

    async def take_due_reminders(self, now: datetime) -> list[Reminder]:
        due = sorted((r for r in self.s.reminders.values() if r.due <= now), key=lambda r: (r.due, r.id))
        for r in due:
            del self.s.reminders[r.id]
        return due

    async def next_reminder_due(self) -> datetime | None:
        return min((r.due for r in self.s.reminders.values()), default=None)

    async def set_scores(self, season_id: str, totals: dict[str, int], removed: list[str]) -> None:
        season = self.s.scores.setdefault(season_id, {})
        season.update(totals)
        for p in removed:
            season.pop(p, None)

    async def scores(self, season_id: str) -> dict[str, int]:
        return dict(self.s.scores.get(season_id, {}))

    async def announcement_by_command(self, command_id: str) -> AnnouncementOut | None:
        return self.s.announcements.get(command_id)

    async def add_announcement(self, command_id: str, a: AnnouncementOut) -> None:
        self.s.announcements[command_id] = a

    async def take_pushes(self, game_now: datetime, wall_now: datetime) -> list[PendingPush]:
        ready = {p.player_id for p in self.s.pushes if p.not_before <= game_now and p.hold_until <= wall_now}
        taken = [p for p in self.s.pushes if p.player_id in ready and p.not_before <= game_now]
        self.s.pushes = [p for p in self.s.pushes if p not in taken]
        return sorted(taken, key=lambda p: p.id)

    async def take_posts(self, limit: int) -> list[Post]:
        return [p for p in self.s.posts if p.id not in self.s.sent_posts][:limit]

    async def post_sent(self, post_id: int) -> None:
        self.s.sent_posts.add(post_id)


class MemoryNotifyStore:
    def __init__(self) -> None:
        self.state = State()

    @contextlib.asynccontextmanager
    async def tx(self) -> AsyncIterator[MemoryTx]:
        work = copy.deepcopy(self.state)
        yield MemoryTx(work)
        self.state = work   # committed only when the block raised nothing

    async def notifications(self, player_id: str, after: int | None, limit: int) -> list[NotificationOut]:
        return [n for p, n in self.state.notifications if p == player_id and (after is None or n.id > after)][:limit]

    async def read_mark(self, player_id: str) -> int | None:
        return self.state.reads.get(player_id)

    async def mark_read(self, player_id: str, up_to: int) -> None:
        self.state.reads[player_id] = max(up_to, self.state.reads.get(player_id, 0))

    async def announcements(self, limit: int) -> list[AnnouncementOut]:
        # newest first, then the later written first (the SQL store's created_at): the dict keeps writing order
        written = enumerate(self.state.announcements.values())
        return [a for _, a in sorted(written, key=lambda e: (e[1].at, e[0]), reverse=True)][:limit]

    async def save_subscription(self, s: Subscription) -> None:
        subs = self.state.subscriptions
        subs.pop((s.player_id, s.endpoint), None)   # re-inserted last: the most recently saved
        subs[(s.player_id, s.endpoint)] = s
        mine = [k for k in subs if k[0] == s.player_id]
        for k in mine[:max(0, len(mine) - MAX_SUBSCRIPTIONS)]:
            del subs[k]

    async def drop_subscription(self, player_id: str | None, endpoint: str | None) -> None:
        for p, e in list(self.state.subscriptions):
            if (player_id is None or p == player_id) and (endpoint is None or e == endpoint):
                del self.state.subscriptions[(p, e)]

    async def subscriptions(self, player_id: str) -> list[Subscription]:
        return sorted((s for s in self.state.subscriptions.values() if s.player_id == player_id),
                      key=lambda s: s.endpoint)

    async def vapid_key(self, make: Callable[[], str]) -> str:
        return self.state.keys.setdefault("vapid", make())


@dataclass
class RecordingPush:
    """Answers ``status`` for every push, or what ``answer(endpoint)`` says."""

    status: int = 201
    answer: Callable[[str], int] | None = None
    sent: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    async def send(self, sub: Subscription, payload: dict[str, Any]) -> int:
        self.sent.append((sub.endpoint, payload))
        return self.answer(sub.endpoint) if self.answer else self.status


@dataclass
class RecordingDiscord:
    fail: bool = False
    sent: list[str] = field(default_factory=list)

    async def send(self, content: str) -> None:
        if self.fail:
            raise RuntimeError("discord down")
        self.sent.append(content)


@dataclass
class MemoryMailQueue:
    """:class:`turf_notify.ports.MailQueue` in memory, the same lease semantics as the SQL queue."""

    rows: dict[int, dict[str, Any]] = field(default_factory=dict)

    async def queue_mail(self, key: str, to: str, kind: str, subject: str, text: str, html: str,
                         now: datetime, at: datetime | None = None) -> None:
        if any(r["key"] == key for r in self.rows.values()):
            return
        i = len(self.rows) + 1
        self.rows[i] = {"id": i, "key": key, "to": to, "kind": kind, "subject": subject, "text": text, "html": html,
                        "status": "queued", "attempts": 0, "next_at": now, "error": None, "at": at or now}

    async def take_mails(self, now: datetime, lease_until: datetime, limit: int) -> list[QueuedMail]:
        due = [r for r in self.rows.values() if r["status"] == "queued" and r["next_at"] <= now][:limit]
        for r in due:
            r["next_at"], r["attempts"] = lease_until, r["attempts"] + 1
        return [QueuedMail(r["id"], r["key"], r["to"], r["kind"], r["subject"], r["text"], r["html"],
                           r["attempts"], r["at"]) for r in due]

    async def mail_sent(self, mail_id: int, now: datetime, keep_text: bool) -> None:
        self.rows[mail_id].update(status="sent", error=None)
        if not keep_text:
            self.rows[mail_id].update(text="", html="")

    async def mail_retry(self, mail_id: int, at: datetime, error: str) -> None:
        self.rows[mail_id].update(next_at=at, error=error)

    async def mail_failed(self, mail_id: int, error: str) -> None:
        self.rows[mail_id].update(status="failed", error=error, text="", html="")

    async def forget(self, to: str) -> int:
        gone = [i for i, r in self.rows.items() if r["to"] == to]
        for i in gone:
            del self.rows[i]
        return len(gone)

    async def mail_list(self, limit: int) -> list[MailRecord]:
        return [MailRecord(r["id"], r["at"], r["to"], r["kind"], r["subject"], r["status"], r["attempts"],
                           r["error"], r["text"]) for r in sorted(self.rows.values(), key=lambda r: -r["id"])][:limit]


@dataclass
class RecordingMailer:
    """Keeps every message; fails with ``errors`` (each a MailError) first, in order."""

    keeps_copies: bool = False
    errors: list[Exception] = field(default_factory=list)
    sent: list[Any] = field(default_factory=list)

    async def send(self, msg: Any) -> None:
        if self.errors:
            raise self.errors.pop(0)
        self.sent.append(msg)
