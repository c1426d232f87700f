"""Replay a season's draws and Joker picks from the seed and the event log (``turfwar audit draws``).

Pure: takes the stream's events in order as ``(subject, payload)`` pairs and returns the mismatches of one season
(R31: each season has its own seed, hands and draw indices; the events of other seasons are left aside). It checks

* the seed (R12.1): its SHA-256 equals the commitment of every ``card.seed_committed`` / ``card.seed_revealed``
  (and one given, e.g. read from ``GET /clock`` before the season); the revealed seed is the one replayed from;
  a stream without ``card.seed_committed`` is a mismatch;
* every ``card.drawn``: its type is ``draw_card(seed, season, player, index)`` and each player's indices run
  0, 1, 2, … without a gap or a repeat;
* every day start's ``card.dealt``: it deals to exactly the players of the season verified before the
  ``clock.day_started`` event (R31: those who joined it, ``season.joined``; for the configuration file's season also
  every player verified before it closed, as seasons were not joined then), each hand it reports equals the hand
  replayed from the card events (drawn, adjusted, played, consumed), its draw counts follow R12 (Monday top-up to 3,
  otherwise 1), and the ``card.drawn`` events it owes all follow; a player verified while the season runs, or
  joining it verified while it runs, is topped up to 3;
* every Joker play (``card.played`` of type joker): the recorded pick replays from the entropy derived from the
  seed and the play id (tied cluster, then territory), the candidates are the unclaimed territories (of the picked
  cluster's edge) in the ownership replayed from ``territory.changed``, and its award is in the log.

The ownership replay assumes the claims service's decisions reach the stream in the order they were taken, which
holds for one claims instance without concurrent changes between a Joker's read and its commit.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import networkx as nx

from turf_common.contracts import subjects
from turf_common.rules import cards as rules
from turf_common.rules import gametime


@dataclass
class AuditReport:
    seed_source: str
    draws: int = 0
    deals: int = 0
    jokers: int = 0
    mismatches: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches


def season_config(events: Iterable[tuple[str, dict[str, Any]]], season_id: str) -> gametime.SeasonConfig | None:
    """The configuration of ``season_id`` as the organizer last announced it in the stream (``season.created`` /
    ``season.updated``, R31), or None."""
    found = None
    for subject, e in events:
        if subject in (subjects.SEASON_CREATED, subjects.SEASON_UPDATED) and e.get("season_id") == season_id:
            found = gametime.SeasonConfig.from_dict(e["config"])
    return found


def _of(e: dict[str, Any], season: str) -> bool:
    return e.get("season_id") == season


def audit_draws(events: Iterable[tuple[str, dict[str, Any]]], cfg: gametime.SeasonConfig,
                graph: nx.Graph | None = None, territories: Iterable[str] = (),
                seed: str | None = None, commitment: str | None = None, *,
                file_season: bool = True) -> AuditReport:
    """``cfg``: the season audited; ``seed``: the seed to replay from (default: the one ``card.seed_revealed`` of
    the season carries); ``commitment``: a commitment seen published earlier (``GET /clock``'s ``seed_commitment``,
    hex SHA-256) the seed must match too; ``file_season``: the season is the configuration file's (its players
    were verified before seasons were joined: a verification before its close joins it)."""
    season = cfg.season_id
    evs = list(events)
    revealed = [e for s, e in evs if s == subjects.CARD_SEED_REVEALED and _of(e, season)]
    source = "given"
    if seed is None:
        if not revealed:
            return AuditReport("none", mismatches=["the seed was not revealed (no card.seed_revealed) and none given"])
        seed, source = revealed[-1]["seed"], "card.seed_revealed"
    rep = AuditReport(source)
    bad = rep.mismatches
    digest = rules.seed_commitment(seed)
    # R12.1: the seed replayed from is the one committed to before the first draw, or nothing below means anything
    if not any(s == subjects.CARD_SEED_COMMITTED and _of(e, season) for s, e in evs):
        bad.append("no card.seed_committed in the stream: the seed cannot be checked against a commitment")
    if commitment is not None and commitment.lower() != digest:
        bad.append(f"the seed (from {source}) does not match the given commitment: its SHA-256 is {digest}, the "
                   f"commitment {commitment.lower()}")
    for e in revealed:
        if e["seed"] != seed:
            bad.append(f"card.seed_revealed reveals another seed than the one from {source} (SHA-256 "
                       f"{rules.seed_commitment(e['seed'])}, not {digest})")

    verified: set[str] = set()                    # accounts verified and not disqualified (shared by all seasons)
    joined: set[str] = set()                      # the season's players (R31)
    closes = gametime.season_closes_at(cfg)
    snapshot: dict[str, set[str]] = {}            # game day → the season's verified players at its day start
    unused: dict[str, int] = defaultdict(int)
    next_index: dict[str, int] = defaultdict(int)
    owed: dict[tuple[str, str], int] = defaultdict(int)
    owners: dict[str, str | None] = {t: None for t in territories}
    joker_award_state: dict[tuple[str, str], dict[str, str | None]] = {}
    dealt_days: set[str] = set()
    known: set[str] = set()                       # accounts verified or disqualified (a repeat changes nothing)
    board_ended = False                           # after the season's end: later changes are another board's

    def top_up(pid: str, at: datetime) -> None:
        owed[(pid, "verification")] += rules.verification_draws(cfg, at, unused[pid])

    for subject, e in evs:
        if subject.startswith(("card.", "clock.", "season.")) and "season_id" in e and not _of(e, season):
            continue   # another season's
        if subject in (subjects.CARD_SEED_COMMITTED, subjects.CARD_SEED_REVEALED):
            if e["commitment"] != digest:
                bad.append(f"{subject}: the seed (from {source}) does not match the commitment published at "
                           f"{e.get('occurred_at', '?')}: its SHA-256 is {digest}, the commitment {e['commitment']}")
        elif subject == subjects.PLAYER_VERIFIED:
            pid, at = e["player_id"], datetime.fromisoformat(e["at"])
            if pid not in known:
                known.add(pid)
                verified.add(pid)
                if file_season and at < closes:
                    joined.add(pid)
                if pid in joined:
                    top_up(pid, at)
        elif subject == subjects.SEASON_JOINED:
            pid = e["player_id"]
            if pid not in joined:
                joined.add(pid)
                if pid in verified:
                    top_up(pid, datetime.fromisoformat(e["occurred_at"]))
        elif subject == subjects.PLAYER_DISQUALIFIED:
            known.add(e["player_id"])
            verified.discard(e["player_id"])
        elif subject == subjects.CLOCK_SEASON_STARTED:
            owners = dict.fromkeys(owners)        # R31: the season's board starts empty
        elif subject == subjects.CLOCK_SEASON_ENDED:
            board_ended = True
        elif subject == subjects.CLOCK_DAY_STARTED:
            snapshot[e["game_day"]] = verified & joined
        elif subject == subjects.CARD_DEALT:
            day = e["game_day"]
            dealt_days.add(day)
            rep.deals += 1
            expected_players = snapshot.get(day)
            if expected_players is None:
                bad.append(f"card.dealt {day}: no clock.day_started before it")
            elif set(e["hands"]) != expected_players:
                bad.append(f"card.dealt {day}: dealt to {sorted(e['hands'])}, verified {sorted(expected_players)}")
            d = datetime.fromisoformat(day).date()
            for pid, held in e["hands"].items():
                if held != unused[pid]:
                    bad.append(f"card.dealt {day}: {pid} held {held} unused cards, the replay says {unused[pid]}")
                want = rules.day_start_draws(cfg, d, held)
                if e["draws"].get(pid) != want:
                    bad.append(f"card.dealt {day}: {pid} drew {e['draws'].get(pid)}, R12 says {want}")
                owed[(pid, "day")] += e["draws"].get(pid, 0)
        elif subject == subjects.CARD_DRAWN:
            rep.draws += 1
            pid, i = e["player_id"], e["draw_index"]
            if i != next_index[pid]:
                bad.append(f"card.drawn {pid}: index {i}, expected {next_index[pid]}")
            next_index[pid] = max(next_index[pid], i + 1)
            want_type = rules.draw_card(seed, season, pid, i)
            if e["card_type"] != want_type:
                bad.append(f"card.drawn {pid} #{i}: {e['card_type']}, the seed gives {want_type}")
            kind = "verification" if e["reason"] == "verification" else "day"
            owed[(pid, kind)] -= 1
            if owed[(pid, kind)] < 0:
                bad.append(f"card.drawn {pid} #{i}: a {e['reason']} draw nobody owed")
                owed[(pid, kind)] = 0
            unused[pid] += 1
        elif subject == subjects.CARD_ADJUSTED:
            unused[e["player_id"]] += len(e["added"]) - len(e["removed"])
        elif subject == subjects.CARD_PLAYED:
            if e["state"] == "consumed":
                unused[e["player_id"]] -= 1
            if e["card_type"] == "joker":
                rep.jokers += 1
                _check_joker(e, seed, season, graph, joker_award_state, bad)
        elif subject == subjects.CARD_CONSUMED:
            unused[e["player_id"]] -= 1
        elif subject == subjects.TERRITORY_CHANGED and not board_ended:
            if e["cause"] == "joker" and owners:
                joker_award_state[(e["territory_id"], e["owner_id"])] = dict(owners)
            owners[e["territory_id"]] = e["owner_id"]

    for (pid, kind), n in owed.items():
        if n > 0:
            bad.append(f"{pid}: {n} {kind} draw(s) owed by R12 never happened")
    for day in snapshot:
        if day not in dealt_days:
            bad.append(f"clock.day_started {day}: no card.dealt")
    return rep


def _check_joker(e: dict[str, Any], seed: str, season: str, graph: nx.Graph | None,
                 before_award: dict[tuple[str, str], dict[str, str | None]], bad: list[str]) -> None:
    pick = e.get("joker") or {}
    pid, play = e["player_id"], e["play_id"]
    entropy = rules.joker_entropy(seed, season, pid, play)
    choice = rules.JokerChoice(pick.get("mode", "random"), pick.get("territory_id"), list(pick.get("candidates", [])),
                               [list(c) for c in pick.get("clusters", [])], pick.get("cluster_index"))
    for m in rules.replay_joker(choice, entropy):
        bad.append(f"joker {play} of {pid}: {m}")
    if choice.territory_id is None:
        bad.append(f"joker {play} of {pid}: consumed without an award")
        return
    owners = before_award.get((choice.territory_id, pid))
    if owners is None:
        bad.append(f"joker {play} of {pid}: no territory.changed awarding {choice.territory_id}")
        return
    if graph is not None:
        replayed = rules.joker_pick(graph, owners, pid, choice.mode, entropy)
        if (replayed.territory_id, replayed.candidates, replayed.clusters) != \
                (choice.territory_id, choice.candidates, choice.clusters):
            bad.append(f"joker {play} of {pid}: the ownership replay picks {replayed.territory_id} from "
                       f"{len(replayed.candidates)} candidates, the log says {choice.territory_id} from "
                       f"{len(choice.candidates)}")
