"""story clusters

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03 21:10:00
"""

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: Union[str, None] = "0002"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table("articles", schema=None) as batch_op:
        batch_op.add_column(sa.Column("story_id", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("minhash", sa.LargeBinary(), nullable=True))
        batch_op.create_index(batch_op.f("ix_articles_story_id"), ["story_id"], unique=False)
    op.create_table(
        "story_keys",
        sa.Column("key", sa.BigInteger(), nullable=False),
        sa.Column("article_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["article_id"], ["articles.id"], name=op.f("fk_story_keys_article_id_articles"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("key", "article_id", name=op.f("pk_story_keys")),
    )


def downgrade() -> None:
    op.drop_table("story_keys")
    with op.batch_alter_table("articles", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_articles_story_id"))
        batch_op.drop_column("minhash")
        batch_op.drop_column("story_id")
