"""The claims service's tables (schema ``claims``)."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Date,
    DateTime,
    Float,
    Identity,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    text,
)

from turf_common.outbox import inbox_table, outbox_table

SCHEMA = "claims"
metadata = MetaData(schema=SCHEMA)

# R31: each season has its own board (migration 0009); the rows there were are the first season's, 2026
territories = Table(
    "territories", metadata,
    Column("season_id", String(32), primary_key=True),
    Column("id", String(16), primary_key=True),
    Column("owner_id", String(64), nullable=True, index=True),
    # R11: fortification state belongs to the territory
    Column("progress", Integer, nullable=False, default=0),
    Column("last_claim_day", Date, nullable=True),
    Column("fortified", Boolean, nullable=False, default=False),
    Column("version", Integer, nullable=False, default=0),
)

claims = Table(
    "claims", metadata,
    Column("id", String(64), primary_key=True),
    Column("player_id", String(64), nullable=False),
    Column("territory_id", String(16), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("normal", Boolean, nullable=False),
    Column("game_day", Date, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    # R7 audit: the fix, its accuracy and its distance to the nearest border; R30: the position (lat, lon,
    # accuracy) is erased at the player's withdrawal and a set time after the season's close (migration 0008),
    # the fix's time and the border distance stay
    Column("lat", Float, nullable=True),
    Column("lon", Float, nullable=True),
    Column("accuracy_m", Float, nullable=True),
    Column("fix_time", DateTime(timezone=True), nullable=False),
    Column("border_distance_m", Float, nullable=True),
    # what the claim replaced, so Mulligan / War / corrections can restore it (R14, R19, R28)
    Column("previous_owner_id", String(64), nullable=True),
    Column("prev_progress", Integer, nullable=False),
    Column("prev_last_claim_day", Date, nullable=True),
    Column("prev_fortified", Boolean, nullable=False),
    Column("undone_by", String(16), nullable=True),
    Column("flags", JSON, nullable=False, default=list),
    # R14: the order claims were logged in, which settles ties of ``at`` (the manual clock stands still)
    Column("seq", BigInteger, Identity(), nullable=False),
    Column("season_id", String(32), nullable=False),   # R31: the season whose board it moved (0009)
    Index("ix_claims_season_territory", "season_id", "territory_id"),
    Index("ix_claims_day_territory", "game_day", "territory_id"),
    Index("ix_claims_territory_seq", "territory_id", "seq"),
    Index("ix_claims_day_player", "game_day", "player_id"),
)

player_days = Table(
    "player_days", metadata,
    Column("player_id", String(64), primary_key=True),
    Column("game_day", Date, primary_key=True),
    Column("extra_claims", Integer, nullable=False, default=0),        # R17 Double Trouble
    Column("replacement_claims", Integer, nullable=False, default=0),  # R19 Mulligan
)

idempotency = Table(
    "idempotency", metadata,
    Column("player_id", String(64), primary_key=True),
    Column("key", String(200), primary_key=True),
    Column("response", Text, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
)

# R7.1: every fix the server sees (claims and checks), the players' trails; ``at`` is the receipt time
fixes = Table(
    "fixes", metadata,
    Column("id", BigInteger, Identity(), primary_key=True),
    Column("player_id", String(64), nullable=False, index=True),
    Column("lat", Float, nullable=False),
    Column("lon", Float, nullable=False),
    Column("accuracy_m", Float, nullable=False),
    Column("fix_time", DateTime(timezone=True), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("claim_id", String(64), nullable=True),
    Index("ix_fixes_trail", "player_id", "id"),   # a player's latest fixes (migration 0006)
)

flags = Table(
    "flags", metadata,
    Column("id", String(64), primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("player_id", String(64), nullable=False, index=True),
    Column("claim_id", String(64), nullable=True),
    Column("kind", String(32), nullable=False),
    Column("evidence", JSON, nullable=False),
    # repeats between the same places merge into one flag: how many, and when the latest came
    Column("count", Integer, nullable=False, server_default=text("1")),
    Column("last_at", DateTime(timezone=True), nullable=False),
    Index("ix_flags_repeats", "player_id", "kind", "at"),   # a player's recent flags of a kind (0007)
)

# R5: game days whose day-start work is done; no claim of a day is decided before its row exists
days_started = Table(
    "days_started", metadata,
    Column("game_day", Date, primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False),
)

# ---- card effects -----------------------------------------------------------------------------------
# every card-effect command applied or refused, keyed by the saga's command id: a repeat gets this answer
effect_commands = Table(
    "effect_commands", metadata,
    Column("command_id", String(64), primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("player_id", String(64), nullable=False),
    Column("response", Text, nullable=False),
    Column("detail", JSON, nullable=True),     # what changed (before/after), for audit and corrections
    Column("at", DateTime(timezone=True), nullable=False),
)

# R14: the attacker's exclusive reclaim window after a War
war_windows = Table(
    "war_windows", metadata,
    Column("id", String(64), primary_key=True),          # the War's command id
    Column("territory_id", String(16), nullable=False, index=True),
    Column("holder_id", String(64), nullable=False),      # the attacker
    Column("victim_id", String(64), nullable=False),
    Column("steal_claim_id", String(64), nullable=False),
    Column("opened_at", DateTime(timezone=True), nullable=False),
    Column("until", DateTime(timezone=True), nullable=False),
    Column("state", String(16), nullable=False),           # open | used | ended (R28: holder disqualified)
    Column("reclaim_claim_id", String(64), nullable=True),
    Column("season_id", String(32), nullable=False),   # R31: the season whose board it is on (0009)
)

# R15/R16: scheduled and active Freezes and Blockades, one row per card
protections = Table(
    "protections", metadata,
    Column("card_id", String(64), primary_key=True),
    Column("command_id", String(64), nullable=False),
    Column("kind", String(16), nullable=False),            # freeze | blockade
    Column("player_id", String(64), nullable=False),
    Column("territory_id", String(16), nullable=True),
    Column("rival_id", String(64), nullable=True),
    Column("day", Date, nullable=False),
    Column("state", String(16), nullable=False),           # scheduled | active | lapsed | cancelled
    Column("scheduled_at", DateTime(timezone=True), nullable=False),
    Column("resolved_at", DateTime(timezone=True), nullable=True),
    Index("ix_protections_day_state", "day", "state"),
    # R15/R29: one Freeze per territory per day; R16: one Blockade per player and rival per day (migration 0004)
    Index("uq_protections_freeze", "territory_id", "day", unique=True,
          postgresql_where=text("kind = 'freeze' AND state IN ('scheduled', 'active')")),
    Index("uq_protections_blockade", "player_id", "rival_id", "day", unique=True,
          postgresql_where=text("kind = 'blockade' AND state IN ('scheduled', 'active')")),
)

# R8.7 (amended): Joker awards, so that an award of a territory today counts as the awardee's claim of it today
joker_awards = Table(
    "joker_awards", metadata,
    Column("command_id", String(64), primary_key=True),  # the saga's command id
    Column("player_id", String(64), nullable=False),
    Column("territory_id", String(16), nullable=False),
    Column("game_day", Date, nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Index("ix_joker_awards_day_territory", "game_day", "territory_id"),
)

# R16/R28: disqualified players (from player.disqualified)
excluded_players = Table(
    "excluded_players", metadata,
    Column("player_id", String(64), primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False),
)

outbox = outbox_table(metadata, SCHEMA)
inbox = inbox_table(metadata, SCHEMA)
