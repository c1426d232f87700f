"""King of the Hill as pure rules (docs/rules/king-of-the-hill.md, K1–K18).

State and choices in, new state and events out; dice from a :class:`~turf_common.rules.seeded.SeededSource` (K16).
Nothing here reads a clock, a database or the bus: the caller decides when a round's time limit passed (K5).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from turf_common.rules.moderefusals import ModeRefused
from turf_common.rules.seeded import SeededSource

Choice = Literal["attack", "recruit"]


@dataclass(frozen=True)
class HillConfig:
    rounds: int = 10          # K18
    max_dice: int = 3         # K3
    defence_bonus: int = 2    # K10
    max_rerolls: int = 20     # K14
    min_players: int = 3      # K1
    max_players: int = 5      # K1
    max_rooms_per_player: int = 3   # K19: rooms (lobby or running) a player is seated in at once


@dataclass(frozen=True)
class HillState:
    """``players``: in the room, in seat order, leavers removed (K17); ``dice``: player → 1…3 (K3);
    ``round``: the open round, 1…rounds; ``choices``: the open round's secret choices (K4)."""

    room_id: str
    hill: str
    players: tuple[str, ...]
    dice: Mapping[str, int]
    holder: str | None = None
    round: int = 1
    choices: Mapping[str, Choice] = field(default_factory=dict)
    finished: bool = False
    winner: str | None = None


@dataclass(frozen=True)
class Tiebreak:
    """One re-roll among ``tied`` (K14): each one's dice and sum; ``picked`` when the cap made the seed choose."""

    rolls: Mapping[str, tuple[int, ...]]
    picked: str | None = None


@dataclass(frozen=True)
class RoundResolved:
    """The event of one round: everything revealed (K4) and what changed."""

    room_id: str
    round: int
    choices: Mapping[str, Choice]
    rolls: Mapping[str, tuple[int, ...]]         # attackers' dice (K8)
    defence: tuple[int, ...] | None              # the holder's dice, when attacked (K10)
    defence_power: int | None
    tiebreaks: tuple[Tiebreak, ...]
    holder_before: str | None
    holder_after: str | None
    discards: tuple[str, ...]                    # players who lost a die (K12, K13)
    dice_after: Mapping[str, int]


@dataclass(frozen=True)
class HillEnded:
    room_id: str
    winner: str | None  # None: a draw, nobody held the hill (K18)
    rounds_played: int


def open_room(room_id: str, hill: str, players: Collection[str], towns: Collection[str],
              cfg: HillConfig = HillConfig()) -> HillState:
    """K1, K2: a started room. ``players`` in seat order, distinct; ``towns``: the board's town ids.
    Raises :class:`ModeRefused` (``invalid_target``, ``wrong_player_count``)."""
    if hill not in towns:
        raise ModeRefused("invalid_target")
    seats = tuple(dict.fromkeys(players))
    if not cfg.min_players <= len(seats) <= cfg.max_players or len(seats) != len(players):
        raise ModeRefused("wrong_player_count")
    return HillState(room_id=room_id, hill=hill, players=seats, dice={p: 1 for p in seats})


def choosers(state: HillState) -> tuple[str, ...]:
    """K4: who chooses this round — every player but the holder."""
    return tuple(p for p in state.players if p != state.holder)


def all_chosen(state: HillState) -> bool:
    return all(p in state.choices for p in choosers(state))


def choose(state: HillState, player: str, round_no: int, choice: Choice) -> HillState:
    """K4: record a secret choice. Raises :class:`ModeRefused` (``game_over``, ``not_in_room``, ``round_closed``,
    ``holder_does_not_choose``, ``already_chosen``)."""
    if state.finished:
        raise ModeRefused("game_over")
    if player not in state.players:
        raise ModeRefused("not_in_room")
    if round_no != state.round:
        raise ModeRefused("round_closed")
    if player == state.holder:
        raise ModeRefused("holder_does_not_choose")
    if player in state.choices:
        raise ModeRefused("already_chosen")
    return replace(state, choices={**state.choices, player: choice})


def _roll(src: SeededSource, r: int, who: str, attempt: int, n: int) -> tuple[int, ...]:
    """K8, K16: ``n`` dice of ``who`` in round ``r``, try ``attempt`` (0 the first roll, 1… re-rolls)."""
    return tuple(src.die(f"round|{r}|{who}|{attempt}|{k}") for k in range(n))


def _strongest(src: SeededSource, r: int, powers: Mapping[str, int], dice: Mapping[str, int],
               cfg: HillConfig) -> tuple[str, list[Tiebreak]]:
    """K9, K13, K14: the one with the highest power; tied players re-roll among themselves, up to
    ``cfg.max_rerolls`` times, then the seed picks among those still tied."""
    top = max(powers.values())
    tied = sorted(p for p, v in powers.items() if v == top)
    breaks: list[Tiebreak] = []
    attempt = 0
    while len(tied) > 1 and attempt < cfg.max_rerolls:
        attempt += 1
        rolls = {p: _roll(src, r, p, attempt, dice[p]) for p in tied}
        breaks.append(Tiebreak(rolls))
        best = max(sum(v) for v in rolls.values())
        tied = sorted(p for p, v in rolls.items() if sum(v) == best)
    if len(tied) > 1:
        picked = src.choice(f"round|{r}|pick", tied)
        breaks.append(Tiebreak({}, picked=picked))
        return picked, breaks
    return tied[0], breaks


def resolve_round(state: HillState, src: SeededSource,
                  cfg: HillConfig = HillConfig()) -> tuple[HillState, list[RoundResolved | HillEnded]]:
    """K4–K15, K18: reveal the open round and resolve it; an unchosen player recruits (K5). Dice counts change
    together at the end (K6). After round ``cfg.rounds`` the game ends and the holder wins (K18)."""
    if state.finished:
        raise ModeRefused("game_over")
    r = state.round
    choices: dict[str, Choice] = {p: state.choices.get(p, "recruit") for p in choosers(state)}
    attackers = [p for p in choosers(state) if choices[p] == "attack"]
    delta = {p: 0 for p in state.players}
    for p in choosers(state):
        if choices[p] == "recruit":
            delta[p] += 1  # K7
    rolls = {p: _roll(src, r, p, 0, state.dice[p]) for p in attackers}
    powers = {p: sum(v) for p, v in rolls.items()}
    holder = state.holder
    defence: tuple[int, ...] | None = None
    defence_power: int | None = None
    breaks: list[Tiebreak] = []
    discards: list[str] = []
    if holder is None:
        if attackers:  # K9: no discards in an open round
            holder, breaks = _strongest(src, r, powers, state.dice, cfg)
    elif not attackers:
        delta[holder] += 1  # K15
    else:
        defence = _roll(src, r, holder, 0, state.dice[holder])
        defence_power = sum(defence) + cfg.defence_bonus  # K10
        winners = {p: v for p, v in powers.items() if v > defence_power}  # K11
        discards = [p for p in attackers if p not in winners]  # K12
        if winners:  # K13
            new, breaks = _strongest(src, r, winners, state.dice, cfg)
            discards.append(holder)
            holder = new
    for p in discards:
        delta[p] -= 1
    dice = {p: max(1, min(cfg.max_dice, state.dice[p] + delta[p])) for p in state.players}  # K3, K12
    event = RoundResolved(room_id=state.room_id, round=r, choices=choices, rolls=rolls, defence=defence,
                          defence_power=defence_power, tiebreaks=tuple(breaks), holder_before=state.holder,
                          holder_after=holder, discards=tuple(discards), dice_after=dice)
    events: list[RoundResolved | HillEnded] = [event]
    if r >= cfg.rounds:  # K18
        events.append(HillEnded(state.room_id, holder, r))
        return replace(state, dice=dice, holder=holder, choices={}, finished=True, winner=holder), events
    return replace(state, dice=dice, holder=holder, round=r + 1, choices={}), events


def leave(state: HillState, player: str) -> tuple[HillState, list[HillEnded]]:
    """K17: the player is out, their open choice dropped; a leaving holder leaves the hill open; the last player
    left wins at once. Raises :class:`ModeRefused` (``not_in_room``)."""
    if player not in state.players:
        raise ModeRefused("not_in_room")
    players = tuple(p for p in state.players if p != player)
    new = replace(state, players=players, dice={p: state.dice[p] for p in players},
                  choices={p: c for p, c in state.choices.items() if p != player},
                  holder=None if state.holder == player else state.holder)
    if len(players) == 1 and not state.finished:
        return replace(new, finished=True, winner=players[0]), [HillEnded(state.room_id, players[0], state.round - 1)]
    return new, []
