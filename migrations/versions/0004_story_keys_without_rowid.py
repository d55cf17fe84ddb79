"""story_keys WITHOUT ROWID on SQLite

One B-tree keyed by (key, article_id) instead of a rowid table plus its primary-key index: the band keys
are a fifth of what a story-clustering ingest writes (BENCHMARKS.md, "What clustering costs at ingest").
PostgreSQL has no such option; there this revision does nothing.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-04 14:40:00
"""

from typing import Sequence, Union

from alembic import op

revision: str = "0004"
down_revision: Union[str, None] = "0003"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

WITHOUT_ROWID = """CREATE TABLE story_keys (
    "key" BIGINT NOT NULL,
    article_id INTEGER NOT NULL,
    CONSTRAINT pk_story_keys PRIMARY KEY ("key", article_id),
    CONSTRAINT fk_story_keys_article_id_articles FOREIGN KEY(article_id) REFERENCES articles (id) ON DELETE CASCADE
){}"""


def _rebuild(suffix: str) -> None:
    if op.get_bind().dialect.name != "sqlite":
        return
    op.execute("ALTER TABLE story_keys RENAME TO story_keys_old")
    op.execute(WITHOUT_ROWID.format(suffix))
    op.execute('INSERT INTO story_keys ("key", article_id) SELECT "key", article_id FROM story_keys_old')
    op.execute("DROP TABLE story_keys_old")


def upgrade() -> None:
    _rebuild(" WITHOUT ROWID")


def downgrade() -> None:
    _rebuild("")
