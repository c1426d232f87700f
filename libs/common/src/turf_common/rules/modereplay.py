"""Replaying a finished turn-based game from its revealed seed (T20, K16): the audit of a mode's game.

A game's log is its creation (ids, teams or players, homes, the published seed commitment) and the actions the
service accepted, in order. :func:`replay_team_turf` and :func:`replay_hill` check the seed against the commitment
and apply the same actions to the same pure rules with the same seeded source, so every shuffle, defender, battle,
bonus and die comes out again: the events they return must equal the ones the game published. Refused actions are
not part of a log (they changed nothing); an action the rules refuse on replay raises, since the log is then not the
game's.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from turf_common.rules import hill, teamturf
from turf_common.rules.seeded import SeededSource, seed_commitment


class SeedMismatch(ValueError):
    """The revealed seed is not the one committed at creation."""


def source(seed: str, commitment: str, game_id: str) -> SeededSource:
    """The game's seeded source. Raises :class:`SeedMismatch` when ``seed`` is not the committed one."""
    return _source(seed, commitment, game_id)


def _source(seed: str, commitment: str, game_id: str) -> SeededSource:
    if seed_commitment(seed) != commitment:
        raise SeedMismatch(f"SHA-256 of the revealed seed is {seed_commitment(seed)}, the commitment was {commitment}")
    return SeededSource(seed, game_id)


# --------------------------------------------------------------------------- Team Turf


@dataclass(frozen=True)
class Join:
    player: str
    team: str


@dataclass(frozen=True)
class Leave:
    player: str


@dataclass(frozen=True)
class Place:
    player: str
    town: str
    n: int


@dataclass(frozen=True)
class Give:
    order: teamturf.Order
    turn: int


@dataclass(frozen=True)
class Withdraw:
    player: str
    order_id: str


@dataclass(frozen=True)
class Resolve:
    """A turn's resolution (Team Turf) or a round's (King of the Hill)."""


@dataclass(frozen=True)
class End:
    """The organizer ends a Team Turf game (T22)."""


TeamTurfAction = Join | Leave | Place | Give | Withdraw | Resolve | End


def replay_team_turf(game_id: str, fld: teamturf.Field, teams: Collection[str], seed: str, commitment: str,
                     actions: Iterable[TeamTurfAction], homes: Mapping[str, str] | None = None,
                     cfg: teamturf.TeamTurfConfig = teamturf.TeamTurfConfig(),
                     ) -> tuple[teamturf.TeamTurfState, list[teamturf.TurnResolved | teamturf.GameEnded]]:
    """T20: the final state and every turn's events. Raises :class:`SeedMismatch`, or
    :class:`~turf_common.rules.moderefusals.ModeRefused` for a log that is not the game's."""
    src = _source(seed, commitment, game_id)
    s = teamturf.new_game(game_id, fld, teams, src, homes)
    events: list[teamturf.TurnResolved | teamturf.GameEnded] = []
    for a in actions:
        s, evs = apply_team_turf(s, fld, src, a, cfg)
        events.extend(evs)
    return s, events


def apply_team_turf(s: teamturf.TeamTurfState, fld: teamturf.Field, src: SeededSource, a: TeamTurfAction,
                    cfg: teamturf.TeamTurfConfig = teamturf.TeamTurfConfig(),
                    ) -> tuple[teamturf.TeamTurfState, list[teamturf.TurnResolved | teamturf.GameEnded]]:
    """One action of a Team Turf log on ``s``: the new state and the events it made (a service that keeps a
    game's state applies each new action with this, the very step of :func:`replay_team_turf`)."""
    match a:
        case Join(player, team):
            return teamturf.join(s, player, team, cfg), []
        case Leave(player):
            return teamturf.leave(s, player)[0], []
        case Place(player, town, n):
            return teamturf.place(s, fld, player, town, n), []
        case Give(order, turn):
            return teamturf.give_order(s, fld, order, turn), []
        case Withdraw(player, order_id):
            # logs kept before T7 refused unknown ids hold withdrawals that changed nothing: still nothing
            return teamturf.withdraw_order(s, player, order_id, strict=False), []
        case Resolve():
            return teamturf.resolve_turn(s, fld, src, cfg)
        case End():
            s, ended = teamturf.end_by_organizer(s)
            return s, [ended]
    raise TypeError(f"not a Team Turf action: {a!r}")


# --------------------------------------------------------------------------- King of the Hill


@dataclass(frozen=True)
class Choose:
    player: str
    round: int
    choice: hill.Choice


HillAction = Choose | Leave | Resolve


def replay_hill(room_id: str, hill_town: str, players: Collection[str], towns: Collection[str], seed: str,
                commitment: str, actions: Iterable[HillAction], cfg: hill.HillConfig = hill.HillConfig(),
                ) -> tuple[hill.HillState, list[hill.RoundResolved | hill.HillEnded]]:
    """K16: the final state and every round's events (and a leaver's end, K17). Raises as
    :func:`replay_team_turf`."""
    src = _source(seed, commitment, room_id)
    s = hill.open_room(room_id, hill_town, players, towns, cfg)
    events: list[hill.RoundResolved | hill.HillEnded] = []
    for a in actions:
        s, evs = apply_hill(s, src, a, cfg)
        events.extend(evs)
    return s, events


def apply_hill(s: hill.HillState, src: SeededSource, a: HillAction, cfg: hill.HillConfig = hill.HillConfig(),
               ) -> tuple[hill.HillState, list[hill.RoundResolved | hill.HillEnded]]:
    """One action of a room's log on ``s`` (the step of :func:`replay_hill`)."""
    match a:
        case Choose(player, rnd, choice):
            return hill.choose(s, player, rnd, choice), []
        case Leave(player):
            new, ended = hill.leave(s, player)
            return new, list(ended)
        case Resolve():
            return hill.resolve_round(s, src, cfg)
    raise TypeError(f"not a King of the Hill action: {a!r}")
