"""A stored game as the pure rules see it: its actions encoded as JSON, its state rebuilt by replaying them
(:mod:`turf_common.rules.modereplay`, the audit's own code, so the service and the audit cannot disagree), and the
views and events the wire carries. No I/O here."""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

import networkx as nx

from turf_common.contracts.modes import HillView, OrderOut, RoundOut, TeamTurfView
from turf_common.rules import hill, modereplay, teamturf
from turf_modes import snapshots
from turf_modes.ports import GameRow

Action = modereplay.TeamTurfAction | modereplay.HillAction


def encode(a: Action) -> dict[str, Any]:
    """One action as a JSON object with its ``kind`` (``join``, ``place``, ``give``, ``choose``, ``resolve`` …)."""
    if isinstance(a, modereplay.Give):
        return {"kind": "give", "turn": a.turn, "order": asdict(a.order)}
    return {"kind": type(a).__name__.lower(), **asdict(a)}


def decode(d: Mapping[str, Any]) -> Action:
    """The inverse of :func:`encode`. Raises KeyError for an unknown ``kind``."""
    args = {k: v for k, v in d.items() if k != "kind"}
    match d["kind"]:
        case "give":
            return modereplay.Give(teamturf.Order(**args["order"]), args["turn"])
        case "join":
            return modereplay.Join(**args)
        case "leave":
            return modereplay.Leave(**args)
        case "place":
            return modereplay.Place(**args)
        case "withdraw":
            return modereplay.Withdraw(**args)
        case "choose":
            return modereplay.Choose(**args)
        case "resolve":
            return modereplay.Resolve()
        case "end":
            return modereplay.End()
    raise KeyError(d["kind"])


class BoardFields:
    """:class:`turf_modes.ports.Fields` over the R22 graph and each town's county (T1, T17); fields are cached."""

    def __init__(self, graph: nx.Graph, county: Mapping[str, str]) -> None:
        self.graph, self.county = graph, dict(county)
        self._towns = frozenset(str(t) for t in graph.nodes)

    def towns(self) -> frozenset[str]:
        return self._towns

    def field(self, towns: tuple[str, ...] | None) -> teamturf.Field:
        return self._field(towns)

    @functools.lru_cache(maxsize=32)  # noqa: B019 - one per process, lives as long as the board
    def _field(self, towns: tuple[str, ...] | None) -> teamturf.Field:
        return teamturf.Field.from_graph(self.graph, self.county, towns)


# --------------------------------------------------------------------------- replays, kept


@dataclass(frozen=True)
class _Kept:
    n: int                                   # actions applied
    state: teamturf.TeamTurfState | hill.HillState
    last_round: hill.RoundResolved | None    # a room's latest round, for its view


class Replays:
    """Each game's state as its action log replays it (T20, K16), kept for the ``size`` most recent games: a log
    only grows (one game's actions are appended under its row lock), so a kept state of ``n`` actions is the replay
    of the first ``n`` of any later read of the game, and only the actions after them are applied
    (:func:`~turf_common.rules.modereplay.apply_team_turf`, the replay's own step). Rules never mutate a state, so
    one kept state serves every reader. Without a kept state, the read starts from the game's stored snapshot
    (:mod:`turf_modes.snapshots`), and only a game stored before snapshots replays its log from the start.
    ``keep=False``: a state of actions not yet committed, never kept (the transaction may still roll back)."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._kept: OrderedDict[str, _Kept] = OrderedDict()

    def _start(self, g: GameRow) -> _Kept | None:
        k = self._kept.get(g.game_id)
        if k is None or not g.base <= k.n <= g.logged:   # an older read than the kept one, or one before the snapshot
            return None
        self._kept.move_to_end(g.game_id)
        return k

    def _keep(self, g: GameRow, k: _Kept) -> None:
        self._kept[g.game_id] = k
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)

    def team_turf(self, g: GameRow, fld: teamturf.Field, keep: bool = True) -> teamturf.TeamTurfState:
        """T20: the game's state now. Raises SeedMismatch or ModeRefused for a log that is not the game's."""
        src = modereplay.source(g.seed, g.seed_commitment, g.game_id)
        k = self._start(g)
        if k is not None:
            s, n = k.state, k.n
        elif g.snapshot is not None:
            s, n = snapshots.team_turf_state(g.snapshot), g.base
        else:
            s, n = teamturf.new_game(g.game_id, fld, g.config["teams"], src, g.config["homes"]), 0
        assert isinstance(s, teamturf.TeamTurfState)
        for a in g.actions[n - g.base:]:
            s, _ = modereplay.apply_team_turf(s, fld, src, decode(a))  # type: ignore[arg-type]
        if keep:
            self._keep(g, _Kept(g.logged, s, None))
        return s

    def room(self, g: GameRow, towns: frozenset[str], keep: bool = True,
             ) -> tuple[hill.HillState, hill.RoundResolved | None]:
        """K16: the started room's state now and its latest round."""
        src = modereplay.source(g.seed, g.seed_commitment, g.game_id)
        k = self._start(g)
        last: hill.RoundResolved | None
        if k is not None:
            s, last, n = k.state, k.last_round, k.n
        elif g.snapshot is not None:
            (s, last), n = snapshots.room_state(g.snapshot), g.base
        else:
            s, last, n = hill.open_room(g.game_id, g.config["hill"], g.config["players"], towns), None, 0
        assert isinstance(s, hill.HillState)
        for a in g.actions[n - g.base:]:
            s, evs = modereplay.apply_hill(s, src, decode(a))  # type: ignore[arg-type]
            last = next((e for e in reversed(evs) if isinstance(e, hill.RoundResolved)), last)
        if keep:
            self._keep(g, _Kept(g.logged, s, last))
        return s, last


# --------------------------------------------------------------------------- Team Turf


def team_turf_view(s: teamturf.TeamTurfState, fld: teamturf.Field, next_at: datetime | None,
                   viewer: str | None) -> TeamTurfView:
    """T6: the board and reserves are public; T7: orders are shown to their team only; T4, T23: a player who left
    (or was disqualified) reads what the public reads."""
    team = s.team_of.get(viewer) if viewer in s.active else None
    orders = [OrderOut(order_id=o.order_id, player_id=o.player, kind=o.kind, src=o.src, dst=o.dst, n=o.n)
              for o in s.orders if team is not None and s.team_of[o.player] == team]
    return TeamTurfView(teams=list(s.teams), homes=dict(s.homes), reserved_homes=dict(s.reserved_homes),
                        field_towns=len(fld.towns), field=sorted(fld.towns), turn=s.turn,
                        next_turn_at=None if s.finished else next_at,
                        board={t: dict(v) for t, v in sorted(s.board.items())}, team_of=dict(s.team_of),
                        active=sorted(s.active), reserve=dict(s.reserve), eliminated=sorted(s.eliminated),
                        winners=list(s.winners), orders=orders)


# --------------------------------------------------------------------------- King of the Hill


def round_out(e: hill.RoundResolved) -> RoundOut:
    return RoundOut(round=e.round, choices=dict(e.choices), rolls={p: list(v) for p, v in e.rolls.items()},
                    defence=list(e.defence) if e.defence is not None else None, defence_power=e.defence_power,
                    tiebreaks=[{"rolls": {p: list(v) for p, v in b.rolls.items()}, "picked": b.picked}
                               for b in e.tiebreaks],
                    holder_before=e.holder_before, holder_after=e.holder_after, discards=list(e.discards),
                    dice_after=dict(e.dice_after))


def lobby_view(g: GameRow) -> HillView:
    c = g.config
    return HillView(hill=c["hill"], opener=c["opener"],
                    players=list(c["players"]), dice={}, holder=None, round=0, rounds=hill.HillConfig().rounds,
                    round_deadline=None, chosen=[], winner=None)


def hill_view(g: GameRow, s: hill.HillState, last: hill.RoundResolved | None, viewer: str | None) -> HillView:
    """K4: who has chosen is public, what only to the chooser; the last round is revealed whole."""
    return HillView(hill=s.hill, opener=g.config["opener"], players=list(s.players), dice=dict(s.dice),
                    holder=s.holder, round=s.round, rounds=hill.HillConfig().rounds,
                    round_deadline=None if s.finished else g.next_at, chosen=sorted(s.choices),
                    my_choice=s.choices.get(viewer) if viewer else None, winner=s.winner,
                    last_round=round_out(last) if last else None)
