"""The claims service over NATS request/reply (the broker's ``request``): card effects and trade facts."""

from __future__ import annotations

from faststream.nats import NatsBroker

from turf_common.bus import BusError, ask, ask_raw
from turf_common.contracts import subjects
from turf_common.contracts.base import Refusal, decode_reply
from turf_common.contracts.effects import EffectApplied, TradeCheck, TradeFacts


class ClaimsRequester:
    """:class:`turf_cards.ports.ClaimsEffects` through ``broker``; each request waits ``timeout`` seconds."""

    def __init__(self, broker: NatsBroker, timeout: float = 10.0) -> None:
        self.broker, self.timeout = broker, timeout

    async def apply(self, subject: str, command: str) -> EffectApplied | Refusal | None:
        try:
            raw = await ask_raw(self.broker, subject, command.encode(), timeout=self.timeout)
            return decode_reply(raw, EffectApplied)  # type: ignore[return-value]
        except (BusError, ValueError):   # unanswered, or an answer that is not an effect's (ValidationError)
            return None

    async def trade_check(self, q: TradeCheck) -> TradeFacts | Refusal:
        return await ask(self.broker, subjects.CLAIMS_TRADE_CHECK, q, TradeFacts, timeout=self.timeout)
