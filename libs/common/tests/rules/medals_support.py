"""The small board and helpers of the medal and footprint tests: five towns in a row (a–b–c in Hudson, d–e in
Bergen), thresholds 1–4 for every medal, changes written in New York time."""

from __future__ import annotations

from datetime import datetime

import networkx as nx

from turf_common.rules import gametime
from turf_common.rules.medals import MEDALS, BoardFacts, Change, MedalSet

SEASON = gametime.load_season()
TOWNS = ("a", "b", "c", "d", "e")
BOARD = BoardFacts({"a": "Hudson, NJ", "b": "Hudson, NJ", "c": "Hudson, NJ", "d": "Bergen, NJ", "e": "Bergen, NJ"},
                   nx.path_graph(TOWNS))
#: low thresholds, so a few changes reach every tier
SMALL = MedalSet.parse({"version": 9, "medals": [
    {"id": m, "name": m, "counts": m, "thresholds": [1, 2, 3, 4]}
    for m in MEDALS]})


def ny(s: str) -> datetime:
    return datetime.fromisoformat(s).replace(tzinfo=SEASON.tz)


def ch(at: str, town: str, owner: str | None, before: str | None, cause: str = "claim",
       fortified: bool = False) -> Change:
    return Change(ny(at), town, owner, before, fortified, cause)
