"""One simulated season from start to report: stack, bots, days, results, invariants, files."""

from __future__ import annotations

import asyncio
import io
import json
import shutil
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from turf_common.board import Board, load_board
from turfwar.simulate import invariants as inv
from turfwar.simulate import report
from turfwar.simulate.api import Api
from turfwar.simulate.config import SimConfig
from turfwar.simulate.engine import DayProgress, Season, ServerStuck
from turfwar.simulate.eventlog import dump, read_stream
from turfwar.simulate.target import Target, stack_target

FILES = {"results_json": "results.json", "results_txt": "results.txt", "map": "season_map.png",
         "standings": "standings.png", "events": "events.jsonl", "actions": "actions.jsonl"}


@dataclass
class Outcome:
    ok: bool
    checks: list[inv.Check]
    files: dict[str, Path]
    wall_seconds: float
    summary: dict[str, Any] = field(default_factory=dict)


class RichDays(DayProgress):
    """A progress bar per game day: the game clock from 06:00 to 22:00."""

    def __init__(self, console: Console) -> None:
        self.p = Progress(TextColumn("{task.description}"), BarColumn(bar_width=36), TextColumn("{task.fields[clock]}"),
                          TextColumn("{task.fields[info]}"), TimeElapsedColumn(), console=console)
        self.task: Any = None

    def __enter__(self) -> RichDays:
        self.p.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.p.stop()

    def start_day(self, number: int, day: date) -> None:
        self.task = self.p.add_task(f"day {number:>2} {day.strftime('%a %d %b')}", total=16 * 60,
                                    clock="06:00", info="")

    def advance(self, minutes_done: float, info: str) -> None:
        h, m = divmod(int(minutes_done) + 6 * 60, 60)
        self.p.update(self.task, completed=minutes_done, clock=f"{h:02d}:{m:02d}", info=info)

    def end_day(self, info: str) -> None:
        self.p.update(self.task, completed=16 * 60, clock="22:00", info=info)


def run(cfg: SimConfig, console: Console | None = None) -> Outcome:
    console = console or Console()
    t0 = time.perf_counter()
    cfg.out.mkdir(parents=True, exist_ok=True)
    board = load_board()
    with stack_target(cfg, say=console.print) as target:
        started = time.perf_counter()
        outcome = asyncio.run(_season(cfg, target, board, console, t0))
        if not outcome.ok and target.logs_dir is not None and target.logs_dir.is_dir():
            shutil.copytree(target.logs_dir, cfg.out / "stack-logs", dirs_exist_ok=True)
            outcome.files["stack_logs"] = cfg.out / "stack-logs"
        outcome.summary["wall"]["stack_start_s"] = round(started - t0, 1)
    outcome.wall_seconds = time.perf_counter() - t0
    outcome.summary["wall"]["total_s"] = round(outcome.wall_seconds, 1)
    _write_json(outcome.files["results_json"], outcome.summary)
    return outcome


async def _season(cfg: SimConfig, target: Target, board: Board, console: Console, t0: float) -> Outcome:
    from turfwar.verify import differences

    files = {k: cfg.out / v for k, v in FILES.items()}
    api = Api(target.base_url, cfg.concurrency, files["actions"])
    progress = RichDays(console) if cfg.progress else None
    s = Season(cfg, target, board, api, progress, say=console.print)
    wall: dict[str, float] = {}
    try:
        await s.sign_in_organizer()
        s.make_bots()
        t = time.perf_counter()
        await s.register()
        wall["register_s"] = round(time.perf_counter() - t, 1)
        days = s.days_to_play()
        console.print(f"{len(s.bots)} bots registered and verified ({sum(1 for b in s.bots if b.cheat)} cheaters); "
                      f"playing {len(days)} game day{'s' if len(days) != 1 else ''} from {s.now:%a %d %b %H:%M}")
        db, nats_url, stream = target.database_url, target.nats_url, target.stream
        verify = (lambda: differences(board, db, nats_url, stream)) if db and nats_url else None
        t = time.perf_counter()
        stuck: dict[str, Any] | None = None
        try:
            if progress is not None:
                with progress:
                    await s.play_season(days, verify)
            else:
                await s.play_season(days, verify)
        except ServerStuck as e:   # report what happened up to here, then fail
            console.print(f"[bold red]the stack stopped making progress:[/] {e}")
            stuck = {"request": e.request, "status": e.status, "answer": e.answer, "clock": e.clock}
            verify = None
        wall["season_s"] = round(time.perf_counter() - t, 1)
        results = None
        for _ in range(10):
            r = await api.call("GET", "/results", "public")
            if r.ok:
                results = r.json()
                break
            await asyncio.sleep(0.5)
        s._lb = None
        final_lb = await s.leaderboard()
        await s.snapshot()
        r = await api.call("GET", "/board", "public")
        if r.ok:
            s.world.sync(r.json())
        final_diffs = await asyncio.to_thread(verify) if verify is not None else None
        fr = await api.call("GET", "/admin/flags", "organizer", s.org_token)
        flag_list: list[dict[str, Any]] = fr.json().get("flags", []) if fr.ok else []
        hands: dict[str, list[str]] = {}
        for b in s.bots:
            h = await api.call("GET", "/me/hand", b.label, b.token)
            if h.ok:
                hands[b.id] = [c["id"] for c in h.json().get("cards", [])]
        medals = await _medals(api, s)
        events = await read_stream(nats_url, stream) if nats_url else []
        dump(events, files["events"])
    finally:
        await api.close()
    checks = [
        inv.scores(final_diffs, s.score_checks),
        inv.one_owner(events, s.world.owners) if events else inv.Check("one_owner", False, "no event log"),
        inv.refusals(api.problems, events, api.refusals),
        inv.flags(flag_list, s.bots),
        inv.plausible(s.claims, s.bots),
        inv.cards(events, s.card_plays, hands, s.bots) if events else inv.Check("cards", False, "no event log"),
        inv.results(results, final_lb),
        inv.server_health(stuck, inv.scan_logs(target.logs_dir) if target.logs_dir else [], api.refusals,
                          target.logs_dir is not None),
    ]
    summary = _summary(cfg, s, results, flag_list, checks, api, wall, events)
    summary["medals"] = medals
    rows = summary["standings"]
    names = {b.id: b.name for b in s.bots}
    order = [r["player_id"] for r in rows]
    cols = report.colours(order)
    n_days = len(s.days_played)
    tag = f"{len(s.bots)} bots, seed {cfg.seed}, {n_days} game day{'s' if n_days != 1 else ''} played"
    places = {r["player_id"]: r["place"] for r in rows}
    report.season_map(files["map"], board, s.world.owners, s.world.fortified, names, order, cols,
                      f"Turf War 2026, simulated ({tag}): final owners", places)
    report.standings_plot(files["standings"], s.timeline, names, order, cols,
                          f"Turf War 2026, simulated ({tag}): standings over time", places,
                          played_until=s.closes if s.days_played else None)
    rec = Console(record=True, width=170, file=io.StringIO())
    rec.print(report.results_table(rows, f"Final results — {tag}"))
    for c in checks:
        rec.print(f"{'PASS' if c.ok else 'FAIL'}  {c.name}: {c.summary}")
        for d in c.details[:20]:
            rec.print(f"      {d}")
    files["results_txt"].write_text(rec.export_text())
    return Outcome(all(c.ok for c in checks), checks, files, time.perf_counter() - t0, summary)


async def _medals(api: Api, s: Season) -> dict[str, dict[str, int]]:
    """Each bot's medal values as the server's public route tells them (a test recomputes them from the log)."""
    out = {}
    for b in s.bots:
        r = await api.call("GET", f"/players/{b.id}/medals", "public")
        if r.ok:
            out[b.id] = {m["id"]: m["value"] for m in r.json()["medals"]}
    return out


def _summary(cfg: SimConfig, s: Season, results: dict[str, Any] | None, flag_list: list[dict[str, Any]],
             checks: list[inv.Check], api: Api, wall: dict[str, float], events: list[dict[str, Any]]) -> dict[str, Any]:
    by_id = s.bots_by_id
    flags_by: dict[str, Counter[str]] = {}
    for f in flag_list:
        flags_by.setdefault(f["player_id"], Counter())[f["kind"]] += 1
    rows = []
    for st in (results or {}).get("standings", []):
        b = by_id.get(st["player_id"])
        if b is None:
            continue
        rows.append({"place": st["place"], "player_id": b.id, "name": b.name, "display_name": st["display_name"],
                     "style": b.style, "cheat": b.cheat, "home": s.board.territories[b.home].name,
                     "base": st["base"], "bonuses": st["bonuses"], "total": st["total"], "prize": st["prize"],
                     "territories": sum(1 for o in s.world.owners.values() if o == b.id),
                     "claims": b.stats["claims"], "steals": b.stats["steal"], "refused": b.stats["refused"],
                     "cards_played": sum(n for k, n in b.stats.items() if k.startswith("card:")),
                     "cards": {k[5:]: n for k, n in b.stats.items() if k.startswith("card:")},
                     "flags": dict(flags_by.get(b.id, {})), "cheats": b.cheated})
    ranked = {r["player_id"] for r in rows}
    for b in s.bots:   # players with nothing at the close are not placed
        if b.id not in ranked:
            rows.append({"place": len(s.bots), "player_id": b.id, "name": b.name, "display_name": "", "style": b.style,
                         "cheat": b.cheat, "home": s.board.territories[b.home].name, "base": 0, "bonuses": 0,
                         "total": 0, "prize": "0.00", "territories": 0, "claims": b.stats["claims"],
                         "steals": b.stats["steal"], "refused": b.stats["refused"],
                         "cards_played": sum(n for k, n in b.stats.items() if k.startswith("card:")),
                         "cards": {k[5:]: n for k, n in b.stats.items() if k.startswith("card:")},
                         "flags": dict(flags_by.get(b.id, {})), "cheats": b.cheated})
    plays = Counter((p["type"], "ok" if p["status"] == 200 else (p["reason"] or str(p["status"])))
                    for p in s.card_plays)
    claims = Counter(c["kind"] or c["reason"] or str(c["status"]) for c in s.claims)
    return {
        "config": {"players": cfg.players, "seed": cfg.seed, "days": cfg.days, "cheaters": cfg.n_cheaters(),
                   "slot_minutes": cfg.slot_minutes, "concurrency": cfg.concurrency,
                   "stack": "started here" if s.target.started_here else s.target.base_url},
        "days_played": [d.isoformat() for d in s.days_played],
        "ok": all(c.ok for c in checks),
        "invariants": [c.as_dict() for c in checks],
        "results": results,
        "standings": rows,
        "claims": dict(claims),
        "card_plays": {f"{k} {r}": n for (k, r), n in sorted(plays.items())},
        "cancels": [{"status": c["status"], "reason": c["reason"]} for c in s.cancels],
        "trades_accepted": sum(1 for t in s.trades if t["status"] == 200),
        "requests": {"total": api.calls, "by_route": dict(api.by_route.most_common()),
                     "refusals": dict(api.refusals.most_common()), "problems": api.problems[:100]},
        "clock": {"moves": s.clock_moves, "seconds": round(s.clock_seconds, 1)},
        "events": {"total": len(events), "by_subject": dict(Counter(e["subject"] for e in events).most_common())},
        "world_drift": s.world.drift[:50],
        "wall": wall,
        "generated": datetime.now().astimezone().isoformat(timespec="seconds"),
    }


def _write_json(path: Path, body: dict[str, Any]) -> None:
    path.write_text(json.dumps(body, indent=1, default=str) + "\n")
