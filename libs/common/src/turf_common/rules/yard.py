"""The yard card game as pure rules (docs/rules/yard-cards.md, Y1–Y27).

State and a move in; a new state and public events out, or :class:`YardRefused` naming its ruling. Shuffles come
from a :class:`~turf_common.rules.seeded.SeededSource` (Y5); nothing here reads a clock: the caller decides when a
turn's time limit passed and plays :class:`Idle` (Y25).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from turf_common.rules.seeded import SeededSource
from turf_common.rules.yardcatalogue import Catalogue, Requirement
from turf_common.rules.yardeffects import restock, run_action
from turf_common.rules.yardstate import (
    PILES,
    Seat,
    Side,
    TurnState,
    YardConfig,
    YardEvent,
    YardRefused,
    YardState,
    active,
    any_seat,
    card_of,
    count_in_yard,
    locate,
    places,
    protected,
    seat_of,
    yard_cards,
)


class _Move(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    player: str


class Start(_Move):
    """Y7: start actions, in ``order`` (None: the yard's order); ``targets``: card → its actions' targets."""

    move: Literal["start"] = "start"
    order: tuple[str, ...] | None = None
    targets: dict[str, tuple[int, ...]] = Field(default_factory=dict)


class End(_Move):
    """Y22: end actions, as :class:`Start`."""

    move: Literal["end"] = "end"
    order: tuple[str, ...] | None = None
    targets: dict[str, tuple[int, ...]] = Field(default_factory=dict)


class ChooseSide(_Move):
    move: Literal["side"] = "side"
    side: Side


class Work(_Move):
    move: Literal["work"] = "work"


class Buy(_Move):
    move: Literal["buy"] = "buy"
    cards: tuple[str, ...] = Field(min_length=1)


class Play(_Move):
    """Y13–Y17: ``card`` from the hand onto ``pile`` of ``owner``'s yard (default: one's own)."""

    move: Literal["play"] = "play"
    card: str
    pile: int
    owner: str | None = None
    targets: tuple[int, ...] | None = None


class Sway(_Move):
    """Y19: ``neighbour`` of the row; ``trash``: the yard cards given for a bribe (None: the topmost)."""

    move: Literal["sway"] = "sway"
    neighbour: str
    trash: tuple[str, ...] | None = None


class Idle(_Move):
    """Y25: the time limit passed; the rest of the turn with no choices."""

    move: Literal["idle"] = "idle"


class Leave(_Move):
    """Y26: the player is out."""

    move: Literal["leave"] = "leave"


YardMove = Annotated[Start | End | ChooseSide | Work | Buy | Play | Sway | Idle | Leave, Field(discriminator="move")]


def open_game(room_id: str, players: Sequence[str], cat: Catalogue, src: SeededSource,
              cfg: YardConfig = YardConfig()) -> tuple[YardState, list[YardEvent]]:
    """Y2–Y5: a started game. ``players`` in seat order, distinct."""
    seats = list(dict.fromkeys(players))
    if not cfg.min_players <= len(seats) <= cfg.max_players or len(seats) != len(players):
        raise YardRefused("wrong_player_count")
    cards: dict[str, str] = {}

    def new(card_id: str) -> str:
        instance = f"c{len(cards)}"
        cards[instance] = card_id
        return instance

    hands = [[new(t) for t in cat.starting_hand] for _ in seats]
    copies = 2 if len(seats) >= 3 else 1  # Y3: two copies of the game for 3+
    deck = [new(c.id) for _ in range(copies) for c in cat.store_cards() for _ in range(c.copies)]
    hood = [new(c.id) for c in cat.cards if c.kind == "neighbour" for _ in range(c.copies)]
    deck = src.shuffled("store", deck)
    hood = src.shuffled("neighbours", hood)
    aside = len(seats) - 2
    first = src.below("first", len(seats))  # Y4
    s = YardState(room_id=room_id, catalogue=f"{cat.name} {cat.version}", cards=cards,
                  seats=[Seat(player=p, hand=h) for p, h in zip(seats, hands, strict=True)], store_deck=deck,
                  row=hood[:cfg.row_size], aside=hood[cfg.row_size:cfg.row_size + aside],
                  unused=hood[cfg.row_size + aside:], current=first, first_seat=first)
    events = [YardEvent("game.started", {"players": seats, "first": seats[s.current], "catalogue": s.catalogue,
                                         "row": list(s.row)})]
    restock(s, cat, events, setup=True, size=cfg.store_size)  # Y3
    return s, events


def apply(state: YardState, cat: Catalogue, move: Start | End | ChooseSide | Work | Buy | Play | Sway | Idle | Leave,
          cfg: YardConfig = YardConfig()) -> tuple[YardState, list[YardEvent]]:
    """One move; the state given is never changed. Raises :class:`YardRefused`."""
    if state.finished:
        raise YardRefused("game_over")
    s = copy.deepcopy(state)
    out: list[YardEvent] = []
    seat = seat_of(s, move.player)
    if isinstance(move, Leave):
        _leave(s, seat, out, cat, cfg)
    else:
        if s.seats[s.current] is not seat:
            raise YardRefused("not_your_turn")
        if not isinstance(move, Idle):
            seat.missed = 0  # Y29: a move of one's own ends a run of missed turns
        _turn_move(s, cat, seat, move, out, cfg)
    if cfg.unswayable_end and not s.finished and s.row and not any(swayable(s, cat, n) for n in s.row):
        _finish(s, cat, out, "no neighbour can be swayed")  # Y30
    s.moves += 1
    return s, out


def _turn_move(s: YardState, cat: Catalogue, seat: Seat, move: Start | End | ChooseSide | Work | Buy | Play | Sway
               | Idle, out: list[YardEvent], cfg: YardConfig) -> None:
    step = s.turn.step
    if isinstance(move, Idle):
        if step == "start":
            _actions(s, cat, seat, "start", None, {}, out)
            seat.missed += 1  # Y29: the whole turn went by without a move of the player's
        out.append(YardEvent("turn.idled", {"player": seat.player}))
        _actions(s, cat, seat, "end", None, {}, out)
        if cfg.max_missed is not None and seat.missed >= cfg.max_missed:
            _leave(s, seat, out, cat, cfg, why="missed_turns")  # Y29: out as a leaver (Y26)
            return
        _next_turn(s, cat, out, cfg)
        return
    want = {"start": "start", "side": "side", "end": "act"}.get(move.move, "act")
    if step != want:
        raise YardRefused("wrong_step")
    if isinstance(move, Start):
        _actions(s, cat, seat, "start", move.order, move.targets, out)
        s.turn.step = "side"
    elif isinstance(move, ChooseSide):
        _side(seat, move.side, out)
        s.turn.step = "act"
    elif isinstance(move, End):
        _actions(s, cat, seat, "end", move.order, move.targets, out)
        _next_turn(s, cat, out, cfg)
    else:
        _home_away(s, cat, seat, move, out, cfg)


def _side(seat: Seat, side: Side, out: list[YardEvent]) -> None:
    """Y8: only AWAY → HOME picks the garage up."""
    picked = 0
    if seat.side == "away" and side == "home":
        picked = len(seat.garage)
        seat.hand.extend(reversed(seat.garage))
        seat.garage.clear()
    seat.side = side
    out.append(YardEvent("side.chosen", {"player": seat.player, "side": side, "picked_up": picked}))


def _actions(s: YardState, cat: Catalogue, seat: Seat, when: Literal["start", "end"], order: Sequence[str] | None,
             targets: dict[str, tuple[int, ...]], out: list[YardEvent]) -> None:
    """Y7, Y22: each card of the yard with such actions acts once, in the player's order (checked) or the yard's."""
    acting = [c for c in yard_cards(seat) if any(a.when == when for a in card_of(s, cat, c).actions)]
    if order is None:
        order = acting
    elif sorted(order) != sorted(acting):
        raise YardRefused("bad_order")
    if any(c not in acting for c in targets):
        raise YardRefused("bad_target")
    out.append(YardEvent(f"{when}.actions", {"player": seat.player, "order": list(order)}))
    for c in order:
        if locate(seat, c) is None:  # left the yard earlier in this step: it does not act
            continue
        for action in card_of(s, cat, c).actions:
            if action.when == when:
                run_action(s, cat, seat, c, action, targets.get(c), out)


def _home_away(s: YardState, cat: Catalogue, seat: Seat, move: Work | Buy | Play | Sway, out: list[YardEvent],
               cfg: YardConfig) -> None:
    """Y9: AWAY works and buys, HOME plays and sways, each once."""
    side = "away" if isinstance(move, Work | Buy) else "home"
    if seat.side != side:
        raise YardRefused("wrong_side")
    if move.move in s.turn.done:
        raise YardRefused("already_done")
    if isinstance(move, Work):
        seat.money += cfg.work_pay  # Y10
        out.append(YardEvent("worked", {"player": seat.player, "by": cfg.work_pay}))
    elif isinstance(move, Buy):
        _buy(s, cat, seat, move.cards, out, cfg)
    elif isinstance(move, Play):
        _play(s, cat, seat, move, out)
    else:
        _sway(s, cat, seat, move, out, cfg)
    s.turn.done.add(move.move)


def _buy(s: YardState, cat: Catalogue, seat: Seat, wanted: Sequence[str], out: list[YardEvent],
         cfg: YardConfig) -> None:
    """Y11: pay all at once, every card onto the garage, then restock."""
    if len(set(wanted)) != len(wanted) or any(c not in s.store for c in wanted):
        raise YardRefused("not_in_store")
    if len(wanted) > 1 + s.turn.extra_buys:
        raise YardRefused("too_many")
    cost = sum(card_of(s, cat, c).cost for c in wanted)
    if cost > seat.money:
        raise YardRefused("not_enough_money")
    seat.money -= cost
    for c in wanted:
        s.store.remove(c)
        seat.garage.append(c)
    out.append(YardEvent("bought", {"player": seat.player, "cards": list(wanted),
                                    "ids": [s.cards[c] for c in wanted], "paid": cost}))
    restock(s, cat, out, size=cfg.store_size)


def _play(s: YardState, cat: Catalogue, seat: Seat, move: Play, out: list[YardEvent]) -> None:
    """Y13–Y17."""
    if move.card not in seat.hand:
        raise YardRefused("not_in_hand")
    owner = any_seat(s, move.owner or seat.player)
    if not 0 <= move.pile < PILES:
        raise YardRefused("unknown_pile")
    if owner is not seat and owner.side != "away":
        raise YardRefused("rival_home")  # Y14
    card = card_of(s, cat, move.card)
    pile = owner.yard[move.pile]
    free = card.kind in ("pest", "tool")
    if card.kind == "pest" and protected(s, cat, pile):
        raise YardRefused("protected")
    if not free and places(s, cat, pile) <= len(pile.cards):
        raise YardRefused("no_place")  # Y13, Y15
    if owner is not seat and move.targets is not None:
        raise YardRefused("not_your_choice")  # Y16
    seat.hand.remove(move.card)
    pile.cards.append(move.card)
    out.append(YardEvent("card.played", {"player": seat.player, "owner": owner.player, "pile": move.pile,
                                         "card": move.card, "id": card.id}))
    for action in card.actions:
        if action.when == "play":
            run_action(s, cat, owner, move.card, action, move.targets, out)  # Y16: the owner does it
    if card.kind == "tool":  # Y17
        at = locate(owner, move.card)
        if at is not None:
            owner.yard[at[0]].cards.remove(move.card)
            seat.garage.append(move.card)
            out.append(YardEvent("tool.returned", {"player": seat.player, "card": move.card}))


def _sway(s: YardState, cat: Catalogue, seat: Seat, move: Sway, out: list[YardEvent], cfg: YardConfig) -> None:
    """Y19–Y21, Y23."""
    if move.neighbour not in s.row:
        raise YardRefused("unknown_neighbour")
    hood = card_of(s, cat, move.neighbour)
    for r in hood.criteria:  # Y20: only now
        if count_in_yard(s, cat, seat, r.kind, r.card, r.grass) < r.count:
            raise YardRefused("criteria_not_met")
    given = _bribe_cards(s, cat, seat, move) if hood.bribe and hood.bribe.trash else []
    money = hood.bribe.money if hood.bribe else 0
    if money > seat.money:
        raise YardRefused("bribe_unpaid")
    seat.money -= money
    for c in given:
        at = locate(seat, c)
        assert at is not None
        seat.yard[at[0]].cards.pop(at[1])
        s.trash.append(c)
    place = s.row.index(move.neighbour)
    s.row.pop(place)
    seat.sway.append(move.neighbour)
    if s.aside:  # Y21
        s.row.insert(place, s.aside.pop(0))
    out.append(YardEvent("neighbour.swayed", {"player": seat.player, "neighbour": move.neighbour, "id": hood.id,
                                              "paid": money, "trashed": given, "row": list(s.row)}))
    if not s.row:  # Y23
        _finish(s, cat, out, "last neighbour swayed")


def _bribe_cards(s: YardState, cat: Catalogue, seat: Seat, move: Sway) -> list[str]:
    """Y19: the cards a bribe trashes, named (each in the yard, of the kind, exactly enough) or the topmost."""
    hood = card_of(s, cat, move.neighbour)
    assert hood.bribe is not None and hood.bribe.trash is not None
    r = hood.bribe.trash

    def fits(c: str) -> bool:
        return (r.card is not None and s.cards[c] == r.card) or (r.kind is not None and card_of(s, cat, c).kind
                                                                 == r.kind)

    if move.trash is not None:
        ok = (len(set(move.trash)) == len(move.trash) == r.count
              and all(locate(seat, c) is not None and fits(c) for c in move.trash))
        if not ok:
            raise YardRefused("bad_target")
        return list(move.trash)
    candidates = [c for pile in seat.yard for c in reversed(pile.cards) if fits(c)]
    if len(candidates) < r.count:
        raise YardRefused("bribe_unpaid")
    return candidates[:r.count]


def _next_turn(s: YardState, cat: Catalogue, out: list[YardEvent], cfg: YardConfig) -> None:
    """Y22, Y23: the next seat still playing; a new round when the order wraps; the cap ends the game."""
    n = len(s.seats)
    i = s.current
    for _ in range(n):
        i = (i + 1) % n
        if i == s.first_seat:
            s.round += 1
        if not s.seats[i].left:
            break
    s.current = i
    s.turn = TurnState()
    s.turn_no += 1
    if s.round > cfg.max_rounds:
        _finish(s, cat, out, "round limit")
        return
    out.append(YardEvent("turn.started", {"player": s.seats[i].player, "round": s.round, "turn": s.turn_no}))


def _leave(s: YardState, seat: Seat, out: list[YardEvent], cat: Catalogue, cfg: YardConfig,
           why: str | None = None) -> None:
    """Y26; ``why`` ``missed_turns``: put out by Y29."""
    was_current = s.seats[s.current] is seat
    seat.left = True
    out.append(YardEvent("player.left", {"player": seat.player, **({"why": why} if why else {})}))
    if len(active(s)) == 1:
        _finish(s, cat, out, "one player left")
    elif was_current:
        _next_turn(s, cat, out, cfg)


def _reachable(s: YardState, cat: Catalogue, seat: Seat, r: Requirement) -> int:
    """Y30: at most how many cards fitting ``r`` ``seat``'s yard could ever hold: those in it now, and those that
    may still be played into it (the store and its deck, the hands and garages of the players still playing). A
    card in another yard never leaves it but for the trash (Y18 moves stay in their yard), and the trash is for good.
    """
    def fits(c: str) -> bool:
        return s.cards[c] == r.card if r.card is not None else card_of(s, cat, c).kind == r.kind

    pool = [*yard_cards(seat), *s.store, *s.store_deck]
    for other in active(s):
        pool += [*other.hand, *other.garage]
    return sum(1 for c in pool if fits(c))


def swayable(s: YardState, cat: Catalogue, neighbour: str) -> bool:
    """Y30: may a player still playing ever sway ``neighbour``? Its criteria and a bribe's cards each need enough
    cards that may still reach that player's yard; GRASS (every player keeps a Trowel: tools come home, Y17) and
    money (work, Y10) can always be had."""
    hood = card_of(s, cat, neighbour)
    needs = [r for r in (*hood.criteria, *([hood.bribe.trash] if hood.bribe and hood.bribe.trash else []))
             if not r.grass]
    return any(all(_reachable(s, cat, seat, r) >= r.count for r in needs) for seat in active(s))


def _finish(s: YardState, cat: Catalogue, out: list[YardEvent], why: str) -> None:
    from turf_common.rules.yardview import ranking, score

    s.finished = True
    s.winners = ranking(s, cat)
    out.append(YardEvent("game.ended", {"why": why, "winners": list(s.winners),
                                        "scores": {p.player: score(s, cat, p) for p in active(s)}}))


def replay(room_id: str, players: Sequence[str], cat: Catalogue, seed: str,
           moves: Sequence[Start | End | ChooseSide | Work | Buy | Play | Sway | Idle | Leave],
           cfg: YardConfig = YardConfig()) -> tuple[YardState, list[YardEvent]]:
    """Y5: the revealed seed and the recorded moves give the game again, every event included."""
    s, events = open_game(room_id, players, cat, SeededSource(seed, room_id), cfg)
    for m in moves:
        s, more = apply(s, cat, m, cfg)
        events.extend(more)
    return s, events
