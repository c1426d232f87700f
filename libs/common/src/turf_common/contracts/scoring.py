from __future__ import annotations

from typing import Literal

from pydantic import AwareDatetime

from turf_common.contracts.base import Event, Message


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
    ok: Literal[True] = True
    standings: list[Standing]
    side_quests: dict[str, QuestStanding]


class LeaderboardRequest(Message):
    pass


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
    territory_ids: list[str] = []   # issue 21: every territory of the batch of changes it follows, in order
    changes: list[ScoreChange]
    removed: list[str] = []
    side_quests: dict[str, QuestStanding]
    at: AwareDatetime


class FinalStanding(Message):
    place: int
    player_id: str
    base: int
    bonuses: int
    total: int
    prize: str  # dollars, exactly two decimals


class FinalResults(Message):
    ok: Literal[True] = True
    final: Literal[True] = True
    standings: list[FinalStanding]


class ResultsRequest(Message):
    pass


class SeasonFinalResults(Event):
    """``season.final_results``: published when the season closes (R25) and again after each post-season correction
    (R28: ownership, score adjustment, disqualification) or verification, recomputed."""

    type: Literal["season.final_results"] = "season.final_results"
    results: FinalResults


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
