"""The cards service's tables (schema ``cards``): accounts, the players of each season it deals to, cards, sagas,
trade proposals."""

from __future__ import annotations

from sqlalchemy import JSON, Boolean, Column, Date, DateTime, Index, Integer, MetaData, String, Table, Text

from turf_common.outbox import inbox_table, outbox_table

SCHEMA = "cards"
metadata = MetaData(schema=SCHEMA)

# the accounts the gateway announced (player.verified / player.disqualified), shared by all seasons (R31)
accounts = Table(
    "accounts", metadata,
    Column("player_id", String(64), primary_key=True),
    Column("status", String(16), nullable=False),            # verified | disqualified
    Column("verified_at", DateTime(timezone=True), nullable=False),
)

# the players of each season (R31: those who joined it); ``draws`` = next draw index in that season (R12)
players = Table(
    "players", metadata,
    Column("season_id", String(32), primary_key=True),
    Column("player_id", String(64), primary_key=True),
    Column("joined_at", DateTime(timezone=True), nullable=False),
    Column("draws", Integer, nullable=False, default=0),
)

cards = Table(
    "cards", metadata,
    Column("id", String(64), primary_key=True),
    Column("season_id", String(32), nullable=False),          # the season whose hand holds it (R31)
    Column("player_id", String(64), nullable=False),
    Column("card_type", String(16), nullable=False),
    # ready | reserved (a saga holds it, or a scheduled Freeze/Blockade) | consumed | removed (correction)
    Column("state", String(16), nullable=False),
    Column("draw_index", Integer, nullable=True),
    Column("reason", String(16), nullable=False),
    Column("drawn_at", DateTime(timezone=True), nullable=False),
    Column("saga_id", String(64), nullable=True),             # the saga holding it, while one does
    Column("scheduled_for", Date, nullable=True),             # a scheduled Freeze/Blockade (R12 reserved)
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Index("ix_cards_season_player_state", "season_id", "player_id", "state"),
)

# one row per play / cancel / trade acceptance: reserve → ask claims → consume or release (DESIGN "Sagas")
sagas = Table(
    "sagas", metadata,
    Column("id", String(64), primary_key=True),               # also the claims command id
    Column("kind", String(16), nullable=False),               # play | cancel | trade | withdraw
    Column("player_id", String(64), nullable=False),
    Column("card_type", String(16), nullable=False),
    Column("card_ids", JSON, nullable=False),
    Column("subject", String(64), nullable=False),            # the claims command
    Column("command", Text, nullable=False),                  # its JSON body
    Column("trade_id", String(64), nullable=True),
    Column("state", String(16), nullable=False),              # pending | done | refused
    Column("reply", Text, nullable=True),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("updated_at", DateTime(timezone=True), nullable=False),
    Index("ix_sagas_state", "state"),
)

trades = Table(
    "trades", metadata,
    Column("id", String(64), primary_key=True),
    Column("proposer_id", String(64), nullable=False, index=True),
    Column("partner_id", String(64), nullable=False, index=True),
    Column("offer_territory_id", String(16), nullable=False),
    Column("want_territory_id", String(16), nullable=False),
    Column("state", String(16), nullable=False),              # open | accepted | declined | cancelled
    Column("reason", String(64), nullable=True),
    Column("saga_id", String(64), nullable=True),             # an acceptance in flight
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("closed_at", DateTime(timezone=True), nullable=True),
)

# each season's seed commitment (R12.1), recorded once
season = Table(
    "season", metadata,
    Column("season_id", String(32), primary_key=True),
    Column("commitment", String(64), nullable=False),
    Column("started", Boolean, nullable=False, default=False),
    Column("ended", Boolean, nullable=False, default=False),
)

outbox = outbox_table(metadata, SCHEMA)
inbox = inbox_table(metadata, SCHEMA)
