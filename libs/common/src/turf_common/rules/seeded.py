"""The seeded, auditable random source of a turn-based game (T20, K16), built as the season's cards are (R12, R12.1).

A game's key is HMAC-SHA256(seed, game id); every draw is :func:`turf_common.rules.cards.pick_index` over that key
with its own label, so a draw depends only on (seed, game id, label) — never on how many draws came before — and a
replay with the revealed seed gives every die and shuffle again. The game's commitment is
:func:`turf_common.rules.cards.seed_commitment` of its seed, published at creation.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from turf_common.rules.cards import pick_index, seed_commitment

T = TypeVar("T")

__all__ = ["SeededSource", "seed_commitment"]


@dataclass(frozen=True)
class SeededSource:
    """Draws of one game. ``seed``: the game's secret seed; ``game_id``: the game's stable id."""

    seed: str
    game_id: str
    _key: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        key = hmac.new(self.seed.encode(), self.game_id.encode(), hashlib.sha256).hexdigest()
        object.__setattr__(self, "_key", key)

    def below(self, label: str, n: int) -> int:
        """An integer uniform in ``[0, n)`` for the draw named ``label`` (no modulo bias)."""
        return pick_index(self._key, label, n)

    def die(self, label: str) -> int:
        """One six-sided die, 1…6."""
        return 1 + self.below(label, 6)

    def chance(self, label: str, percent: int) -> bool:
        """True with probability exactly ``percent``/100."""
        return self.below(label, 100) < percent

    def choice(self, label: str, items: Sequence[T]) -> T:
        return items[self.below(label, len(items))]

    def shuffled(self, label: str, items: Sequence[T]) -> list[T]:
        """Fisher–Yates over ``items`` in the given order; draw ``i`` is labelled ``f"{label}|{i}"``."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(f"{label}|{i}", i + 1)
            out[i], out[j] = out[j], out[i]
        return out
