"""initial gateway schema: players, sessions, organizer log"""
from turf_common.migrations import create_and_drop

revision = "0001"
down_revision = None

TABLES = {
    "players": (
        "id varchar(64) PRIMARY KEY",
        "name varchar(200) NOT NULL",
        "email varchar(320) NOT NULL",
        "email_norm varchar(320) NOT NULL UNIQUE",
        "discord varchar(64) NOT NULL",
        "discord_norm varchar(64) NOT NULL UNIQUE",
        "home_address text NOT NULL",
        "password_hash text NOT NULL",
        "status varchar(16) NOT NULL",
        "status_reason varchar(64)",
        "role varchar(16) NOT NULL",
        "created_at timestamptz NOT NULL",
    ),
    "sessions": (
        "token_hash varchar(64) PRIMARY KEY",
        "player_id varchar(64) NOT NULL",
        "expires_at timestamptz NOT NULL",
    ),
    "admin_log": (
        "id varchar(64) PRIMARY KEY",
        "at timestamptz NOT NULL",
        "by varchar(64) NOT NULL",
        "action varchar(64) NOT NULL",
        "target varchar(64)",
        "reason text",
        "detail json NOT NULL",
    ),
}
INDEXES = (
    "CREATE INDEX ix_gateway_sessions_player_id ON gateway.sessions (player_id)",
)

upgrade, downgrade = create_and_drop("gateway", TABLES, INDEXES)
