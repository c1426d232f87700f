"""Seasons as data (R31): a season's record, its validation, the season in force and the refusals between seasons.

Pure functions over :class:`Season` records and an instant; nothing here reads a clock, a database or the bus.
The organizer makes a season (``POST /admin/seasons``, ``turfwar season new``); the gateway keeps the catalog and
asks these rules what is valid, which season is in force and whether a player's action may go ahead.

Phases: a season is ``upcoming`` until its first opening, ``running`` until its last closing, then ``closed``.
The season **in force** is the running one; between seasons it is the last closed one until the next one's first
opening (before any season has closed, the first upcoming one).
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, time
from decimal import Decimal, InvalidOperation
from itertools import pairwise
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from turf_common.rules import gametime
from turf_common.rules.cards import seed_commitment
from turf_common.rules.gametime import SeasonConfig, SeasonLimits
from turf_common.rules.refusals import Refused, refuse

__all__ = [
    "Phase",
    "Prize",
    "Problem",
    "Season",
    "action_refusal",
    "edit_refusal",
    "from_config",
    "in_force",
    "next_season",
    "opening_sentence",
    "parse_season",
    "phase",
    "season_seed",
    "validate",
    "with_changes",
]

Phase = Literal["upcoming", "running", "closed"]
#: R31: a season's id, e.g. ``2027``
SEASON_ID = re.compile(r"[a-z0-9-]{1,32}")
WEEKDAY_NAMES = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


@dataclass(frozen=True)
class Prize:
    """R26: the prize of one final place, in dollars."""

    place: int
    amount: Decimal


@dataclass(frozen=True)
class Season:
    """One season (R31): R1's calendar and limits (``config``), a name, the prize table of R26 by place, the SHA-256
    commitment of its card seed (R12.1) and whether it is a rehearsal (never listed to players)."""

    config: SeasonConfig
    name: str
    prizes: tuple[Prize, ...]
    seed_commitment: str
    rehearsal: bool = False

    @property
    def id(self) -> str:
        return self.config.season_id

    @property
    def first_opening(self) -> datetime:
        return gametime.season_opens_at(self.config)

    @property
    def last_closing(self) -> datetime:
        return gametime.season_closes_at(self.config)

    def body(self, at: datetime) -> dict[str, Any]:
        """The season as ``GET /seasons/{id}`` answers it (API.md "Seasons") at instant ``at``."""
        cfg = self.config
        return {"id": self.id, "name": self.name, "zone": cfg.zone, "first_day": cfg.first_day.isoformat(),
                "last_day": cfg.last_day.isoformat(), "open_weekdays": sorted(cfg.open_weekdays),
                "open_time": cfg.open_time.strftime("%H:%M"), "close_time": cfg.close_time.strftime("%H:%M"),
                "limits": cfg.to_dict()["limits"],
                "prizes": [{"place": p.place, "amount": f"{p.amount:.2f}"} for p in self.prizes],
                "state": phase(self, at), "seed_commitment": self.seed_commitment,
                "first_opening": self.first_opening.isoformat(), "rehearsal": self.rehearsal}


@dataclass(frozen=True)
class Problem:
    """Why a season may not be saved: the refusal ``code`` (``invalid_input``, ``season_overlaps``, ``conflict``,
    ``season_started``), the ``field`` at fault (None for the season as a whole) and a sentence."""

    code: Literal["invalid_input", "season_overlaps", "conflict", "season_started"]
    field: str | None
    message: str


def season_seed(master_seed: str, season_id: str) -> str:
    """R12.1: the card seed of a season made after the first, derived from the deployment's secret ``TURF_SEED``
    (HMAC-SHA256, hex), so each season draws from its own seed and revealing one reveals no other. The season of
    the configuration file keeps ``TURF_SEED`` itself (its commitment was published before its first draw)."""
    return hmac.new(master_seed.encode(), f"season:{season_id}".encode(), hashlib.sha256).hexdigest()


def phase(season: Season, at: datetime) -> Phase:
    """``upcoming`` before the first opening, ``running`` until the last closing, then ``closed``."""
    state = gametime.season_state(season.config, at)
    return "upcoming" if state == "before" else state


def in_force(seasons: Iterable[Season], at: datetime) -> Season | None:
    """R31: the running season; between seasons the last closed one; before any has closed, the first upcoming one;
    None when there is no season at all."""
    ordered = sorted(seasons, key=lambda s: s.first_opening)
    running = [s for s in ordered if phase(s, at) == "running"]
    if running:
        return running[0]
    closed = [s for s in ordered if phase(s, at) == "closed"]
    if closed:
        return closed[-1]
    return ordered[0] if ordered else None


def next_season(seasons: Iterable[Season], at: datetime) -> Season | None:
    """The first season not yet opened at ``at``, or None (R31: "the next season has not been announced")."""
    upcoming = sorted((s for s in seasons if phase(s, at) == "upcoming"), key=lambda s: s.first_opening)
    return upcoming[0] if upcoming else None


def opening_sentence(season: Season) -> str:
    """"The 2027 season opens Monday 4 October at 06:00" (in the season's zone)."""
    at = season.first_opening
    return (f"The {season.name} season opens {WEEKDAY_NAMES[at.weekday()]} {at.day} {MONTHS[at.month - 1]} "
            f"at {at:%H:%M}")


def action_refusal(seasons: Sequence[Season], at: datetime, joined: Iterable[str]) -> Refused | None:
    """R31: why a player's action (a claim, a check, a card play) is refused at ``at`` for the season calendar, or
    None. Between seasons ``season_not_started`` when a next season exists (naming its first opening), else
    ``season_closed``; in a running season a player who has not joined it is refused ``not_joined``."""
    current = in_force(seasons, at)
    if current is None or phase(current, at) != "running":
        upcoming = next_season(seasons, at)
        if upcoming is not None:
            return refuse("season_not_started", opening_sentence(upcoming) + "; claims open then.")
        return refuse("season_closed")
    if current.id not in set(joined):
        return refuse("not_joined", f"You have not joined the {current.name} season yet: join it from the play "
                                    "page (one step: confirm your home address).")
    return None


def edit_refusal(season: Season, at: datetime) -> Problem | None:
    """R31: a season may be changed until its first opening; after it only by corrections (R28)."""
    if at >= season.first_opening:
        return Problem("season_started", None, f"The {season.name} season opened on "
                                               f"{season.first_opening:%Y-%m-%d %H:%M}; it can no longer be changed "
                                               "(only corrected, R28).")
    return None


# --------------------------------------------------------------------------- the organizer's form


def parse_season(d: Mapping[str, Any], *, defaults: Season | None, commitment: str,
                 rehearsal: bool = False) -> Season | list[Problem]:
    """A season from the organizer's form (API.md ``POST /admin/seasons``: ``id, name, zone, first_day, last_day,
    open_weekdays, open_time, close_time, limits?, prizes?``), or every problem with it, one per field.
    ``limits`` and ``prizes`` default to ``defaults``' (the last season's)."""
    problems: list[Problem] = []

    def bad(name: str, message: str) -> None:
        problems.append(Problem("invalid_input", name, message))

    sid = str(d.get("id", ""))
    if not SEASON_ID.fullmatch(sid):
        bad("id", "The id is 1 to 32 lower-case letters, digits or dashes, e.g. 2027.")
    name = str(d.get("name") or sid).strip()
    if not name or len(name) > 80:
        bad("name", "The name is 1 to 80 characters.")
    zone = str(d.get("zone", ""))
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        bad("zone", f"{zone!r} is not a time zone; use a name like America/New_York.")
    first, last = _field(d, "first_day", date.fromisoformat, bad), _field(d, "last_day", date.fromisoformat, bad)
    if first and last and last < first:
        bad("last_day", f"The last day {last} is before the first day {first}.")
    opens, closes = _field(d, "open_time", time.fromisoformat, bad), _field(d, "close_time", time.fromisoformat, bad)
    if opens and closes and not opens < closes:
        bad("close_time", f"The game closes at {closes:%H:%M}, not after it opens at {opens:%H:%M}.")
    weekdays = d.get("open_weekdays")
    if (not isinstance(weekdays, list) or not weekdays
            or any(isinstance(w, bool) or not isinstance(w, int) or not 0 <= w <= 6 for w in weekdays)):
        bad("open_weekdays", "Open weekdays are a non-empty list of 0 (Monday) to 6 (Sunday).")
    limits = _limits(d.get("limits"), defaults, bad)
    prizes = _prizes(d.get("prizes"), defaults, bad)
    if problems:
        return problems
    assert first and last and opens and closes and limits is not None and prizes is not None
    try:
        cfg = SeasonConfig(sid, zone, first, last, frozenset(weekdays or ()), opens, closes, limits)
    except ValueError as e:   # no game day between the first and the last day on the open weekdays
        return [Problem("invalid_input", "open_weekdays", str(e).capitalize() + ".")]
    return Season(cfg, name, prizes, commitment, rehearsal)


def _field(d: Mapping[str, Any], name: str, parse: Any, bad: Any) -> Any:
    try:
        return parse(str(d[name]))
    except KeyError:
        bad(name, f"{name} is required.")
    except ValueError:
        bad(name, f"{d[name]!r} is not a valid {'date (YYYY-MM-DD)' if 'day' in name else 'time (HH:MM)'}.")
    return None


def _limits(v: Any, defaults: Season | None, bad: Any) -> SeasonLimits | None:
    if v is None:
        return defaults.config.limits if defaults else SeasonLimits()
    try:
        return SeasonLimits.from_dict(v)
    except (TypeError, ValueError) as e:
        bad("limits", str(e).capitalize() + ".")
        return None


def _prizes(v: Any, defaults: Season | None, bad: Any) -> tuple[Prize, ...] | None:
    """R26's table: places 1, 2, … each once, amounts in dollars with at most cents, never more for a lower place."""
    if v is None:
        return defaults.prizes if defaults else ()
    try:
        prizes = tuple(Prize(int(p["place"]), Decimal(str(p["amount"]))) for p in v)
    except (TypeError, KeyError, ValueError, InvalidOperation):
        bad("prizes", "Prizes are a list of {place, amount} with amounts in dollars, e.g. 50.00.")
        return None
    if [p.place for p in prizes] != list(range(1, len(prizes) + 1)):
        bad("prizes", "Prize places are 1, 2, 3 … each once and in order.")
    elif any(p.amount < 0 or p.amount != p.amount.quantize(Decimal("0.01")) for p in prizes):
        bad("prizes", "A prize is a non-negative amount in dollars and cents.")
    elif any(a.amount < b.amount for a, b in pairwise(prizes)):
        bad("prizes", "A place never wins more than the place above it.")
    else:
        return prizes
    return None


def validate(season: Season, others: Iterable[Season], at: datetime) -> list[Problem]:
    """R31: what forbids saving ``season`` beside ``others`` at ``at``: its first opening already past (the form's
    ``first_day``), or its days overlapping another season's (``season_overlaps``). Empty when it may be saved."""
    problems = []
    if season.first_opening <= at:
        when = season.first_opening.strftime("%Y-%m-%d %H:%M")
        problems.append(Problem("invalid_input", "first_day", f"The first opening {when} is already past."))
    for o in others:
        if o.id != season.id and season.config.first_day <= o.config.last_day \
                and o.config.first_day <= season.config.last_day:
            problems.append(Problem("season_overlaps", "first_day", f"Its days overlap the {o.name} season "
                                    f"({o.config.first_day} to {o.config.last_day})."))
    return problems


def from_config(cfg: SeasonConfig, places: Iterable[Decimal], seed: str, name: str | None = None) -> Season:
    """The season of a configuration file (the first season of a deployment: 2026) with the prize of each place
    (R26, from first), its commitment that of ``TURF_SEED`` itself (R12.1)."""
    prizes = tuple(Prize(i, amount) for i, amount in enumerate(places, start=1))
    return Season(cfg, name or cfg.season_id, prizes, seed_commitment(seed))


def with_changes(season: Season, changes: Mapping[str, Any], *, commitment: str) -> Season | list[Problem]:
    """``season`` with the organizer's ``PATCH`` ``changes`` (any field of the form but ``id``), validated again."""
    form = season.body(season.first_opening) | {k: v for k, v in changes.items() if k != "id"}
    form["id"] = season.id
    made = parse_season(form, defaults=season, commitment=commitment, rehearsal=season.rehearsal)
    return made if isinstance(made, list) else replace(made, rehearsal=season.rehearsal)
