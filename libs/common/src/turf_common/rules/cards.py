"""Action cards as pure rules (R12–R20): hands and seeded draws, War, Freeze, Blockade, Double Trouble, Trade,
Mulligan and Joker.

Everything here takes state and the game instant as arguments and returns a decision; nothing reads a clock, a
database or the bus. The cards service keeps hands and runs the sagas; the claims service owns the territory
state the effects change and calls the ownership rules below under its row locks.

Randomness
----------
One seeded generator per season (``TURF_SEED``), derived per use with HMAC-SHA256 so every draw can be replayed
exactly, whatever order the draws happened in:

* the ``i``-th card a player ever draws in a season is ``draw_card(seed, season_id, player_id, i)``;
* a Joker play gets ``joker_entropy(seed, season_id, player_id, play_id)``; the claims service picks the tied
  cluster and the territory from that entropy and the sorted candidates (:func:`joker_pick`).

``seed_commitment(seed)`` (SHA-256 of the seed) is published at season start; the seed itself at season end.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Literal, get_args

import networkx as nx

from turf_common.rules import gametime
from turf_common.rules.claims import Fortification
from turf_common.rules.refusals import Refused, refuse

CardType = Literal["freeze", "blockade", "war", "double_trouble", "trade", "mulligan", "joker"]
#: the draw pool, in a fixed order (the order is part of the draw algorithm: do not reorder)
CARD_TYPES: tuple[CardType, ...] = get_args(CardType)
JokerMode = Literal["random", "cluster_edge"]
ProtectionKind = Literal["freeze", "blockade"]

HAND_TOP_UP = 3            # R12: Monday top-up target
WAR_PLAY_HOURS = 5.0       # R14: the victim's window, in game hours after the steal
WAR_RECLAIM_HOURS = 16.0   # R14: the attacker's exclusive reclaim window, in game hours


# --------------------------------------------------------------------------- seeded generator (R12, R20)


def seed_commitment(seed: str) -> str:
    """SHA-256 (hex) of the season's seed, published before the first draw and checked against the seed
    revealed at season end."""
    return hashlib.sha256(seed.encode()).hexdigest()


def _uniform(key: bytes, label: str, n: int) -> int:
    """An integer uniform in ``[0, n)`` from HMAC-SHA256(key, label), by rejection sampling over 64-bit
    blocks (so there is no modulo bias)."""
    if n <= 0:
        raise ValueError(f"n must be positive, got {n}")
    limit = (2**64 // n) * n
    counter = 0
    while True:
        digest = hmac.new(key, f"{label}#{counter}".encode(), hashlib.sha256).digest()
        for i in range(0, 32, 8):
            x = int.from_bytes(digest[i:i + 8], "big")
            if x < limit:
                return x % n
        counter += 1


def draw_card(seed: str, season_id: str, player_id: str, index: int) -> CardType:
    """R12: the ``index``-th (0-based) card the player draws this season, uniform over the seven types."""
    if index < 0:
        raise ValueError("draw index must be >= 0")
    return CARD_TYPES[_uniform(seed.encode(), f"{season_id}|draw|{player_id}|{index}", len(CARD_TYPES))]


def joker_entropy(seed: str, season_id: str, player_id: str, play_id: str) -> str:
    """R20: the random input of one Joker play (hex); the pick itself is :func:`joker_pick`."""
    return hmac.new(seed.encode(), f"{season_id}|joker|{player_id}|{play_id}".encode(), hashlib.sha256).hexdigest()


def pick_index(entropy: str, label: str, n: int) -> int:
    """Uniform index in ``[0, n)`` derived from ``entropy`` for the step named ``label``."""
    return _uniform(bytes.fromhex(entropy), label, n)


# --------------------------------------------------------------------------- hands (R12)


def is_week_start(cfg: gametime.SeasonConfig, day: date) -> bool:
    """The first game day of its calendar week (Monday in 2026): the top-up day of R12."""
    prev = gametime.previous_game_day(cfg, day)
    return prev is None or gametime.game_week_number(cfg, prev) != gametime.game_week_number(cfg, day)


def day_start_draws(cfg: gametime.SeasonConfig, day: date, unused: int) -> int:
    """R12 at the day start of game day ``day``: Monday tops a hand of ``unused`` cards (ready + reserved) up to 3;
    Tuesday–Saturday add 1. No hand limit."""
    if is_week_start(cfg, day):
        return max(0, HAND_TOP_UP - unused)
    return 1


def verification_draws(cfg: gametime.SeasonConfig, at: datetime, unused: int) -> int:
    """R12: a player verified while the season runs gets the Monday top-up at verification; before the season
    the first day start tops them up, after it nothing is drawn."""
    if gametime.season_state(cfg, at) != "running":
        return 0
    return max(0, HAND_TOP_UP - unused)


# --------------------------------------------------------------------------- War (R14)


@dataclass(frozen=True)
class TakeRecord:
    """How the current owner got the territory: the latest claim of it by its owner that still stands."""

    claim_id: str
    kind: Literal["take", "steal", "reinforce", "war_reclaim"]
    player_id: str                 # the claimant (the attacker of a steal)
    previous_owner_id: str | None  # the victim of a steal
    at: datetime
    undone: bool = False           # undone by Mulligan, reversed by War or a correction
    fort_before: Fortification = field(default_factory=Fortification)


@dataclass(frozen=True)
class WarOutcome:
    """R14: ``territory`` returns to the victim with ``restored``; the attacker may reclaim until ``reclaim_until``."""

    territory_id: str
    victim_id: str
    attacker_id: str
    steal_claim_id: str
    restored: Fortification
    reclaim_until: datetime


def war_play_deadline(cfg: gametime.SeasonConfig, steal_at: datetime) -> datetime:
    """The last instant the victim may play War: 5 game hours after the steal (the season's close at the latest)."""
    return gametime.add_game_hours(cfg, steal_at, WAR_PLAY_HOURS) or gametime.season_closes_at(cfg)


def war_applicable(steal: TakeRecord | None, victim_id: str, owner_id: str | None) -> bool:
    """A steal of the victim's territory that still stands, by the player who still owns it."""
    return (steal is not None and steal.kind == "steal" and not steal.undone and steal.previous_owner_id == victim_id
            and owner_id == steal.player_id and owner_id != victim_id)


def in_dispute(cfg: gametime.SeasonConfig, now: datetime, steal: TakeRecord | None, owner_id: str | None,
               reclaim_holder: str | None = None) -> bool:
    """R14: the territory may not be traded away now (``territory_in_dispute``, at proposal and at acceptance):
    the victim's War window on it is open (its owner, the attacker, may not trade it), or *(amended)* an
    attacker's reclaim window on it is open: ``reclaim_holder`` is that window's holder at ``now`` (claims' R8.2
    fact, None when no window is open), and then nobody may trade it, its owner (the victim) included."""
    if reclaim_holder is not None:
        return True
    if steal is None or steal.previous_owner_id is None:
        return False
    return war_applicable(steal, steal.previous_owner_id, owner_id) and now <= war_play_deadline(cfg, steal.at)


def decide_war(cfg: gametime.SeasonConfig, now: datetime, victim_id: str, territory_id: str,
               steal: TakeRecord | None, owner_id: str | None, *, fortified: bool = False, frozen: bool = False,
               blockaded: bool = False) -> Refused | WarOutcome:
    """R14 for the victim's War play at ``now``. ``steal`` is how the current owner got the territory
    (:class:`TakeRecord`); ``frozen``/``blockaded``: the owner's active Freeze on it / Blockade against the victim
    (R15, R16: no other player may take it by any means)."""
    if not war_applicable(steal, victim_id, owner_id):
        return refuse("war_not_applicable")
    assert steal is not None
    if now > war_play_deadline(cfg, steal.at):
        return refuse("war_window_closed")
    until = gametime.add_game_hours(cfg, now, WAR_RECLAIM_HOURS)
    if until is None:
        return refuse("war_window_past_season")
    if fortified:
        return refuse("fortified")
    if frozen:
        return refuse("frozen")
    if blockaded:
        return refuse("blockaded")
    return WarOutcome(territory_id, victim_id, steal.player_id, steal.claim_id, steal.fort_before, until)


# --------------------------------------------------------------------------- Freeze and Blockade (R15, R16)


def schedule_day(cfg: gametime.SeasonConfig, now: datetime) -> Refused | date:
    """R15/R16: a Freeze or Blockade played now is for the next game day; ``no_future_game_day`` if none remains."""
    today = gametime.local_date(cfg, now)
    nxt = gametime.next_game_day(cfg, today)
    return refuse("no_future_game_day") if nxt is None else nxt


def check_freeze(player_id: str, owner_id: str | None, known_territory: bool, already: bool) -> Refused | None:
    """R15 scheduling: the player must own the territory; one Freeze per territory per day."""
    if not known_territory:
        return refuse("invalid_target")
    if owner_id != player_id:
        return refuse("not_owner")
    if already:
        return refuse("already_scheduled")
    return None


def check_blockade(player_id: str, rival_id: str, rival_known: bool, already: bool) -> Refused | None:
    """R16 scheduling: against one known rival, never oneself; one Blockade per rival per day."""
    if rival_id == player_id or not rival_known:
        return refuse("invalid_target")
    if already:
        return refuse("already_scheduled")
    return None


def protection_activates(kind: ProtectionKind, player_id: str, *, territory_owner: str | None = None,
                         excluded: Iterable[str] = (), rival_id: str | None = None) -> bool:
    """R15/R16 at the day start of the scheduled day: True = active (the card is consumed), False = lapses (the
    card returns). A Freeze lapses when the player no longer owns the territory; a Blockade when either player is
    disqualified (``excluded``)."""
    out = set(excluded)
    if player_id in out:
        return False
    if kind == "freeze":
        return territory_owner == player_id
    return rival_id is not None and rival_id not in out


# --------------------------------------------------------------------------- Double Trouble (R17)


def check_double_trouble(extra_claims_today: int) -> Refused | None:
    """R17: at most once per player per game day."""
    return refuse("already_played_today") if extra_claims_today > 0 else None


# --------------------------------------------------------------------------- Trade (R18)


def check_trade_proposal(proposer_id: str, *, offer_owner: str | None, want_owner: str | None,
                         offer_known: bool, want_known: bool, proposer_has_trade: bool, partner_has_trade: bool,
                         offer_in_dispute: bool, want_in_dispute: bool) -> Refused | None:
    """R18 at proposal: the proposer holds a Trade card and owns the offer; the wanted territory belongs to
    another player who holds a Trade card (R29 ``invalid_target`` otherwise); neither is in a War dispute (R14)."""
    if not proposer_has_trade:
        return refuse("card_not_in_hand")
    if not offer_known or not want_known:
        return refuse("invalid_target")
    if offer_owner != proposer_id:
        return refuse("not_owner")
    if want_owner is None or want_owner == proposer_id or not partner_has_trade:
        return refuse("invalid_target")
    if offer_in_dispute or want_in_dispute:
        return refuse("territory_in_dispute")
    return None


def check_trade_acceptance(proposer_id: str, partner_id: str, *, offer_owner: str | None, want_owner: str | None,
                           proposer_has_trade: bool, partner_has_trade: bool, offer_in_dispute: bool = False,
                           want_in_dispute: bool = False) -> Refused | None:
    """R18 at acceptance: both still hold a Trade card and both still own their territory
    (``trade_no_longer_valid``); a territory in a War dispute cannot change hands yet (``territory_in_dispute``).
    The R3 gate is checked before this."""
    if not (proposer_has_trade and partner_has_trade and offer_owner == proposer_id and want_owner == partner_id):
        return refuse("trade_no_longer_valid")
    if offer_in_dispute or want_in_dispute:
        return refuse("territory_in_dispute")
    return None


def trade_still_possible(proposer_id: str, partner_id: str, *, offer_owner: str | None, want_owner: str | None,
                         proposer_has_trade: bool, partner_has_trade: bool) -> bool:
    """R18: an open proposal that fails this can no longer succeed and is cancelled."""
    return (proposer_has_trade and partner_has_trade and offer_owner == proposer_id and want_owner == partner_id)


# --------------------------------------------------------------------------- Mulligan (R19)


@dataclass(frozen=True)
class ClaimRecord:
    claim_id: str
    player_id: str
    territory_id: str
    kind: str
    normal: bool
    game_day: date
    undone_by: str | None
    previous_owner_id: str | None
    fort_before: Fortification


def check_mulligan(player_id: str, today: date, claim: ClaimRecord | None, owner_id: str | None) -> Refused | None:
    """R19: a normal claim the player made today that was neither undone nor reversed, on a territory the player
    still owns. Joker awards and War reclaims are not normal claims."""
    if claim is None or claim.player_id != player_id or claim.game_day != today or not claim.normal \
            or claim.kind == "war_reclaim" or claim.undone_by is not None:
        return refuse("not_eligible_for_mulligan")
    if owner_id != player_id:
        return refuse("not_owner")
    return None


def mulligan_undoable(player_id: str, today: date, claims: list[ClaimRecord],
                      owners: dict[str, str | None]) -> list[ClaimRecord]:
    """R19: the claims a Mulligan may undo now, in the order given: those :func:`check_mulligan` accepts (the
    player's own normal claims of ``today``, not undone nor reversed by War, not War reclaims) on a territory the
    player still owns (``owners``: territory id → owner id; a territory missing from it is not the player's).
    Joker awards are not claims, so they never appear. The play page's Mulligan form offers exactly these."""
    return [c for c in claims if check_mulligan(player_id, today, c, owners.get(c.territory_id)) is None]


# --------------------------------------------------------------------------- Joker (R20)


@dataclass(frozen=True)
class JokerChoice:
    """What a Joker play picked and from what, so the pick can be replayed: ``clusters`` are the tied largest
    clusters (cluster_edge with territory owned; each sorted, the list sorted by first id), ``cluster_index`` the
    one picked, ``candidates`` the sorted eligible territories, ``territory_id`` the award (None: none eligible)."""

    mode: JokerMode
    territory_id: str | None
    candidates: list[str] = field(default_factory=list)
    clusters: list[list[str]] = field(default_factory=list)
    cluster_index: int | None = None


def largest_clusters(graph: nx.Graph, owned: Iterable[str]) -> list[list[str]]:
    """Every connected cluster of ``owned`` of the largest size, each sorted, the list sorted by first id."""
    sub = graph.subgraph(set(owned))
    comps = [sorted(c) for c in nx.connected_components(sub)]
    if not comps:
        return []
    top = max(len(c) for c in comps)
    return sorted(c for c in comps if len(c) == top)


def joker_pick(graph: nx.Graph, owners: Mapping[str, str | None], player_id: str, mode: JokerMode,
               entropy: str) -> JokerChoice:
    """R20. ``owners`` maps every territory of the board to its owner (None = unclaimed). Mode ``random``: uniform
    over all unclaimed territories. ``cluster_edge``: uniform over unclaimed territories adjacent to the player's
    largest cluster; tied largest clusters: one is first picked uniformly; a player owning nothing uses the whole
    board. No eligible territory: ``territory_id`` None (the card stays, ``no_eligible_territory``)."""
    unclaimed = sorted(t for t, o in owners.items() if o is None)
    owned = [t for t, o in owners.items() if o == player_id]
    if mode == "random" or not owned:
        return _pick(JokerChoice(mode, None, unclaimed), entropy)
    clusters = largest_clusters(graph, owned)
    ci = pick_index(entropy, "cluster", len(clusters))
    free = set(unclaimed)
    edge = sorted({n for t in clusters[ci] for n in graph.neighbors(t) if n in free})
    return _pick(JokerChoice(mode, None, edge, clusters, ci), entropy)


def _pick(choice: JokerChoice, entropy: str) -> JokerChoice:
    if not choice.candidates:
        return choice
    tid = choice.candidates[pick_index(entropy, "territory", len(choice.candidates))]
    return JokerChoice(choice.mode, tid, choice.candidates, choice.clusters, choice.cluster_index)


def replay_joker(choice: JokerChoice, entropy: str) -> list[str]:
    """Check a recorded Joker pick against its entropy: the list of mismatches (empty = it replays exactly)."""
    out = []
    if choice.clusters:
        ci = pick_index(entropy, "cluster", len(choice.clusters))
        if ci != choice.cluster_index:
            out.append(f"cluster index {choice.cluster_index} != replayed {ci}")
    if sorted(choice.candidates) != list(choice.candidates) or len(set(choice.candidates)) != len(choice.candidates):
        out.append("candidates are not a sorted set")
    expected = _pick(JokerChoice(choice.mode, None, list(choice.candidates)), entropy).territory_id
    if expected != choice.territory_id:
        out.append(f"territory {choice.territory_id} != replayed {expected}")
    return out
