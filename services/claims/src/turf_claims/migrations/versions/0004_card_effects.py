"""card effects: command log, War reclaim windows, Freeze/Blockade protections, disqualified players"""
from turf_common.migrations import create_and_drop

revision = "0004"
down_revision = "0003"

TABLES = {
    "effect_commands": (
        "command_id varchar(64) PRIMARY KEY",
        "kind varchar(32) NOT NULL",
        "player_id varchar(64) NOT NULL",
        "response text NOT NULL",
        "detail json",
        "at timestamptz NOT NULL",
    ),
    "war_windows": (
        "id varchar(64) PRIMARY KEY",
        "territory_id varchar(16) NOT NULL",
        "holder_id varchar(64) NOT NULL",
        "victim_id varchar(64) NOT NULL",
        "steal_claim_id varchar(64) NOT NULL",
        "opened_at timestamptz NOT NULL",
        "until timestamptz NOT NULL",
        "state varchar(16) NOT NULL",
        "reclaim_claim_id varchar(64)",
    ),
    "protections": (
        "card_id varchar(64) PRIMARY KEY",
        "command_id varchar(64) NOT NULL",
        "kind varchar(16) NOT NULL",
        "player_id varchar(64) NOT NULL",
        "territory_id varchar(16)",
        "rival_id varchar(64)",
        "day date NOT NULL",
        "state varchar(16) NOT NULL",
        "scheduled_at timestamptz NOT NULL",
        "resolved_at timestamptz",
    ),
    "excluded_players": (
        "player_id varchar(64) PRIMARY KEY",
        "at timestamptz NOT NULL",
    ),
}
INDEXES = (
    "CREATE INDEX ix_claims_war_windows_territory_id ON claims.war_windows (territory_id)",
    "CREATE INDEX ix_protections_day_state ON claims.protections (day, state)",
    # R15/R29: one Freeze per territory per day; R16: one Blockade per player and rival per day
    "CREATE UNIQUE INDEX uq_protections_freeze ON claims.protections (territory_id, day)"
    " WHERE kind = 'freeze' AND state IN ('scheduled', 'active')",
    "CREATE UNIQUE INDEX uq_protections_blockade ON claims.protections (player_id, rival_id, day)"
    " WHERE kind = 'blockade' AND state IN ('scheduled', 'active')",
)

upgrade, downgrade = create_and_drop("claims", TABLES, INDEXES)
