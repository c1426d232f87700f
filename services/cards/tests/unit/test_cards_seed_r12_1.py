"""R12.1 on the cards side: the seed's commitment is answered from the first start on, a start with another seed
than the season began on is refused, the public default seed is refused outside a manual clock, and the draw audit
checks the revealed seed against the commitment published before the season."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from cards_world import BEFORE, SEED, World, world

from turf_cards import bootstrap
from turf_cards.audit import audit_draws
from turf_cards.context import Cards
from turf_cards.hands import Hands, SeedChanged
from turf_common.contracts import subjects
from turf_common.rules import gametime
from turf_common.settings import PUBLIC_SEED, Settings

CFG = gametime.load_season()


def sha(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


async def test_r12_1_the_commitment_is_answered_before_the_season_and_the_seed_only_after_it() -> None:
    w = world(now=BEFORE)
    info = await w.h.hands.seed_info()
    assert (info.commitment, info.seed) == (sha(SEED), None)


async def test_r12_1_a_start_with_another_seed_than_the_season_began_on_is_refused(w: World) -> None:
    await w.h.hands.pin_seed()
    await w.h.hands.pin_seed()                 # a restart on the same seed
    other = Hands(Cards(store=w.store, clock=w.clock, relay=w.relay, book=w.h.cx.book,
                        seed="another seed"), w.h.sagas)
    with pytest.raises(SeedChanged, match=f"began on the seed with SHA-256 {sha(SEED)}"):
        await other.pin_seed()


@pytest.mark.parametrize("clock", ["real", "accelerated:60"])
async def test_r12_1_the_service_refuses_the_public_seed_with_a_real_or_accelerated_clock(clock: str) -> None:
    build = bootstrap.wire(Settings(clock=clock, seed=PUBLIC_SEED, database_url="postgresql://nowhere:1/x"))
    with pytest.raises(RuntimeError, match="TURF_SEED is the public default"):
        await build(None)  # type: ignore[arg-type]


def seed_events(committed: str, revealed: str) -> list[tuple[str, dict[str, Any]]]:
    return [(subjects.CARD_SEED_COMMITTED, {"season_id": CFG.season_id, "commitment": sha(committed),
                                            "occurred_at": "2026-10-05T06:00:00-04:00"}),
            (subjects.CARD_SEED_REVEALED, {"season_id": CFG.season_id, "commitment": sha(revealed),
                                           "seed": revealed, "occurred_at": "2026-10-24T22:00:00-04:00"})]


def test_r12_1_the_audit_accepts_a_revealed_seed_that_matches_the_commitment() -> None:
    rep = audit_draws(seed_events("s1", "s1"), CFG, commitment=sha("s1").upper())
    assert rep.seed_source == "card.seed_revealed" and rep.mismatches == []


def test_r12_1_the_audit_reports_a_revealed_seed_that_does_not_match_the_commitment() -> None:
    rep = audit_draws(seed_events("s1", "s2"), CFG)
    assert rep.mismatches == [
        f"card.seed_committed: the seed (from card.seed_revealed) does not match the commitment published at "
        f"2026-10-05T06:00:00-04:00: its SHA-256 is {sha('s2')}, the commitment {sha('s1')}"]


def test_r12_1_the_audit_checks_a_commitment_seen_before_the_season_and_needs_one_in_the_stream() -> None:
    rep = audit_draws(seed_events("s1", "s1"), CFG, commitment=sha("other"))
    assert rep.mismatches == [f"the seed (from card.seed_revealed) does not match the given commitment: its SHA-256 "
                              f"is {sha('s1')}, the commitment {sha('other')}"]
    rep = audit_draws(seed_events("s1", "s1")[1:], CFG)
    assert rep.mismatches == ["no card.seed_committed in the stream: the seed cannot be checked against a commitment"]
    rep = audit_draws(seed_events("s1", "s1"), CFG, seed="s1-guess")
    assert any("card.seed_revealed reveals another seed" in m for m in rep.mismatches)
