"""``turfwar simulate --mode yard-cards``: whole yard card games (docs/rules/yard-cards.md) played by bots in
process on the pure rules (``turf_common.rules.yard``), checking after every move that every card is in exactly one
zone and no piggy bank is negative, and at the end that the game ended, that the VP announced equal the VP counted
again here from the final table, and that the seed and the moves replay the game (Y5). Many games make a balance
report: wins by seat, game length, cards never bought.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from turf_common.rules import yard
from turf_common.rules.seeded import SeededSource, seed_commitment
from turf_common.rules.yardcatalogue import Catalogue, starter
from turf_common.rules.yardstate import Seat, YardRefused, YardState, active, card_of, count_in_yard
from turf_common.rules.yardview import zones
from turfwar.simulate.modes import ModeRun

Move = yard.Start | yard.End | yard.ChooseSide | yard.Work | yard.Buy | yard.Play | yard.Sway | yard.Idle
MAX_MOVES = 5000  # far beyond the round cap (Y23): reaching it means the game does not end


def _try(s: YardState, cat: Catalogue, m: Move) -> YardState | None:
    try:
        return yard.apply(s, cat, m)[0]
    except YardRefused:
        return None


def _can_sway(s: YardState, cat: Catalogue, me: Seat) -> bool:
    """Some neighbour of the row whose criteria and money bribe the bot meets now (Y19)."""
    for n in s.row:
        hood = card_of(s, cat, n)
        if all(count_in_yard(s, cat, me, r.kind, r.card, r.grass) >= r.count for r in hood.criteria) and (
                hood.bribe is None or (hood.bribe.money <= me.money and hood.bribe.trash is None)):
            return True
    return False


def _sways(s: YardState, cat: Catalogue, me: Seat) -> list[Move]:
    return [yard.Sway(player=me.player, neighbour=n) for n in s.row]


def _plays(s: YardState, cat: Catalogue, me: Seat, rng: random.Random) -> list[Move]:
    """Pests onto an AWAY rival's yard, the rest onto one's own; tools onto a DIRT pile first."""
    out: list[Move] = []
    for c in me.hand:
        card = card_of(s, cat, c)
        if card.kind == "pest":
            for rival in (r for r in active(s) if r is not me and r.side == "away"):
                out += [yard.Play(player=me.player, card=c, pile=rng.randrange(9), owner=rival.player)]
            continue
        piles = sorted(range(9), key=lambda i: (me.yard[i].grass, len(me.yard[i].cards))) \
            if card.kind == "tool" else sorted(range(9), key=lambda i: -int(me.yard[i].grass))
        out += [yard.Play(player=me.player, card=c, pile=i) for i in piles]
    return out


def _buys(s: YardState, cat: Catalogue, me: Seat, rng: random.Random) -> list[Move]:
    """The dearest affordable cards first (VP, then cost), a random one now and then."""
    ranked = sorted(s.store, key=lambda c: (card_of(s, cat, c).vp, card_of(s, cat, c).cost), reverse=True)
    if rng.random() < 0.3:
        rng.shuffle(ranked)
    out: list[Move] = []
    if s.turn.extra_buys and len(ranked) >= 2:
        out.append(yard.Buy(player=me.player, cards=tuple(ranked[:2])))
    return out + [yard.Buy(player=me.player, cards=(c,)) for c in ranked]


def bot_move(s: YardState, cat: Catalogue, rng: random.Random) -> Move:
    """One legal move of the player whose turn it is (an idle now and then, Y25)."""
    me = s.seats[s.current]
    p = me.player
    step = s.turn.step
    if rng.random() < 0.01:
        return yard.Idle(player=p)
    if step == "start":
        return yard.Start(player=p)
    if step == "side":
        home = ((bool(me.hand) and rng.random() < 0.7) or (me.side == "away" and bool(me.garage))
                or _can_sway(s, cat, me))
        return yard.ChooseSide(player=p, side="home" if home else "away")
    options: list[Move] = []
    if me.side == "away":
        if "work" not in s.turn.done:
            options.append(yard.Work(player=p))
        if "buy" not in s.turn.done:
            options += _buys(s, cat, me, rng)
    else:
        if "sway" not in s.turn.done:
            options += _sways(s, cat, me)
        if "play" not in s.turn.done:
            options += _plays(s, cat, me, rng)
    for m in options:
        if _try(s, cat, m) is not None:
            return m
    return yard.End(player=p)


def _vp_again(s: YardState, cat: Catalogue, seat: Seat) -> int:
    """The VP counted from the final table without the rules' own scorer (an independent check of Y24)."""
    cards = [c for pile in seat.yard for c in pile.cards]
    kinds: Counter[str | None] = Counter(card_of(s, cat, c).kind for c in cards)
    vp = sum(card_of(s, cat, c).vp for c in cards) + sum(card_of(s, cat, n).vp for n in seat.sway)
    for c in cards:
        for a in card_of(s, cat, c).actions:
            e = a.effect
            if e.do == "score_per":
                vp += e.vp * (sum(p.grass for p in seat.yard) if e.grass else kinds[e.kind])
    return vp


@dataclass
class GameResult:
    players: int
    rounds: int
    moves: int
    winners: list[str]
    seats: list[str]
    bought: Counter[str] = field(default_factory=Counter)


def play_one(seed: str, players: int, cat: Catalogue, run: ModeRun) -> GameResult:
    room = f"yard-sim-{players}-{seed}"
    names = [f"bot{i + 1}" for i in range(players)]
    s, events = yard.open_game(room, names, cat, SeededSource(seed, room))
    rng = random.Random(f"{seed}|bots")
    moves: list[Move] = []
    bought: Counter[str] = Counter()
    every = sorted(s.cards)
    while not s.finished and len(moves) < MAX_MOVES:
        m = bot_move(s, cat, rng)
        s, more = yard.apply(s, cat, m)
        moves.append(m)
        events += more
        for ev in more:
            ids = ev.data.get("ids")
            if ev.kind == "bought" and isinstance(ids, list):
                bought.update(ids)
        placed = sorted(c for cs in zones(s).values() for c in cs)
        run.check(placed == every, f"{room} move {len(moves)}: cards not conserved across the zones")
        run.check(all(seat.money >= 0 for seat in s.seats), f"{room} move {len(moves)}: negative money")
    run.check(s.finished, f"{room}: the game did not end in {MAX_MOVES} moves (Y23)")
    ended = [e for e in events if e.kind == "game.ended"]
    if ended:
        scores = ended[-1].data["scores"]
        again = {seat.player: _vp_again(s, cat, seat) for seat in active(s)}
        run.check(scores == again, f"{room}: VP announced {scores} ≠ recounted {again}")
    replayed, _ = yard.replay(room, names, cat, seed, moves)
    run.check(replayed == s, f"{room}: the seed and the moves do not replay the game (Y5)")
    order = [s.seats[(s.first_seat + k) % players].player for k in range(players)]
    return GameResult(players, s.round, len(moves), list(s.winners), order, bought)


def run_yard(seed: str, players: int | None = None, games: int = 1, cat: Catalogue | None = None) -> ModeRun:
    """``games`` games for each player count (2–5, or only ``players``), then the balance report."""
    cat = cat or starter()
    run = ModeRun("yard-cards", seed, seed_commitment(seed))
    counts = [players] if players else [2, 3, 4, 5]
    results = [play_one(f"{seed}-{g}", n, cat, run) for n in counts for g in range(games)]
    run.lines += report(results, cat)
    return run


def report(results: list[GameResult], cat: Catalogue) -> list[str]:
    """Wins by seat (in turn order from the first player), game length, the cards nobody bought."""
    lines = [f"catalogue {cat.name} {cat.version}: {len(results)} games"]
    for n in sorted({r.players for r in results}):
        rs = [r for r in results if r.players == n]
        wins = Counter(r.seats.index(w) + 1 for r in rs for w in r.winners)
        seats = ", ".join(f"seat {k} {100 * wins[k] / len(rs):.0f}%" for k in range(1, n + 1))
        rounds = sorted(r.rounds for r in rs)
        capped = sum(r.rounds > 40 for r in rs)
        lines.append(f"{n} players, {len(rs)} games: wins {seats}; rounds median {rounds[len(rounds) // 2]} "
                     f"(min {rounds[0]}, max {rounds[-1]}, {capped} at the cap)")
    bought: Counter[str] = Counter()
    for r in results:
        bought.update(r.bought)
    never = [c.id for c in cat.store_cards() if c.kind != "event" and not bought[c.id]]
    lines.append(f"cards never bought: {', '.join(never) or 'none'}")
    lines.append("most bought: " + ", ".join(f"{c} {n}" for c, n in bought.most_common(5)))
    return lines
