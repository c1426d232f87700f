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
