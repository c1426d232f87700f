"""R30: the final results by mail: each recipient the gateway names gets one message with their own place and
points and the podium, once per player and season however often it is asked (the event delivered twice, the
results republished after a correction); an optional message, it says how to turn such mail off."""

from __future__ import annotations

from notify_world import World

from turf_common.contracts.notify import MailResults, PodiumPlace, ResultsRecipient

PODIUM = [PodiumPlace(place=1, name="victor", total=31, prize="100.00"),
          PodiumPlace(place=2, name="alice <3", total=24, prize="50.00"),
          PodiumPlace(place=2, name="bo", total=24, prize="50.00")]


def results(*recipients: ResultsRecipient, season: str = "2026-fall") -> MailResults:
    return MailResults(season=season, podium=PODIUM, recipients=list(recipients))


VICTOR = ResultsRecipient(player_id="v", to="v@example.org", name="victor", place=1, total=31, prize="100.00")
CY = ResultsRecipient(player_id="c", to="c@example.org", name="cy", place=11, total=3, prize="0.00")


async def test_r30_each_recipient_gets_their_place_points_and_the_podium_once(w: World) -> None:
    assert await w.mailing.queue_results(results(VICTOR, CY)) == 2
    await w.mailing.queue_results(results(VICTOR, CY))   # the event delivered twice
    await w.mailing.queue_results(results(CY.model_copy(update={"place": 10, "total": 5})))   # corrected later
    rows = sorted(w.mailing.queue.rows.values(), key=lambda r: r["to"])  # type: ignore[attr-defined]
    assert [(r["to"], r["kind"], r["subject"]) for r in rows] == [
        ("c@example.org", "final_results", "Turf War: the final results"),
        ("v@example.org", "final_results", "Turf War: the final results")]
    cy, victor = rows
    assert "You finished 11th with 3 points." in cy["text"]
    assert "You finished 1st with 31 points, a prize of $100.00." in victor["text"]
    for text in (cy["text"], victor["text"]):
        assert "1. victor — 31 points, $100.00\n2. alice <3 — 24 points, $50.00\n2. bo — 24 points" in text
        assert "turn off these messages" in text
    assert "alice &lt;3" in cy["html"] and "<strong>11th</strong>" in cy["html"]


async def test_r30_another_season_mails_its_own_results(w: World) -> None:
    await w.mailing.queue_results(results(CY))
    await w.mailing.queue_results(results(CY, season="2027-spring"))
    assert len(w.mailing.queue.rows) == 2  # type: ignore[attr-defined]
