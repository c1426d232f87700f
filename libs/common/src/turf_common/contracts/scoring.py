from __future__ import annotations

from typing import Literal

from pydantic import AwareDatetime, Field

from turf_common.contracts.base import Event, Message

#: standings in one page of ``scoring.leaderboard``. A standing is at most about 300 bytes of JSON (a
#: 64-character player id, seven integers of up to 20 digits, the keys: measured by the scoring unit test
#: ``test_a_full_page_stays_far_below_the_payload_limit``), the side quests at most 3 × 448 leaders × 70 bytes
#: (every territory of the board owned by a different tied leader); so a page is at most about 400 kB, well
#: below NATS's 1 MiB payload limit, and a league of up to 1,000 players still gets its leaderboard in one reply
LEADERBOARD_PAGE = 1000
#: final standings in one page of ``scoring.results``; a final standing is at most about 250 bytes (the
#: same test), so a page is at most about 250 kB
RESULTS_PAGE = 1000


class QuestStanding(Message):
    leaders: list[str]
    value: float


class ScoreChange(Message):
    """One player's standing after a change, without rank: ranks follow from the totals (R25 competition ranking,
    ties listed by player id), so a client that holds the standings re-ranks them itself."""

    player_id: str
    base: int
    outposts: int
    bonuses: int
    total: int
    territories: int


class Standing(ScoreChange):
    """One row of the ranked leaderboard (R25 competition ranking)."""

    rank: int


class Leaderboard(Message):
    """A page of the ranked leaderboard, best first, and the side quests. The pages of one leaderboard
    (``next`` leads from one to the next) are slices of one ranking, computed when the first page was asked for:
    concurrent score changes never move a player across a page boundary. ``next`` is None on the last page."""

    ok: Literal[True] = True
    standings: list[Standing]
    side_quests: dict[str, QuestStanding]
    next: str | None = None


class LeaderboardRequest(Message):
    """``scoring.leaderboard``: the first page (``after`` None: a new ranking) or the page a ``next`` names (of the
    ranking the first page was cut from; ``not_found`` once that ranking has expired: ask for the first page
    again). Paged because one reply of every standing passed NATS's payload limit at about 7,400 players (about 140
    bytes each). ``season_id``: the season whose standings (R31: a past season's as it ended); None the season in
    force."""

    after: str | None = Field(default=None, max_length=100)
    limit: int = Field(default=LEADERBOARD_PAGE, ge=1, le=LEADERBOARD_PAGE)
    season_id: str | None = Field(default=None, max_length=32)


class ScoreUpdated(Event):
    """Published after every applied ownership change, verification (R25: the player enters the standings, at 0
    while owning nothing), disqualification or score adjustment: the players it touched, the new standing of
    every player whose figures changed (the touched players and those who gained or lost a side-quest lead), the
    players who left the standings, and the side quests (three entries). A delta, not
    the whole leaderboard, so its size and cost do not grow with the number of players; apply it to the
    ``GET /leaderboard`` snapshot."""

    type: Literal["score.updated"] = "score.updated"
    players: list[str]
    territory_id: str   # the (last) territory whose change this follows; "" for a verification, adjustment …
    territory_ids: list[str] = []   # every territory of the batch of changes it follows, in order
    changes: list[ScoreChange]
    removed: list[str] = []
    side_quests: dict[str, QuestStanding]
    at: AwareDatetime
    # R31: the season whose standings moved (a post-season correction moves the closed season's, not the running
    # one's); None in an event published before seasons (the configuration file's season)
    season_id: str | None = None


class FinalStanding(Message):
    place: int
    player_id: str
    base: int
    bonuses: int
    total: int
    prize: str  # dollars, exactly two decimals


class FinalResults(Message):
    """The final standings (R25, R26), by place. As the reply of ``scoring.results``, a page of them
    (``next`` as in :class:`Leaderboard`); as the store's record and in ``season.final_results``, all of them."""

    ok: Literal[True] = True
    final: Literal[True] = True
    standings: list[FinalStanding]
    next: str | None = None


class ResultsRequest(Message):
    """``scoring.results``: a page of the final results, as :class:`LeaderboardRequest` (``season_id`` too)."""

    after: str | None = Field(default=None, max_length=100)
    limit: int = Field(default=RESULTS_PAGE, ge=1, le=RESULTS_PAGE)
    season_id: str | None = Field(default=None, max_length=32)


class SeasonFinalResults(Event):
    """``season.final_results``: published when the season closes (R25) and again after each post-season correction
    (R28: ownership, score adjustment, disqualification) or verification, recomputed. ``results`` holds
    the first :data:`RESULTS_PAGE` standings (the prize places come first) and ``standings`` how many there are in
    all (None in an event published before): every place of a league in one event would pass NATS's payload limit
    at about 8,000 players, and the failed publish would fail the scoring consumer's batch again and again. The
    whole list is ``scoring.results`` (``GET /results``)."""

    type: Literal["season.final_results"] = "season.final_results"
    results: FinalResults
    standings: int | None = None
    # R31: the season these are the final results of; None in an event published before seasons (the
    # configuration file's season)
    season_id: str | None = None


class AdjustScore(Message):
    """``scoring.adjust`` (R28 ``adjust_score``): add ``points`` (may be negative) to a player's final score.
    Idempotent by ``command_id``."""

    command_id: str
    player_id: str
    points: int


class ScoreAdjusted(Message):
    ok: Literal[True] = True
    command_id: str
    player_id: str
    before: int   # the player's adjustment total before
    after: int
