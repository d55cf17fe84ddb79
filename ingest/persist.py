"""Writing articles to SQL in batches: duplicates skipped by content hash, sources and places shared, and
versions of one article (the same identity from its source) resolved to the one that is searched."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Optional

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from search.schema import CaptionFields, IndexDocument
from store.access import MAIN, collection_ids
from store.models import Article, Caption, Place, Source, article_places, utcnow

from .errors import InputError
from .records import ArticleData
from .stories import NewArticle, assign_stories, stated_time

MAX_HEADLINE_CHARS = 2000
STATUSES = ("usable", "superseded", "withdrawn")  # searched; an older version kept as history; killed


@dataclass
class Stored:
    """What one batch did: the index documents of its searchable articles, how many articles it stored
    (searchable or not), how many were duplicates, and the earlier articles it took out of search."""

    docs: list[IndexDocument] = field(default_factory=list)
    stored: int = 0
    duplicates: int = 0
    removed: list[int] = field(default_factory=list)


def newer(new: tuple, old: tuple) -> bool:
    """Whether version (number, time) `new` comes after `old`: by number, else by time; when neither tells
    them apart, the later arrival is the newer."""
    (new_number, new_time), (old_number, old_time) = new, old
    if new_number is not None and old_number is not None and new_number != old_number:
        return new_number > old_number
    if new_time is not None and old_time is not None and new_time != old_time:
        return new_time > old_time
    return True


def _utc(value: Optional[dt.datetime]) -> Optional[dt.datetime]:
    if value is None:
        return None
    return value.astimezone(dt.timezone.utc).replace(tzinfo=None) if value.tzinfo else value


class ArticleStore:
    """Stores ArticleData rows through one session; caches source and place ids across batches."""

    def __init__(self) -> None:
        self._sources: dict[str, int] = {}
        self._places: dict[str, int] = {}

    def forget_cache(self) -> None:
        """Drop cached ids (after a rollback they may name rows that were never committed)."""
        self._sources.clear()
        self._places.clear()

    def store(
        self,
        session: Session,
        articles: list[ArticleData],
        *,
        original_file: str,
        ingest_file_id: Optional[int],
    ) -> Stored:
        """Insert the articles not stored before; return their index documents and counts (`Stored`).
        Earlier batches of the same file were inserted in this session's transaction, so the SQL lookup
        sees them: nothing is remembered between batches (a 600,000-record file once kept 100 MB of
        hashes). The documents are built from what was written, so indexing reads nothing back from SQL."""
        fresh, duplicates = _new_articles(session, articles)
        if not fresh:
            return Stored(duplicates=duplicates)
        statuses, notices, removed = self._resolve_versions(session, [a for _, a in fresh])
        now = utcnow()
        by_name, by_source = collection_ids(session)
        rows, sources = [], []
        for (digest, a), status, notice in zip(fresh, statuses, notices, strict=True):
            source = a.source[:200] if a.source else None
            sources.append(source)
            row = article_row(a, digest, status=status, notice=notice, now=now)
            row.update(
                original_file=original_file,
                ingest_file_id=ingest_file_id,
                source_id=self._source_id(session, source) if source else None,
                collection_id=_collection_of(a, source, by_name, by_source),
            )
            rows.append(row)
        ids = list(session.scalars(insert(Article).returning(Article.id, sort_by_parameter_order=True), rows))
        batch = [new_article(i, row, a) for i, row, (_, a) in zip(ids, rows, fresh, strict=True)]
        story_of = assign_stories(session, batch)
        caption_rows: list[dict] = []
        place_rows: list[dict] = []
        docs = []
        for article_id, row, source, (_, a) in zip(ids, rows, sources, fresh, strict=True):
            captions = caption_rows_of(article_id, a)
            caption_rows += captions
            places = list(dict.fromkeys(p.name[:200] for p in a.places if p.name))
            place_rows += [{"article_id": article_id, "place_id": self._place_of(session, a, name)} for name in places]
            if row["status"] == "usable":  # history and withdrawn versions stay in SQL, never in the index
                docs.append(index_document(article_id, row, source, captions, places, story=story_of[article_id]))
        if caption_rows:
            session.execute(insert(Caption), caption_rows)
        if place_rows:
            session.execute(insert(article_places), place_rows)
        return Stored(docs=docs, stored=len(rows), duplicates=duplicates, removed=removed)

    def _resolve_versions(
        self, session: Session, articles: list[ArticleData]
    ) -> tuple[list[str], list[Optional[str]], list[int]]:
        """The status of each new article, its notice, and the stored articles it takes out of search.

        Articles sharing an identity are versions of one article: the newest (`newer`) is searched, the
        others stay in SQL as history (`superseded`). A withdrawal that is the newest takes the article out
        of search: the version it withdraws is marked `withdrawn` with its notice, as is the notice itself.
        An older version arriving late is stored as history and changes nothing."""
        statuses = ["usable"] * len(articles)
        notices: list[Optional[str]] = [None] * len(articles)
        identities = list(dict.fromkeys(a.identity for a in articles if a.identity))
        if not identities:
            return statuses, notices, []
        current: dict[str, dict] = {}  # identity -> {"ref": stored id or ("new", i), "rank", "status"}
        for start in range(0, len(identities), 500):
            for row in session.execute(
                select(Article.id, Article.identity, Article.version, Article.version_time, Article.status)
                .where(Article.identity.in_(identities[start : start + 500]), Article.status != "superseded")
                .order_by(Article.id)
            ):
                current[row.identity] = {
                    "ref": row.id,
                    "rank": (row.version, row.version_time),
                    "status": row.status,
                }
        changes: dict[int, tuple[str, Optional[str]]] = {}
        for i, a in enumerate(articles):
            if not a.identity:
                continue
            rank = (a.version, _utc(a.version_time))
            mine = current.get(a.identity)
            if mine is not None and not newer(rank, mine["rank"]):
                statuses[i] = "superseded"  # an older version arriving late: history only
                continue
            statuses[i] = "withdrawn" if a.withdrawn else "usable"
            notices[i] = a.notice if a.withdrawn else None
            if mine is not None and mine["status"] == "usable":
                before = ("withdrawn", a.notice) if a.withdrawn else ("superseded", None)
                if isinstance(mine["ref"], tuple):
                    statuses[mine["ref"][1]], notices[mine["ref"][1]] = before
                else:
                    changes[mine["ref"]] = before
            current[a.identity] = {"ref": ("new", i), "rank": rank, "status": statuses[i]}
        for article_id, (status, notice) in changes.items():
            # indexed=False until the index has dropped it (the feeder, or sync_pending after a crash)
            session.execute(
                update(Article).where(Article.id == article_id).values(status=status, notice=notice, indexed=False)
            )
        return statuses, notices, list(changes)

    def _source_id(self, session: Session, name: str) -> int:
        cached = self._sources.get(name)
        if cached is not None:
            return cached
        found = session.scalar(select(Source.id).where(Source.name == name))
        if found is None:
            found = session.execute(insert(Source).values(name=name).returning(Source.id)).scalar_one()
        self._sources[name] = found
        return found

    def _place_of(self, session: Session, article: ArticleData, name: str) -> int:
        """The id of the place `name` that `article` names (stored on first sight, with its kind and country)."""
        place = next((p for p in article.places if p.name == name), None)
        kind = (place.kind if place else "place")[:20]
        return self._place_id(session, name, kind, place.country_code if place else None)

    def _place_id(self, session: Session, name: str, kind: str, country_code: Optional[str]) -> int:
        cached = self._places.get(name)
        if cached is not None:
            return cached
        found = session.scalar(select(Place.id).where(Place.name == name))
        if found is None:
            found = session.execute(
                insert(Place).values(name=name, kind=kind, country_code=country_code).returning(Place.id)
            ).scalar_one()
        self._places[name] = found
        return found


def _collection_of(a: ArticleData, source: Optional[str], by_name: dict[str, int], by_source: dict[str, int]) -> int:
    """The collection an article is stored in: its inbox folder's, else its source's rule, else `main`."""
    if a.collection:
        found = by_name.get(a.collection.lower())
        if found is None:
            raise InputError(
                f"the folder names the collection {a.collection!r}, which does not exist: make it with "
                f"`newsarchive collections create {a.collection}` (and set who may read it), then drop the file again"
            )
        return found
    return by_source.get(source.lower(), MAIN) if source else MAIN


def _new_articles(session: Session, articles: list[ArticleData]) -> tuple[list[tuple[str, ArticleData]], int]:
    """(content hash, article) of the articles neither stored before nor repeated earlier in the batch, in
    order, and how many were such duplicates."""
    hashes = [a.content_sha256 for a in articles]
    existing: set[str] = set()
    unique = list(dict.fromkeys(hashes))
    for start in range(0, len(unique), 500):
        chunk = unique[start : start + 500]
        existing.update(session.scalars(select(Article.content_sha256).where(Article.content_sha256.in_(chunk))))
    fresh = []
    for digest, article in zip(hashes, articles, strict=True):
        if digest not in existing:
            existing.add(digest)  # a later repeat in this batch is a duplicate too
            fresh.append((digest, article))
    return fresh, len(articles) - len(fresh)


def article_row(a: ArticleData, digest: str, *, status: str, notice: Optional[str], now: dt.datetime) -> dict:
    """An article's row of the articles table, but for its file and source (the store adds them)."""
    if not a.prepared:  # readers prepare articles; this is for articles built some other way
        a.prepare()
    published, day, utc = a.published_fields()
    return {
        "headline": a.headline[:MAX_HEADLINE_CHARS],
        "body": a.body,
        "published": published,
        "published_day": day,
        "published_utc": utc,
        "date_inferred": a.date_inferred,
        "byline": a.byline,
        "dateline": a.dateline[:200] if a.dateline else None,
        "url": a.url,
        "language": a.language[:16] if a.language else None,
        "content_sha256": digest,
        "source_line": a.source_line,
        "source_member": a.source_member,
        "ingested_at": now,
        "indexed": False,
        "minhash": a.story_signature,
        "shingles": a.story_shingles,
        "identity": a.identity,
        "version": a.version,
        "version_time": _utc(a.version_time),
        "status": status,
        "notice": notice,
    }


def new_article(article_id: int, row: dict, a: ArticleData) -> NewArticle:
    """What story clustering needs of a just-inserted article."""
    return NewArticle(
        article_id,
        row["minhash"],
        row["published_day"],
        row["headline"],
        a.story_keys,
        time=stated_time(row["published"], row["published_utc"], row["date_inferred"]),
        body=row["body"],
        shingles=row["shingles"],
        language=row["language"],
    )


def caption_rows_of(article_id: int, a: ArticleData) -> list[dict]:
    """The caption rows of an article, in order."""
    return [
        {
            "article_id": article_id,
            "position": position,
            "text": c.text,
            "credit": c.credit,
            "photographer": c.photographer[:200] if c.photographer else None,
            "agency": c.agency[:100] if c.agency else None,
            "image_url": c.image_url if c.image_url and len(c.image_url) <= 2000 else None,
        }
        for position, c in enumerate(a.captions)
    ]


def index_document(
    article_id: int, row: dict, source: Optional[str], captions: list[dict], places: list[str], *, story: int
) -> IndexDocument:
    """The index document of a stored article, built from what was written (its row and caption rows, the
    names of its source and places)."""
    return IndexDocument(
        id=article_id,
        headline=row["headline"],
        body=row["body"],
        captions=tuple(CaptionFields(c["text"], c["credit"], c["photographer"], c["agency"]) for c in captions),
        source=source,
        places=tuple(places),
        byline=row["byline"],
        dateline=row["dateline"],
        url=row["url"],
        day=row["published_day"],
        published_utc=row["published_utc"],
        language=row["language"],
        story=story,
    )
