"""R30: a withdrawal logged before it had a cause and an action of its own (``territory.changed`` cause
``disqualification``, a correction record ``disqualify`` whose after is ``withdrawn``) is still never told to the
public as a disqualification: the town's history says ``withdrawal``, the public corrections log ``withdrawal``; a
real disqualification stays one."""

from __future__ import annotations

import uuid
from datetime import datetime

from turf_common.board import load_board
from turf_common.rules import gametime
from turf_common.testing import FakeClock
from turf_gateway.handlers.corrections import Corrections
from turf_gateway.handlers.history import History
from turf_gateway.ports import NewPlayer, Record, StatusChange
from turf_gateway.testing import CannedServices, MemoryCorrectionLog, MemoryFeedLog, MemoryPlayers, MemoryTables

AT = datetime.fromisoformat("2026-10-06T09:00:00-04:00")
HOBOKEN, WEEHAWKEN = "3401732250", "3401777930"


def freed(seq: int, territory_id: str, holder: str) -> dict[str, object]:
    body = {"type": "territory.changed", "at": AT.isoformat(), "seq": seq, "territory_id": territory_id,
            "cause": "disqualification", "previous_owner_id": holder, "owner_id": None, "progress": 0,
            "fortified": False}
    return {"seq": seq, "type": "territory.changed", "at": AT, "territory_id": territory_id, "players": [holder],
            "body": body}


async def test_r30_r28_an_old_withdrawal_reads_as_one_and_a_disqualification_stays_one() -> None:
    tables = MemoryTables()
    players = MemoryPlayers(tables)
    left, cheat = [await players.create(NewPlayer(n, f"{n}@example.org", n, "-", "h")) for n in ("left", "cheat")]
    for pid in (left, cheat):
        await players.change_status(StatusChange(pid, "verified", "org", "", None, AT, False))
    await players.withdraw(left, AT, post_season=False)
    await players.change_status(StatusChange(cheat, "disqualified", "org", "spoofing", None, AT, False))
    season = gametime.load_season()

    log = MemoryFeedLog(tables)
    await log.store([freed(1, HOBOKEN, left), freed(2, WEEHAWKEN, cheat)])
    history = History(log, players, load_board(), season)
    assert [e["kind"] for e in (await history.territory(HOBOKEN))["history"]] == ["withdrawal"]
    assert [e["kind"] for e in (await history.territory(WEEHAWKEN))["history"]] == ["disqualification"]

    # the log as a withdrawal wrote it before it had an action of its own
    tables.corrections.append(Record(uuid.uuid4().hex, AT, "disqualify", left, "the player withdrew (R30)",
                                     {"player_id": left}, None, left, {"status": "verified"},
                                     {"status": "withdrawn"}, False))
    corrections = Corrections(CannedServices({}), MemoryCorrectionLog(tables, season.tz), players, load_board(),
                              FakeClock(AT), season, None)  # type: ignore[arg-type]
    public = {(c.player_id, c.action) for c in (await corrections.public_log()).corrections}
    assert (left, "withdrawal") in public and (cheat, "disqualify") in public
    assert (left, "disqualify") not in public
