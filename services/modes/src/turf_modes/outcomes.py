"""What a step on a modes game gives back, and what stops one: the vocabulary the modes' use cases share
(:mod:`turf_modes.handlers` and :mod:`turf_modes.yard`, which runs its steps through the handlers' transaction)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from turf_common.contracts.base import Event, Refusal
from turf_common.rules.moderefusals import ModeRefused
from turf_common.rules.refusals import RefusalCode
from turf_modes import games
from turf_modes.ports import GameRow


class Denied(Exception):
    """A command refused for no rule's reason (``not_found``, ``forbidden``, ``invalid_input``)."""

    def __init__(self, reason: RefusalCode, message: str) -> None:
        super().__init__(message)
        self.reason, self.message = reason, message


class AlreadyResolved(Exception):
    """The turn asked for was resolved before (T9: exactly once): nothing changes."""


@dataclass
class Outcome:
    """What one step did: the actions to log, the events to publish, the turn it resolved (if any)."""

    actions: list[games.Action | dict[str, Any]] = field(default_factory=list)  # a dict: a yard move, encoded
    events: list[tuple[str, Event]] = field(default_factory=list)
    resolved: int | None = None
    seat: list[str] = field(default_factory=list)     # players now seated in the game (K19)
    unseat: list[str] = field(default_factory=list)   # players no longer seated


Step = Callable[[GameRow, datetime], Outcome]


def refusal(e: ModeRefused | Denied) -> Refusal:
    return Refusal(reason=e.code if isinstance(e, ModeRefused) else e.reason, message=e.message)
