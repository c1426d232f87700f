"""Anti-spoofing (R7.1, amended): signs that a fix was not made by a phone in a moving person's hand. A flag never
changes a decision (the claim is accepted or refused on the rules alone); it puts the fix, with its evidence, in
front of the organizer, who decides (R28).

Every fix the server sees (claims and checks) joins the player's *trail*, timed twice: by the phone (``fix_time``)
and by the server's receipt (``received_at``, the game clock's time, so a manual clock works too). Between two fixes
of the trail, speed = (distance − both accuracies) / elapsed time, each fix counting at the later of its fix time and
its receipt time. Because the receipt counts, back-dating a fix cannot stretch the time between two places; a fix
time ahead of its receipt counts, but never more than R7's ``max_fix_future_s`` ahead (a fix dated further ahead is
``stale_fix`` anyway, and counting it would let a forged date stretch any elapsed time)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, tzinfo
from itertools import pairwise
from typing import Any

EARTH_RADIUS_M = 6_371_008.8
#: a fix time has a resolution of about a second: fixes closer in time than this count as this far apart
MIN_ELAPSED_S = 1.0
#: the trail compared with a new fix reaches back TRAIL_SPAN_KM / max_travel_kmh hours (2.5 h at 200 km/h): two
#: fixes further apart in time than that are never impossible travel within a board (ours spans under 250 km)
TRAIL_SPAN_KM = 500.0
#: at most this many of the most recent fixes are compared (the routes that add fixes are rate-limited)
MAX_TRAIL = 1000
#: legs of the trail quoted in a flag's evidence (the most recent ones, up to the flagged fix)
MAX_LEGS = 8


@dataclass(frozen=True)
class FixRecord:
    """One GPS fix of a player's trail: WGS84 degrees, accuracy in metres, the phone's (aware) fix time and the
    server's (aware) receipt time."""

    lat: float
    lon: float
    accuracy_m: float
    fix_time: datetime
    received_at: datetime

    def same_fix(self, other: FixRecord) -> bool:
        """The same position and accuracy, to the last bit (a replayed fix; the times may differ)."""
        return (self.lat, self.lon, self.accuracy_m) == (other.lat, other.lon, other.accuracy_m)

    def point(self) -> dict[str, Any]:
        return {"lat": self.lat, "lon": self.lon, "accuracy_m": self.accuracy_m,
                "fix_time": self.fix_time.isoformat(), "received_at": self.received_at.isoformat()}


@dataclass(frozen=True)
class Flag:
    kind: str  # impossible_travel | repeated_fix | zero_accuracy | day_start_jump
    evidence: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Leg:
    """From fix ``a`` to fix ``b`` (``b`` received later). ``distance_m``: great-circle metres; ``km``: that less
    both accuracies (never below 0), what R7.1 counts; ``seconds``: elapsed (at least MIN_ELAPSED_S); ``kmh``."""

    a: FixRecord
    b: FixRecord
    distance_m: float
    km: float
    seconds: float
    kmh: float

    def summary(self) -> dict[str, Any]:
        """The map-free line the organizer reads: from, to, km, minutes, km/h."""
        return {"from": self.a.point(), "to": self.b.point(), "km": round(self.km, 3),
                "minutes": round(self.seconds / 60, 2), "kmh": round(self.kmh, 1)}


def haversine_m(a: FixRecord, b: FixRecord) -> float:
    """Great-circle distance in metres between two fixes."""
    return great_circle_m((a.lat, a.lon), (b.lat, b.lon))


def great_circle_m(a: tuple[float, float], b: tuple[float, float]) -> float:
    """Great-circle distance in metres between two (lat, lon) points in WGS84 degrees."""
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    dp, dl = p2 - p1, math.radians(b[1] - a[1])
    h = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(h)))


def counted_time(f: FixRecord, max_future_s: float = 30.0) -> datetime:
    """R7.1: the instant a fix counts at, the later of its fix time and its receipt time; a fix time more than
    ``max_future_s`` ahead of the receipt counts as that far ahead."""
    return max(f.received_at, min(f.fix_time, f.received_at + timedelta(seconds=max_future_s)))


def leg(a: FixRecord, b: FixRecord, max_future_s: float = 30.0) -> Leg:
    """R7.1's speed from ``a`` to ``b``: (distance − both accuracies) / elapsed time."""
    dist = haversine_m(a, b)
    metres = max(0.0, dist - a.accuracy_m - b.accuracy_m)
    secs = max((counted_time(b, max_future_s) - counted_time(a, max_future_s)).total_seconds(), MIN_ELAPSED_S)
    return Leg(a, b, dist, metres / 1000, secs, metres / secs * 3.6)


def trail_since(now: datetime, max_travel_kmh: float) -> datetime:
    """The earliest receipt time of the trail a fix received at ``now`` is compared with (see TRAIL_SPAN_KM)."""
    return now - timedelta(hours=TRAIL_SPAN_KM / max_travel_kmh)


def _legs(trail: Sequence[FixRecord], start: int, fix: FixRecord, max_future_s: float) -> list[dict[str, Any]]:
    """The consecutive legs from ``trail[start]`` to ``fix``, the last MAX_LEGS of them."""
    pts = [*trail[start:], fix][-(MAX_LEGS + 1):]
    return [leg(a, b, max_future_s).summary() for a, b in pairwise(pts)]


def screen(fix: FixRecord, trail: Sequence[FixRecord], max_travel_kmh: float = 200.0,
           max_future_s: float = 30.0) -> list[Flag]:
    """R7.1 (amended): the flags a new ``fix`` raises against the player's ``trail`` (the earlier fixes, in the
    order the server received them; see :func:`trail_since`). Never a refusal.

    * ``impossible_travel``: from some fix of the trail to this one is faster than ``max_travel_kmh`` (any two fixes
      of the trail count, so fixes with a huge accuracy cannot bridge a jump). A jump already shown by the previous
      fix is not raised again while the player stays there: only a fix ``e`` from which the previous fix was
      reachable (or the previous fix itself) is new evidence. Evidence: the pair (``from``, ``to``, ``distance_m``
      less both accuracies, ``seconds``, ``speed_kmh``, ``max_travel_kmh``) and the trail's legs between them.
    * ``repeated_fix``: a fix identical (position and accuracy) to an earlier one after the trail went elsewhere in
      between (further than both accuracies): a replay, not a phone that stayed put. An identical fix re-sent by a
      phone that did not move is never flagged. Evidence: the fix, where the trail went (``away``, ``away_km``), legs.
    * ``zero_accuracy``: no receiver reports an accuracy of exactly 0 m. Evidence: the fix (``at``).
    """
    out: list[Flag] = []
    if trail:
        last = len(trail) - 1
        impossible = [i for i, e in enumerate(trail) if leg(e, fix, max_future_s).kmh > max_travel_kmh]
        # a fix the previous one was already impossible from: that jump was flagged when the previous fix came
        new = [i for i in impossible
               if i == last or leg(trail[i], trail[last], max_future_s).kmh <= max_travel_kmh]
        if new:
            start = new[-1]
            lg = leg(trail[start], fix, max_future_s)
            out.append(Flag("impossible_travel", {
                "from": trail[start].point(), "to": fix.point(), "distance_m": round(lg.km * 1000, 1),
                "seconds": lg.seconds, "speed_kmh": round(lg.kmh, 1), "max_travel_kmh": max_travel_kmh,
                "trail": _legs(trail, start, fix, max_future_s)}))
        same = [i for i, e in enumerate(trail) if e.same_fix(fix)]
        if same and same[-1] < last:
            j = same[-1]
            away = max((leg(trail[j], m, max_future_s) for m in trail[j + 1:]), key=lambda lg: lg.km)
            if away.km > 0:
                out.append(Flag("repeated_fix", {
                    "lat": fix.lat, "lon": fix.lon, "accuracy_m": fix.accuracy_m, "first": trail[j].point(),
                    "away": away.b.point(), "away_km": round(away.km, 3),
                    "trail": _legs(trail, j, fix, max_future_s)}))
    if fix.accuracy_m == 0:
        out.append(Flag("zero_accuracy", {"accuracy_m": 0, "at": fix.point()}))
    return out


# ---- repeats of one flag -------------------------------------------------------------------------------------
#: two flags of a kind are "between the same places" when each place of one is within this many metres of the
#: other's (a spoofer's or a phone's fixes at one spot scatter by tens of metres, towns are kilometres apart)
MERGE_TOLERANCE_M = 1000.0
#: a repeat merges into a flag first raised at most this long before it; later it is a new flag, so a flood makes
#: one flag an hour per kind and places, and a flag the organizer cleared takes repeats for the rest of its hour
#: only (the next hour's are an open flag again)
MERGE_WINDOW = timedelta(hours=1)


def places(kind: str, evidence: dict[str, Any]) -> list[tuple[float, float]] | None:
    """The places a flag is about, in order, as (lat, lon): ``impossible_travel`` from and to, ``repeated_fix``
    the replayed fix and where the trail went, ``zero_accuracy`` the fix. None for a kind that never merges or
    evidence without its places (a flag stored before they were recorded)."""
    keys = {"impossible_travel": ("from", "to"), "repeated_fix": (None, "away"), "zero_accuracy": ("at",)}.get(kind)
    if keys is None:
        return None
    try:
        pts = [evidence if k is None else evidence[k] for k in keys]
        return [(float(p["lat"]), float(p["lon"])) for p in pts]
    except (KeyError, TypeError, ValueError):
        return None


def repeats(flag: Flag, earlier: Sequence[tuple[str, Flag]],
            tolerance_m: float = MERGE_TOLERANCE_M) -> str | None:
    """R7.1: the id of the first of ``earlier`` (the same player's recent flags, the latest first) that
    ``flag`` repeats: the same kind between the same places (each within ``tolerance_m``). None: a new flag.
    A flag flood (one player's checks back and forth between two towns) makes one flag with a count, not one per
    pair of fixes; evidence for the organizer either way, never a refusal."""
    mine = places(flag.kind, flag.evidence)
    if mine is None:
        return None
    for fid, other in earlier:
        theirs = places(other.kind, other.evidence) if other.kind == flag.kind else None
        if theirs is not None and len(theirs) == len(mine) and \
                all(great_circle_m(a, b) <= tolerance_m for a, b in zip(mine, theirs, strict=True)):
            return fid
    return None


def merge_since(now: datetime) -> datetime:
    """The earliest time a flag that a flag raised at ``now`` may repeat was first raised (see MERGE_WINDOW)."""
    return now - MERGE_WINDOW


# ---- the day's first fix --------------------------------------------------------------------------------------
#: the day's first fix further than this (beyond the accuracies) from both the player's home and where they were
#: last seen is flagged: R7.1's speed cannot catch it (overnight, any place on a board under 250 km is reachable
#: at 200 km/h), so a patient spoofer, one claim a day anywhere at 10 m accuracy, was never flagged
DAY_JUMP_KM = 50.0


def day_start_jump(fix: FixRecord, last: FixRecord | None, home: tuple[float, float] | None, tz: tzinfo,
                   jump_km: float = DAY_JUMP_KM) -> Flag | None:
    """R7.1 (evidence, never a refusal): a ``day_start_jump`` flag when ``fix`` is the player's first of its
    calendar day in the season's zone ``tz`` (``last``, the player's previous fix, was received on an earlier day,
    or there is none) and lies more than ``jump_km`` beyond the accuracies from ``home`` (the geocoded home, R27,
    as (lat, lon)) and from ``last`` (when there is one). None without a home: a day's gap makes any trip from
    yesterday's last place plausible, and honest players roam (the simulated ones up to 30 km around home, so
    60 km from one evening to the next morning); the home is what a player comes back to. Evidence: ``to`` the
    fix, ``last`` and ``last_km`` (null without one), ``hours_since_last``, ``home``, ``home_km``, ``max_km``."""
    if last is not None and last.received_at.astimezone(tz).date() >= fix.received_at.astimezone(tz).date():
        return None
    if home is None:
        return None
    last_km = None if last is None else max(0.0, haversine_m(last, fix) - last.accuracy_m - fix.accuracy_m) / 1000
    home_km = max(0.0, great_circle_m(home, (fix.lat, fix.lon)) - fix.accuracy_m) / 1000
    if home_km <= jump_km or (last_km is not None and last_km <= jump_km):
        return None
    hours = None if last is None else round((fix.received_at - last.received_at).total_seconds() / 3600, 2)
    return Flag("day_start_jump", {
        "to": fix.point(), "last": None if last is None else last.point(),
        "last_km": None if last_km is None else round(last_km, 3), "hours_since_last": hours,
        "home": {"lat": home[0], "lon": home[1]}, "home_km": round(home_km, 3), "max_km": jump_km})
