"""The cards, trades, notifications and outlook routes' use cases on fakes (no servers). Each asks the
owning service exactly what the route asked before (subject, message, timeout) and answers its reply; a service's
refusal reaches the caller unchanged as its ApiError (R29); what the gateway checks itself is refused before any
service is asked."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

import pytest

from turf_common.contracts import subjects
from turf_common.contracts.base import Message
from turf_common.contracts.cards import (
    CancelReply,
    CancelSchedule,
    CardOut,
    HandReply,
    HandRequest,
    PlayCard,
    PlayReply,
    ProposeTrade,
    TradeAction,
    TradeHoldersReply,
    TradeHoldersRequest,
    TradeOut,
    TradeReply,
    TradesReply,
    TradesRequest,
)
from turf_common.contracts.notify import (
    AnnouncementOut,
    AnnouncementReply,
    AnnouncementsReply,
    AnnouncementsRequest,
    Done,
    DropPush,
    MarkRead,
    NotificationOut,
    NotificationsReply,
    NotificationsRequest,
    PublishAnnouncement,
    PushKeyReply,
    PushKeyRequest,
    PushKeys,
    SavePush,
)
from turf_common.contracts.outlook import OutlookReply, OutlookRequest, TerritoryOutlook
from turf_common.rules import gametime
from turf_common.settings import Settings
from turf_common.testing import FakeClock
from turf_gateway.adapters.session_cache import SessionCache
from turf_gateway.api.errors import ApiError
from turf_gateway.bootstrap import Adapters, wire
from turf_gateway.handlers.cards import Cards, Partner, TradeOptions
from turf_gateway.handlers.notifications import Notifications
from turf_gateway.handlers.outlook import Outlook
from turf_gateway.ports import Caller, NewPlayer, StatusChange
from turf_gateway.testing import CannedServices, MemoryPlayers, MemoryTables, NoFeedStream, NoLimits

M = TypeVar("M", bound=Message)
NOW = datetime.fromisoformat("2026-10-06T09:00:00-04:00")
ADA = Caller(id="ada", role="player", status="verified", display_name="ada")
PENDING = Caller(id="bo", role="player", status="pending", display_name="bo")
FCM = "https://fcm.googleapis.com/fcm/send/abc123"
KEYS = PushKeys(p256dh="BPub", auth="sec")


class Timed(CannedServices):
    """The canned services, also recording each request's timeout (seconds), in order."""

    def __init__(self, answers: dict[str, Message | Callable[[Any], Message]] | None = None) -> None:
        super().__init__(answers)
        self.timeouts: list[float] = []

    async def ask(self, subject: str, msg: Message, reply: type[M], timeout: float = 5.0) -> M:
        self.timeouts.append(timeout)
        return await super().ask(subject, msg, reply, timeout)


class Limits(NoLimits):
    """Records every hit; refuses 429 ``rate_limited`` once ``allowed`` hits were taken."""

    def __init__(self, allowed: int = 10) -> None:
        self.hits: list[tuple[str, str]] = []
        self.allowed = allowed

    async def hit(self, name: str, who: str, *more: tuple[str, str]) -> None:
        if len(self.hits) >= self.allowed:
            raise ApiError("rate_limited", "Too many requests; try again in a minute.", headers={"Retry-After": "60"})
        self.hits.append((name, who))


def refuse(reason: str, message: str) -> Callable[[Any], Message]:
    def answer(_: Any) -> Message:
        raise ApiError(reason, message)
    return answer


def cards(services: CannedServices, players: MemoryPlayers | None = None) -> Cards:
    return Cards(services, players or MemoryPlayers())


def notes(services: CannedServices, limiter: NoLimits | None = None, rehearsal: bool = False) -> Notifications:
    return Notifications(services, limiter or NoLimits(), FakeClock(NOW), rehearsal)


def trade(state: str = "open") -> TradeOut:
    return TradeOut(id="t1", state=state, proposer_id="ada", partner_id="cy",  # type: ignore[arg-type]
                    offer_territory_id="hoboken", want_territory_id="weehawken")


def town(tid: str, *, war: bool = False, reclaim: bool = False) -> TerritoryOutlook:
    until = NOW + timedelta(hours=3)
    return TerritoryOutlook(id=tid, name=tid.title(), progress=1, fortified=False, streak="keeps",
                            claim_day=None, claim_opens=None, claim_closes=None, next_progress=2,
                            claimed_today=False, keeps_streak_today=False, frozen_today=False, locked_today=False,
                            reclaim_holder_id="x" if reclaim else None, reclaim_until=until if reclaim else None,
                            war_by="x" if war else None, war_until=until if war else None)


def outlook(player_id: str, *towns: TerritoryOutlook) -> OutlookReply:
    return OutlookReply(player_id=player_id, now=NOW, territories=list(towns), war_deadlines=[],
                        reclaim_windows=[], mulligan_claims=[])


# ---- cards and trades (R12–R20) --------------------------------------------------------------------------------------
async def test_r12_the_hand_is_asked_for_the_player_and_answered_as_the_service_holds_it() -> None:
    held = [CardOut(id="c1", type="freeze", state="ready"), CardOut(id="c2", type="war", state="reserved")]
    services = Timed({subjects.CARDS_HAND: HandReply(player_id="ada", cards=held)})
    assert await cards(services).hand("ada") == held
    assert services.asked == [(subjects.CARDS_HAND, HandRequest(player_id="ada"))]
    assert services.timeouts == [20.0]   # a card service request may wait on a saga with claims


async def test_r13_a_card_play_carries_the_callers_status_and_its_one_argument() -> None:
    reply = PlayReply(card_id="c1", type="freeze", state="reserved", effect={"territory_id": "hoboken"})
    services = Timed({subjects.CARDS_PLAY: reply})
    assert await cards(services).play(ADA, "freeze", territory_id="hoboken") == reply
    assert services.asked == [(subjects.CARDS_PLAY, PlayCard(
        player_id="ada", player_status="verified", type="freeze", territory_id="hoboken", rival_id=None,
        claim_id=None, mode=None))]
    assert services.timeouts == [20.0]


async def test_r20_a_joker_asks_with_its_mode_only() -> None:
    services = CannedServices({subjects.CARDS_PLAY: PlayReply(card_id="c9", type="joker", state="consumed",
                                                               effect={"territory_id": "union-city"})})
    await cards(services).play(ADA, "joker", mode="cluster_edge")
    [(_, cmd)] = services.asked
    assert isinstance(cmd, PlayCard)
    assert (cmd.type, cmd.mode, cmd.territory_id, cmd.rival_id, cmd.claim_id) == ("joker", "cluster_edge", None,
                                                                                   None, None)


async def test_r29_a_refused_card_play_reaches_the_caller_as_the_services_rule_code() -> None:
    services = CannedServices({subjects.CARDS_PLAY: refuse("card_not_in_hand", "You hold no ready Freeze card.")})
    with pytest.raises(ApiError) as e:
        await cards(services).play(ADA, "freeze", territory_id="hoboken")
    assert (e.value.reason, e.value.status, e.value.message) == ("card_not_in_hand", 409,
                                                                 "You hold no ready Freeze card.")
    assert services.subjects() == [subjects.CARDS_PLAY]


async def test_r15_cancelling_a_schedule_names_the_card_and_answers_it_ready() -> None:
    reply = CancelReply(card_id="c1", type="blockade", state="ready")
    services = Timed({subjects.CARDS_CANCEL: reply})
    assert await cards(services).cancel(ADA, "c1") == reply
    assert services.asked == [(subjects.CARDS_CANCEL, CancelSchedule(player_id="ada", player_status="verified",
                                                                     card_id="c1"))]
    assert services.timeouts == [20.0]


async def test_r18_a_proposal_names_both_territories_and_answers_the_open_trade() -> None:
    services = Timed({subjects.TRADES_PROPOSE: TradeReply(trade=trade())})
    assert await cards(services).propose(ADA, "hoboken", "weehawken") == trade()
    assert services.asked == [(subjects.TRADES_PROPOSE, ProposeTrade(
        player_id="ada", player_status="verified", offer_territory_id="hoboken", want_territory_id="weehawken"))]
    assert services.timeouts == [20.0]


@pytest.mark.parametrize(("move", "subject", "state"), [("accept", subjects.TRADES_ACCEPT, "accepted"),
                                                         ("decline", subjects.TRADES_DECLINE, "declined"),
                                                         ("withdraw", subjects.TRADES_WITHDRAW, "cancelled")])
async def test_r18_each_answer_to_a_proposal_asks_its_own_subject(move: Any, subject: str, state: str) -> None:
    services = Timed({subject: TradeReply(trade=trade(state))})
    assert await cards(services).trade(ADA, move, "t1") == trade(state)
    assert services.asked == [(subject, TradeAction(player_id="ada", player_status="verified", trade_id="t1"))]
    assert services.timeouts == [20.0]


async def test_r18_an_accept_that_can_no_longer_happen_is_refused_with_the_services_code() -> None:
    services = CannedServices({subjects.TRADES_ACCEPT: refuse("trade_no_longer_valid", "Hoboken changed hands.")})
    with pytest.raises(ApiError) as e:
        await cards(services).trade(ADA, "accept", "t1")
    assert (e.value.reason, e.value.status) == ("trade_no_longer_valid", 409)


async def test_r18_the_open_trades_are_the_callers_both_directions_as_listed() -> None:
    both = [trade(), trade().model_copy(update={"id": "t2", "proposer_id": "cy", "partner_id": "ada"})]
    services = Timed({subjects.TRADES_LIST: TradesReply(trades=both)})
    assert await cards(services).trades("ada") == both
    assert services.asked == [(subjects.TRADES_LIST, TradesRequest(player_id="ada"))]
    assert services.timeouts == [20.0]


async def verified(tables: MemoryTables, *names: str) -> dict[str, str]:
    store = MemoryPlayers(tables)
    ids = {n: await store.create(NewPlayer(n.title(), f"{n}@example.com", n, "-", "hash")) for n in names}
    for pid in ids.values():
        await store.change_status(StatusChange(pid, "verified", "org", "", None, NOW, False))
    return ids


async def test_r18_trade_partners_are_the_holders_by_display_name_and_the_disputed_towns_of_either_side() -> None:
    tables = MemoryTables()
    ids = await verified(tables, "ada", "cy", "di")
    ada, cy, di = ids["ada"], ids["cy"], ids["di"]
    outlooks = {ada: outlook(ada, town("hoboken", reclaim=True), town("bayonne")),
                cy: outlook(cy, town("weehawken", war=True), town("jersey-city", reclaim=True)),
                di: outlook(di, town("secaucus"))}
    services = Timed({subjects.CARDS_TRADE_HOLDERS: TradeHoldersReply(player_ids=[di, cy]),
                      subjects.CLAIMS_OUTLOOK: lambda req: outlooks[req.player_id]})
    out = await cards(services, MemoryPlayers(tables)).trade_options(ada)
    assert out == TradeOptions(partners=[Partner(di, "di"), Partner(cy, "cy")],   # the holders' order
                               in_dispute=["hoboken", "jersey-city", "weehawken"])
    assert services.asked[0] == (subjects.CARDS_TRADE_HOLDERS, TradeHoldersRequest(player_id=ada))
    assert services.asked[1:] == [(subjects.CLAIMS_OUTLOOK, OutlookRequest(player_id=i)) for i in (ada, di, cy)]
    assert services.timeouts == [5.0] * 4


async def test_r18_without_a_holder_there_is_no_partner_and_only_the_callers_outlook_is_asked() -> None:
    services = CannedServices({subjects.CARDS_TRADE_HOLDERS: TradeHoldersReply(player_ids=[]),
                               subjects.CLAIMS_OUTLOOK: outlook("ada", town("hoboken", war=True))})
    assert await cards(services).trade_options("ada") == TradeOptions(partners=[], in_dispute=["hoboken"])
    assert services.subjects() == [subjects.CARDS_TRADE_HOLDERS, subjects.CLAIMS_OUTLOOK]


async def test_r29_trade_partners_fail_as_the_cards_service_does_and_ask_no_outlook() -> None:
    services = CannedServices({subjects.CARDS_TRADE_HOLDERS: refuse("unavailable", "The cards service is down.")})
    with pytest.raises(ApiError) as e:
        await cards(services).trade_options("ada")
    assert (e.value.reason, e.value.status) == ("unavailable", 503)
    assert services.subjects() == [subjects.CARDS_TRADE_HOLDERS]


# ---- notifications, pushes, announcements ----------------------------------------------------------------------------
async def test_the_inbox_is_the_callers_after_the_given_id_with_the_read_mark() -> None:
    reply = NotificationsReply(notifications=[NotificationOut(id=8, at=NOW, kind="fortified",
                                                              message="Hoboken is fortified.")], read_up_to=7)
    services = Timed({subjects.NOTIFY_LIST: reply})
    assert await notes(services).inbox("ada", 7) == reply
    assert services.asked == [(subjects.NOTIFY_LIST, NotificationsRequest(player_id="ada", after=7))]
    assert services.timeouts == [5.0]


async def test_marking_read_and_dropping_pushes_name_the_caller_only() -> None:
    services = CannedServices({subjects.NOTIFY_READ: Done(), subjects.NOTIFY_PUSH_DROP: Done()})
    uc = notes(services)
    assert await uc.mark_read("ada", 12) is None
    assert await uc.drop_push("ada") is None
    assert services.asked == [(subjects.NOTIFY_READ, MarkRead(player_id="ada", up_to=12)),
                              (subjects.NOTIFY_PUSH_DROP, DropPush(player_id="ada"))]


async def test_the_push_key_is_notifys_vapid_key() -> None:
    services = CannedServices({subjects.NOTIFY_PUSH_KEY: PushKeyReply(key="BExampleKey")})
    assert await notes(services).push_key() == "BExampleKey"
    assert services.asked == [(subjects.NOTIFY_PUSH_KEY, PushKeyRequest())]


async def test_a_verified_players_subscription_is_counted_and_saved() -> None:
    services, limits = CannedServices({subjects.NOTIFY_PUSH_SAVE: Done()}), Limits()
    await notes(services, limits).save_push(ADA, FCM, KEYS)
    assert limits.hits == [("push_player", "ada")]
    assert services.asked == [(subjects.NOTIFY_PUSH_SAVE, SavePush(player_id="ada", endpoint=FCM, keys=KEYS))]


async def test_r27_a_player_not_verified_is_refused_a_subscription_before_any_count_or_request() -> None:
    services, limits = CannedServices(), Limits()
    with pytest.raises(ApiError) as e:
        await notes(services, limits).save_push(PENDING, FCM, KEYS)
    assert (e.value.reason, e.value.status) == ("not_eligible", 409)
    assert limits.hits == [] and services.asked == []


async def test_over_push_player_a_subscription_is_refused_429_and_notify_is_not_asked() -> None:
    services = CannedServices()
    with pytest.raises(ApiError) as e:
        await notes(services, Limits(allowed=0)).save_push(ADA, FCM, KEYS)
    assert (e.value.reason, e.value.status) == ("rate_limited", 429)
    assert services.asked == []


@pytest.mark.parametrize(("endpoint", "rehearsal", "taken"), [
    ("https://push.example.com/send/abc", False, False),   # not a browser's push service
    ("http://127.0.0.1:8999/push/abc", False, False),      # loopback: a rehearsal's receiver only
    ("http://127.0.0.1:8999/push/abc", True, True),
])
async def test_only_a_push_services_endpoint_is_saved(endpoint: str, rehearsal: bool, taken: bool) -> None:
    services = CannedServices({subjects.NOTIFY_PUSH_SAVE: Done()})
    uc = notes(services, rehearsal=rehearsal)
    if taken:
        await uc.save_push(ADA, endpoint, KEYS)
        assert services.subjects() == [subjects.NOTIFY_PUSH_SAVE]
        return
    with pytest.raises(ApiError) as e:
        await uc.save_push(ADA, endpoint, KEYS)
    assert (e.value.reason, e.value.status) == ("invalid_input", 422)
    assert services.asked == []


async def test_rule11_announcements_are_listed_as_notify_keeps_them() -> None:
    kept = [AnnouncementOut(id="a2", at=NOW, title="Rain", body="Claims stay open."),
            AnnouncementOut(id="a1", at=NOW - timedelta(days=1), title="Welcome", body="Good luck.")]
    services = CannedServices({subjects.NOTIFY_ANNOUNCEMENTS: AnnouncementsReply(announcements=kept)})
    assert await notes(services).announcements() == kept
    assert services.asked == [(subjects.NOTIFY_ANNOUNCEMENTS, AnnouncementsRequest())]


async def test_rule11_an_announcement_is_made_at_the_game_clocks_now_its_key_the_command_id() -> None:
    made = AnnouncementOut(id="a3", at=NOW, title="Rain", body="Claims stay open.")
    services = Timed({subjects.NOTIFY_ANNOUNCE: AnnouncementReply(announcement=made)})
    uc = notes(services)
    assert await uc.announce("Rain", "Claims stay open.", "key-1") == made
    assert services.asked == [(subjects.NOTIFY_ANNOUNCE, PublishAnnouncement(
        command_id="key-1", at=NOW, title="Rain", body="Claims stay open."))]
    assert services.timeouts == [15.0]   # notify writes every verified player's notification before it answers
    await uc.announce("Rain", "Claims stay open.", None)
    await uc.announce("Rain", "Claims stay open.", None)
    fresh = [m.command_id for _, m in services.asked[1:] if isinstance(m, PublishAnnouncement)]
    assert len(set(fresh)) == 2 and all(len(c) == 32 and c != "key-1" for c in fresh)   # without a key, each new


# ---- the outlook -----------------------------------------------------------------------------------------------------
async def test_the_outlook_is_the_claims_services_reply_for_the_player() -> None:
    reply = outlook("ada", town("hoboken", war=True))
    services = Timed({subjects.CLAIMS_OUTLOOK: reply})
    assert await Outlook(services).territories("ada") == reply
    assert services.asked == [(subjects.CLAIMS_OUTLOOK, OutlookRequest(player_id="ada"))]
    assert services.timeouts == [5.0]


async def test_r29_an_outlook_the_claims_service_cannot_give_is_its_refusal() -> None:
    services = CannedServices({subjects.CLAIMS_OUTLOOK: refuse("unavailable", "The claims service is down.")})
    with pytest.raises(ApiError) as e:
        await Outlook(services).territories("ada")
    assert (e.value.reason, e.value.status) == ("unavailable", 503)


# ---- wiring --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("clock", "rehearsal"), [("manual", True), ("real", False)])
def test_wire_lets_loopback_push_receivers_in_a_manual_clock_rehearsal_only(clock: Any,
                                                                                      rehearsal: bool) -> None:
    services, players = CannedServices(), MemoryPlayers()
    none: Any = None
    state = wire(Settings(clock=clock), none, gametime.load_season(), Adapters(
        services=services, players=players, sessions=none, corrections=none, clearances=none, revocations=none,
        keys=none, limiter=NoLimits(), geocoder=none, clock=FakeClock(NOW), relay=none, idle=none, feed_log=none,
        feed_stream=NoFeedStream(), tokens=none), SessionCache())
    assert state.notifications.rehearsal is rehearsal
    assert state.cards.services is services and state.cards.players is players
    assert state.outlook.services is services and state.notifications.services is services

