"""``claims.outlook``: what the play page's countdowns show a player, answered by the claims service
from its own state and the game clock (GET /me/territories)."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import AwareDatetime

from turf_common.contracts.base import Message
from turf_common.rules.outlook import StreakState


class OutlookRequest(Message):
    player_id: str


class TerritoryOutlook(Message):
    """One territory the player owns at ``OutlookReply.now``."""

    id: str
    name: str
    progress: int
    fortified: bool
    streak: StreakState                  # R9/R11, see turf_common.rules.outlook.Streak
    claim_day: date | None               # the game day the next claim of it counts on
    claim_opens: AwareDatetime | None    # that day's open hours (R3)
    claim_closes: AwareDatetime | None
    next_progress: int | None            # progress a claim on claim_day gives; None when none is possible
    claimed_today: bool                  # R8.7 (amended): the owner's claim, War reclaim or Joker award today
    keeps_streak_today: bool             # a claim today (open now or later today) counts progress +1 (R9)
    frozen_today: bool                   # R15: the owner's Freeze on it is active today
    locked_today: bool                   # R10: a normal claim of it today locks out other players' normal claims
    reclaim_holder_id: str | None        # R14: an attacker's open reclaim window on it ...
    reclaim_until: AwareDatetime | None  # ... and its end
    war_by: str | None                   # R14: the player it was stolen from, who may still play War on it ...
    war_until: AwareDatetime | None      # ... until then


class WarDeadline(Message):
    """R14: a steal of one of the player's territories on which they may still play War."""

    territory_id: str
    name: str
    by: str                   # the thief, its owner now
    stolen_at: AwareDatetime
    war_until: AwareDatetime
    game_hours_left: float    # R4: open hours between now and war_until


class ReclaimWindow(Message):
    """R14: the player's own exclusive reclaim window after a War played on them."""

    territory_id: str
    name: str
    owner_id: str | None
    until: AwareDatetime
    game_hours_left: float


class MulliganClaim(Message):
    """R19: a claim of today a Mulligan may undo now (turf_common.rules.cards.mulligan_undoable)."""

    claim_id: str
    territory_id: str
    name: str
    kind: str                 # take, steal or reinforce
    at: AwareDatetime


class OutlookReply(Message):
    ok: Literal[True] = True
    player_id: str
    now: AwareDatetime   # the game clock's instant the answer was computed at
    territories: list[TerritoryOutlook]
    war_deadlines: list[WarDeadline]
    reclaim_windows: list[ReclaimWindow]
    mulligan_claims: list[MulliganClaim] = []   # additive: older repliers send none
