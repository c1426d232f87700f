"""Medals as a pure rule over the public event history: every player's medal values, tiers and the instant each
tier was earned, recomputed from the season's ``territory.changed`` events in stream order, so any medal can be
audited from the public feed (``GET /replay``) or the stream's log (``turfwar simulate``'s ``events.jsonl``).

The medals and their thresholds are data (``medals-2026.json``, :class:`MedalSet`); how each is counted (and the
rulings it leans on) is :mod:`turf_common.rules.medals` here and ``docs/medals.md``. A medal never changes a score
or a ruling: this module only reads the history. Every value only grows, so a tier once earned stays earned."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

import networkx as nx

from turf_common.rules import gametime
from turf_common.rules.scoring import clusters

if TYPE_CHECKING:
    from turf_common.board import Board

DEFAULT_FILE = Path(__file__).with_name("medals-2026.json")
TIERS = ("bronze", "silver", "gold", "platinum")
MEDALS = ("explorer", "cartographer", "raider", "builder", "landlord", "avenger", "early_bird", "empire")
#: R14: the attacker's exclusive reclaim window after a War, in game hours
RECLAIM_WINDOW_GAME_HOURS = 16.0
#: a GPS claim this soon after a game day's opening (R3) counts for Early bird
OPENING_MINUTE = timedelta(minutes=1)
#: the causes of a GPS claim (R7 checked the fix inside the town): a claim, and R14's War reclaim
GPS_CAUSES = ("claim", "war_reclaim")


@dataclass(frozen=True)
class MedalDef:
    id: str
    name: str
    counts: str
    thresholds: tuple[int, ...]   # bronze, silver, gold, platinum: strictly increasing, at least 1

    def tier(self, value: int) -> str | None:
        """The highest tier ``value`` reaches, None below bronze."""
        reached = [t for t, n in zip(TIERS, self.thresholds, strict=True) if value >= n]
        return reached[-1] if reached else None

    def next_threshold(self, value: int) -> int | None:
        return next((n for n in self.thresholds if n > value), None)


@dataclass(frozen=True)
class MedalSet:
    """The season's medals (a versioned file the organizer may edit before a season)."""

    version: int
    medals: tuple[MedalDef, ...]

    @classmethod
    def load(cls, path: Path | None = None) -> MedalSet:
        return cls.parse(json.loads((path or DEFAULT_FILE).read_text()))

    @classmethod
    def parse(cls, d: Mapping[str, Any]) -> MedalSet:
        """Raises ValueError for an unknown medal, a medal twice, or thresholds that are not 4 increasing counts."""
        if tuple(d.get("tiers", TIERS)) != TIERS:
            raise ValueError(f"medals: tiers must be {', '.join(TIERS)}")
        medals = tuple(MedalDef(m["id"], m["name"], m["counts"], tuple(int(n) for n in m["thresholds"]))
                       for m in d["medals"])
        ids = [m.id for m in medals]
        if len(set(ids)) != len(ids) or not set(ids) <= set(MEDALS):
            raise ValueError(f"medals: each of {', '.join(MEDALS)} at most once, got {', '.join(ids)}")
        for m in medals:
            t = m.thresholds
            if len(t) != len(TIERS) or t[0] < 1 or any(b <= a for a, b in pairwise(t)):
                raise ValueError(f"medals: {m.id} needs {len(TIERS)} strictly increasing thresholds from 1")
        return cls(int(d["version"]), medals)

    def by_id(self) -> dict[str, MedalDef]:
        return {m.id: m for m in self.medals}


@dataclass(frozen=True)
class Change:
    """One public ``territory.changed`` (R9, R14, R18–R20, R28): what the medals read of it."""

    at: datetime
    territory_id: str
    owner_id: str | None
    previous_owner_id: str | None
    fortified: bool
    cause: str


def change_of(msg: Mapping[str, Any]) -> Change | None:
    """The :class:`Change` of one event body (the stream's ``data`` or a feed message), None for any other event."""
    if msg.get("type") != "territory.changed":
        return None
    at = msg.get("occurred_at") or msg.get("at")
    when = at if isinstance(at, datetime) else datetime.fromisoformat(str(at))
    return Change(when, str(msg["territory_id"]), msg.get("owner_id"), msg.get("previous_owner_id"),
                  bool(msg.get("fortified")), str(msg.get("cause") or "claim"))


@dataclass(frozen=True)
class BoardFacts:
    """What of the board the medals need: each town's county (with its state: R21) and the adjacency (R22)."""

    county: Mapping[str, str]
    graph: nx.Graph

    @classmethod
    def of(cls, board: Board) -> BoardFacts:
        return cls({t.id: f"{t.county}, {t.state}" for t in board.territories.values()}, board.graph)


@dataclass(frozen=True)
class Award:
    """``player_id`` reached ``tier`` of ``medal`` (its threshold ``value``) at ``at``."""

    player_id: str
    medal: str
    tier: str
    value: int
    at: datetime

    @property
    def key(self) -> str:
        """The award's identity: one player earns one tier of one medal once."""
        return f"{self.player_id}:{self.medal}:{self.tier}"


@dataclass(frozen=True)
class SeasonMedals:
    values: dict[str, dict[str, int]]   # player → medal → value (every medal, 0 when nothing counted)
    awards: list[Award]                 # in the order earned

    def player(self, player_id: str) -> dict[str, int]:
        return self.values.get(player_id, dict.fromkeys(MEDALS, 0))


@dataclass
class _Walk:
    """The season replayed change by change, with the clock's game-day closes and War windows in between."""

    medals: MedalSet
    board: BoardFacts
    season: gametime.SeasonConfig
    owner: dict[str, str | None] = field(default_factory=dict)
    owned: dict[str, set[str]] = field(default_factory=dict)          # player → the towns they own now
    fortified: dict[str, bool] = field(default_factory=dict)
    hold_days: Counter[str] = field(default_factory=Counter)          # town → closes its owner held it through
    wars: list[tuple[datetime, str, str, str]] = field(default_factory=list)   # (window end, town, V, A)
    towns: dict[str, set[str]] = field(default_factory=dict)          # Explorer
    counties: dict[str, set[str]] = field(default_factory=dict)       # Cartographer
    values: dict[str, Counter[str]] = field(default_factory=dict)
    awards: list[Award] = field(default_factory=list)
    closes: list[datetime] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.closes = [gametime.open_interval(self.season, d)[1] for d in gametime.game_days(self.season)]
        self.defs = self.medals.by_id()

    def reach(self, player: str, medal: str, value: int, at: datetime) -> None:
        """``player``'s ``medal`` is now at least ``value``: record each tier this passes."""
        counter = self.values.setdefault(player, Counter())
        before = counter[medal]
        if value <= before:
            return
        counter[medal] = value
        m = self.defs.get(medal)
        for tier, n in zip(TIERS, m.thresholds if m else (), strict=False):
            if before < n <= value:
                self.awards.append(Award(player, medal, tier, n, at))

    def advance(self, to: datetime) -> None:
        """Everything the clock settles up to ``to``: Wars whose reclaim window ran out unused (R14: V keeps T:
        a War won) and game-day closes (R2, R3) each owner held a town through (Landlord)."""
        for end, _town, victim, _attacker in sorted(w for w in self.wars if w[0] <= to):
            self.reach(victim, "avenger", self.values.get(victim, Counter())["avenger"] + 1, end)
        self.wars = [w for w in self.wars if w[0] > to]
        while self.closes and self.closes[0] <= to:
            close = self.closes.pop(0)
            for town, who in sorted(self.owner.items()):
                if who is not None:
                    self.hold_days[town] += 1
                    self.reach(who, "landlord", self.hold_days[town], close)

    def apply(self, c: Change) -> None:
        self.advance(c.at)
        was_fortified = self.fortified.get(c.territory_id, False)
        self.own(c)
        self.fortified[c.territory_id] = c.fortified
        if c.cause == "war_reclaim":   # R14: the attacker reclaimed in time: the victim's War is lost
            self.wars = [w for w in self.wars if w[1] != c.territory_id]
        for p in {c.owner_id, c.previous_owner_id} - {None}:
            self.empire(str(p), c.at)
        if c.owner_id is not None:
            self.credit(c.owner_id, c, was_fortified)

    def own(self, c: Change) -> None:
        """The town's owner after ``c``; a new owner starts a new hold (a reinforce keeps the hold)."""
        before = self.owner.get(c.territory_id)
        if before == c.owner_id:
            return
        self.hold_days[c.territory_id] = 0
        if before is not None:
            self.owned.get(before, set()).discard(c.territory_id)
        if c.owner_id is not None:
            self.owned.setdefault(c.owner_id, set()).add(c.territory_id)
        self.owner[c.territory_id] = c.owner_id

    def credit(self, p: str, c: Change, was_fortified: bool) -> None:
        """What one change counts for its new owner ``p``."""
        towns = self.towns.setdefault(p, set())
        towns.add(c.territory_id)
        self.reach(p, "explorer", len(towns), c.at)
        count = self.values.setdefault(p, Counter())
        if c.cause in GPS_CAUSES:
            counties = self.counties.setdefault(p, set())
            counties.add(self.board.county.get(c.territory_id, "?"))
            self.reach(p, "cartographer", len(counties), c.at)
            if self.opening_minute(c.at):
                self.reach(p, "early_bird", count["early_bird"] + 1, c.at)
        stole = c.cause == "war_reclaim" or (
            c.cause == "claim" and c.previous_owner_id is not None and c.previous_owner_id != p)
        if stole:   # R9 steal; R14: the War reclaim is a steal
            self.reach(p, "raider", count["raider"] + 1, c.at)
        if c.cause == "claim" and c.previous_owner_id == p and c.fortified and not was_fortified:   # R9, R11
            self.reach(p, "builder", count["builder"] + 1, c.at)
        if c.cause == "war" and c.previous_owner_id is not None:   # R14: T back to V, A's window opens
            end = gametime.add_game_hours(self.season, c.at, RECLAIM_WINDOW_GAME_HOURS)
            self.wars.append((end or gametime.season_closes_at(self.season), c.territory_id, p,
                              c.previous_owner_id))

    def opening_minute(self, at: datetime) -> bool:
        day = gametime.game_day_at(self.season, at)
        if day is None:
            return False
        opens = gametime.open_interval(self.season, day)[0]
        return opens <= at < opens + OPENING_MINUTE

    def empire(self, p: str, at: datetime) -> None:
        """R22, R23: the largest connected cluster ``p`` holds now."""
        cl = clusters(self.board.graph, self.owned.get(p, set()))
        self.reach(p, "empire", len(cl[0]) if cl else 0, at)


def compute(changes: Iterable[Change], medals: MedalSet, board: BoardFacts, season: gametime.SeasonConfig,
            until: datetime) -> SeasonMedals:
    """Every player's medals from the season's changes (in stream order) as of ``until`` (the season's close, or
    the instant the history was read up to): game-day closes and War windows up to ``until`` count."""
    walk = _Walk(medals, board, season)
    for c in changes:
        if c.at > until:
            break
        walk.apply(c)
    walk.advance(until)
    values = {p: {m: c[m] for m in MEDALS} for p, c in walk.values.items()}
    return SeasonMedals(values, walk.awards)


def changes_of(events: Iterable[Mapping[str, Any]]) -> list[Change]:
    """The changes among event bodies, in the order given."""
    return [c for e in events if (c := change_of(e)) is not None]
