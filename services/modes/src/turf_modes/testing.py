"""In-memory fake of the modes store, for unit tests: the same behaviour as the SQL store (one lock for the whole
store stands in for the row lock; a transaction works on a copy, kept only when it ends without an exception)."""

from __future__ import annotations

import asyncio
import contextlib
import copy
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from turf_common.contracts.base import Event
from turf_common.contracts.modes import ModeName
from turf_modes.ports import GameRow


@dataclass
class State:
    games: dict[str, GameRow] = field(default_factory=dict)
    commands: dict[str, str] = field(default_factory=dict)            # create command id → game id
    resolutions: dict[tuple[str, int], datetime] = field(default_factory=dict)
    seats: dict[tuple[str, str], ModeName] = field(default_factory=dict)   # (game id, player) → mode
    staged: list[tuple[str, Event]] = field(default_factory=list)     # committed, not yet flushed


class MemoryTx:
    def __init__(self, s: State) -> None:
        self.s = s
        self.games = self.messages = self

    async def by_command(self, command_id: str) -> str | None:
        return self.s.commands.get(command_id)

    async def insert(self, command_id: str, g: GameRow) -> str:
        if command_id in self.s.commands:
            return self.s.commands[command_id]
        self.s.commands[command_id] = g.game_id
        self.s.games[g.game_id] = copy.deepcopy(g)
        return g.game_id

    async def lock(self, game_id: str) -> GameRow | None:
        return _as_read(self.s.games.get(game_id))

    async def append(self, game_id: str, seq: int, action: dict[str, Any]) -> None:
        actions = self.s.games[game_id].actions
        assert seq == len(actions), f"action {seq} after {len(actions)}"
        actions.append(copy.deepcopy(action))

    async def save(self, g: GameRow) -> None:
        row = self.s.games[g.game_id]
        row.status, row.config, row.turn, row.next_at = g.status, copy.deepcopy(g.config), g.turn, g.next_at
        row.snapshot, row.base = copy.deepcopy(g.snapshot), g.base

    async def seat(self, game_id: str, mode: ModeName, player_id: str) -> None:
        self.s.seats[(game_id, player_id)] = mode

    async def unseat(self, game_id: str, player_id: str | None = None) -> None:
        self.s.seats = {k: m for k, m in self.s.seats.items()
                        if not (k[0] == game_id and player_id in (None, k[1]))}

    async def seats(self, player_id: str, mode: ModeName | None = None) -> list[str]:
        return sorted(g for (g, p), m in self.s.seats.items() if p == player_id and mode in (None, m))

    async def lock_player(self, player_id: str) -> None:
        return None   # one transaction at a time already (the store's lock)

    async def mark_resolved(self, game_id: str, turn: int, at: datetime) -> bool:
        if (game_id, turn) in self.s.resolutions:
            return False
        self.s.resolutions[(game_id, turn)] = at
        return True

    async def stage(self, subject: str, event: Event) -> None:
        self.s.staged.append((subject, event))


class MemoryModesStore:
    def __init__(self) -> None:
        self.state = State()
        self._lock = asyncio.Lock()

    @contextlib.asynccontextmanager
    async def tx(self) -> AsyncIterator[MemoryTx]:
        async with self._lock:
            work = copy.deepcopy(self.state)
            yield MemoryTx(work)
            self.state = work

    def drain(self) -> list[tuple[str, Event]]:
        """The committed events not yet published (RecordingPublisher's ``drain``)."""
        out, self.state.staged = self.state.staged, []
        return out

    async def get(self, game_id: str) -> GameRow | None:
        return _as_read(self.state.games.get(game_id))

    async def actions(self, game_id: str, offset: int, limit: int) -> list[dict[str, Any]]:
        g = self.state.games.get(game_id)
        return copy.deepcopy(g.actions[offset:offset + limit]) if g else []

    async def latest(self, mode: ModeName | None, limit: int) -> list[GameRow]:
        rows = [g for g in self.state.games.values() if mode is None or g.mode == mode]
        rows.sort(key=lambda g: (g.status != "finished", g.created_at, g.game_id), reverse=True)
        return [_bare(g) for g in rows[:limit]]

    async def due(self, now: datetime) -> list[tuple[str, int]]:
        rows = [g for g in self.state.games.values()
                if g.status == "running" and g.next_at is not None and g.next_at <= now]
        return [(g.game_id, g.turn) for g in sorted(rows, key=lambda g: (g.next_at, g.game_id))]


def _as_read(g: GameRow | None) -> GameRow | None:
    """A stored game as the SQL store reads it: its snapshot and the actions after it (the whole log is kept in
    ``actions`` here, as the actions table keeps it)."""
    if g is None:
        return None
    out = copy.deepcopy(g)
    out.actions = out.actions[g.base:]
    return out


def _bare(g: GameRow) -> GameRow:
    out = copy.copy(g)
    out.actions, out.snapshot = [], None   # as the SQL list: no actions, no state
    return out
