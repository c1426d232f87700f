"""Settings of one simulated season."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass
class SimConfig:
    players: int = 40
    seed: int = 1
    days: int | None = None          # game days to play (None: to the end of the season)
    out: Path = Path("season-out")
    cheaters: int | None = None      # None: a few (about 1 in 13, at least 2)
    # an existing stack (else one is started): gateway URL and organizer credentials; for the invariants also
    # its PostgreSQL and NATS URLs and stream (from --data-dir's stack.json or TURF_* variables)
    url: str | None = None
    organizer_email: str | None = None
    organizer_password: str | None = None
    database_url: str | None = None
    nats_url: str | None = None
    stream: str | None = None
    data_dir: Path | None = None     # own stack: its data directory (default: a temporary one, removed after)
    concurrency: int = 6             # HTTP requests in flight at once
    slot_minutes: int = 10           # the clock moves in steps of at most this many game minutes
    progress: bool = True

    def n_cheaters(self) -> int:
        if self.cheaters is not None:
            return max(0, min(self.cheaters, self.players - 1))
        return min(self.players - 1, max(2, round(self.players / 13))) if self.players >= 3 else 0
