"""``turfwar simulate --mode team-turf | hill``: whole games of the turn-based modes played by bots in process,
on the pure rules (``turf_common.rules.teamturf``, ``.hill``) and the real board, from one seed, checking the
invariants after every turn or round. No stack: the modes' service and routes come later.

Invariants: Team Turf — troops conserved as T19 says, one team per town (T5), no troop off the field, a finished
game has winners; King of the Hill — ten rounds (K18), at most one holder who is a player, dice within 1…3 (K3),
the winner is the last holder.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from turf_common.board import Board, load_board
from turf_common.rules import hill, teamturf
from turf_common.rules.moderefusals import ModeRefused
from turf_common.rules.seeded import SeededSource, seed_commitment


@dataclass
class ModeRun:
    """What a simulated game did: ``lines`` to print, ``broken`` invariants (empty: all hold)."""

    mode: str
    seed: str
    commitment: str
    lines: list[str] = field(default_factory=list)
    broken: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.broken

    def check(self, ok: bool, what: str) -> None:
        if not ok:
            self.broken.append(what)


# --------------------------------------------------------------------------- Team Turf


def _bot_turn(s: teamturf.TeamTurfState, fld: teamturf.Field, bots: SeededSource) -> teamturf.TeamTurfState:
    """Each active player places their reserve on a frontier town, then attacks a hostile neighbour from every
    frontier town they stand in (keeping one troop home when they can) and moves the rest forward."""
    t = s.turn
    for p in sorted(s.active):
        team = s.team_of[p]
        if team in s.eliminated:
            continue
        mine = sorted(teamturf.towns_of(s, team)) or [h for tm, h in s.reserved_homes.items() if tm == team]
        frontier = [x for x in mine if any(teamturf.controller(s, n) != team for n in fld.adjacent[x])] or mine
        if s.reserve.get(p, 0) and frontier:
            s = teamturf.place(s, fld, p, bots.choice(f"{t}|{p}|place", frontier), s.reserve[p])
        for k, town in enumerate(sorted(teamturf.towns_of(s, team))):
            n = s.board.get(town, {}).get(p, 0)
            targets = sorted(x for x in fld.adjacent[town] if teamturf.controller(s, x) != team
                             and x not in s.reserved_homes.values())
            if n and targets:
                kind, dst, go = "attack", bots.choice(f"{t}|{p}|{k}", targets), max(1, n - 1)
            elif n:
                kind, dst, go = "move", bots.choice(f"{t}|{p}|{k}", sorted(fld.adjacent[town])), n
            else:
                continue
            try:
                s = teamturf.give_order(s, fld, teamturf.Order(f"{t}-{p}-{k}", p, kind, town, dst, go), t)  # type: ignore[arg-type]
            except ModeRefused as e:  # a move toward a town the team does not hold
                if e.code != "not_friendly":
                    raise
    return s


def run_team_turf(seed: str, teams: int = 3, players_per_team: int = 4, max_turns: int = 40,
                  board: Board | None = None) -> ModeRun:
    """Play one Team Turf game on the board's default field (T1) until a team holds it all (T21) or ``max_turns``
    pass (then the organizer ends it, T22)."""
    board = board or load_board()
    county = {t: f"{v.county}, {v.state}" for t, v in board.territories.items()}
    fld = teamturf.Field.from_graph(board.graph, county)
    src, bots = SeededSource(seed, "team-turf-sim"), SeededSource(seed, "team-turf-bots")
    run = ModeRun("team-turf", seed, seed_commitment(seed))
    names = [f"team{i + 1}" for i in range(teams)]
    s = teamturf.new_game("team-turf-sim", fld, names, src)
    for i in range(teams * players_per_team):
        s = teamturf.join(s, f"bot{i + 1:02d}", names[i % teams])
    killed = battles = 0
    while not s.finished and s.turn <= max_turns:
        s = _bot_turn(s, fld, bots)
        before = teamturf.total_troops(s)
        s, events = teamturf.resolve_turn(s, fld, src)
        ev = events[0]
        assert isinstance(ev, teamturf.TurnResolved)
        killed, battles = killed + ev.killed, battles + ev.battles
        after = teamturf.total_troops(s)
        run.check(after == before - ev.killed - ev.lost + sum(ev.reinforcements.values()),
                  f"T19 turn {ev.turn}: {before} → {after} troops, killed {ev.killed}, lost {ev.lost}")
        run.check(all(len({s.team_of[p] for p in tr}) == 1 and all(n > 0 for n in tr.values())
                      for tr in s.board.values()), f"T5 turn {ev.turn}: a town with two teams or no troop")
        run.check(set(s.board) <= fld.towns, f"T1 turn {ev.turn}: troops off the field")
        held = ", ".join(f"{t} {n}" for t, n in ev.controlled.items() if n)
        run.lines.append(f"turn {ev.turn:>3}: {ev.cards:>5} attack cards, {ev.battles:>5} battles, "
                         f"conquests {sum(len(c) for c in ev.conquests.values()):>3}; towns: {held}")
    if not s.finished:
        s, _ = teamturf.end_by_organizer(s)
    run.check(bool(s.winners), "T21/T22: a finished game has winners")
    run.lines.append(f"{s.turn - 1} turns on {len(fld.towns)} towns, {battles} battles ({killed} troops killed); "
                     f"winners: {', '.join(s.winners)}; seed {seed!r}, commitment {run.commitment}")
    return run


# --------------------------------------------------------------------------- King of the Hill


def run_hill(seed: str, players: int = 4, hill_town: str | None = None, board: Board | None = None) -> ModeRun:
    """Play one King of the Hill room of ``players`` bots, each choosing Attack more often with more dice."""
    board = board or load_board()
    town = hill_town or sorted(board.territories)[0]
    src, bots = SeededSource(seed, "hill-sim"), SeededSource(seed, "hill-bots")
    run = ModeRun("hill", seed, seed_commitment(seed))
    s = hill.open_room("hill-sim", town, [f"bot{i + 1}" for i in range(players)], board.territories)
    rounds = 0
    while not s.finished:
        for p in hill.choosers(s):
            attack = bots.below(f"{s.round}|{p}", 4) < s.dice[p] + 1
            s = hill.choose(s, p, s.round, "attack" if attack else "recruit")
        s, events = hill.resolve_round(s, src)
        rounds += 1
        ev = events[0]
        assert isinstance(ev, hill.RoundResolved)
        run.check(s.holder is None or s.holder in s.players, f"K13 round {ev.round}: the holder is no player")
        run.check(all(1 <= d <= 3 for d in s.dice.values()), f"K3 round {ev.round}: dice outside 1…3")
        powers = ", ".join(f"{p} {sum(r)}" for p, r in ev.rolls.items())
        run.lines.append(f"round {ev.round:>2}: attacks [{powers}] defence {ev.defence_power}; holder "
                         f"{ev.holder_before} → {ev.holder_after}; dice {dict(ev.dice_after)}")
    run.check(rounds == 10, f"K18: {rounds} rounds, not ten")
    run.check(s.winner == s.holder, "K18: the winner is not the last holder")
    run.lines.append(f"winner: {s.winner} on hill {board.territories[town].name}; seed {seed!r}, "
                     f"commitment {run.commitment}")
    return run
