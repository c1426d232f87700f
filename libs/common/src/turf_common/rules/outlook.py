"""What a player's territories face at one instant (the play page's countdowns), as pure rules: the streak toward
fortification (R9, R11), the victim's War deadline after a steal (R4, R14) and the game day a claim counts on.

Everything takes the game-clock instant as an argument; nothing reads a clock. The claims service loads the facts
(ownership, today's claims, Freezes, War windows) and calls these under no lock: the answer is a read, and the
next claim decides again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Literal

from turf_common.rules import gametime
from turf_common.rules.cards import WAR_RECLAIM_HOURS, TakeRecord, war_applicable, war_play_deadline
from turf_common.rules.claims import Fortification, keeps_streak, reinforced

#: ``fortified``: nothing left to gain (R11); ``claimed``: already claimed on the claim day (R8.7);
#: ``keeps``: a claim on the claim day counts progress +1 (R9); ``restarts``: it would restart at 1 (R9);
#: ``over``: no game day is left in the season (R25)
StreakState = Literal["fortified", "claimed", "keeps", "restarts", "over"]


@dataclass(frozen=True)
class Streak:
    """R9/R11 for one territory of its owner: ``claim_day`` is the game day the owner's next claim counts on,
    ``opens``/``closes`` its open hours (R3), ``next_progress`` the progress that claim gives (None when no claim
    of it is possible then)."""

    state: StreakState
    claim_day: date | None
    opens: datetime | None
    closes: datetime | None
    next_progress: int | None


def claim_day(cfg: gametime.SeasonConfig, now: datetime) -> date | None:
    """The game day a claim counts on from ``now``: today's game day until it closes (R3), else the next game day
    (R2: Saturday's next is Monday); None when the season has none left."""
    today = gametime.game_day_at(cfg, now)
    if today is not None and now < gametime.open_interval(cfg, today)[1]:
        return today
    return gametime.next_game_day(cfg, gametime.local_date(cfg, now))


def streak(cfg: gametime.SeasonConfig, now: datetime, fort: Fortification, claimed_today: bool,
           locked_by_other: bool = False) -> Streak:
    """The owner's streak on their territory at ``now``. ``claimed_today``: the owner's claim of it today (a normal
    claim, a War reclaim or a Joker award: R8.7, amended), which refuses another claim today
    (``already_claimed_today``). ``locked_by_other``: another player's normal claim of it today (R10; the town came
    back to the owner since, by a correction or a card) refuses the owner's claim today too (``locked_today``), so
    their next claim is on the next game day, where that claim's day counts for the streak (R9, R11)."""
    day = claim_day(cfg, now)
    if locked_by_other and not claimed_today and day is not None and day == gametime.game_day_at(cfg, now):
        day = gametime.next_game_day(cfg, day)
    if day is None:
        return Streak("fortified" if fort.fortified else "over", None, None, None, None)
    opens, closes = gametime.open_interval(cfg, day)
    if fort.fortified:
        return Streak("fortified", day, opens, closes, None)
    if claimed_today and day == gametime.game_day_at(cfg, now):
        return Streak("claimed", day, opens, closes, None)
    state: StreakState = "keeps" if keeps_streak(cfg, day, fort) else "restarts"
    return Streak(state, day, opens, closes, reinforced(cfg, day, fort).progress)


def latest_war_play(cfg: gametime.SeasonConfig) -> datetime:
    """R14: the last instant a War may be played so that its whole 16-game-hour reclaim window fits before the
    season closes (``war_window_past_season`` after it): counted back from the close over open hours (R4)."""
    left = WAR_RECLAIM_HOURS * 3600.0
    for d in reversed(gametime.game_days(cfg)):
        opens, closes = gametime.open_interval(cfg, d)
        span = (closes - opens).total_seconds()
        if left <= span:   # within one day's open hours game time is wall time
            return closes - timedelta(seconds=left)
        left -= span
    return gametime.season_opens_at(cfg)


def war_deadline(cfg: gametime.SeasonConfig, now: datetime, steal: TakeRecord | None, victim_id: str,
                 owner_id: str | None) -> datetime | None:
    """The instant until which the victim may still play War on the territory ``owner_id`` holds, or None when
    War is not (or no longer) possible: R14's conditions (the latest steal of it, from the victim, still standing,
    its thief still the owner), 5 game hours after the steal (R4), and no later than the last instant whose
    reclaim window fits in the season."""
    if steal is None or not war_applicable(steal, victim_id, owner_id):
        return None
    until = min(war_play_deadline(cfg, steal.at), latest_war_play(cfg))
    return until if now <= until else None
