"""a rebuild of the search index kept in PostgreSQL can be resumed

`newsarchive reindex` with NEWSARCHIVE_SEARCH_BACKEND=postgres uploads the new generation at checkpoints
and records here how far it got (the last article id indexed), so an interrupted rebuild goes on from
there.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06 16:40:00
"""

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: Union[str, None] = "0011"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "search_index_builds",
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.Column("toc", sa.Integer(), nullable=False),
        sa.Column("last_article_id", sa.BigInteger(), nullable=False),
        sa.Column("documents", sa.BigInteger(), nullable=False),
        sa.Column("schema_version", sa.Integer(), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("saved_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("generation", name=op.f("pk_search_index_builds")),
    )


def downgrade() -> None:
    op.drop_table("search_index_builds")
