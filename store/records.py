"""The read side's article records (store/read.py `Archive`): one article, its history and versions, as
the pages and the JSON API show them."""

from __future__ import annotations

from typing import Optional

from sqlalchemy import select
from sqlalchemy.orm import selectinload

from .display import human_date
from .models import Article, Source
from .visible import Readable


def _history_columns():
    return select(
        Article.id,
        Article.headline,
        Article.version,
        Article.version_time,
        Article.status,
        Article.notice,
        Article.ingested_at,
    )


def article_record(article: Article, zone_name: str = "UTC") -> dict:
    return {
        "id": article.id,
        "headline": article.headline,
        "published": article.published,
        "published_display": human_date(article.published, zone_name),
        "date_inferred": article.date_inferred,
        "source": article.source.name if article.source else None,
        "byline": article.byline,
        "dateline": article.dateline,
        "body": article.body,
        "paragraphs": article.paragraphs,
        "captions": [
            {
                "text": c.text,
                "credit": c.credit,
                "photographer": c.photographer,
                "agency": c.agency,
                "image_url": c.image_url if c.image_url and c.image_url.startswith(("http://", "https://")) else None,
            }
            for c in article.captions
        ],
        "places": [p.name for p in article.places],
        "url": article.url,
        "language": article.language,
        "story_id": article.story_id or article.id,
        "content_sha256": article.content_sha256,
        "original_file": article.original_file,
        "source_member": article.source_member,
        "ingested_at": article.ingested_at.isoformat(timespec="seconds") + "Z",
        "status": article.status or "usable",
        "notice": article.notice,
        "identity": article.identity,
        "version": article.version,
        "version_time": article.version_time.isoformat(timespec="seconds") + "Z" if article.version_time else None,
    }


class Records:
    """Archive's article records."""

    def article(self, article_id: int, visible: Optional[Readable] = None) -> Optional[dict]:
        """The article record of SPEC.md, or None when there is no such article (or `visible` hides it)."""
        q = select(Article).where(Article.id == article_id)
        condition = self._readable_clause(visible)
        if condition is not None:
            q = q.where(condition)
        with self.sessions() as session:
            article = session.scalars(q.options(selectinload(Article.captions), selectinload(Article.places))).first()
            return article_record(article, self.settings.time_zone) if article is not None else None

    def original_shared(self, record: dict, visible: Optional[Readable] = None) -> bool:
        """Whether the original file of an article (or its bundle member) may be handed to this reader: it
        may hold other articles, and every one of them must be readable (a JSON Lines file of two sources
        whose collections differ is not)."""
        condition = self._readable_clause(visible)
        if condition is None:
            return True
        q = select(Article.id).where(Article.original_file == record["original_file"], ~condition).limit(1)
        if record.get("source_member"):
            q = q.where(Article.source_member == record["source_member"])
        with self.engine.connect() as connection:
            return connection.execute(q).first() is None

    def history(self, article_id: int, limit: int = 200, visible: Optional[Readable] = None) -> Optional[dict]:
        """Every stored version of this article by its identity (itself included) that `visible` lets
        through, oldest first, with which one is searched; None when there is no such article (or it is hidden)."""
        condition = self._readable_clause(visible)
        with self.engine.connect() as connection:
            q = select(Article.identity, Article.status).where(Article.id == article_id)
            row = connection.execute(q if condition is None else q.where(condition)).first()
            if row is None:
                return None
            if row.identity is None:
                rows = connection.execute(_history_columns().where(Article.id == article_id)).all()
            else:
                q = _history_columns().where(Article.identity == row.identity)
                if condition is not None:
                    q = q.where(condition)
                rows = connection.execute(q.order_by(Article.id).limit(limit)).all()
        versions = sorted(
            (
                {
                    "id": r.id,
                    "headline": r.headline,
                    "version": r.version,
                    "version_time": r.version_time.isoformat(timespec="seconds") + "Z" if r.version_time else None,
                    "status": r.status,
                    "notice": r.notice,
                    "ingested_at": r.ingested_at.isoformat(timespec="seconds") + "Z",
                }
                for r in rows
            ),
            key=lambda v: (v["version"] is None, v["version"] or 0, v["version_time"] or "", v["id"]),
        )
        current = next((v["id"] for v in versions if v["status"] == "usable"), None)
        return {
            "id": article_id,
            "identity": row.identity,
            "status": row.status,
            "current": current,
            "versions": versions,
        }

    def versions(self, article_id: int, limit: int = 50, visible: Optional[Readable] = None) -> list[dict]:
        """The other versions of this article's story (ingest/stories.py) that `visible` lets through, in
        the order they were stored."""
        condition = self._readable_clause(visible)
        with self.engine.connect() as connection:
            story = connection.execute(select(Article.story_id).where(Article.id == article_id)).first()
            if story is None:
                return []
            story_id = story.story_id or article_id
            rows = connection.execute(
                select(Article.id, Article.headline, Article.published, Source.name.label("source"))
                .outerjoin(Source, Source.id == Article.source_id)
                .where(
                    (Article.id == story_id) | (Article.story_id == story_id),
                    Article.id != article_id,
                    Article.status == "usable",
                    *([condition] if condition is not None else []),
                )
                .order_by(Article.id)
                .limit(limit)
            ).all()
        zone_name = self.settings.time_zone
        return [
            {
                "id": r.id,
                "headline": r.headline,
                "published": r.published,
                "published_display": human_date(r.published, zone_name),
                "source": r.source,
            }
            for r in rows
        ]
