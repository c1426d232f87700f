"""The bots: who they are and what they do at each moment of a game day.

Each bot lives in a home territory, leaves home in the morning, drives (straight-line speed 28–55 km/h plus a few
minutes to park) to territories within ~30 km of home and claims from a point well inside each, with a fresh fix,
5–40 m accuracy and a fix time a few seconds before the game clock. Strategies, simple on purpose:

* claims: reinforce own territories on consecutive game days (fortify the core), take open land at the edge of the
  largest cluster, steal a rival's unfortified territory at the cluster edge; now and then an errand elsewhere;
* Joker toward the cluster edge in the morning; Double Trouble when there is more than one good target;
* Mulligan a claim that only made an outpost, and claim again at the cluster edge;
* War soon after a steal of one's territory; the thief then drives back for the free reclaim if it can;
* Freeze the most threatened territory of the core for tomorrow, now and then reconsidered (cancelled);
* Blockade the leader; trade an outpost for a rival's territory that joins the cluster (the partner accepts when
  its own base score does not drop), stale proposals withdrawn.

Cheaters play the same, plus: ``teleport`` (a claim from the far side of the board seconds after a real one) and
``replay`` (re-submitting an exact earlier fix instead of going there).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from turfwar.simulate.geo import haversine_m

if TYPE_CHECKING:
    from turfwar.simulate.engine import Season

HOME_KM = 30.0       # a bot's playing area around its home
LEG_KM = 22.0        # the longest single drive it plans
MAX_REFUSALS = 3     # refused claims a bot tolerates per day before driving home
STYLES = {           # fortify weight, steal aggression, open-land bonus
    "builder": (1.6, 0.35, 0.2),
    "raider": (0.7, 1.3, 0.0),
    "expander": (0.9, 0.6, 0.5),
}
NAMES = ["Ada", "Bram", "Cleo", "Dev", "Esme", "Finn", "Gus", "Hana", "Ivo", "Juno", "Kai", "Lena", "Milo", "Nia",
         "Otto", "Pia", "Quin", "Rosa", "Sami", "Tess", "Udo", "Vera", "Wim", "Xena", "Yuri", "Zoe"]


@dataclass
class Bot:
    index: int
    name: str
    style: str
    cheat: str | None
    home: str
    speed_kmh: float
    rng: random.Random
    area: list[str] = field(default_factory=list)   # territories within HOME_KM of home
    id: str = ""
    token: str = ""
    email: str = ""
    password: str = ""
    home_point: tuple[float, float] = (0.0, 0.0)
    pos: tuple[float, float] = (0.0, 0.0)
    hand: list[dict[str, Any]] = field(default_factory=list)
    allowance: int = 1
    used: int = 0
    refused_today: int = 0
    stops_today: int = 0
    cheat_days: set[date] = field(default_factory=set)
    cheated: list[str] = field(default_factory=list)
    cheated_days: set[date] = field(default_factory=set)
    reclaims: dict[str, datetime] = field(default_factory=dict)   # my War reclaim windows: territory → until
    fixes: list[tuple[float, float, float, datetime]] = field(default_factory=list)   # lat, lon, accuracy, sent at
    proposals: dict[str, date] = field(default_factory=dict)     # my open trade proposals
    stats: Counter[str] = field(default_factory=Counter)

    @property
    def label(self) -> str:
        return self.name

    def ready(self, kind: str) -> bool:
        return any(c["type"] == kind and c["state"] == "ready" for c in self.hand)

    def spend(self, card_id: str | None, kind: str, state: str = "consumed") -> None:
        """A card left the hand (or became reserved)."""
        for c in self.hand:
            if (card_id is not None and c["id"] == card_id) or (card_id is None and c["type"] == kind
                                                                  and c["state"] == "ready"):
                if state == "consumed":
                    self.hand.remove(c)
                else:
                    c["state"] = state
                return

    def new_day(self) -> None:
        self.allowance, self.used, self.refused_today, self.stops_today = 1, 0, 0, 0
        self.pos = self.home_point


def minutes(a: float, b: float, rng: random.Random) -> timedelta:
    return timedelta(minutes=rng.uniform(a, b))


# =============================================================================== the day's moments


async def morning(s: Season, bot: Bot, t: datetime) -> None:
    """Leave home: look at the hand, play a Joker and maybe Double Trouble, drive to the first target."""
    r = await s.api.call("GET", "/me/hand", bot.label, bot.token)
    if r.ok:
        bot.hand = list(r.json().get("cards", []))
    if bot.ready("joker"):
        mode = "cluster_edge" if bot.rng.random() < 0.85 else "random"
        r = await s.play(bot, "joker", mode=mode)
        if r.reason == "no_eligible_territory" and mode == "cluster_edge":
            await s.play(bot, "joker", mode="random")
    if bot.ready("double_trouble") and _wants_double_trouble(s, bot):
        await s.play(bot, "double_trouble")
    if bot.cheat == "replay" and s.day in bot.cheat_days:
        s.schedule(bot, t + minutes(90, 240, bot.rng), "replay")
    await plan(s, bot, t)


def _wants_double_trouble(s: Season, bot: Bot) -> bool:
    opts = [v for v, _t, _e in _targets(s, bot, bot.home_point, s.now, reclaim_only=False)[:3] if v > 0.4]
    return len(opts) >= 2 or bot.rng.random() < 0.3


async def plan(s: Season, bot: Bot, t: datetime) -> None:
    """Choose the next stop and drive there (an ``arrive`` event at the arrival time), or call it a day."""
    if bot.refused_today >= MAX_REFUSALS or bot.stops_today >= 6:
        return
    reclaim_only = bot.used >= bot.allowance
    if reclaim_only and not bot.reclaims:
        return
    opts = _targets(s, bot, bot.pos, t, reclaim_only)
    if not opts:
        return
    value, tid, errand = opts[0]
    if not reclaim_only and bot.rng.random() < 0.08:   # an errand: somewhere it had to be anyway
        odd = [x for x in bot.area if s.world.owners[x] != bot.id and not s.world.fortified[x]
               and s.world.locks.get(x, bot.id) == bot.id and s.geo.dist_km(bot.home, x) < LEG_KM]
        if odd:
            tid, errand = bot.rng.choice(odd), True
    lat, lon = s.geo.fix_point(tid, bot.rng)
    km = haversine_m(bot.pos[0], bot.pos[1], lat, lon) / 1000
    arrive_at = t + timedelta(hours=km / bot.speed_kmh) + minutes(3, 8, bot.rng)
    if arrive_at > s.closes - timedelta(minutes=12):
        return
    bot.stops_today += 1
    s.schedule(bot, arrive_at, "arrive", territory_id=tid, lat=lat, lon=lon, errand=errand,
               reclaim=tid in bot.reclaims, value=round(value, 2))


def _targets(s: Season, bot: Bot, pos: tuple[float, float], t: datetime,
             reclaim_only: bool) -> list[tuple[float, str, bool]]:
    """Candidate stops with a value, best first."""
    w = s.world
    me = bot.id
    fort_w, aggression, open_bonus = STYLES[bot.style]
    out: list[tuple[float, str, bool]] = []
    for tid, until in list(bot.reclaims.items()):
        if until <= t + timedelta(minutes=30):
            bot.reclaims.pop(tid, None)
            continue
        km = haversine_m(*pos, *s.board.territories[tid].label_point) / 1000
        if km <= LEG_KM * 1.5 and w.owners[tid] != me and not w.fortified[tid] and tid not in w.frozen_today:
            out.append((6.0 - km * 0.04, tid, False))
    if reclaim_only:
        return sorted(out, key=lambda x: -x[0])
    comps = w.clusters(me)
    core = comps[0] if comps else set()
    rival_comps: dict[str, list[set[str]]] = {}
    leader = s.leader_id
    for tid in bot.area:
        km = haversine_m(*pos, *s.board.territories[tid].label_point) / 1000
        if km > LEG_KM:
            continue
        owner = w.owners[tid]
        lock = w.locks.get(tid)
        if w.reclaim_blocks(me, tid, t):
            continue
        if owner == me:
            if w.fortified[tid] or lock is not None:
                continue
            consecutive = w.last_claim.get((me, tid)) == w.prev_day
            p = w.progress[tid]
            v = (1.1 + 0.7 * (p >= 2)) if consecutive and p >= 1 else 0.3
            threat = sum(1 for n in w.neighbours(tid) if w.owners[n] not in (None, me))
            v = v * fort_w + 0.15 * min(threat, 3) + (0.4 if tid == bot.home else 0.0) + (0.2 if tid in core else 0)
        elif lock is not None and lock != me:
            continue
        elif owner is None:
            v = (w.gain_if_added(me, tid, comps) if comps else 1.0) + open_bonus
            v += 0.5 if tid == bot.home else 0.0
        else:
            if w.fortified[tid] or tid in w.frozen_today or (owner, me) in w.blockades_today:
                continue
            if owner not in rival_comps:
                rival_comps[owner] = w.clusters(owner)
            hurt = w.loss_if_removed(owner, tid, rival_comps[owner])
            v = (w.gain_if_added(me, tid, comps) if comps else 0.8) + aggression * (0.5 + hurt) - 0.3
            v += 0.4 * aggression if owner == leader else 0.0
        v -= km * 0.045
        v += bot.rng.random() * 0.35
        out.append((v, tid, False))
    return sorted(out, key=lambda x: -x[0])


async def arrive(s: Season, bot: Bot, t: datetime, territory_id: str, lat: float, lon: float, errand: bool,
                 reclaim: bool, value: float) -> None:
    """At the stop: claim with a fresh fix; react to the answer; then drive on."""
    w = s.world
    tid = territory_id
    before_owner = w.owners[tid]
    r = await s.claim(bot, lat, lon, purpose="reclaim" if reclaim else ("errand" if errand else "claim"))
    bot.pos = (lat, lon)
    if r.ok:
        body = r.json()
        kind = body.get("kind", "")
        got = body.get("territory_id", tid)
        victim = w.claimed(bot.id, got, kind, int(body.get("progress", 1)), bool(body.get("fortified")), t,
                           body.get("claim_id", ""))
        bot.stats["claims"] += 1
        bot.stats[kind] += 1
        if kind == "war_reclaim":
            bot.reclaims.pop(got, None)
        else:
            bot.used += 1
        if victim is not None and victim in s.bots_by_id:
            at = s.add_game_hours(t, bot.rng.uniform(0.2, 1.6))
            s.schedule(s.bots_by_id[victim], at, "war_check", territory_id=got, attacker=bot.id)
        if kind == "take" and bot.ready("mulligan"):
            await _maybe_mulligan(s, bot, got, body.get("claim_id", ""), before_owner)
    else:
        bot.refused_today += 1
        reason = r.reason or ""
        bot.stats["refused"] += 1
        if reason == "frozen":
            w.frozen_today.add(tid)
        elif reason == "blockaded" and before_owner:
            w.blockades_today.add((before_owner, bot.id))
        elif reason == "locked_today":
            w.locks.setdefault(tid, "?")
        elif reason in ("fortified", "already_fortified"):
            w.fortified[tid] = True
        elif reason == "no_claims_left":
            bot.used = max(bot.used, bot.allowance)
        elif reason == "war_reclaim_window":
            w.reclaim[tid] = ("?", s.closes)
        if reclaim:
            bot.reclaims.pop(tid, None)
    if bot.cheat == "teleport" and s.day in bot.cheat_days and s.day not in bot.cheated_days:
        await teleport(s, bot, t)
    await plan(s, bot, t + minutes(10, 40, bot.rng))


async def _maybe_mulligan(s: Season, bot: Bot, tid: str, claim_id: str, before_owner: str | None) -> None:
    comps = s.world.clusters(bot.id)
    if len(comps) < 2 or tid in comps[0] or len(comps[0]) < 2:
        return
    r = await s.play(bot, "mulligan", claim_id=claim_id)
    if r.ok:
        eff = r.json().get("effect", {})
        s.world.set_owner(tid, eff.get("owner_id", before_owner), 0, False)
        bot.allowance += 1


async def _anchor(s: Season, bot: Bot) -> None:
    """A real fix where the bot stands (a claim attempt there), so that a cheat has a fix to follow."""
    here = s.board.locate(*bot.pos).territory_id or bot.home
    lat, lon = s.geo.fix_point(here, bot.rng)
    bot.pos = (lat, lon)
    r = await s.claim(bot, lat, lon, purpose="claim")
    if r.ok:
        body = r.json()
        s.world.claimed(bot.id, body["territory_id"], body["kind"], int(body["progress"]), bool(body["fortified"]),
                        s.now, body["claim_id"])
        if body["kind"] != "war_reclaim":
            bot.used += 1


async def teleport(s: Season, bot: Bot, t: datetime, anchor: bool = False) -> None:
    """Cheat: a claim from the far side of the board seconds after a real fix."""
    if anchor:
        await _anchor(s, bot)
    far = s.geo.farthest(*bot.pos, n=8)
    tid = bot.rng.choice(far)
    lat, lon = s.geo.fix_point(tid, bot.rng)
    bot.cheated_days.add(s.day)
    bot.cheated.append(f"{s.now.isoformat()} teleport to {s.board.territories[tid].name} "
                       f"({haversine_m(*bot.pos, lat, lon) / 1000:.0f} km)")
    r = await s.claim(bot, lat, lon, purpose="cheat:teleport", fix_age_s=1.0)
    if r.ok:
        body = r.json()
        s.world.claimed(bot.id, body["territory_id"], body["kind"], int(body["progress"]), bool(body["fortified"]),
                        t, body["claim_id"])
        if body["kind"] != "war_reclaim":
            bot.used += 1


#: a replay re-sends a fix of the last two game hours: the server compares a fix with the trail of the last
#: 2.5 h (turf_common.rules.antispoof.TRAIL_SPAN_KM at 200 km/h), so an older fix is no evidence of a replay
REPLAY_WITHIN = timedelta(hours=2)


def _left_behind(fixes: list[tuple[float, float, float, datetime]], now: datetime) -> list[tuple[float, float, float]]:
    """The recent fixes the bot has since moved away from: some later fix lies further than both accuracies from
    it. Re-sending one of those is a replay (R7.1); re-sending where the phone still is, is not."""
    return [(f[0], f[1], f[2]) for i, f in enumerate(fixes) if f[3] >= now - REPLAY_WITHIN
            and any(haversine_m(f[0], f[1], g[0], g[1]) > f[2] + g[2] for g in fixes[i + 1:])]


async def replay(s: Season, bot: Bot, t: datetime) -> None:
    """Cheat: send an earlier fix again, to the last bit, instead of going there (one the bot has since left)."""
    for _ in range(3):
        if _left_behind(bot.fixes, s.now):
            break
        await _anchor(s, bot)
    candidates = _left_behind(bot.fixes, s.now)
    if not candidates:
        return
    lat, lon, acc = candidates[0] if bot.rng.random() < 0.5 else bot.rng.choice(candidates)
    bot.cheated.append(f"{s.now.isoformat()} replayed the fix {lat}, {lon} ±{acc} m")
    r = await s.claim(bot, lat, lon, purpose="cheat:replay", accuracy_m=acc)
    if r.ok:
        body = r.json()
        s.world.claimed(bot.id, body["territory_id"], body["kind"], int(body["progress"]), bool(body["fortified"]),
                        t, body["claim_id"])


async def war_check(s: Season, bot: Bot, t: datetime, territory_id: str, attacker: str) -> None:
    """War after a steal: take it back if the thief still holds it and a War card is at hand."""
    w = s.world
    if w.owners[territory_id] != attacker or not bot.ready("war") or bot.rng.random() > 0.9:
        return
    steal = w.steals.get(territory_id)
    r = await s.play(bot, "war", territory_id=territory_id)
    if r.ok:
        eff = r.json().get("effect", {})
        before = steal.before if steal is not None else (1, False)
        w.set_owner(territory_id, bot.id, *before)
        until = datetime.fromisoformat(eff["reclaim_until"]) if eff.get("reclaim_until") else s.closes
        w.reclaim[territory_id] = (attacker, until)
        thief = s.bots_by_id.get(attacker)
        if thief is not None:
            thief.reclaims[territory_id] = until


async def evening(s: Season, bot: Bot, t: datetime) -> None:
    """Before the game closes: withdraw stale proposals, Freeze the threatened, Blockade the leader, propose a
    trade that joins an outpost to the cluster."""
    w = s.world
    if bot.proposals:
        r = await s.api.call("GET", "/trades", bot.label, bot.token)
        still_open = {tr["id"] for tr in r.json().get("trades", []) if tr.get("state") == "open"} if r.ok else set()
        for trade_id, day in list(bot.proposals.items()):
            if trade_id not in still_open:      # accepted, declined or cancelled meanwhile
                bot.proposals.pop(trade_id, None)
            elif day != s.day:
                await s.api.call("POST", f"/trades/{trade_id}/withdraw", bot.label, bot.token)
                bot.proposals.pop(trade_id, None)
    if bot.cheat == "teleport" and s.day in bot.cheat_days and s.day not in bot.cheated_days:
        await teleport(s, bot, t, anchor=True)   # no stop today gave it the chance
    comps = w.clusters(bot.id)
    core = comps[0] if comps else set()
    if s.next_day is not None and bot.ready("freeze"):
        threatened = _threatened(s, bot, core)
        if threatened:
            r = await s.play(bot, "freeze", territory_id=threatened[0])
            if r.ok and bot.rng.random() < 0.25 and t + timedelta(minutes=40) < s.closes:
                s.schedule(bot, t + minutes(10, 30, bot.rng), "reconsider", card_id=r.json()["card_id"],
                           territory_id=threatened[0])
    if s.next_day is not None and bot.ready("blockade"):
        leader = await s.leader(exclude=bot.id)
        if leader is not None:
            near = bool(w.edge(w.owned(bot.id)) & w.owned(leader))
            if near or bot.rng.random() < 0.4:
                await s.play(bot, "blockade", rival_id=leader)
    if bot.ready("trade") and len(comps) >= 2:
        await _propose_trade(s, bot, comps, t)


def _threatened(s: Season, bot: Bot, core: set[str]) -> list[str]:
    w = s.world
    scored = []
    for tid in core:
        if w.fortified[tid]:
            continue
        threat = sum(1 for n in w.neighbours(tid) if w.owners[n] not in (None, bot.id))
        if threat:
            scored.append((threat + 0.3 * w.progress[tid] + bot.rng.random() * 0.2, tid))
    return [tid for _, tid in sorted(scored, reverse=True)]


async def reconsider(s: Season, bot: Bot, t: datetime, card_id: str, territory_id: str) -> None:
    """Second thoughts about tonight's Freeze: cancel it and freeze another territory, if one is threatened."""
    r = await s.api.call("DELETE", f"/cards/{card_id}/schedule", bot.label, bot.token)
    s.note_cancel(bot, card_id, r)
    if not r.ok:
        return
    for c in bot.hand:
        if c["id"] == card_id:
            c["state"] = "ready"
    others = [x for x in _threatened(s, bot, (s.world.clusters(bot.id) or [set()])[0]) if x != territory_id]
    if others:
        await s.play(bot, "freeze", territory_id=others[0])


async def _propose_trade(s: Season, bot: Bot, comps: list[set[str]], t: datetime) -> None:
    w = s.world
    core = comps[0]
    outposts = set().union(*comps[1:])
    best: tuple[float, str, str, str] | None = None
    for y in w.edge(core):
        partner = w.owners[y]
        if partner is None or partner == bot.id or partner not in s.bots_by_id:
            continue
        p_comps = w.clusters(partner)
        for x in outposts:
            mine_after = w.base(bot.id, (w.owned(bot.id) - {x}) | {y})
            p_owned = w.owned(partner)
            p_after = w.base(partner, (p_owned - {y}) | {x})
            gain = mine_after - len(core)
            p_gain = p_after - (len(p_comps[0]) if p_comps else 0)
            if gain >= 1:
                score = gain + 0.8 * p_gain + bot.rng.random() * 0.1
                if best is None or score > best[0]:
                    best = (score, x, y, partner)
    if best is None:
        return
    _, x, y, partner = best
    r = await s.api.call("POST", "/trades", bot.label, bot.token, {"offer_territory_id": x, "want_territory_id": y})
    if r.ok:
        trade_id = r.json()["id"]
        bot.proposals[trade_id] = s.day
        bot.stats["trades_proposed"] += 1
        s.schedule(s.bots_by_id[partner], t + minutes(10, 50, bot.rng), "trade_review")


async def trade_review(s: Season, bot: Bot, t: datetime) -> None:
    """A partner looks at the proposals addressed to it: accept when its base score does not drop."""
    r = await s.api.call("GET", "/trades", bot.label, bot.token)
    if not r.ok:
        return
    w = s.world
    for tr in r.json().get("trades", []):
        if tr.get("partner_id") != bot.id or tr.get("state") != "open":
            continue
        x, y = tr["offer_territory_id"], tr["want_territory_id"]
        owned = w.owned(bot.id)
        ok = y in owned and w.owners.get(x) == tr["proposer_id"] and bot.ready("trade")
        if ok:
            after = w.base(bot.id, (owned - {y}) | {x})
            ok = after > w.base(bot.id, owned) or (after == w.base(bot.id, owned) and bot.rng.random() < 0.6)
        if not ok:
            await s.api.call("POST", f"/trades/{tr['id']}/decline", bot.label, bot.token)
            continue
        ra = await s.api.call("POST", f"/trades/{tr['id']}/accept", bot.label, bot.token)
        s.note_trade(bot, tr, ra)
        if ra.ok:
            w.set_owner(x, bot.id)
            w.set_owner(y, tr["proposer_id"])
            bot.spend(None, "trade")
            proposer = s.bots_by_id.get(tr["proposer_id"])
            if proposer is not None:
                proposer.spend(None, "trade")
                proposer.proposals.pop(tr["id"], None)


HANDLERS = {"morning": morning, "arrive": arrive, "war_check": war_check, "evening": evening,
            "reconsider": reconsider, "trade_review": trade_review, "replay": replay}
