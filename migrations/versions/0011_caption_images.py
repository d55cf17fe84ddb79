"""captions keep the address of their photo

An HTML page (or a JSON record, or a feed) often gives the photo a caption belongs to; the article page
links to it under the caption. Only http(s) addresses are kept.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-06 15:10:00
"""

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: Union[str, None] = "0010"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("captions") as batch:
        batch.add_column(sa.Column("image_url", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("captions") as batch:
        batch.drop_column("image_url")
