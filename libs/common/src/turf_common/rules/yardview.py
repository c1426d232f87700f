"""The yard cards' score (Y24), the zones every card is in (for the conservation check), and what each viewer may
see (Y27)."""

from __future__ import annotations

from typing import Any

from turf_common.rules.yardcatalogue import Catalogue, ScorePer
from turf_common.rules.yardstate import Seat, YardState, active, card_of, count_in_yard, yard_cards


def score(s: YardState, cat: Catalogue, seat: Seat) -> int:
    """Y24: the VP of the yard's cards, their ``score_per`` and the swayed neighbours."""
    total = 0
    for c in yard_cards(seat):
        card = card_of(s, cat, c)
        total += card.vp
        for a in card.actions:
            if isinstance(a.effect, ScorePer):
                total += a.effect.vp * count_in_yard(s, cat, seat, a.effect.kind, grass=a.effect.grass)
    return total + sum(card_of(s, cat, n).vp for n in seat.sway)


def ranking(s: YardState, cat: Catalogue) -> list[str]:
    """Y24: the winners — highest VP, then most neighbours; a tie on both is shared. Leavers are not ranked (Y26)."""
    seats = active(s)
    if not seats:
        return []
    key = {p.player: (score(s, cat, p), len(p.sway)) for p in seats}
    best = max(key.values())
    return [p.player for p in seats if key[p.player] == best]


def zones(s: YardState) -> dict[str, list[str]]:
    """Every zone a card can be in, by name → its instances (each instance should be in exactly one)."""
    out: dict[str, list[str]] = {"store_deck": list(s.store_deck), "store": list(s.store), "row": list(s.row),
                                 "aside": list(s.aside), "unused": list(s.unused), "trash": list(s.trash)}
    for seat in s.seats:
        out[f"{seat.player}.hand"] = list(seat.hand)
        out[f"{seat.player}.garage"] = list(seat.garage)
        out[f"{seat.player}.yard"] = yard_cards(seat)
        out[f"{seat.player}.sway"] = list(seat.sway)
    return out


def _face(s: YardState, instance: str) -> dict[str, str]:
    return {"card": instance, "id": s.cards[instance]}


def view(s: YardState, cat: Catalogue, viewer: str | None) -> dict[str, Any]:
    """Y27: the table as ``viewer`` may see it (None: a spectator). Hands and garages are shown to their owner
    only, as counts to others; the decks and the set-aside neighbours as counts."""
    seats = []
    for seat in s.seats:
        mine = seat.player == viewer
        seats.append({
            "player": seat.player, "side": seat.side, "money": seat.money, "left": seat.left,
            "hand_count": len(seat.hand), "garage_count": len(seat.garage),
            "hand": [_face(s, c) for c in seat.hand] if mine else None,
            "garage": [_face(s, c) for c in seat.garage] if mine else None,
            "yard": [{"grass": p.grass, "cards": [_face(s, c) for c in p.cards]} for p in seat.yard],
            "sway": [_face(s, c) for c in seat.sway],
            "vp": score(s, cat, seat),
        })
    return {
        "room_id": s.room_id, "catalogue": s.catalogue, "round": s.round, "finished": s.finished,
        "winners": list(s.winners), "turn": {"player": s.seats[s.current].player, "step": s.turn.step,
                                             "done": sorted(s.turn.done), "extra_buys": s.turn.extra_buys},
        "seats": seats, "store": [_face(s, c) for c in s.store], "row": [_face(s, c) for c in s.row],
        "store_deck_count": len(s.store_deck), "aside_count": len(s.aside), "trash": [_face(s, c) for c in s.trash],
    }
