"""Claims as pure rules: R3 gate, R6 allowance, R7 location checks, R8 claimability, R9 effect, R10 lock, R11.

Everything here takes state and the game-clock instant as arguments and returns a decision; nothing reads a
clock, a database or the bus. The claims service loads the facts, calls :func:`decide_claim`, stores the outcome.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

from turf_common.rules import gametime
from turf_common.rules.refusals import Refused, game_closed_message, limit_message, refuse

ClaimKind = Literal["take", "steal", "reinforce", "war_reclaim"]

FORTIFIED_PROGRESS = 3


#: R7 / R7.1 limits: part of the season configuration (``SeasonConfig.limits``, R1), RULINGS.md's values by default.
ClaimLimits = gametime.SeasonLimits


@dataclass(frozen=True)
class Fortification:
    """R11: fortification state belongs to the territory: progress 0–3, last claim day, fortified flag."""

    progress: int = 0
    last_claim_day: date | None = None
    fortified: bool = False


@dataclass(frozen=True)
class TerritoryFacts:
    """What R8 needs to know about one territory at the instant of the claim."""

    territory_id: str
    owner_id: str | None
    fort: Fortification
    war_reclaim_holder: str | None = None   # R14: holder of an open reclaim window on it
    frozen: bool = False                    # R15: an active Freeze by its owner today
    blockade_against_claimant: bool = False  # R16: its owner has an active Blockade against the claimant


@dataclass(frozen=True)
class ClaimantFacts:
    player_id: str
    eligible: bool            # verified and not disqualified
    normal_claims_today: int  # normal claims already made today (R6), undone ones included
    allowance_today: int      # 1 + Double Trouble extra + Mulligan replacements (R6)
    # R8.7: the claimant made a normal claim on this territory today, or won it today by a War reclaim or a Joker
    # award (amended: those count as the claimant's claim of it today)
    claimed_it_today: bool


@dataclass(frozen=True)
class ClaimOutcome:
    """R9: what an accepted claim does. ``normal`` claims spend allowance and set the R10 lock."""

    kind: ClaimKind
    owner_id: str
    previous_owner_id: str | None
    fort_before: Fortification
    fort_after: Fortification
    normal: bool
    opens_war_window: bool


def allowance(extra_claims: int = 0, replacement_claims: int = 0) -> int:
    """R6: 1 standard claim per game day, +1 for Double Trouble (``extra_claims``), +1 per Mulligan."""
    return 1 + extra_claims + replacement_claims


def check_open(cfg: gametime.SeasonConfig, now: datetime) -> Refused | None:
    """R3/R25: ``season_closed`` once the season has closed, ``game_closed`` outside open hours (its message quotes
    the season's open days and hours, R1)."""
    if gametime.season_state(cfg, now) == "closed":
        return refuse("season_closed")
    if not gametime.is_open(cfg, now):
        return refuse("game_closed", game_closed_message(cfg))
    return None


def check_location(now: datetime, fix_time: datetime, accuracy_m: float, territory_id: str | None,
                   border_distance_m: float | None, limits: ClaimLimits = ClaimLimits()) -> Refused | None:
    """R7, in its order: ``outside_board``, ``on_border``, ``inaccurate_fix``, ``stale_fix``; each message quotes
    the configured limit (R1).

    ``border_distance_m``: metres to the nearest border shared with another territory (``None``: it shares none, so
    the point is never on a border). Malformed input (NaN, out of range, negative accuracy) is rejected before
    this, at the edge (422); any finite accuracy >= 0 reaches this check (amended R7).
    """
    if territory_id is None:
        return refuse("outside_board")
    if border_distance_m is not None and border_distance_m <= limits.on_border_m:
        return refuse("on_border", limit_message("on_border", limits))
    if accuracy_m > limits.max_accuracy_m:
        return refuse("inaccurate_fix", limit_message("inaccurate_fix", limits))
    age = (now - fix_time).total_seconds()
    if age > limits.max_fix_age_s or -age > limits.max_fix_future_s:
        return refuse("stale_fix", limit_message("stale_fix", limits))
    return None


def check_claimability(claimant: ClaimantFacts, t: TerritoryFacts, locked_by_other_today: bool) -> Refused | None:
    """R8 in the ruling's order; the first that applies is the reason. ``locked_by_other_today`` is R10's lock."""
    reclaim = t.war_reclaim_holder == claimant.player_id
    if not claimant.eligible:
        return refuse("not_eligible")
    if not reclaim and claimant.normal_claims_today >= claimant.allowance_today:
        return refuse("no_claims_left")
    if t.war_reclaim_holder is not None and not reclaim:
        return refuse("war_reclaim_window")
    if locked_by_other_today and not reclaim:
        return refuse("locked_today")
    others = t.owner_id is not None and t.owner_id != claimant.player_id
    if others and t.fort.fortified:
        return refuse("fortified")
    if others and t.frozen:
        return refuse("frozen")
    if others and t.blockade_against_claimant:
        return refuse("blockaded")
    if t.owner_id == claimant.player_id and claimant.claimed_it_today:
        return refuse("already_claimed_today")
    if t.owner_id == claimant.player_id and t.fort.fortified:
        return refuse("already_fortified")
    return None


def claim_effect(cfg: gametime.SeasonConfig, game_day: date, claimant_id: str, t: TerritoryFacts) -> ClaimOutcome:
    """R9: take (unclaimed), steal (another's; opens the victim's War window, R14) or reinforce (own: progress +1
    when the territory's last claim was on the previous game day, else back to 1; 3 = fortified, R11).
    A War reclaim (R14) is a steal with progress 1 that opens no War window and spends no allowance."""
    if t.war_reclaim_holder == claimant_id:
        return ClaimOutcome("war_reclaim", claimant_id, t.owner_id, t.fort,
                            Fortification(1, game_day, False), normal=False, opens_war_window=False)
    if t.owner_id is None:
        return ClaimOutcome("take", claimant_id, None, t.fort, Fortification(1, game_day, False),
                            normal=True, opens_war_window=False)
    if t.owner_id != claimant_id:
        return ClaimOutcome("steal", claimant_id, t.owner_id, t.fort, Fortification(1, game_day, False),
                            normal=True, opens_war_window=True)
    return ClaimOutcome("reinforce", claimant_id, claimant_id, t.fort, reinforced(cfg, game_day, t.fort),
                        normal=True, opens_war_window=False)


def keeps_streak(cfg: gametime.SeasonConfig, game_day: date, fort: Fortification) -> bool:
    """R9/R11: a claim of one's own territory on ``game_day`` counts progress +1 (the territory's last claim day was
    the previous game day); otherwise progress restarts at 1."""
    return fort.last_claim_day is not None and gametime.previous_game_day(cfg, game_day) == fort.last_claim_day


def reinforced(cfg: gametime.SeasonConfig, game_day: date, fort: Fortification) -> Fortification:
    """R9: the fortification after the owner's claim on ``game_day``; progress 3 = fortified (R11)."""
    progress = min(fort.progress + 1, FORTIFIED_PROGRESS) if keeps_streak(cfg, game_day, fort) else 1
    return Fortification(progress, game_day, progress >= FORTIFIED_PROGRESS)


def decide_claim(cfg: gametime.SeasonConfig, now: datetime, *, fix_time: datetime, accuracy_m: float,
                 territory_id: str | None, border_distance_m: float | None, claimant: ClaimantFacts,
                 territory: TerritoryFacts | None, locked_by_other_today: bool,
                 limits: ClaimLimits | None = None) -> Refused | ClaimOutcome:
    """The whole decision for one GPS claim at game instant ``now`` (aware): R3 → R7 → R8 → R9.
    ``limits``: R7's limits, by default the season's (``cfg.limits``).

    Returns a :class:`Refused` with one of the codes of R3, R7, R8, or the :class:`ClaimOutcome` to store.
    """
    r = check_open(cfg, now) or check_location(now, fix_time, accuracy_m, territory_id, border_distance_m,
                                               cfg.limits if limits is None else limits)
    if r is not None:
        return r
    assert territory is not None
    return decide_claimable(cfg, now, claimant, territory, locked_by_other_today)


def decide_claimable(cfg: gametime.SeasonConfig, now: datetime, claimant: ClaimantFacts, territory: TerritoryFacts,
                     locked_by_other_today: bool) -> Refused | ClaimOutcome:
    """R8 → R9 for a claim that R3 and R7 allowed (the claims service has geo-verify judge R7): a refusal with an
    R8 code, or the :class:`ClaimOutcome` to store. ``now`` must be within a game day's open hours."""
    r = check_claimability(claimant, territory, locked_by_other_today)
    if r is not None:
        return r
    game_day = gametime.game_day_at(cfg, now)
    assert game_day is not None  # open implies a game day
    return claim_effect(cfg, game_day, claimant.player_id, territory)


def certain_refusal(eligible: bool, normal_claims_today: int, allowance_today: int, locked_by_other_today: bool,
                    war_window_open: bool) -> Refused | None:
    """R8's first rules, in the ruling's order (``not_eligible``, ``no_claims_left``, ``locked_today``), from facts
    that only grow within a game day (claims made, R6; towns locked, R10): a refusal the full decision
    (:func:`check_claimability`) would give as well, or None when these facts cannot tell (decide under the lock).
    While any War reclaim window is open (R8.2, R14) nothing is certain: its holder is exempt from R6 and R10 and
    anyone else is refused ``war_reclaim_window`` before ``locked_today``. Never an acceptance."""
    if not eligible:
        return refuse("not_eligible")
    if war_window_open:
        return None
    if normal_claims_today >= allowance_today:
        return refuse("no_claims_left")
    if locked_by_other_today:
        return refuse("locked_today")
    return None
