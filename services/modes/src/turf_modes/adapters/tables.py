"""The modes service's tables (schema ``modes``): games, their action logs, the turns resolved, outbox and inbox."""

from __future__ import annotations

from sqlalchemy import JSON, BigInteger, Column, DateTime, ForeignKey, Integer, MetaData, String, Table, Text

from turf_common.outbox import inbox_table, outbox_table

SCHEMA = "modes"
metadata = MetaData(schema=SCHEMA)

games = Table(
    "games", metadata,
    Column("game_id", String(64), primary_key=True),
    Column("command_id", String(64), nullable=False, unique=True),    # a retried create makes one game
    Column("mode", String(16), nullable=False),                       # team_turf | hill
    Column("status", String(16), nullable=False),                     # lobby | running | finished
    Column("created_by", String(64), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),    # game time
    Column("seed", Text, nullable=False),                             # secret until the game ends (T20, K16)
    Column("seed_commitment", String(64), nullable=False),
    Column("config", JSON, nullable=False),                           # what replay_* takes besides the actions
    Column("turn", Integer, nullable=False),                          # the open turn (T9) or round (K5)
    Column("next_at", DateTime(timezone=True), nullable=True),   # game instant (indexed) it resolves by
    # the state after the first snapshot_n actions (turf_modes.snapshots), written with them: a read loads this
    # row and the actions after it (none, once written), never the whole log
    Column("snapshot", JSON, nullable=True),
    Column("snapshot_n", BigInteger, nullable=False, server_default="0"),
)

# every accepted action in order (modereplay's actions as JSON): the game's state is their replay
actions = Table(
    "actions", metadata,
    Column("game_id", String(64), ForeignKey(f"{SCHEMA}.games.game_id"), primary_key=True),
    Column("seq", BigInteger, primary_key=True),
    Column("action", JSON, nullable=False),
)

# T9, K5: one row per resolved turn or round; its primary key makes a second resolution impossible
resolutions = Table(
    "resolutions", metadata,
    Column("game_id", String(64), ForeignKey(f"{SCHEMA}.games.game_id"), primary_key=True),
    Column("turn", Integer, primary_key=True),
    Column("resolved_at", DateTime(timezone=True), nullable=False),
)

# who sits in which unfinished game (K19: rooms per player; T23, K21: the games a disqualified player leaves)
seats = Table(
    "seats", metadata,
    Column("game_id", String(64), ForeignKey(f"{SCHEMA}.games.game_id"), primary_key=True),
    Column("player_id", String(64), primary_key=True, index=True),
    Column("mode", String(16), nullable=False),
)

outbox = outbox_table(metadata, SCHEMA)
inbox = inbox_table(metadata, SCHEMA)
