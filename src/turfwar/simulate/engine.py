"""The season loop: register the bots, then for each game day move the manual clock forward in small steps
(06:00 → 22:00, one clock for everyone) and let each bot act at its moments, all through the public HTTP API."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import math
import random
import secrets
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from turf_common.board import Board
from turf_common.rules import gametime
from turfwar.simulate import bots as B
from turfwar.simulate.api import Api, Reply
from turfwar.simulate.config import SimConfig
from turfwar.simulate.geo import Geo
from turfwar.simulate.target import Target
from turfwar.simulate.world import World


class SimulationError(RuntimeError):
    """The season could not be played (the stack refused something a season needs)."""


class ServerStuck(SimulationError):
    """The stack stopped making progress (the clock could not move on): the season ends here, and the report says
    why."""

    def __init__(self, request: str, status: int, answer: Any, clock: Any) -> None:
        super().__init__(f"{request} answered {status} {answer}")
        self.request, self.status, self.answer, self.clock = request, status, answer, clock


@dataclass(order=True)
class Event:
    at: datetime
    seq: int
    bot: int = field(compare=False)
    kind: str = field(compare=False)
    data: dict[str, Any] = field(compare=False, default_factory=dict)


class DayProgress:
    """What the progress display needs to hear (a rich bar per game day, or nothing)."""

    def start_day(self, number: int, day: date) -> None: ...
    def advance(self, minutes_done: float, info: str) -> None: ...
    def end_day(self, info: str) -> None: ...


class Season:
    def __init__(self, cfg: SimConfig, target: Target, board: Board, api: Api,
                 progress: DayProgress | None = None, say: Callable[[str], None] = print) -> None:
        self.cfg, self.target, self.board, self.api = cfg, target, board, api
        self.progress = progress or DayProgress()
        self.say = say
        self.season = gametime.load_season()
        self.rng = random.Random(f"season:{cfg.seed}")
        self.geo = Geo(board, cfg.seed)
        self.world = World(board)
        self.bots: list[B.Bot] = []
        self.bots_by_id: dict[str, B.Bot] = {}
        self.org_token = ""
        self.now: datetime = gametime.default_clock_start(self.season)
        self.day: date = gametime.game_days(self.season)[0]
        self.day_number = 0
        self.opens = self.closes = self.now
        self.next_day: date | None = None
        self.queue: list[Event] = []
        self.deferred: list[Event] = []
        self._seq = itertools.count()
        self.run_tag = secrets.token_hex(3)
        self.leader_id: str | None = None
        self._lb: tuple[datetime, dict[str, Any]] | None = None
        # what happened, for the report and the invariants
        self.claims: list[dict[str, Any]] = []
        self.card_plays: list[dict[str, Any]] = []
        self.cancels: list[dict[str, Any]] = []
        self.trades: list[dict[str, Any]] = []
        self.timeline: list[dict[str, Any]] = []
        self.score_checks: list[dict[str, Any]] = []
        self.clock_moves = 0
        self.clock_seconds = 0.0
        self.days_played: list[date] = []
        self.wall: dict[str, float] = {}
        self.results: dict[str, Any] | None = None

    # =========================================================================== setup
    async def sign_in_organizer(self) -> None:
        r = await self.api.call("POST", "/sessions", "organizer", None,
                                {"email": self.target.organizer_email, "password": self.target.organizer_password})
        if not r.ok or r.json().get("role") != "organizer":
            raise SimulationError(f"organizer sign-in failed: {r.status} {r.body}")
        self.org_token = r.json()["token"]
        c = await self.api.call("GET", "/clock")
        if not c.ok:
            raise SimulationError(f"GET /clock failed: {c.status} {c.body}")
        self.now = datetime.fromisoformat(c.json()["now"])
        self.api.now = self.now
        if c.json()["season_state"] == "closed":
            raise SimulationError("the season on this stack is already closed")

    def make_bots(self) -> None:
        n = self.cfg.players
        main = max(_components(self.board), key=len)
        ids = sorted(main)
        weights = [math.sqrt(max(self.board.territories[t].population, 100)) for t in ids]
        homes: list[str] = []
        pool, w = list(ids), list(weights)
        while len(homes) < n:
            if not pool:
                pool, w = list(ids), list(weights)
            i = self.rng.choices(range(len(pool)), weights=w)[0]
            homes.append(pool.pop(i))
            w.pop(i)
        cheat_idx = set(self.rng.sample(range(n), self.cfg.n_cheaters()))
        kinds = itertools.cycle(["teleport", "replay"])
        styles = list(B.STYLES)
        for i, home in enumerate(homes):
            name = B.NAMES[i % len(B.NAMES)] + ("" if i < len(B.NAMES) else f" {i // len(B.NAMES) + 1}")
            rng = random.Random(f"bot:{self.cfg.seed}:{i}")
            bot = B.Bot(index=i, name=name, style=styles[i % len(styles)],
                        cheat=next(kinds) if i in cheat_idx else None, home=home,
                        speed_kmh=rng.uniform(28, 55), rng=rng)
            bot.area = [t for t in self.geo.within(home, B.HOME_KM)]
            bot.home_point = self.geo.fix_point(home, rng)
            bot.pos = bot.home_point
            self.bots.append(bot)

    async def register(self) -> None:
        async def one(bot: B.Bot) -> None:
            slug = "".join(ch for ch in bot.name.lower() if ch.isalnum())
            bot.email = f"{slug}.{self.run_tag}.{bot.index}@bots.turfwar.test"
            bot.password = f"bot-{self.run_tag}-{bot.index}-{secrets.token_hex(4)}"
            t = self.board.territories[bot.home]
            body = {"name": f"{bot.name} (bot)", "email": bot.email, "discord": f"{slug}{bot.index}_{self.run_tag}",
                    "home_address": f"{bot.rng.randint(1, 480)} Main Street, {t.name}, {t.state}",
                    "password": bot.password}
            r = await self.api.call_hashing("POST", "/players", bot.label, body)
            if r.status != 201:
                raise SimulationError(f"registering {bot.name} failed: {r.status} {r.body}")
            bot.id = r.json()["id"]
            if r.json().get("status") != "verified":
                v = await self.api.call("POST", f"/admin/players/{bot.id}/verify", "organizer", self.org_token,
                                        {"reason": "simulation bot, home inside the board"})
                if not v.ok:
                    raise SimulationError(f"verifying {bot.name} failed: {v.status} {v.body}")
            s = await self.api.call_hashing("POST", "/sessions", bot.label, {"email": bot.email,
                                                                             "password": bot.password})
            if not s.ok:
                raise SimulationError(f"signing in {bot.name} failed: {s.status} {s.body}")
            bot.token = s.json()["token"]

        await asyncio.gather(*(one(b) for b in self.bots))
        self.bots_by_id = {b.id: b for b in self.bots}

    # =========================================================================== the clock
    async def move_clock(self, at: datetime) -> None:
        if at <= self.now:
            return
        t0 = time.perf_counter()
        for attempt in range(2):   # a 503 means the services did not catch up within the gateway's wait
            r = await self.api.call("POST", "/admin/clock", "organizer", self.org_token, {"now": at.isoformat()})
            if r.status != 503:
                break
            self.say(f"[yellow]POST /admin/clock {at.isoformat()} answered 503 (attempt {attempt + 1})[/]")
        self.clock_seconds += time.perf_counter() - t0
        self.clock_moves += 1
        if r.status == 503:
            c = await self.api.call("GET", "/clock")
            raise ServerStuck(f"POST /api/v1/admin/clock {{\"now\": \"{at.isoformat()}\"}}", r.status, r.body,
                              c.body)
        if not r.ok:
            raise SimulationError(f"POST /admin/clock {at.isoformat()} failed: {r.status} {r.body}")
        self.now = at
        self.api.now = at

    def add_game_hours(self, t: datetime, hours: float) -> datetime:
        return gametime.add_game_hours(self.season, t, hours) or t + timedelta(hours=hours)

    def schedule(self, bot: B.Bot, at: datetime, kind: str, **data: Any) -> None:
        at = max(at, self.now + timedelta(minutes=1))
        ev = Event(at, next(self._seq), bot.index, kind, data)
        if at >= self.closes - timedelta(minutes=2):
            if kind in ("war_check", "trade_review"):
                self.deferred.append(ev)   # the first thing tomorrow
            return
        heapq.heappush(self.queue, ev)

    # =========================================================================== the season
    def days_to_play(self) -> list[date]:
        days = [d for d in gametime.game_days(self.season) if gametime.open_interval(self.season, d)[1] > self.now]
        return days[: self.cfg.days] if self.cfg.days is not None else days

    async def play_season(self, days: list[date], verify: Callable[[], list[str]] | None) -> None:
        for d in days:
            await self.play_day(d, verify)
        end = gametime.season_closes_at(self.season)
        if self.now < end:
            await self.move_clock(end)   # the rest of the season passes without play; R25 locks the results

    async def play_day(self, day: date, verify: Callable[[], list[str]] | None) -> None:
        cfg = self.season
        self.day = day
        self.day_number = gametime.game_day_number(cfg, day) or 0
        self.opens, self.closes = gametime.open_interval(cfg, day)
        self.next_day = gametime.next_game_day(cfg, day)
        self.progress.start_day(self.day_number, day)
        await self.move_clock(self.opens)
        self.world.new_day(day, gametime.previous_game_day(cfg, day))
        r = await self.api.call("GET", "/board", "public")
        if r.ok:
            self.world.sync(r.json())
        start = max(self.now, self.opens)
        for bot in self.bots:
            bot.new_day()
            if bot.cheat and (not self.days_played or self.rng.random() < 0.15):
                bot.cheat_days.add(day)
            self.schedule(bot, start + B.minutes(10, 200, bot.rng), "morning")
            self.schedule(bot, self.opens + timedelta(hours=13) + B.minutes(0, 135, bot.rng), "evening")
        for ev in self.deferred:
            self.schedule(self.bots[ev.bot], start + B.minutes(5, 60, self.bots[ev.bot].rng), ev.kind, **ev.data)
        self.deferred = []
        await self.snapshot()
        step = timedelta(minutes=self.cfg.slot_minutes)
        last_hour = self.now.hour
        while self.queue and self.queue[0].at < self.closes - timedelta(minutes=1):
            first = self.queue[0].at
            slot = self.opens + step * math.ceil((max(first, self.now) - self.opens) / step)
            slot = min(slot, self.closes - timedelta(minutes=1))
            batch: list[Event] = []
            while self.queue and self.queue[0].at <= slot:
                batch.append(heapq.heappop(self.queue))
            await self.move_clock(slot)
            await self.run_batch(batch)
            if self.now.hour != last_hour:
                last_hour = self.now.hour
                await self.snapshot()
            self.progress.advance((self.now - self.opens) / timedelta(minutes=1), self.day_info())
        leftovers, self.queue = self.queue, []
        self.deferred += [e for e in leftovers if e.kind in ("war_check", "trade_review")]
        await self.move_clock(self.closes)
        await self.snapshot()
        if verify is not None:
            diffs = await asyncio.to_thread(verify)
            self.score_checks.append({"after": day.isoformat(), "differences": diffs})
        self.days_played.append(day)
        self.progress.end_day(self.day_info())

    def day_info(self) -> str:
        today = [c for c in self.claims if c["day"] == self.day]
        ok = sum(1 for c in today if c["status"] == 201)
        plays = sum(1 for p in self.card_plays if p["day"] == self.day and p["status"] == 200)
        return f"claims {ok}/{len(today)} · cards {plays}"

    async def run_batch(self, batch: list[Event]) -> None:
        by_bot: dict[int, list[Event]] = defaultdict(list)
        for ev in batch:
            by_bot[ev.bot].append(ev)

        async def run(events: list[Event]) -> None:
            for ev in events:
                bot = self.bots[ev.bot]
                await B.HANDLERS[ev.kind](self, bot, self.now, **ev.data)  # type: ignore[operator]

        await asyncio.gather(*(run(evs) for evs in by_bot.values()))

    # =========================================================================== actions
    async def claim(self, bot: B.Bot, lat: float, lon: float, purpose: str, accuracy_m: float | None = None,
                    fix_age_s: float | None = None) -> Reply:
        acc = accuracy_m if accuracy_m is not None else round(bot.rng.uniform(5.0, 40.0), 1)
        age = fix_age_s if fix_age_s is not None else bot.rng.uniform(2.0, 25.0)
        body = {"lat": lat, "lon": lon, "accuracy_m": acc,
                "fix_time": (self.now - timedelta(seconds=age)).isoformat(timespec="milliseconds")}
        r = await self.api.call("POST", "/claims", bot.label, bot.token, body)
        bot.fixes.append((lat, lon, acc, self.now))
        loc = self.board.locate(lat, lon)
        self.claims.append({"at": self.now, "day": self.day, "bot": bot.index, "player_id": bot.id,
                            "purpose": purpose, "lat": lat, "lon": lon, "accuracy_m": acc,
                            "territory_id": loc.territory_id, "border_m": loc.border_distance_m,
                            "status": r.status, "reason": r.reason,
                            "kind": r.json().get("kind") if r.ok else None,
                            "claim_id": r.json().get("claim_id") if r.ok else None})
        return r

    async def play(self, bot: B.Bot, kind: str, **args: Any) -> Reply:
        body = {"type": kind, **args}
        r = await self.api.call("POST", "/cards/play", bot.label, bot.token, body)
        out = r.json() if r.ok else {}
        self.card_plays.append({"at": self.now, "day": self.day, "bot": bot.index, "player_id": bot.id,
                                "type": kind, "args": args, "status": r.status, "reason": r.reason,
                                "card_id": out.get("card_id"), "state": out.get("state"),
                                "effect": out.get("effect")})
        if r.ok:
            bot.spend(out.get("card_id"), kind, out.get("state", "consumed"))
            bot.stats["card:" + kind] += 1
            eff = out.get("effect") or {}
            if kind == "joker" and eff.get("territory_id"):
                self.world.set_owner(eff["territory_id"], bot.id, 1, False)
            elif kind == "double_trouble" and isinstance(eff.get("claims_left_today"), int):
                bot.allowance = bot.used + int(eff["claims_left_today"])
        return r

    def note_cancel(self, bot: B.Bot, card_id: str, r: Reply) -> None:
        self.cancels.append({"at": self.now, "bot": bot.index, "player_id": bot.id, "card_id": card_id,
                             "status": r.status, "reason": r.reason, "answer": r.body})

    def note_trade(self, bot: B.Bot, trade: dict[str, Any], r: Reply) -> None:
        self.trades.append({"at": self.now, "partner": bot.index, "trade": trade, "status": r.status,
                            "reason": r.reason})

    async def leaderboard(self) -> dict[str, Any]:
        if self._lb is not None and self._lb[0] == self.now:
            return self._lb[1]
        r = await self.api.call("GET", "/leaderboard", "public", log_body=False)
        body = r.json() if r.ok else {"standings": []}
        self._lb = (self.now, body)
        st = body.get("standings", [])
        self.leader_id = st[0]["player_id"] if st else None
        return body

    async def leader(self, exclude: str) -> str | None:
        for s in (await self.leaderboard()).get("standings", []):
            if s["player_id"] != exclude and s["total"] > 0:
                return str(s["player_id"])
        return None

    async def snapshot(self) -> None:
        body = await self.leaderboard()
        self.timeline.append({"at": self.now.isoformat(), "day": self.day_number,
                              "standings": {s["player_id"]: [s["base"], s["bonuses"], s["total"]]
                                            for s in body.get("standings", [])}})


def _components(board: Board) -> list[set[str]]:
    import networkx as nx

    return [set(c) for c in nx.connected_components(board.graph)]
