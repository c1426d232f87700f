"""game days whose day-start work is done (R5)"""
from turf_common.migrations import create_and_drop

revision = "0003"
down_revision = "0002"

TABLES = {
    "days_started": (
        "game_day date PRIMARY KEY",
        "at timestamptz NOT NULL",
    ),
}

upgrade, downgrade = create_and_drop("claims", TABLES)
