"""A game's state as JSON, kept with its log (T20, K16): the state after the first ``n`` actions, written in the
transaction that appends them, so a read loads one row instead of replaying the whole log. The snapshot is the
replay's own result encoded; decoding gives back an equal state (a test replays the log and compares). No I/O."""

from __future__ import annotations

from typing import Any

from turf_common.rules import hill, teamturf


def _order(o: teamturf.Order) -> dict[str, Any]:
    return {"order_id": o.order_id, "player": o.player, "kind": o.kind, "src": o.src, "dst": o.dst, "n": o.n}


def team_turf(s: teamturf.TeamTurfState) -> dict[str, Any]:
    return {"game_id": s.game_id, "teams": list(s.teams), "homes": dict(s.homes),
            "reserved_homes": dict(s.reserved_homes), "team_of": dict(s.team_of), "active": sorted(s.active),
            "reserve": dict(s.reserve), "board": {t: dict(v) for t, v in s.board.items()},
            "orders": [_order(o) for o in s.orders], "turn": s.turn, "eliminated": sorted(s.eliminated),
            "finished": s.finished, "winners": list(s.winners)}


def team_turf_state(d: dict[str, Any]) -> teamturf.TeamTurfState:
    return teamturf.TeamTurfState(
        game_id=d["game_id"], teams=tuple(d["teams"]), homes=dict(d["homes"]),
        reserved_homes=dict(d["reserved_homes"]), team_of=dict(d["team_of"]), active=frozenset(d["active"]),
        reserve=dict(d["reserve"]), board={t: dict(v) for t, v in d["board"].items()},
        orders=tuple(teamturf.Order(**o) for o in d["orders"]), turn=d["turn"],
        eliminated=frozenset(d["eliminated"]), finished=d["finished"], winners=tuple(d["winners"]))


def _round(e: hill.RoundResolved) -> dict[str, Any]:
    return {"room_id": e.room_id, "round": e.round, "choices": dict(e.choices),
            "rolls": {p: list(v) for p, v in e.rolls.items()},
            "defence": list(e.defence) if e.defence is not None else None, "defence_power": e.defence_power,
            "tiebreaks": [{"rolls": {p: list(v) for p, v in b.rolls.items()}, "picked": b.picked}
                          for b in e.tiebreaks],
            "holder_before": e.holder_before, "holder_after": e.holder_after, "discards": list(e.discards),
            "dice_after": dict(e.dice_after)}


def _round_event(d: dict[str, Any]) -> hill.RoundResolved:
    return hill.RoundResolved(
        room_id=d["room_id"], round=d["round"], choices=dict(d["choices"]),
        rolls={p: tuple(v) for p, v in d["rolls"].items()},
        defence=tuple(d["defence"]) if d["defence"] is not None else None, defence_power=d["defence_power"],
        tiebreaks=tuple(hill.Tiebreak({p: tuple(v) for p, v in b["rolls"].items()}, b["picked"])
                        for b in d["tiebreaks"]),
        holder_before=d["holder_before"], holder_after=d["holder_after"], discards=tuple(d["discards"]),
        dice_after=dict(d["dice_after"]))


def room(s: hill.HillState, last: hill.RoundResolved | None) -> dict[str, Any]:
    """A started room and its latest round (its view reveals that round whole, K4)."""
    return {"room_id": s.room_id, "hill": s.hill, "players": list(s.players), "dice": dict(s.dice),
            "holder": s.holder, "round": s.round, "choices": dict(s.choices), "finished": s.finished,
            "winner": s.winner, "last_round": _round(last) if last else None}


def room_state(d: dict[str, Any]) -> tuple[hill.HillState, hill.RoundResolved | None]:
    s = hill.HillState(room_id=d["room_id"], hill=d["hill"], players=tuple(d["players"]), dice=dict(d["dice"]),
                       holder=d["holder"], round=d["round"], choices=dict(d["choices"]), finished=d["finished"],
                       winner=d["winner"])
    return s, _round_event(d["last_round"]) if d["last_round"] else None
