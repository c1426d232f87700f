"""R28: corrections recorded with their command id before the owning service is asked (Idempotency-Key)"""
from turf_common.migrations import create_and_drop

revision = "0004"
down_revision = "0003"

TABLES = {
    "correction_requests": (
        "id varchar(64) PRIMARY KEY",
        "by varchar(64) NOT NULL",
        "idempotency_key varchar(200)",
        "at timestamptz NOT NULL",
        "post_season boolean NOT NULL",
        "action varchar(32) NOT NULL",
        "request json NOT NULL",
        "state varchar(16) NOT NULL",
        "refusal json",
        "created_at timestamptz NOT NULL",
        "CONSTRAINT correction_requests_key UNIQUE (by, idempotency_key)",
    ),
}

upgrade, downgrade = create_and_drop("gateway", TABLES)
