"""Season events (R31), which the gateway publishes when the organizer makes or changes a season: every service
learns of a season from them, not from a file or a restart."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from turf_common.contracts.base import Event


class SeasonAnnounced(Event):
    """What ``season.created`` and ``season.updated`` carry: the season's R1 configuration (``config``, the shape of
    :meth:`turf_common.rules.gametime.SeasonConfig.to_dict`), its name, its R26 prize table (``[{place, amount}]``,
    dollars as strings), the SHA-256 commitment of its card seed (R12.1: published when the season is created) and
    whether it is a rehearsal."""

    season_id: str
    name: str
    config: dict[str, Any]
    prizes: list[dict[str, Any]] = Field(default_factory=list)
    seed_commitment: str
    rehearsal: bool = False


class SeasonCreated(SeasonAnnounced):
    """``season.created`` (R31): the organizer made a season."""

    type: Literal["season.created"] = "season.created"


class SeasonUpdated(SeasonAnnounced):
    """``season.updated`` (R31): the organizer changed a season before its first opening."""

    type: Literal["season.updated"] = "season.updated"


class SeasonJoined(Event):
    """``season.joined`` (R31): ``player_id`` takes part in ``season_id`` (registering in it, or the one action of
    ``POST /seasons/{id}/join``). Published once per player and season: event id ``joined:<season>:<player>``. Cards
    deals to the season's joined players and scoring ranks them; a player who did not join plays no part in it."""

    type: Literal["season.joined"] = "season.joined"
    season_id: str
    player_id: str
