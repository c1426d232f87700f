"""Team Turf as pure rules (docs/rules/team-turf.md, T1–T22).

State and orders in, new state and events out; every shuffle, defender pick, battle and bonus from a
:class:`~turf_common.rules.seeded.SeededSource` (T20). Nothing here reads a clock, a database or the bus: the
caller resolves a turn at the instant T9 names (:func:`next_turn_at` for the ``real`` clock).

Shapes: a town's troops are ``{player: count}`` (all of one team, T5); ``board`` holds occupied towns only.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

import networkx as nx

from turf_common.rules.moderefusals import ModeRefused
from turf_common.rules.seeded import SeededSource

OrderKind = Literal["move", "attack"]
BonusKind = Literal["participation", "conquest", "territory", "elimination", "county"]
BONUS_ORDER: tuple[BonusKind, ...] = ("participation", "conquest", "territory", "elimination", "county")  # T18


@dataclass(frozen=True)
class TeamTurfConfig:
    start_troops: int = 2             # T3
    participation: int = 1            # T12
    conquest: int = 1                 # T13
    territory_per_town: int = 4       # T14
    elimination_per_player: int = 2   # T15
    county_per_town: int = 2          # T17
    escalate_every: int = 7           # T17: turns
    attack_win_percent: int = 45      # T10 d


@dataclass(frozen=True)
class Field:
    """T1: the towns of a game, their R22 neighbours within the field and their county (the continent, T17)."""

    towns: frozenset[str]
    adjacent: Mapping[str, frozenset[str]]
    county: Mapping[str, str]

    @classmethod
    def from_graph(cls, graph: nx.Graph, county: Mapping[str, str], towns: Iterable[str] | None = None) -> Field:
        """``graph``: R22 adjacency (``Board.graph``); ``county``: town → "county, state"; ``towns``: the field
        (default: the largest connected part). Raises ``ModeRefused("unknown_town" | "field_not_connected")``."""
        parts: list[set[str]] = [set(c) for c in nx.connected_components(graph)]
        chosen = max(parts, key=len) if towns is None else set(towns)
        if not chosen or any(t not in graph for t in chosen):
            raise ModeRefused("unknown_town")
        sub = graph.subgraph(chosen)
        if not nx.is_connected(sub):
            raise ModeRefused("field_not_connected")
        return cls(frozenset(chosen), {t: frozenset(sub.neighbors(t)) for t in chosen},
                   {t: county[t] for t in chosen})


@dataclass(frozen=True)
class Order:
    """T7: ``n`` troops of ``player`` in ``src`` MOVE to / ATTACK ``dst``."""

    order_id: str
    player: str
    kind: OrderKind
    src: str
    dst: str
    n: int


@dataclass(frozen=True)
class TeamTurfState:
    """``team_of``: every player who ever joined → team; ``active``: not left (T4); ``reserve``: unplaced troops;
    ``reserved_homes``: team → home untouched before the first resolution (T2); ``turn``: the open turn (T9)."""

    game_id: str
    teams: tuple[str, ...]
    homes: Mapping[str, str]
    reserved_homes: Mapping[str, str]
    team_of: Mapping[str, str] = field(default_factory=dict)
    active: frozenset[str] = frozenset()
    reserve: Mapping[str, int] = field(default_factory=dict)
    board: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    orders: tuple[Order, ...] = ()
    turn: int = 1
    eliminated: frozenset[str] = frozenset()
    finished: bool = False
    winners: tuple[str, ...] = ()


@dataclass(frozen=True)
class TurnResolved:
    """The event of one resolution (T10–T19). ``reinforcements``: player → troops received; ``bonuses``: team →
    kind → troops; ``killed``: troops killed (one per battle); ``lost``: reserves lost to elimination (T16)."""

    game_id: str
    turn: int
    moves: int
    cards: int
    battles: int
    killed: int
    conquests: Mapping[str, tuple[str, ...]]
    eliminated: tuple[str, ...]
    lost: int
    bonuses: Mapping[str, Mapping[BonusKind, int]]
    reinforcements: Mapping[str, int]
    controlled: Mapping[str, int]


@dataclass(frozen=True)
class GameEnded:
    game_id: str
    winners: tuple[str, ...]   # one team, or the teams of a draw (T22)
    by_organizer: bool


# --------------------------------------------------------------------------- reading the board


def controller(state: TeamTurfState, town: str) -> str | None:
    """T5: the team with troops in ``town``, else the team whose reserved home it is (T2), else None."""
    troops = state.board.get(town)
    if troops:
        return state.team_of[next(iter(troops))]
    for team, home in state.reserved_homes.items():
        if home == town:
            return team
    return None


def towns_of(state: TeamTurfState, team: str) -> set[str]:
    return {t for t, troops in state.board.items() if troops and state.team_of[next(iter(troops))] == team}


def total_troops(state: TeamTurfState) -> int:
    """Troops on the board plus every reserve (T19)."""
    return sum(sum(t.values()) for t in state.board.values()) + sum(state.reserve.values())


def next_turn_at(after: datetime, zone: str = "America/New_York") -> datetime:
    """T9 under the ``real`` clock: the first 23:59 local time in ``zone`` strictly after ``after`` (aware)."""
    tz = ZoneInfo(zone)
    local = after.astimezone(tz)
    at = datetime.combine(local.date(), time(23, 59), tz)
    if at <= local:
        at = datetime.combine(local.date() + timedelta(days=1), time(23, 59), tz)
    return at


# --------------------------------------------------------------------------- creating, joining, leaving


def new_game(game_id: str, fld: Field, teams: Collection[str], src: SeededSource,
             homes: Mapping[str, str] | None = None) -> TeamTurfState:
    """T2: a game of ``teams`` (2 or more, distinct), each with a distinct home town — named, or drawn from the
    seed over the field. Raises ``ModeRefused("unknown_team" | "unknown_town")``."""
    names = tuple(dict.fromkeys(teams))
    if len(names) < 2 or len(names) != len(teams):
        raise ModeRefused("unknown_team", "A game needs two or more teams with distinct names.")
    if homes is None:
        pool = sorted(fld.towns)
        if len(pool) < len(names):   # T2: a home each, drawn without replacement
            raise ModeRefused("field_too_small", f"The field has {len(pool)} town(s) for {len(names)} teams: "
                                                 "every team needs a home town of its own (T2).")
        chosen: dict[str, str] = {}
        for team in names:
            pick = src.choice(f"home|{team}", pool)
            chosen[team] = pick
            pool.remove(pick)
        homes = chosen
    if set(homes) != set(names) or len(set(homes.values())) != len(names) or \
            any(h not in fld.towns for h in homes.values()):
        raise ModeRefused("unknown_town", "Every team needs its own home town on the field.")
    return TeamTurfState(game_id=game_id, teams=names, homes=dict(homes), reserved_homes=dict(homes))


def join(state: TeamTurfState, player: str, team: str, cfg: TeamTurfConfig = TeamTurfConfig()) -> TeamTurfState:
    """T3: join ``team`` with ``cfg.start_troops`` in reserve, at any time while the game runs, once per game."""
    if state.finished:
        raise ModeRefused("game_over")
    if team not in state.teams:
        raise ModeRefused("unknown_team")
    if team in state.eliminated:
        raise ModeRefused("team_eliminated")
    if player in state.team_of:
        raise ModeRefused("already_joined")
    return replace(state, team_of={**state.team_of, player: team}, active=state.active | {player},
                   reserve={**state.reserve, player: cfg.start_troops})


def leave(state: TeamTurfState, player: str) -> tuple[TeamTurfState, int]:
    """T4: the player's reserve vanishes (returned: troops lost), their board troops stay and defend, their open
    orders are withdrawn."""
    if player not in state.active:
        raise ModeRefused("unknown_player")
    lost = state.reserve.get(player, 0)
    return replace(state, active=state.active - {player}, reserve={**state.reserve, player: 0},
                   orders=tuple(o for o in state.orders if o.player != player)), lost


def _playing(state: TeamTurfState, player: str) -> str:
    if state.finished:
        raise ModeRefused("game_over")
    if player not in state.active or state.team_of[player] in state.eliminated:
        raise ModeRefused("unknown_player")
    return state.team_of[player]


# --------------------------------------------------------------------------- placing and ordering


def place(state: TeamTurfState, fld: Field, player: str, town: str, n: int) -> TeamTurfState:
    """T6: ``n`` reserve troops into a town the team controls (or its reserved home), at once."""
    team = _playing(state, player)
    if town not in fld.towns:
        raise ModeRefused("unknown_town")
    if controller(state, town) != team:
        raise ModeRefused("not_your_town")
    if n < 1 or state.reserve.get(player, 0) < n:
        raise ModeRefused("not_enough_troops")
    troops = dict(state.board.get(town, {}))
    troops[player] = troops.get(player, 0) + n
    homes = {t: h for t, h in state.reserved_homes.items() if t != team}
    return replace(state, reserve={**state.reserve, player: state.reserve[player] - n},
                   board={**state.board, town: troops}, reserved_homes=homes)


def give_order(state: TeamTurfState, fld: Field, order: Order, turn: int) -> TeamTurfState:
    """T7: add ``order`` to turn ``turn``, checked against the board now. Raises :class:`ModeRefused`
    (``turn_closed``, ``unknown_town``, ``not_neighbour``, ``not_friendly``, ``not_hostile``, ``not_enough_troops``)."""
    team = _playing(state, order.player)
    if turn < state.turn:
        raise ModeRefused("turn_closed", f"Turn {turn} has already been resolved; the open turn is {state.turn}.")
    if turn > state.turn:
        raise ModeRefused("turn_not_open", f"Turn {turn} is not open yet; orders are given for the open turn, "
                                           f"{state.turn}.")
    if order.src not in fld.towns or order.dst not in fld.towns:
        raise ModeRefused("unknown_town")
    if order.dst not in fld.adjacent[order.src]:
        raise ModeRefused("not_neighbour")
    owner = controller(state, order.dst)
    if order.kind == "move" and owner != team:
        raise ModeRefused("not_friendly")
    if order.kind == "attack" and (owner == team or order.dst in state.reserved_homes.values()):
        raise ModeRefused("not_hostile")
    committed = sum(o.n for o in state.orders if o.player == order.player and o.src == order.src)
    if order.n < 1 or committed + order.n > state.board.get(order.src, {}).get(order.player, 0):
        raise ModeRefused("not_enough_troops")
    return replace(state, orders=(*state.orders, order))


def withdraw_order(state: TeamTurfState, player: str, order_id: str, strict: bool = True) -> TeamTurfState:
    """T7: drop one of the player's orders of the open turn. Raises ``ModeRefused("unknown_order")`` for an id
    that is no order of the player's in the open turn (none at all, a rival's or a teammate's): nothing is stored.
    ``strict=False`` replays logs kept before that refusal, where such a withdrawal changed nothing."""
    _playing(state, player)
    if strict and not any(o.player == player and o.order_id == order_id for o in state.orders):
        raise ModeRefused("unknown_order")
    return replace(state, orders=tuple(o for o in state.orders if not (o.player == player and o.order_id == order_id)))


# --------------------------------------------------------------------------- the turn (T10–T21)

_Board = dict[str, dict[str, int]]


def _take(board: _Board, town: str, player: str, n: int) -> None:
    troops = board[town]
    if troops.get(player, 0) < n:
        raise ValueError(f"{player} has fewer than {n} troops in {town}")  # T7 was checked when ordered
    troops[player] -= n
    if not troops[player]:
        del troops[player]
    if not troops:
        del board[town]


def _add(board: _Board, town: str, player: str, n: int) -> None:
    troops = board.setdefault(town, {})
    troops[player] = troops.get(player, 0) + n


def _occupant(board: _Board, team_of: Mapping[str, str], town: str) -> str | None:
    troops = board.get(town)
    return team_of[next(iter(troops))] if troops else None


def _play_deck(board: _Board, team_of: Mapping[str, str], cards: list[tuple[str, str]], src: SeededSource,
               turn: int, cfg: TeamTurfConfig) -> int:
    """T10 a–g over ``cards`` (player, target), already shuffled; mutates ``board``. Returns the battles fought."""
    deck = deque(cards)
    battles = 0
    while deck:
        player, town = deck.popleft()
        troops = board.get(town)
        if not troops or team_of[next(iter(troops))] == team_of[player]:
            _add(board, town, player, 1)  # T10 c: moves in (or joins its team there)
            continue
        defenders = sorted(troops)
        pick = src.below(f"turn|{turn}|battle|{battles}|defender", sum(troops.values()))
        for victim in defenders:
            if pick < troops[victim]:
                break
            pick -= troops[victim]
        won = src.chance(f"turn|{turn}|battle|{battles}|odds", cfg.attack_win_percent)  # T10 d
        battles += 1
        if won:
            _take(board, town, victim, 1)  # T10 e
            deck.append((player, town))
        # else T10 f: the attacking troop is killed (it already left its town)
    return battles


def _distribute(src: SeededSource, label: str, players: list[str], amount: int, into: dict[str, int]) -> None:
    """T14: each of ``amount`` troops to one of ``players`` (sorted), uniformly from the seed."""
    for j in range(amount):
        p = src.choice(f"{label}|{j}", players)
        into[p] = into.get(p, 0) + 1


def _bonuses(state: TeamTurfState, fld: Field, board: _Board, conquests: Mapping[str, list[str]],
             eliminated_by: Mapping[str, set[str]], src: SeededSource,
             cfg: TeamTurfConfig) -> tuple[dict[str, dict[BonusKind, int]], dict[str, int]]:
    """T12–T18: per team, per kind, then distributed in :data:`BONUS_ORDER`."""
    county_towns: dict[str, set[str]] = {}
    for t in fld.towns:
        county_towns.setdefault(fld.county[t], set()).add(t)
    escalation = 1 + (state.turn - 1) // cfg.escalate_every
    per_team: dict[str, dict[BonusKind, int]] = {}
    received: dict[str, int] = {}
    for team in state.teams:
        players = sorted(p for p in state.active if state.team_of[p] == team)
        if team in state.eliminated or not players:
            continue
        held = {t for t in board if _occupant(board, state.team_of, t) == team}
        victims = [v for v, by in eliminated_by.items() if team in by]
        amounts: dict[BonusKind, int] = {
            "participation": cfg.participation * len(players),
            "conquest": cfg.conquest * len(players) if conquests.get(team) else 0,
            "territory": cfg.territory_per_town * len(held),
            "elimination": sum(cfg.elimination_per_player * _players_of(state, v) for v in victims),
            "county": sum(cfg.county_per_town * len(ts) * escalation
                          for ts in county_towns.values() if ts <= held),
        }
        per_team[team] = amounts
        for kind in BONUS_ORDER:
            if kind in ("participation", "conquest"):
                for p in players:
                    received[p] = received.get(p, 0) + amounts[kind] // len(players)
            else:
                _distribute(src, f"turn|{state.turn}|bonus|{team}|{kind}", players, amounts[kind], received)
    return per_team, received


def _players_of(state: TeamTurfState, team: str) -> int:
    return sum(1 for p in state.active if state.team_of[p] == team)


def resolve_turn(state: TeamTurfState, fld: Field, src: SeededSource,
                 cfg: TeamTurfConfig = TeamTurfConfig()) -> tuple[TeamTurfState, list[TurnResolved | GameEnded]]:
    """T10–T21: resolve the open turn — MOVEs, then the shuffled deck of ATTACK cards, conquests, eliminations,
    reinforcements, victory — and open the next. Conserves troops as T19 says."""
    if state.finished:
        raise ModeRefused("game_over")
    board: _Board = {t: dict(v) for t, v in state.board.items()}
    moves = [o for o in state.orders if o.kind == "move"]
    attacks = sorted((o for o in state.orders if o.kind == "attack"),
                     key=lambda o: (o.player, o.src, o.dst, o.order_id))
    for o in moves:  # T10 1: departures and arrivals together
        _take(board, o.src, o.player, o.n)
    for o in moves:
        _add(board, o.dst, o.player, o.n)
    attackers: dict[str, set[str]] = {}
    cards: list[tuple[str, str]] = []
    for o in attacks:  # T8: attacking troops leave their town
        _take(board, o.src, o.player, o.n)
        attackers.setdefault(o.dst, set()).add(state.team_of[o.player])
        cards.extend([(o.player, o.dst)] * o.n)
    before = {t: _occupant(board, state.team_of, t) for t in fld.towns}  # T13: after moves and departures
    deck = src.shuffled(f"turn|{state.turn}|deck", cards)
    battles = _play_deck(board, state.team_of, deck, src, state.turn, cfg)
    conquests: dict[str, list[str]] = {}
    for town, teams in sorted(attackers.items()):  # T13
        now = _occupant(board, state.team_of, town)
        was = before[town]
        if now is not None and now != was and (was is not None or len(teams) >= 2):
            conquests.setdefault(now, []).append(town)
    reserved: dict[str, str] = {}  # T2: every reservation ends with the first resolution
    held = {_occupant(board, state.team_of, t) for t in board}
    newly_out = [t for t in state.teams if t not in state.eliminated and t not in held]
    eliminated_by = {v: {w for w, towns in conquests.items() if any(before[t] == v for t in towns)}
                     for v in newly_out}  # T15
    lost = sum(state.reserve.get(p, 0) for p in state.active if state.team_of[p] in newly_out)  # T16
    reserve = {p: (0 if state.team_of[p] in newly_out else n) for p, n in state.reserve.items()}
    mid = replace(state, eliminated=state.eliminated | set(newly_out), reserved_homes=reserved)
    per_team, received = _bonuses(mid, fld, board, conquests, eliminated_by, src, cfg)
    for p, n in received.items():
        reserve[p] = reserve.get(p, 0) + n
    controlled = {t: sum(1 for town in board if _occupant(board, state.team_of, town) == t) for t in state.teams}
    event = TurnResolved(game_id=state.game_id, turn=state.turn, moves=len(moves), cards=len(cards), battles=battles,
                         killed=battles, conquests={t: tuple(v) for t, v in conquests.items()},
                         eliminated=tuple(newly_out), lost=lost, bonuses=per_team, reinforcements=received,
                         controlled=controlled)
    new = replace(mid, board=board, reserve=reserve, orders=(), turn=state.turn + 1)
    events: list[TurnResolved | GameEnded] = [event]
    winner = [t for t, n in controlled.items() if n == len(fld.towns)]  # T21
    if winner or len(new.eliminated) == len(state.teams):  # T21, or no team left: a draw with no winner
        new = replace(new, finished=True, winners=tuple(winner))
        events.append(GameEnded(state.game_id, tuple(winner), by_organizer=False))
    return new, events


def end_by_organizer(state: TeamTurfState) -> tuple[TeamTurfState, GameEnded]:
    """T22: most towns wins; then most troops on the board; still tied: a draw between those teams."""
    if state.finished:
        raise ModeRefused("game_over")
    alive = [t for t in state.teams if t not in state.eliminated]
    if not alive:
        return replace(state, finished=True, winners=(), orders=()), GameEnded(state.game_id, (), True)

    def rank(team: str) -> tuple[int, int]:
        towns = towns_of(state, team)
        return len(towns), sum(n for t in towns for n in state.board[t].values())

    best = max(rank(t) for t in alive)
    winners = tuple(t for t in alive if rank(t) == best)
    return replace(state, finished=True, winners=winners, orders=()), GameEnded(state.game_id, winners, True)
