"""one searched version per article identity, enforced by the database

Several ingesters may write one PostgreSQL archive at once (on separate machines). They take turns by an
advisory lock, and their Python checks keep one searched (`usable`) version of each article identity;
this partial unique index makes the database refuse a second one, as `content_sha256` is already unique.
An archive that somehow holds two usable versions of one identity keeps the newest (highest id) usable
and the others as history (`superseded`, taken out of the index by the next ingest or `reindex`).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-06 12:00:00
"""

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: Union[str, None] = "0009"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

WHERE = "status = 'usable' AND identity IS NOT NULL"


def upgrade() -> None:
    op.execute(
        sa.text(
            "UPDATE articles SET status = 'superseded', indexed = :no WHERE status = 'usable' AND identity IS NOT NULL"
            " AND id < (SELECT max(newer.id) FROM articles AS newer"
            "           WHERE newer.identity = articles.identity AND newer.status = 'usable')"
        ).bindparams(no=False)
    )
    op.create_index(
        "uq_articles_usable_identity",
        "articles",
        ["identity"],
        unique=True,
        postgresql_where=sa.text(WHERE),
        sqlite_where=sa.text(WHERE),
    )


def downgrade() -> None:
    op.drop_index("uq_articles_usable_identity", table_name="articles")
