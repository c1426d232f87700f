"""Sessions end after a time unused (session_idle.py): each keeps an idle deadline beside its absolute expiry.
Sessions made before have none (null) until their first use sets one; nothing is lost."""
import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    op.add_column("sessions", sa.Column("idle_until", sa.DateTime(timezone=True), nullable=True), schema="gateway")


def downgrade() -> None:
    op.drop_column("sessions", "idle_until", schema="gateway")
