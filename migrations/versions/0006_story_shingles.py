"""the number of word shingles behind each story signature

articles.shingles: how many distinct word shingles an article's MinHash signature summarises. With two
articles' counts, their signatures' agreement estimates how much of the shorter text the longer one
holds (a brief and the full story written from it). Rows stored before this revision keep NULL, and the
story rule that needs the count passes them over.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-05 16:00:00
"""

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: Union[str, None] = "0005"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("articles") as batch:
        batch.add_column(sa.Column("shingles", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("articles") as batch:
        batch.drop_column("shingles")
