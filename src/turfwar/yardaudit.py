"""``turfwar audit game <id>`` for a yard cards room (docs/rules/yard-cards.md, Y5): check the revealed seed against
the commitment published at the opening, replay the room's accepted moves from it with the rules' own code, and
compare what every move did, and the winners, with what the modes service published (``mode.yard_moved``,
``mode.game_ended``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from turf_common.rules import yard
from turf_common.rules.seeded import SeededSource, seed_commitment
from turf_common.rules.yardcatalogue import starter
from turf_common.rules.yardstate import config_for
from turf_modes.yard import decode, event_out
from turfwar.modeaudit import GameAudit


def audit_yard(log: dict[str, Any], events: Iterable[dict[str, Any]]) -> GameAudit:
    """``log``: the room's ``GameLog`` as JSON; ``events``: ``mode.*`` events as JSON in stream order."""
    rep = GameAudit(log["game_id"], log["mode"])
    cat = starter()
    if seed_commitment(log["seed"]) != log["seed_commitment"]:
        rep.mismatches.append("the revealed seed does not match the commitment published at the opening (Y5)")
        return rep
    if log["config"].get("catalogue") != f"{cat.name} {cat.version}":
        rep.mismatches.append(f"the room used catalogue {log['config'].get('catalogue')!r}, not this one's")
        return rep
    if log["config"].get("closed"):
        return rep   # Y28: a lobby left empty, never played: nothing to replay
    mine = [e for e in events if e.get("game_id") == rep.game_id]
    published = [e for e in mine if e.get("type") == "mode.yard_moved"]
    cfg = config_for(log["config"].get("rules"))   # the rules the room was played by (Y29, Y30)
    s, _ = yard.open_game(rep.game_id, log["config"]["players"], cat, SeededSource(log["seed"], rep.game_id), cfg)
    for k, action in enumerate(log["actions"]):
        move = decode(action)
        s, evs = yard.apply(s, cat, move, cfg)
        rep.resolutions += 1
        again = [event_out(e).model_dump(mode="json") for e in evs]
        told = published[k]["events"] if k < len(published) else None
        if told != again:
            rep.mismatches.append(f"move {k + 1} ({move.move} by {move.player}): published {told}, replayed {again}")
    if len(published) != len(log["actions"]):
        rep.mismatches.append(f"{len(published)} moves published, {len(log['actions'])} in the log")
    ended = next((e for e in mine if e.get("type") == "mode.game_ended"), None)
    if ended is None or ended["winners"] != s.winners:
        rep.mismatches.append(f"winners published {ended and ended['winners']}, replayed {s.winners}")
    return rep
