"""The effect vocabulary of the yard cards (Y18) and the store's restock (Y12), interpreted on a working state.

Every function here mutates the working copy :func:`turf_common.rules.yard.apply` made, and appends public events.
"""

from __future__ import annotations

from collections.abc import Sequence

from turf_common.rules.yardcatalogue import Action as CardAction
from turf_common.rules.yardcatalogue import (
    Catalogue,
    Draw,
    EveryoneGain,
    ExtraBuy,
    Gain,
    Move,
    Trash,
    Turn,
)
from turf_common.rules.yardstate import (
    Seat,
    YardEvent,
    YardRefused,
    YardState,
    active,
    card_of,
    locate,
    places,
)


def gain(seat: Seat, amount: int) -> int:
    """Y18: money never goes below $0; returns what changed."""
    before = seat.money
    seat.money = max(0, seat.money + amount)
    return seat.money - before


def _pick(eligible: Sequence[int], named: Sequence[int] | None, count: int) -> list[int]:
    """Y18: the named targets (each eligible, distinct, at most ``count``) or the first ``count`` eligible ones."""
    if named is None:
        return list(eligible[:count])
    if len(set(named)) != len(named) or len(named) > count or any(t not in eligible for t in named):
        raise YardRefused("bad_target")
    return list(named)


def run_action(s: YardState, cat: Catalogue, owner: Seat, source: str, action: CardAction,
               targets: Sequence[int] | None, out: list[YardEvent]) -> None:
    """Y16, Y18: ``owner`` (the yard's owner) does ``action`` of the card ``source``; ``targets`` named or None."""
    eff = action.effect
    who = owner.player
    if isinstance(eff, Gain):
        out.append(YardEvent("money.changed", {"player": who, "by": gain(owner, eff.amount), "card": source}))
    elif isinstance(eff, EveryoneGain):
        for seat in active(s):
            out.append(YardEvent("money.changed", {"player": seat.player, "by": gain(seat, eff.amount),
                                                    "card": source}))
    elif isinstance(eff, Draw):
        n = min(eff.count, len(owner.garage))
        for _ in range(n):
            owner.hand.append(owner.garage.pop())
        out.append(YardEvent("cards.drawn", {"player": who, "count": n, "card": source}))  # Y27: how many only
    elif isinstance(eff, ExtraBuy):
        s.turn.extra_buys += eff.count
        out.append(YardEvent("buys.extended", {"player": who, "by": eff.count, "card": source}))
    elif isinstance(eff, Turn):
        _turn(s, owner, source, eff, targets, out)
    elif isinstance(eff, Trash):
        _trash(s, cat, owner, source, eff, targets, out)
    elif isinstance(eff, Move):
        _move(s, cat, owner, source, targets, out)


def _turn(s: YardState, owner: Seat, source: str, eff: Turn, targets: Sequence[int] | None,
          out: list[YardEvent]) -> None:
    grass = eff.to == "grass"
    changed: list[tuple[str, int]] = []
    if eff.where == "this":
        at = locate(owner, source)
        if at is not None and owner.yard[at[0]].grass != grass:
            owner.yard[at[0]].grass = grass
            changed.append((owner.player, at[0]))
    elif eff.where == "choose":
        eligible = [i for i, p in enumerate(owner.yard) if p.grass != grass]
        for i in _pick(eligible, targets, eff.count):
            owner.yard[i].grass = grass
            changed.append((owner.player, i))
    else:  # every_player: each one's lowest-numbered bare pile of the other colour
        for seat in active(s):
            bare = [i for i, p in enumerate(seat.yard) if p.grass != grass and not p.cards]
            if bare:
                seat.yard[bare[0]].grass = grass
                changed.append((seat.player, bare[0]))
    out.append(YardEvent("piles.turned", {"to": eff.to, "piles": changed, "card": source}))


def _under(owner: Seat, source: str) -> tuple[int, int] | None:
    at = locate(owner, source)
    if at is None or at[1] == 0:
        return None
    return at[0], at[1] - 1


def _trash(s: YardState, cat: Catalogue, owner: Seat, source: str, eff: Trash, targets: Sequence[int] | None,
           out: list[YardEvent]) -> None:
    if eff.what == "under":
        under = _under(owner, source)
        if under is not None:
            gone = owner.yard[under[0]].cards.pop(under[1])
            s.trash.append(gone)
            out.append(YardEvent("card.trashed", {"card": gone, "id": s.cards[gone], "from": owner.player,
                                                   "pile": under[0]}))
        return
    picks = _pick(range(len(s.store)), targets, eff.count)  # Y11: all of them first …
    taken = [s.store[i] for i in picks]
    for c in taken:
        s.store.remove(c)
        s.trash.append(c)
    out.append(YardEvent("store.trashed", {"cards": taken, "ids": [s.cards[c] for c in taken], "card": source}))
    restock(s, cat, out)  # … then restock


def _move(s: YardState, cat: Catalogue, owner: Seat, source: str, targets: Sequence[int] | None,
          out: list[YardEvent]) -> None:
    under = _under(owner, source)
    if under is None:
        return
    moving = owner.yard[under[0]].cards[under[1]]
    free = card_of(s, cat, moving).kind in ("pest", "tool")  # Y13
    eligible = [i for i, p in enumerate(owner.yard)
                if i != under[0] and (free or places(s, cat, p) > len(p.cards))]
    picks = _pick(eligible, targets, 1)
    if not picks:
        return
    owner.yard[under[0]].cards.pop(under[1])
    owner.yard[picks[0]].cards.append(moving)
    out.append(YardEvent("card.moved", {"card": moving, "player": owner.player, "from": under[0],
                                         "to": picks[0]}))


def restock(s: YardState, cat: Catalogue, out: list[YardEvent], setup: bool = False, size: int = 5) -> None:
    """Y12: fill the store back to ``size`` from the deck's top; an Event revealed is followed at once (Y3: in the
    setup it goes to the trash without effect), then trashed, and the next card revealed."""
    while len(s.store) < size and s.store_deck:
        top = s.store_deck.pop(0)
        card = card_of(s, cat, top)
        if card.kind != "event":
            s.store.append(top)
            out.append(YardEvent("store.restocked", {"card": top, "id": card.id}))
            continue
        s.trash.append(top)
        out.append(YardEvent("event.revealed", {"card": top, "id": card.id, "followed": not setup}))
        if not setup:
            owner = s.seats[s.current]
            for action in card.actions:
                run_action(s, cat, owner, top, action, None, out)
