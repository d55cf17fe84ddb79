"""bundle members and versions of one article

articles.source_member: the member of a zip or tar bundle an article was read from.
articles.identity, version, version_time, status, notice: an article's stable identity as its source
gives it (a feed guid, a NewsML-G2 guid, a ninjs uri, an NITF doc-id, a web archive's URL), its version
(a number, a version time), and whether it is the one searched (`usable`), an older version kept as
history (`superseded`) or withdrawn by a kill notice (`withdrawn`, with the notice).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-04 17:50:00
"""

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: Union[str, None] = "0004"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("articles") as batch:
        batch.add_column(sa.Column("source_member", sa.Text(), nullable=True))
        batch.add_column(sa.Column("identity", sa.Text(), nullable=True))
        batch.add_column(sa.Column("version", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("version_time", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("status", sa.String(length=12), nullable=False, server_default="usable"))
        batch.add_column(sa.Column("notice", sa.Text(), nullable=True))
    op.create_index(op.f("ix_articles_identity"), "articles", ["identity"])


def downgrade() -> None:
    op.drop_index(op.f("ix_articles_identity"), table_name="articles")
    with op.batch_alter_table("articles") as batch:
        for name in ("notice", "status", "version_time", "version", "identity", "source_member"):
            batch.drop_column(name)
