"""A claim's position can be erased (R30): its fix's lat, lon and accuracy become nullable; its time stays"""
from alembic import op

revision = "0008"
down_revision = "0007"

PLACE = ("lat", "lon", "accuracy_m")


def upgrade() -> None:
    for column in PLACE:
        op.alter_column("claims", column, nullable=True, schema="claims")


def downgrade() -> None:
    # the older schema needs a value where a position was erased: 0°, 0° with accuracy 0 (in the Gulf of Guinea,
    # far off any board), so the erased position does not come back
    op.execute("UPDATE claims.claims SET lat = 0, lon = 0, accuracy_m = 0 WHERE lat IS NULL")
    for column in PLACE:
        op.alter_column("claims", column, nullable=False, schema="claims")
