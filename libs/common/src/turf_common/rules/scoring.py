"""Scoring as pure rules: R23 clusters and base score, R24 side quests, R25 ranking."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import networkx as nx

SIDE_QUEST_POINTS = 3
QUESTS = ("lord_of_the_seas", "hungry_hungry_hippo", "social_butterfly")


@dataclass(frozen=True)
class PlayerScore:
    """R23: ``base`` = size of the largest connected cluster, ``outposts`` = the other territories."""

    player_id: str
    base: int
    outposts: int
    territories: int


def clusters(graph: nx.Graph, owned: Iterable[str]) -> list[set[str]]:
    """Connected clusters of ``owned`` territories over the board's adjacency graph (R22), largest first."""
    sub = graph.subgraph(owned)
    return sorted((set(c) for c in nx.connected_components(sub)), key=len, reverse=True)


def player_score(graph: nx.Graph, player_id: str, owned: Iterable[str]) -> PlayerScore:
    """R23 for one player. A player owning nothing scores 0 base, 0 outposts."""
    owned = set(owned)
    cl = clusters(graph, owned)
    base = len(cl[0]) if cl else 0
    return PlayerScore(player_id, base, len(owned) - base, len(owned))


@dataclass(frozen=True)
class TerritoryStats:
    borders_water: bool
    land_area_m2: float
    population: int


@dataclass(frozen=True)
class QuestResult:
    leaders: list[str]
    value: float


def side_quests(owned_by: Mapping[str, Iterable[str]], stats: Mapping[str, TerritoryStats]) -> dict[str, QuestResult]:
    """R24 over every territory each player owns (outposts included): Lord of the Seas (count of
    ``borders_water``), Hungry Hungry Hippo (land area, m²), Social Butterfly (population). Every player tied
    at the top leads; a top value of 0 has no leader."""
    totals: dict[str, dict[str, float]] = {q: {} for q in QUESTS}
    for pid, tids in owned_by.items():
        ts = [stats[t] for t in tids]
        totals["lord_of_the_seas"][pid] = sum(1 for s in ts if s.borders_water)
        totals["hungry_hungry_hippo"][pid] = sum(s.land_area_m2 for s in ts)
        totals["social_butterfly"][pid] = sum(s.population for s in ts)
    out: dict[str, QuestResult] = {}
    for q, vals in totals.items():
        top = max(vals.values(), default=0)
        leaders = sorted(p for p, v in vals.items() if v == top) if top > 0 else []
        out[q] = QuestResult(leaders, top)
    return out


def bonuses(quests: Mapping[str, QuestResult]) -> dict[str, int]:
    """Side-quest points per player: +3 for each quest the player leads (ties all get it, R24)."""
    pts: dict[str, int] = {}
    for r in quests.values():
        for p in r.leaders:
            pts[p] = pts.get(p, 0) + SIDE_QUEST_POINTS
    return pts


def competition_ranks(totals: Mapping[str, int]) -> list[tuple[int, str, int]]:
    """R25: order by total, highest first; equal totals share a rank, numbered 1, 2, 2, 4.
    Ties are listed by player id so the order is stable. Returns (rank, player_id, total)."""
    ordered = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
    out: list[tuple[int, str, int]] = []
    for i, (pid, tot) in enumerate(ordered):
        rank = out[-1][0] if out and out[-1][2] == tot else i + 1
        out.append((rank, pid, tot))
    return out
