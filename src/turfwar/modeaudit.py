"""``turfwar audit game <id>``: replay a finished Team Turf game or King of the Hill room from its revealed seed and
its log (``GET /api/v1/modes/games/{id}/log``) with the rules' own code (:mod:`turf_common.rules.modereplay`), and
compare every shuffle, battle, bonus and die with what the modes service published (``mode.*`` events of the
stream) — T20, K16."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from turf_common.rules import hill, modereplay, teamturf
from turf_modes import games
from turf_modes.ports import Fields

#: the fields of ``mode.turn_resolved`` that the replay gives again
TURN_FIELDS = ("turn", "moves", "cards", "battles", "killed", "conquests", "eliminated", "lost", "bonuses",
               "reinforcements", "controlled")


@dataclass
class GameAudit:
    game_id: str
    mode: str
    resolutions: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


def _turn(e: teamturf.TurnResolved) -> dict[str, Any]:
    return {"turn": e.turn, "moves": e.moves, "cards": e.cards, "battles": e.battles, "killed": e.killed,
            "conquests": {t: list(v) for t, v in e.conquests.items()}, "eliminated": list(e.eliminated),
            "lost": e.lost, "bonuses": {t: dict(b) for t, b in e.bonuses.items()},
            "reinforcements": dict(e.reinforcements), "controlled": dict(e.controlled)}


def _replay(log: dict[str, Any], fields: Fields) -> tuple[list[dict[str, Any]], list[str]]:
    """The resolutions (as published) and the winners the log replays to. Raises SeedMismatch, ModeRefused."""
    c, gid, seed, commitment = log["config"], log["game_id"], log["seed"], log["seed_commitment"]
    actions = [games.decode(a) for a in log["actions"]]
    if log["mode"] == "team_turf":
        fld = fields.field(tuple(c["towns"]) if c.get("towns") else None)
        _, tt = modereplay.replay_team_turf(gid, fld, c["teams"], seed, commitment, actions,  # type: ignore[arg-type]
                                            homes=c["homes"])
        return ([_turn(e) for e in tt if isinstance(e, teamturf.TurnResolved)],
                next((list(e.winners) for e in tt if isinstance(e, teamturf.GameEnded)), []))
    _, hh = modereplay.replay_hill(gid, c["hill"], c["players"], fields.towns(), seed, commitment,
                                   actions)  # type: ignore[arg-type]
    return ([games.round_out(e).model_dump(mode="json") for e in hh if isinstance(e, hill.RoundResolved)],
            next(([e.winner] if e.winner else [] for e in hh if isinstance(e, hill.HillEnded)), []))


def audit_game(log: dict[str, Any], events: Iterable[dict[str, Any]], fields: Fields) -> GameAudit:
    """Compare the replay of ``log`` (a ``GameLog`` as JSON) with the game's published ``events`` (``mode.*`` as
    JSON, in stream order; other games' are skipped)."""
    rep = GameAudit(log["game_id"], log["mode"])
    mine = [e for e in events if e.get("game_id") == rep.game_id]
    created = next((e for e in mine if e.get("type") == "mode.game_created"), None)
    if created is not None and created["seed_commitment"] != log["seed_commitment"]:
        rep.mismatches.append(f"commitment published at creation {created['seed_commitment']} is not the log's")
    try:
        replayed, winners = _replay(log, fields)
    except Exception as e:   # a seed that is not the committed one, or a log the rules refuse
        rep.mismatches.append(f"replay failed: {type(e).__name__}: {e}")
        return rep
    if log["mode"] == "team_turf":
        published = [{k: e[k] for k in TURN_FIELDS} for e in mine if e.get("type") == "mode.turn_resolved"]
    else:
        published = [e["result"] for e in mine if e.get("type") == "mode.round_resolved"]
    rep.resolutions = len(replayed)
    if len(published) != len(replayed):
        rep.mismatches.append(f"{len(replayed)} resolutions replayed, {len(published)} published")
    for i, (r, p) in enumerate(zip(replayed, published, strict=False), 1):
        if r != p:
            diff = sorted(k for k in r if r.get(k) != p.get(k))
            rep.mismatches.append(f"resolution {i}: replayed and published differ in {', '.join(diff)}")
    ended = next((e for e in mine if e.get("type") == "mode.game_ended"), None)
    if ended is None or ended["winners"] != winners:
        rep.mismatches.append(f"winners replayed {winners}, published {ended and ended['winners']}")
    return rep
