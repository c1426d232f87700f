from __future__ import annotations

from typing import Literal

from pydantic import AwareDatetime

from turf_common.contracts.base import Event, Message


class Standing(Message):
    rank: int
    player_id: str
    base: int
    outposts: int
    bonuses: int
    total: int
    territories: int


class QuestStanding(Message):
    leaders: list[str]
    value: float


class Leaderboard(Message):
    ok: Literal[True] = True
    standings: list[Standing]
    side_quests: dict[str, QuestStanding]


class LeaderboardRequest(Message):
    pass


class ScoreUpdated(Event):
    """Published after every applied ownership change: the players it touched and the whole leaderboard."""

    players: list[str]
    territory_id: str
    leaderboard: Leaderboard
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
    """``season.final_results``: published when the season closes (R25) and again after a post-season correction."""

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
