"""What must hold after a season, checked from the event log, the organizer's flags and what the bots saw."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from turf_common.rules.prizes import PrizeTable, final_places
from turfwar.simulate.api import GENERIC, RULE_CODES

CHEAT_FLAG = {"teleport": "impossible_travel", "replay": "repeated_fix"}
EFFECT_CAUSE = {"war": "war", "joker": "joker", "mulligan": "mulligan", "trade": "trade"}
ZONE = ZoneInfo("America/New_York")
R7_CODES = {"outside_board", "on_border", "inaccurate_fix", "stale_fix"}


@dataclass
class Check:
    name: str
    ok: bool
    summary: str
    details: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "summary": self.summary, "details": self.details[:200]}


def _local_day(at: Any) -> str:
    """The season-zone date (R1) of an event time."""
    try:
        return datetime.fromisoformat(str(at)).astimezone(ZONE).date().isoformat()
    except ValueError:
        return str(at)[:10]


def _by_subject(events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for e in events:
        out[e["subject"]].append(e["data"] if isinstance(e["data"], dict) else {})
    return out


def scores(final: list[str] | None, daily: list[dict[str, Any]]) -> Check:
    """The live leaderboard equals a full recompute from the claims database (turfwar.verify), at every day's
    close and at the end."""
    if final is None:
        return Check("scores", False, "not checked: no database/NATS URL for this stack")
    bad = [f"after {d['after']}: {x}" for d in daily for x in d["differences"]] + [f"final: {x}" for x in final]
    n = len(daily)
    return Check("scores", not bad, f"live leaderboard = full recompute at {n} day close{'s' if n != 1 else ''} and "
                 "at the end"
                 if not bad else f"{len(bad)} differences", bad)


def one_owner(events: list[dict[str, Any]], final_owners: dict[str, str | None]) -> Check:
    """No territory ever had two owners at once: per territory the ``territory.changed`` versions go 1, 2, 3 …
    without gap or repeat, each change starts from the owner the previous one left, and the last one is the
    owner the public board shows now."""
    changes: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for d in _by_subject(events).get("territory.changed", []):
        changes[d["territory_id"]].append(d)
    bad: list[str] = []
    for tid, cs in changes.items():
        cs.sort(key=lambda d: d["version"])
        prev_owner: str | None = None
        for i, d in enumerate(cs):
            if d["version"] != i + 1:
                bad.append(f"{tid}: version {d['version']} where {i + 1} was due")
                break
            if d["previous_owner_id"] != prev_owner:
                bad.append(f"{tid} v{d['version']} ({d['cause']}): previous owner {d['previous_owner_id']} but the "
                           f"territory was {prev_owner}'s")
            prev_owner = d["owner_id"]
        if final_owners.get(tid) != prev_owner:
            bad.append(f"{tid}: last change left it to {prev_owner}, the board shows {final_owners.get(tid)}")
    for tid, owner in final_owners.items():
        if owner is not None and tid not in changes:
            bad.append(f"{tid}: owned by {owner} without any territory.changed")
    n = sum(len(c) for c in changes.values())
    return Check("one_owner", not bad, f"{n} ownership changes on {len(changes)} territories form one unbroken "
                 "chain each" if not bad else f"{len(bad)} breaks", bad)


def refusals(problems: list[dict[str, Any]], events: list[dict[str, Any]], refused: Counter[str]) -> Check:
    """Every refusal carried a rule code (R29): each non-2xx answer of the run is {reason, message} with a known
    code at its status, nothing answered 5xx or failed in transport, and every claim.rejected names a code."""
    bad = [f"{p['request']} {p.get('body')} → {p['status']} {p['answer']}: {p['problem']}" for p in problems]
    for d in _by_subject(events).get("claim.rejected", []):
        if d.get("reason") not in RULE_CODES | set(GENERIC) or not d.get("message"):
            bad.append(f"claim.rejected without a rule code: {d}")
    total = sum(refused.values())
    return Check("refusals", not bad, f"{total} refusals, each with a rule code and a message" if not bad
                 else f"{len(bad)} answers without a proper rule code", bad)


def flags(flag_list: list[dict[str, Any]], bots: list[Any]) -> Check:
    """Every cheater was flagged for its cheat and no honest bot was (GET /admin/flags)."""
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    for f in flag_list:
        kinds[f["player_id"]][f["kind"]] += 1
    bad: list[str] = []
    for b in bots:
        got = kinds.get(b.id, Counter())
        if b.cheat:
            want = CHEAT_FLAG[b.cheat]
            if not got[want]:
                bad.append(f"cheater {b.name} ({b.cheat}, {len(b.cheated)} cheats) has no {want} flag: {dict(got)}")
        elif got:
            bad.append(f"honest {b.name} was flagged: {dict(got)}")
    cheaters = [b for b in bots if b.cheat]
    return Check("flags", not bad, f"{len(cheaters)} cheaters flagged ({len(flag_list)} flags), no honest bot "
                 "flagged" if not bad else f"{len(bad)} wrong", bad)


def plausible(claims: list[dict[str, Any]], bots: list[Any]) -> Check:
    """Honest bots' fixes are never refused for their location (R7): inside the board, off borders, accurate,
    fresh."""
    honest = {b.index for b in bots if not b.cheat}
    bad = [f"{c['at']} {bots[c['bot']].name} {c['reason']} at {c['lat']}, {c['lon']}" for c in claims
           if c["bot"] in honest and c["reason"] in R7_CODES]
    n = sum(1 for c in claims if c["bot"] in honest)
    near = min((c["border_m"] for c in claims if c["bot"] in honest and c["border_m"] is not None), default=None)
    return Check("plausible_fixes", not bad, f"{n} honest fixes, none refused for location; nearest to a border "
                 f"{near:.0f} m" if not bad and near is not None else f"{len(bad)} refused for location", bad)


def cards(events: list[dict[str, Any]], plays: list[dict[str, Any]], hands: dict[str, list[str]],
          bots: list[Any]) -> Check:
    """Every card consumed matches an effect, and every effect a consumed card:
    War/Joker/Mulligan/Trade ↔ a territory.changed of that cause on that territory for that player; Freeze/Blockade
    consumed at activation ↔ protection.activated of that card; Double Trouble ↔ an allowance of 2 that day (no
    player ever made more normal claims in a day than 1 + Double Trouble + Mulligans). Every 200 answer of
    POST /cards/play ↔ a card.played event of that card; and per player, cards drawn = cards in hand + consumed."""
    ev = _by_subject(events)
    bad: list[str] = []
    played = ev.get("card.played", [])
    consumed_ids: set[str] = set()
    want_changes: Counter[tuple[str, str, str]] = Counter()
    for p in played:
        if p.get("state") != "consumed":
            continue
        consumed_ids.add(p["card_id"])
        kind, eff = p["card_type"], p.get("effect") or {}
        if kind in EFFECT_CAUSE:
            tid = eff.get("territory_id")
            if not tid:
                bad.append(f"{kind} card {p['card_id']} consumed without a territory in its effect: {eff}")
                continue
            want_changes[(EFFECT_CAUSE[kind], tid, p["player_id"])] += 1
        elif kind == "double_trouble" and not isinstance(eff.get("claims_left_today"), int):
            bad.append(f"double_trouble card {p['card_id']} consumed without claims_left_today: {eff}")
    got_changes: Counter[tuple[str, str, str]] = Counter()
    for d in ev.get("territory.changed", []):
        cause = d.get("cause")
        if cause in ("war", "joker", "trade"):
            got_changes[(cause, d["territory_id"], d["owner_id"])] += 1
        elif cause == "mulligan":
            got_changes[(cause, d["territory_id"], d["previous_owner_id"])] += 1
    for key in set(want_changes) | set(got_changes):
        if want_changes[key] != got_changes[key]:
            bad.append(f"{key[0]} on {key[1]} for {key[2]}: {want_changes[key]} cards consumed, "
                       f"{got_changes[key]} effects")
    activated = {d["card_id"]: d for d in ev.get("protection.activated", [])}
    consumed_at_activation = {d["card_id"]: d for d in ev.get("card.consumed", [])}
    for cid in set(activated) | set(consumed_at_activation):
        a, c = activated.get(cid), consumed_at_activation.get(cid)
        if a is None or c is None:
            bad.append(f"card {cid}: protection.activated {a is not None}, card.consumed {c is not None}")
        elif a["kind"] != c["card_type"] or a["player_id"] != c["player_id"]:
            bad.append(f"card {cid}: activated {a['kind']} of {a['player_id']}, consumed {c['card_type']} of "
                       f"{c['player_id']}")
    consumed_ids |= set(consumed_at_activation)
    # allowance: normal claims per player and day ≤ 1 + Double Trouble + Mulligans that day
    day_of_play: Counter[tuple[str, str]] = Counter()
    for p in played:
        if p.get("state") == "consumed" and p["card_type"] in ("double_trouble", "mulligan"):
            day_of_play[(p["player_id"], _local_day(p.get("occurred_at")))] += 1
    normal: Counter[tuple[str, str]] = Counter()
    for d in ev.get("claim.accepted", []):
        if d.get("kind") in ("take", "steal", "reinforce"):
            normal[(d["player_id"], str(d["game_day"]))] += 1
    for (pid, day), n in normal.items():
        if n > 1 + day_of_play[(pid, day)]:
            bad.append(f"{pid} made {n} normal claims on {day} with {day_of_play[(pid, day)]} extra-claim cards")
    # every accepted play the bots saw is on the bus
    on_bus = {p["card_id"]: p for p in played}
    for p in plays:
        if p["status"] != 200:
            continue
        e = on_bus.get(p["card_id"])
        if e is None:
            bad.append(f"POST /cards/play {p['type']} answered 200 (card {p['card_id']}) without card.played")
        elif e.get("state") != p["state"]:
            bad.append(f"card {p['card_id']}: answered {p['state']}, card.played says {e.get('state')}")
    # conservation: drawn = in hand + consumed (+ removed by a correction)
    drawn: dict[str, set[str]] = defaultdict(set)
    for d in ev.get("card.drawn", []):
        drawn[d["player_id"]].add(d["card_id"])
    removed: set[str] = set()
    for d in ev.get("card.adjusted", []):
        removed |= {c["id"] for c in d.get("removed", [])}
    for b in bots:
        if b.id not in hands:
            bad.append(f"{b.name}: hand not read at the end")
            continue
        expect = drawn.get(b.id, set()) - consumed_ids - removed
        have = set(hands[b.id])
        if expect != have:
            bad.append(f"{b.name}: drawn − consumed = {len(expect)} cards, hand holds {len(have)} "
                       f"(missing {sorted(expect - have)[:3]}, unexpected {sorted(have - expect)[:3]})")
    kinds = Counter(p["card_type"] for p in played if p.get("state") == "consumed")
    kinds.update(c["card_type"] for c in consumed_at_activation.values())
    summary = (f"{sum(kinds.values())} cards consumed, each matched by its effect "
               f"({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}); hands add up")
    return Check("cards", not bad, summary if not bad else f"{len(bad)} mismatches", bad)


def results(body: dict[str, Any] | None, final_lb: dict[str, Any]) -> Check:
    """GET /results is final, totals are base + bonuses, places follow the totals, prizes are two-decimal
    amounts that R26's table gives those totals, and the standings equal the final leaderboard."""
    if body is None:
        return Check("results", False, "GET /results did not answer")
    bad: list[str] = []
    st = body.get("standings", [])
    if body.get("final") is not True:
        bad.append("results not final")
    total_prize = Decimal(0)
    for i, s in enumerate(st):
        if s["total"] != s["base"] + s["bonuses"]:
            bad.append(f"{s['player_id']}: total {s['total']} ≠ base {s['base']} + bonuses {s['bonuses']}")
        if i and (s["total"] > st[i - 1]["total"] or (s["total"] == st[i - 1]["total"]) != (
                s["place"] == st[i - 1]["place"])):
            bad.append(f"place {s['place']} ({s['total']}) after place {st[i - 1]['place']} ({st[i - 1]['total']})")
        prize = str(s["prize"])
        if "." not in prize or len(prize.split(".")[1]) != 2:
            bad.append(f"prize {prize!r} is not a two-decimal amount")
        total_prize += Decimal(prize)
    # R26: the table's own tie cases can pay more than the places' sum (three-way tie for third: 3 x 16.66), so
    # the prizes are checked against the rule applied to the server's totals, not against a purse
    want = {f.player_id: f.prize for f in final_places({s["player_id"]: s["total"] for s in st}, PrizeTable.load())}
    wrong = [f"{s['player_id']}: prize {s['prize']}, R26 gives {want[s['player_id']]}" for s in st
             if Decimal(str(s["prize"])) != want[s["player_id"]]]
    bad += wrong
    live = {s["player_id"]: s["total"] for s in final_lb.get("standings", [])}
    final = {s["player_id"]: s["total"] for s in st}
    if live != final:
        bad.append(f"final results differ from the leaderboard at the close: {set(live.items()) ^ set(final.items())}")
    return Check("results", not bad, f"{len(st)} players placed, ${total_prize} in prizes" if not bad
                 else f"{len(bad)} problems", bad)


def server_health(stuck: dict[str, Any] | None, log_errors: list[str], refused: Counter[str],
                  logs_read: bool) -> Check:
    """The stack kept up: every clock move was handled (no 503 from POST /admin/clock) and no service logged an
    error (when its logs are at hand). Answers ``unavailable`` to players are listed, not failed."""
    bad: list[str] = []
    if stuck is not None:
        bad.append(f"the season stopped: {stuck['request']} → {stuck['status']} {stuck['answer']}; "
                   f"GET /clock then said {stuck['clock']}")
    bad += log_errors
    busy = {k: n for k, n in refused.items() if k.endswith(" unavailable") or k.endswith(" 503")}
    info = [f"{k} ×{n}" for k, n in busy.items()]
    where = "services logged no error" if logs_read else "service logs not at hand"
    return Check("server_health", not bad, (f"every clock move handled; {where}" + (
        f"; {sum(busy.values())} answers 'unavailable'" if busy else "")) if not bad
        else f"{len(bad)} problems", bad + info)


def scan_logs(logs_dir: Any) -> list[str]:
    """Error-level entries of the services' JSON logs, one line per (service, event, subject, error)."""
    import json
    from pathlib import Path

    found: Counter[str] = Counter()
    for path in sorted(Path(logs_dir).glob("*.log")):
        for line in path.read_text(errors="replace").splitlines():
            if not line.startswith("{"):
                continue
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if d.get("level") not in ("error", "critical"):
                continue
            exc = [x.strip() for x in str(d.get("exception", "")).splitlines() if x.strip()]
            err = next((x for x in reversed(exc) if x.startswith(("sqlalchemy.", "psycopg.", "nats.")) or
                        "Error:" in x or "Exception:" in x), exc[-1] if exc else "")
            detail = next((x for x in exc if x.startswith("DETAIL:")), "")
            found[f"{path.stem}: {d.get('event')} on {d.get('subject', '-')}: {err[:300]} {detail[:200]}".strip()] += 1
    return [f"{k} (×{n})" for k, n in found.items()]
