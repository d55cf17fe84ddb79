"""the search index in SQL: the PostgreSQL search backend's files, their parts and the live state

With NEWSARCHIVE_SEARCH_BACKEND=postgres the Whoosh index's files live in these tables, written in the
same transaction as the articles they index; every machine keeps a local copy (store/pgindex.py). With the
default `whoosh` backend the tables stay empty.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06 09:00:00
"""

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: Union[str, None] = "0008"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        "search_index_state",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.Column("toc", sa.Integer(), nullable=False),
        sa.Column("schema_version", sa.Integer(), nullable=False),
        sa.Column("changed_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_search_index_state")),
    )
    op.create_table(
        "search_index_files",
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("generation", "name", name=op.f("pk_search_index_files")),
    )
    op.create_table(
        "search_index_parts",
        sa.Column("generation", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("part", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("generation", "name", "part", name=op.f("pk_search_index_parts")),
    )


def downgrade() -> None:
    op.drop_table("search_index_parts")
    op.drop_table("search_index_files")
    op.drop_table("search_index_state")
