"""Ports of the modes service: its store (games, their action logs, the turns resolved, the outbox), the game
clock, the board's towns and fields; the outbox relay's port is :class:`turf_common.outbox.OutboxFlush`."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from turf_common.contracts.base import Event
from turf_common.contracts.modes import GameStatus, ModeName
from turf_common.rules import teamturf


@dataclass
class GameRow:
    """One game as stored. ``config``: what its replay takes besides the actions (Team Turf: ``teams``, ``towns``
    (None: the default field), ``homes``; King of the Hill: ``hill``, ``players``, ``round_seconds``);
    ``actions``: the accepted actions in order (``turf_modes.games`` encodes them); ``turn``: the open turn or
    round; ``next_at``: the game instant it resolves by (T9, K5), None when nothing is due. ``snapshot``: the
    state after the first ``base`` actions (:mod:`turf_modes.snapshots`; None before a game has a state, or for a
    game stored before snapshots were kept); ``actions`` then holds only the actions after those ``base``."""

    game_id: str
    mode: ModeName
    status: GameStatus
    created_by: str
    created_at: datetime
    seed: str
    seed_commitment: str
    config: dict[str, Any]
    turn: int = 1
    next_at: datetime | None = None
    actions: list[dict[str, Any]] = field(default_factory=list)
    snapshot: dict[str, Any] | None = None
    base: int = 0

    @property
    def logged(self) -> int:
        """Actions in the game's log."""
        return self.base + len(self.actions)


class Games(Protocol):
    async def by_command(self, command_id: str) -> str | None:
        """The id of the game a create command made, if it was made."""

    async def insert(self, command_id: str, g: GameRow) -> str:
        """Store ``g`` as the game of ``command_id``, unless another transaction stored one for it first: the
        id of the game that holds the command (``g.game_id``, or the other's, when nothing was stored)."""

    async def lock(self, game_id: str) -> GameRow | None:
        """The game with its snapshot and the actions after it, locked until the transaction ends (commands on one
        game run one at a time)."""

    async def append(self, game_id: str, seq: int, action: dict[str, Any]) -> None:
        """Add action number ``seq`` (0-based, the next after those :meth:`lock` returned)."""

    async def save(self, g: GameRow) -> None:
        """Store ``status``, ``config``, ``turn``, ``next_at``, ``snapshot`` and ``base`` of ``g``."""

    async def seat(self, game_id: str, mode: ModeName, player_id: str) -> None:
        """Record ``player_id`` as seated in the game (K19's bound, T23/K21's departures); a repeat changes nothing."""

    async def unseat(self, game_id: str, player_id: str | None = None) -> None:
        """The player (None: everyone) no longer seated in the game."""

    async def seats(self, player_id: str, mode: ModeName | None = None) -> list[str]:
        """The games (of ``mode``; None: every mode) the player is seated in, by game id."""

    async def lock_player(self, player_id: str) -> None:
        """Hold the player until the transaction ends: their seats are counted and taken one transaction at a
        time (K19), whichever games they are in."""

    async def mark_resolved(self, game_id: str, turn: int, at: datetime) -> bool:
        """Record turn ``turn`` of the game as resolved; False when it already was (nothing recorded)."""


class Messages(Protocol):
    async def stage(self, subject: str, event: Event) -> None:
        """Queue ``event`` for the stream (outbox), published after commit."""


class ModesTx(Protocol):
    """One transaction: every change and the events it implies commit together, or nothing does."""

    @property
    def games(self) -> Games: ...

    @property
    def messages(self) -> Messages: ...


class ModesStore(Protocol):
    def tx(self) -> AbstractAsyncContextManager[ModesTx]: ...

    async def get(self, game_id: str) -> GameRow | None:
        """The game with its snapshot and the actions after it (no lock)."""

    async def actions(self, game_id: str, offset: int, limit: int) -> list[dict[str, Any]]:
        """At most ``limit`` actions of the game's log from number ``offset`` (0-based) on, in order."""

    async def latest(self, mode: ModeName | None, limit: int) -> list[GameRow]:
        """Unfinished games first, then finished ones; within each the newest first; without their actions."""

    async def due(self, now: datetime) -> list[tuple[str, int]]:
        """(game id, open turn) of every running game whose ``next_at`` ≤ ``now``, earliest first."""


class Clock(Protocol):
    async def now(self) -> datetime: ...



class Fields(Protocol):
    """The board as the modes see it: its town ids and Team Turf's fields (T1)."""

    def towns(self) -> frozenset[str]: ...

    def field(self, towns: tuple[str, ...] | None) -> teamturf.Field:
        """The field of ``towns`` (None: the largest connected part). Raises ModeRefused (``unknown_town``,
        ``field_not_connected``)."""
