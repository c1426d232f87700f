"""Ports of scoring: the read model of ownership and scores (Redis in the service, memory in unit tests); it publishes
``score.updated`` and ``season.final_results`` through :class:`turf_common.outbox.StreamPublisher`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import NamedTuple, Protocol, TypedDict

from turf_common.contracts.scoring import FinalResults, ScoreAdjusted
from turf_common.rules.scoring import PlayerScore


class StoredScore(TypedDict):
    """A player's stored R23 figures (counts of territories)."""

    base: int
    outposts: int
    territories: int


def stored_score(sc: PlayerScore) -> StoredScore:
    """What the store keeps of an R23 score (the player id is its key)."""
    return {"base": sc.base, "outposts": sc.outposts, "territories": sc.territories}


class OwnedSet(NamedTuple):
    """A player's territory ids as read, with the version of that set (an opaque token, bumped by every change to
    the set): a score computed from it is written only while the version still holds."""

    player_id: str
    version: str
    territories: set[str]


class LiveFacts(NamedTuple):
    """What every delta needs, read at one instant: player id → territory ids owned, the disqualified player ids,
    and whether the season has closed (R25)."""

    owned_by: dict[str, set[str]]
    disqualified: set[str]
    closed: bool


class Applied(NamedTuple):
    """What :meth:`ScoreStore.apply_and_read` answers, all read after the changes: the previous owner of each change
    (``""`` for none, None for a change not newer than the stored one), the territory sets of the players asked
    for, the live facts, and those players' organizer adjustments (R28)."""

    previous: list[str | None]
    sets: list[OwnedSet]
    live: LiveFacts
    adjustments: dict[str, int]


class Ownership(Protocol):
    """Who owns what: territory changes applied in version order, once each, and the sets read back."""

    async def apply_and_read(self, changes: Sequence[tuple[str, int, str | None]],
                             player_ids: Sequence[str]) -> Applied:
        """For each ``(territory_id, version, owner_id)`` in order: make ``owner_id`` (None: unclaimed) the owner at
        ``version`` and move the territory between the two players' sets (bumping both set versions); a change
        whose ``version`` is not newer than the stored one (a redelivery or a reordering) changes nothing. Then read
        what the delta needs (:class:`Applied`: the sets of ``player_ids`` as :meth:`territory_sets` reads them,
        :meth:`live`, the adjustments). One round trip, one instant."""
        ...

    async def territory_sets(self, player_ids: Sequence[str]) -> list[OwnedSet]:
        """The players' territory sets and their versions, read at one instant, in the order asked."""
        ...

    async def live(self) -> LiveFacts: ...

    async def owned_by(self) -> dict[str, set[str]]:
        """Player id → the territory ids they own."""
        ...


class Standings(Protocol):
    """The stored R23 scores, written optimistically, and the R24 side-quest bonuses."""

    async def write_scores(self, scores: Sequence[tuple[OwnedSet, PlayerScore]]) -> list[str]:
        """Store each score unless its player's set version moved since ``OwnedSet`` was read; returns the ids of
        the players not written (to be read and computed again)."""
        ...

    async def write_scores_and_swap_bonuses(
            self, scores: Sequence[tuple[OwnedSet, PlayerScore]], bonus: Mapping[str, int],
            source_id: str) -> tuple[list[str], dict[str, int]]:
        """:meth:`write_scores`, then :meth:`swap_bonuses`, in one round trip: (the players not written,
        the bonuses replaced)."""
        ...

    async def swap_bonuses(self, bonus: Mapping[str, int], source_id: str) -> dict[str, int]:
        """Store the side-quest bonuses (player id → points, R24) and return the ones they replace. The replaced
        bonuses are remembered per ``source_id`` (event or command id): the same source handled again gets the
        bonuses from before its first handling, not its own."""
        ...

    async def standings_of(self, player_ids: Sequence[str]) -> list[tuple[StoredScore | None, int]]:
        """Each player's stored score (None: never scored) and organizer adjustment (R28), in the order asked."""
        ...

    async def has_score(self, player_id: str) -> bool: ...

    async def scores(self) -> dict[str, StoredScore]:
        """Every stored score by player id (the disqualified included)."""
        ...


class Adjustments(Protocol):
    """The organizer's point adjustments (R28), each applied once (its first reply kept)."""

    async def adjustment_reply(self, command_id: str) -> ScoreAdjusted | None:
        """The reply first given to adjustment ``command_id``, or None if it has not been applied."""
        ...

    async def adjustment(self, player_id: str) -> int: ...

    async def add_adjustment(self, player_id: str, points: int) -> int:
        """Add ``points`` (may be negative) to the player's adjustment; returns the new adjustment."""
        ...

    async def remember_adjustment(self, reply: ScoreAdjusted) -> None: ...

    async def adjustments(self) -> dict[str, int]: ...


class SeasonRecord(Protocol):
    """Disqualified players, the players who joined (R31), and the season's close and final results (R25, R28)."""

    async def join(self, player_id: str) -> bool:
        """R31: ``player_id`` takes part in the season; True the first time."""
        ...

    async def has_joined(self, player_id: str) -> bool: ...

    async def mark_verified(self, player_id: str) -> None:
        """R25, R27: the player was verified once (read from the configuration file's season's store, shared by
        all seasons: accounts are, R31)."""
        ...

    async def is_verified(self, player_id: str) -> bool: ...

    async def is_closed(self) -> bool: ...

    async def disqualify(self, player_id: str) -> None: ...

    async def disqualified(self) -> set[str]: ...

    async def close_season(self, at: datetime) -> None: ...

    async def save_final(self, results: FinalResults) -> None: ...

    async def final(self) -> FinalResults | None:
        """The final results last saved, or None before the season closed."""
        ...


class Snapshots(Protocol):
    """The pages of a list too long for one reply (the leaderboard, the final results), kept for a short
    time so that every page a caller reads is cut from the one list computed for its first page, whichever replica
    answers. At most :data:`SNAPSHOTS_KEPT` are kept, each at most :data:`SNAPSHOT_TTL_S` seconds: the memory
    they take stays bounded however often they are made (a reader of an evicted one starts again)."""

    async def keep(self, snapshot_id: str, pages: Sequence[bytes]) -> None:
        """Keep ``pages`` (each one reply's JSON) under ``snapshot_id``, evicting the oldest beyond the cap."""
        ...

    async def page(self, snapshot_id: str, n: int) -> bytes | None:
        """Page ``n`` (0 the first) of a kept snapshot; None when there is no such page (expired, evicted, never
        made, or beyond the last)."""
        ...


#: how long a snapshot of pages is kept (a caller reads its pages one after another within milliseconds:
#: 10 pages at 10,000 players)
SNAPSHOT_TTL_S = 30
#: how many snapshots are kept at once, the oldest evicted first, so their memory is bounded however often
#: they are made: 8 × a whole leaderboard, about 11 MB at 10,000 players (1.4 MB each), 110 MB at 100,000. A snapshot
#: is made only for the first page of a list longer than one page, one per distinct ranking (named by its content),
#: and the gateways share such a request while no score changes; a caller whose snapshot 8 newer ones evicted
#: before it was done reads again from the first page (turf_gateway.handlers.paging)
SNAPSHOTS_KEPT = 8


class ScoreStore(Protocol):
    """The read model. Territory changes apply in version order, once each; scores are written optimistically
    (refused when the player's set changed since it was read, e.g. by another replica). It exposes its roles
    (the handlers name the one they use)."""

    @property
    def ownership(self) -> Ownership: ...

    @property
    def standings(self) -> Standings: ...

    @property
    def organizer(self) -> Adjustments: ...

    @property
    def season(self) -> SeasonRecord: ...

    @property
    def snapshots(self) -> Snapshots: ...

    def of_season(self, season_id: str) -> ScoreStore:
        """R31: the store of another season than this one's (its own board state, scores, side quests, adjustments,
        disqualifications, close and final results), on the same backend. The configuration file's season's store
        is the root one, whose keys predate seasons."""
        ...

