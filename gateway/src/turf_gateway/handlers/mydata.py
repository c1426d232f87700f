"""R30: "download everything the game holds about me" as one JSON document: the private profile, the
notifications, the cards in hand, open trade proposals, the public season record, the location fixes kept of them
(geo-verify's R7.1 trail, the claims service's stored fixes) and their push subscriptions (endpoints only, never the
keys), each asked of the part that owns it. No request is made inside a transaction."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from turf_common.contracts import subjects
from turf_common.contracts.notify import PushListReply, PushListRequest
from turf_common.contracts.players import PlayerFixes, PlayerFixesRequest
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
            history=season, **await self._kept(caller.id))

    async def _kept(self, player_id: str) -> dict[str, Any]:
        """R30: the fixes and push subscriptions other services keep of the player, asked at once."""
        ask, fixes = self.players.services.ask, PlayerFixesRequest(player_id=player_id)
        trail, stored, push = await asyncio.gather(
            ask(subjects.GEO_PLAYER_FIXES, fixes, PlayerFixes, 15),
            ask(subjects.CLAIMS_PLAYER_FIXES, fixes, PlayerFixes, 15),
            ask(subjects.NOTIFY_PUSH_LIST, PushListRequest(player_id=player_id), PushListReply))
        return {"location_fixes": [{"source": source, **f.model_dump(mode="json")}
                                   for source, kept in (("trail", trail), ("claims", stored)) for f in kept.fixes],
                "push_subscriptions": [{"endpoint": e} for e in push.endpoints]}
