"""The live probes of the turn-based modes (the review "Nobody gets in, round three": a leaver reading the team's
orders, one player's flood of rooms, join/leave churn, withdrawals of orders that do not exist, a field too small
for its teams), run by :mod:`bench.probes` on its rehearsal stack: each tries what the attacker did through the
public API and says whether the hole is closed. Their tests: docs/reliability.md ("Threats, round three")."""

from __future__ import annotations

import httpx

from bench.probing import Probe
from tests.support.client import API, Player, verified_player

HOBOKEN, JERSEY_CITY, WEEHAWKEN = "3401732250", "3401736000", "3401777930"


def _counts(codes: list[int]) -> str:
    return ", ".join(f"{codes.count(c)}×{c}" for c in sorted(set(codes)))


def leaver_spies(http: httpx.Client, org: Player) -> tuple[Probe, str, Player]:
    """A player joins a team, sees its secret attack order, leaves, and reads the game again."""
    game = org.post("/modes/team-turf", {"teams": ["red", "blue"], "towns": [HOBOKEN, JERSEY_CITY, WEEHAWKEN],
                                         "homes": {"red": HOBOKEN, "blue": WEEHAWKEN}}).json()
    gid = game["game_id"]
    r1, spy = verified_player(http, org), verified_player(http, org)
    for p in (r1, spy):
        p.post(f"/modes/team-turf/{gid}/join", {"team": "red"})
    r1.post(f"/modes/team-turf/{gid}/place", {"town": HOBOKEN, "n": 2})
    r1.post(f"/modes/team-turf/{gid}/orders", {"turn": 1, "kind": "attack", "src": HOBOKEN, "dst": JERSEY_CITY,
                                               "n": 1})
    before = len(spy.get(f"/modes/team-turf/{gid}").json()["team_turf"]["orders"])
    spy.post(f"/modes/team-turf/{gid}/leave")
    after = spy.get(f"/modes/team-turf/{gid}").json()["team_turf"]["orders"]
    return (Probe("modes: join, leave, spy (Team Turf)", "GET the game after leaving the team",
                  f"{before} order(s) seen while in, {len(after)} after leaving", before == 1 and after == []),
            gid, r1)


def room_flood(http: httpx.Client, org: Player) -> Probe:
    """Another player's lobby, then 60 rooms opened by one player; is the other lobby still listed?"""
    theirs = verified_player(http, org).post("/modes/hill", {"hill": HOBOKEN}).json()["game_id"]
    mallory = verified_player(http, org)
    codes = [mallory.post("/modes/hill", {"hill": JERSEY_CITY}).status_code for _ in range(60)]
    listed = [g["game_id"] for g in http.get(API + "/modes/hill").json()["games"]]
    return Probe("modes: 60 × POST /modes/hill, one player", "open 60 rooms, then list the rooms",
                 f"{_counts(codes)}; the other lobby {'listed' if theirs in listed else 'GONE'}",
                 codes.count(201) <= 3 and theirs in listed)


def seat_churn(http: httpx.Client, org: Player) -> Probe:
    """30 join/leave pairs in one lobby (each a story on every spectator's feed)."""
    gid = verified_player(http, org).post("/modes/hill", {"hill": WEEHAWKEN}).json()["game_id"]
    p = verified_player(http, org)
    codes: list[int] = []
    for _ in range(30):
        codes.append(p.post(f"/modes/hill/{gid}/join").status_code)
        codes.append(p.post(f"/modes/hill/{gid}/leave").status_code)
    return Probe("modes: 30 join/leave pairs in a lobby", "POST …/join, …/leave × 30", _counts(codes),
                 429 in codes and codes.count(200) <= 12)


def ghost_withdrawals(org: Player, gid: str, r1: Player) -> list[Probe]:
    """20 withdrawals of orders that do not exist; then the finished game's audit log, read in pages."""
    codes = [r1.delete(f"/modes/team-turf/{gid}/orders/ghost-{i:02d}") for i in range(20)]
    reasons = {r.json().get("reason") for r in codes}
    out = [Probe("modes: 20 × DELETE …/orders/ghost-NN", "withdraw orders that do not exist",
                 f"{_counts([r.status_code for r in codes])} {sorted(map(str, reasons))}",
                 all(r.status_code == 409 for r in codes) and reasons == {"unknown_order"})]
    org.post(f"/modes/team-turf/{gid}/end")
    page = org.http.get(API + f"/modes/games/{gid}/log", params={"limit": 2})
    body = page.json() if page.status_code == 200 else {}
    out.append(Probe("modes: the audit log of a game", "GET …/log?limit=2 of the finished game",
                     f"{page.status_code}, {len(body.get('actions', []))} of {body.get('total')} actions, "
                     f"next_offset {body.get('next_offset')}",
                     page.status_code == 200 and len(body["actions"]) == 2 and body.get("next_offset") == 2))
    return out


def field_too_small(org: Player) -> Probe:
    """Team Turf with two teams on a field of one town."""
    r = org.post("/modes/team-turf", {"teams": ["red", "blue"], "towns": [HOBOKEN]})
    return Probe("modes: Team Turf, two teams, one town", "POST /modes/team-turf",
                 f"{r.status_code} {r.json().get('reason')}",
                 r.status_code == 409 and r.json().get("reason") == "field_too_small")


def run(http: httpx.Client, org: Player) -> list[Probe]:
    first, gid, r1 = leaver_spies(http, org)
    return [first, room_flood(http, org), seat_churn(http, org), *ghost_withdrawals(org, gid, r1),
            field_too_small(org)]
