"""R30: "download everything the game holds about me" as one JSON document: the private profile, the
notifications, the cards in hand, open trade proposals and the public season record, each asked of the part that
owns it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from turf_gateway.api import schemas as S
from turf_gateway.handlers.cards import Cards
from turf_gateway.handlers.history import History
from turf_gateway.handlers.notifications import Notifications
from turf_gateway.handlers.players import Players
from turf_gateway.ports import Caller


@dataclass
class MyData:
    players: Players
    notifications: Notifications
    cards: Cards
    history: History

    async def export(self, caller: Caller) -> S.MyData:
        profile = await self.players.me(caller)
        notes = await self.notifications.inbox(caller.id, None)
        season: list[dict[str, object]] = []
        after = 0
        while True:   # the whole record, a page at a time
            page = await self.history.player(caller.id, after)
            season += page["history"]
            if page["next_seq"] is None:
                break
            after = page["next_seq"]
        return S.MyData(
            exported_at=datetime.now(UTC).isoformat(), profile=profile,
            notifications=[n.model_dump(mode="json") for n in notes.notifications],
            cards=[c.model_dump(mode="json") for c in await self.cards.hand(caller.id)],
            trades=[t.model_dump(mode="json") for t in await self.cards.trades(caller.id)],
            history=season)
