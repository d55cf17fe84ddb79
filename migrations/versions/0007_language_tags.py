"""language tags in one form

articles.language held tags as each reader cut them ("pt-br" from JSON, "pt" from feeds and NewsML-G2).
Every stored tag is rewritten in the one form `search.languages.language_tag` gives (the BCP 47
language subtag: "pt-br" -> "pt", "iw" -> "he"); a value that is not a language tag becomes NULL (the
language unknown). The search index is rebuilt from SQL by the next `ingest` or `reindex` (schema 6).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05 22:00:00
"""

from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

from search.languages import language_tag

revision: str = "0007"
down_revision: Union[str, None] = "0006"
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    connection = op.get_bind()
    articles = sa.table("articles", sa.column("language", sa.String))
    stored = [row[0] for row in connection.execute(sa.select(articles.c.language).distinct()) if row[0] is not None]
    for value in stored:
        tag = language_tag(value)
        if tag != value:
            connection.execute(articles.update().where(articles.c.language == value).values(language=tag))


def downgrade() -> None:
    pass  # the tags as each reader cut them are not kept; the normalised ones read as well under 0006
