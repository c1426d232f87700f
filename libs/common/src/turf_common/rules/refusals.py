"""Refusal codes and the sentences players read (R29)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import time
from typing import Literal, get_args

from turf_common.rules.gametime import SeasonConfig, SeasonLimits
from turf_common.rules.moderefusals import ModeCode
from turf_common.rules.yardstate import YardCode

#: The rule codes players read (R29): a misspelt code fails mypy. A unit test keeps it equal to MESSAGES' keys.
RuleCode = Literal[
    "game_closed",
    "season_closed",
    "season_not_started",
    "not_joined",
    "outside_board",
    "on_border",
    "inaccurate_fix",
    "stale_fix",
    "not_eligible",
    "no_claims_left",
    "war_reclaim_window",
    "locked_today",
    "fortified",
    "frozen",
    "blockaded",
    "already_claimed_today",
    "already_fortified",
    "card_not_in_hand",
    "not_owner",
    "invalid_target",
    "already_scheduled",
    "no_future_game_day",
    "war_window_closed",
    "war_not_applicable",
    "war_window_past_season",
    "territory_in_dispute",
    "already_played_today",
    "trade_no_longer_valid",
    "not_eligible_for_mulligan",
    "no_eligible_territory",
]
#: Codes of commands refused for reasons no rule names (R28 corrections, the clock, a service unavailable).
GenericCode = Literal["not_found", "conflict", "invalid_input", "unavailable", "forbidden", "season_not_closed",
                      "clock_backwards", "season_overlaps", "season_started"]
#: the turn-based modes refuse with their own codes (moderefusals.py, yardstate.py), answered the same way
RefusalCode = RuleCode | GenericCode | ModeCode | YardCode
RULE_CODES: tuple[str, ...] = get_args(RuleCode)

#: The default sentences. Those quoting a configured value (R1) are the defaults of the season configuration; a rule
#: that has the configuration refuses with the sentence built from it (``game_closed_message``, ``limit_message``).
MESSAGES: dict[RuleCode, str] = {
    # R3 / R25
    "game_closed": "The game is closed right now. It is open Monday to Saturday, 6:00 to 22:00 New York time.",
    "season_closed": "The season is over; ownership and scores are locked.",
    # R31 (the season_not_started sentence names the next season's first opening, rules.seasons)
    "season_not_started": "The next season has not opened yet.",
    "not_joined": "You have not joined this season yet: join it from the play page.",
    # R7
    "outside_board": "Your location is not inside any territory of the board.",
    "on_border": "You are standing on a border between territories (within 0.5 m of it); step a few metres inside "
                 "one.",
    "inaccurate_fix": "Your location fix is not precise enough (over 100 m); wait for a better GPS signal.",
    "stale_fix": "Your location fix is too old (over 120 s) or from the future (over 30 s ahead); get a fresh fix "
                 "and try again.",
    # R8
    "not_eligible": "Your player account is not verified yet, so you cannot claim: the organizer verifies new players "
                    "(and new home addresses) first.",
    "no_claims_left": "You have no claims left today.",
    "war_reclaim_window": "This territory is in another player's exclusive War reclaim window.",
    "locked_today": "Another player already claimed this territory today; try again on the next game day.",
    "fortified": "This territory is fortified and cannot be taken.",
    "frozen": "Its owner froze this territory for today.",
    "blockaded": "Its owner has a Blockade against you today.",
    "already_claimed_today": "You already claimed this territory today; come back on the next game day.",
    "already_fortified": "You already fortified this territory; it needs no more claims.",
    # R12–R20 cards
    "card_not_in_hand": "You have no ready card of that kind (or that card is not yours).",
    "not_owner": "You do not own that territory.",
    "invalid_target": "That is not a valid target for this card.",
    "already_scheduled": "A card of this kind is already scheduled on that target for that day.",
    "no_future_game_day": "No game day remains in the season for this card to take effect.",
    "war_window_closed": "More than 5 game hours have passed since the steal; War can no longer be played.",
    "war_not_applicable": "War needs a steal of your territory that still stands, by the player who still owns it.",
    "war_window_past_season": "The 16-game-hour reclaim window would not fit before the season closes.",
    "territory_in_dispute": "That territory is in a War dispute and cannot be traded right now.",
    "already_played_today": "You already played Double Trouble today.",
    "trade_no_longer_valid": "This trade can no longer succeed: a card or a territory is no longer available.",
    "not_eligible_for_mulligan": "That claim cannot be undone: only a normal claim you made today that still "
                                 "stands is eligible.",
    "no_eligible_territory": "No territory is eligible for this Joker; the card stays in your hand.",
}


@dataclass(frozen=True)
class Refused:
    """A rule's refusal: a code of RULINGS.md and a sentence for a person (R29)."""

    reason: RefusalCode
    message: str


def refuse(reason: RefusalCode, message: str | None = None) -> Refused:
    return Refused(reason, message or MESSAGES.get(reason, reason.replace("_", " ")))  # type: ignore[arg-type]


_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def _number(v: float) -> str:
    """100.0 → "100", 0.5 → "0.5"."""
    return str(int(v)) if v == int(v) else f"{v:.10g}"


def _clock(t: time) -> str:
    """06:00 → "6:00", 20:15 → "20:15" (seconds only when set)."""
    return f"{t.hour}:{t.minute:02d}" + (f":{t.second:02d}" if t.second else "")


def _days(weekdays: frozenset[int]) -> str:
    """{0..5} → "Monday to Saturday"; {0, 2, 4} → "Monday, Wednesday and Friday"; all seven → "every day"."""
    days = sorted(weekdays)
    if len(days) == 7:
        return "every day"
    if len(days) >= 3 and days == list(range(days[0], days[-1] + 1)):
        return f"{_WEEKDAYS[days[0]]} to {_WEEKDAYS[days[-1]]}"
    names = [_WEEKDAYS[d] for d in days]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def game_closed_message(cfg: SeasonConfig) -> str:
    """R3's ``game_closed`` sentence quoting the season's open days, hours and zone (R1): "... It is open Monday to
    Saturday, 6:00 to 22:00 New York time." for the default season."""
    zone = cfg.zone.rsplit("/", 1)[-1].replace("_", " ")
    return (f"The game is closed right now. It is open {_days(cfg.open_weekdays)}, {_clock(cfg.open_time)} to "
            f"{_clock(cfg.close_time)} {zone} time.")


def limit_message(reason: Literal["on_border", "inaccurate_fix", "stale_fix"], limits: SeasonLimits) -> str:
    """The R7 refusal sentence quoting the season's configured limit (R1)."""
    if reason == "on_border":
        return (f"You are standing on a border between territories (within {_number(limits.on_border_m)} m of it); "
                "step a few metres inside one.")
    if reason == "inaccurate_fix":
        return (f"Your location fix is not precise enough (over {_number(limits.max_accuracy_m)} m); wait for a "
                "better GPS signal.")
    return (f"Your location fix is too old (over {_number(limits.max_fix_age_s)} s) or from the future (over "
            f"{_number(limits.max_fix_future_s)} s ahead); get a fresh fix and try again.")
