"""R25 final places and R26 prizes, as pure rules over final scores. Money is ``Decimal`` dollars."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal
from pathlib import Path

CENT = Decimal("0.01")
DEFAULT_FILE = Path(__file__).with_name("prizes-2026.json")


@dataclass(frozen=True)
class PrizeTable:
    """Prize money per place (1-based; places past the list win 0) and the rulebook's explicit tie cases,
    ``(place, tied) → each``, which win over the generic formula (R26: "the table wins over the formula")."""

    places: tuple[Decimal, ...]
    cases: Mapping[tuple[int, int], Decimal]

    @classmethod
    def load(cls, path: Path | None = None) -> PrizeTable:
        d = json.loads((path or DEFAULT_FILE).read_text())
        return cls(tuple(Decimal(p) for p in d["places"]),
                   {(c["place"], c["tied"]): Decimal(c["each"]) for c in d["cases"]})

    def place_prize(self, place: int) -> Decimal:
        return self.places[place - 1] if 1 <= place <= len(self.places) else Decimal("0.00")


@dataclass(frozen=True)
class FinalPlace:
    place: int
    player_id: str
    total: int
    prize: Decimal


def final_places(totals: Mapping[str, int], table: PrizeTable) -> list[FinalPlace]:
    """R25/R26: rank by final score, highest first; equal scores share a place, and tied players occupy as
    many places as they are (after a two-way tie for first the next player is third). Each group of tied
    players at place p gets the table's explicit case for (p, group size) if there is one, else the sum of
    the prizes of the places they occupy, shared equally and rounded down to the cent. A total of 0 (or less,
    after an organizer's adjustment) wins no prize (R25 amended): those players keep their place, the money of
    that place is not paid to anyone else."""
    ordered = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))
    out: list[FinalPlace] = []
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j][1] == ordered[i][1]:
            j += 1
        place, tied = i + 1, j - i
        each = table.cases.get((place, tied))
        if each is None:
            pot = sum((table.place_prize(p) for p in range(place, place + tied)), Decimal("0"))
            each = (pot / tied).quantize(CENT, rounding=ROUND_DOWN)
        if ordered[i][1] <= 0:
            each = Decimal("0")
        out.extend(FinalPlace(place, pid, tot, each.quantize(CENT)) for pid, tot in ordered[i:j])
        i = j
    return out
