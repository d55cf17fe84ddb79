"""Feeding the Whoosh index from SQL: pending rows are written, then marked indexed; a full rebuild swaps in a new index."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import Callable, Iterator, Optional

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from search.index import ArchiveIndex
from search.schema import FACET_SEPARATOR

from .models import Article, Caption, Place, Source, article_places

_EPOCH = dt.datetime(1970, 1, 1)
SYNC_BATCH = 5000
# Below this many documents one process writes faster than starting helper processes.
PARALLEL_MIN_DOCS = 2000


def article_docs(session: Session, ids: list[int]) -> list[dict]:
    """The Whoosh documents for these article ids, in id order."""
    if not ids:
        return []
    captions: dict[int, list] = defaultdict(list)
    for row in session.execute(
        select(Caption.article_id, Caption.text, Caption.credit, Caption.photographer, Caption.agency)
        .where(Caption.article_id.in_(ids)).order_by(Caption.article_id, Caption.position)
    ):
        captions[row.article_id].append(row)
    places: dict[int, list[str]] = defaultdict(list)
    for article_id, name in session.execute(
        select(article_places.c.article_id, Place.name).join(Place, Place.id == article_places.c.place_id)
        .where(article_places.c.article_id.in_(ids))
    ):
        places[article_id].append(name)
    docs = []
    for row in session.execute(
        select(Article.id, Article.headline, Article.body, Article.byline, Article.dateline,
               Article.published_day, Article.published_utc, Source.name.label("source"))
        .outerjoin(Source, Source.id == Article.source_id).where(Article.id.in_(ids)).order_by(Article.id)
    ):
        docs.append(make_doc(row, captions.get(row.id, []), places.get(row.id, [])))
    return docs


def credit_values(caption) -> list[str]:
    """What a caption adds to the credit facet: the photographer, else the agency, else the credit text."""
    value = caption.photographer or caption.agency or caption.credit
    return [value] if value else []


def make_doc(row, captions: list, places: list[str]) -> dict:
    doc = {"id": str(row.id), "headline": row.headline or "", "body": row.body or ""}
    if captions:
        doc["caption"] = "\n".join(c.text for c in captions)
        credits = [c.credit for c in captions if c.credit]
        names = [c.photographer for c in captions if c.photographer]
        if credits or names:
            doc["credit"] = "\n".join(dict.fromkeys(credits + names))
        facet = list(dict.fromkeys(v for c in captions for v in credit_values(c)))
        if facet:
            doc["credit_facet"] = FACET_SEPARATOR.join(facet)
    if row.source:
        doc["source"] = row.source
        doc["source_facet"] = row.source
    if places:
        doc["place"] = "\n".join(places)
        doc["place_facet"] = FACET_SEPARATOR.join(places)
    if row.byline:
        doc["byline"] = row.byline
    if row.dateline:
        doc["dateline"] = row.dateline
    if row.published_day is not None:
        day = row.published_day
        doc["day"] = day.year * 10000 + day.month * 100 + day.day
        doc["year_facet"] = str(day.year)
    if row.published_utc is not None:
        doc["published_ts"] = int((row.published_utc - _EPOCH).total_seconds())
    return doc


def sync_pending(sessions: sessionmaker, index: ArchiveIndex, *, procs: int = 1, memory_mb: int = 256,
                 batch: int = SYNC_BATCH) -> int:
    """Write every not-yet-indexed article to the index, then mark it indexed; return how many.

    The index is written and committed before the rows are marked, so a crash in between leaves rows to
    redo (update_document makes the redo harmless), never rows lost. The index lock keeps a concurrent
    `reindex` from swapping generations part-way through.
    """
    total = 0
    with index.lock():
        if not index.usable():
            # No index, or one that cannot be read: start a fresh one and feed it every article.
            index.reset()
            with sessions.begin() as session:
                session.execute(update(Article).where(Article.indexed.is_(True)).values(indexed=False))
        while True:
            with sessions() as session:
                ids = list(session.scalars(
                    select(Article.id).where(Article.indexed.is_(False)).order_by(Article.id).limit(batch)))
                if not ids:
                    return total
                docs = article_docs(session, ids)
            index.write(docs, procs=procs if len(docs) >= PARALLEL_MIN_DOCS else 1, memory_mb=memory_mb)
            with sessions.begin() as session:
                session.execute(update(Article).where(Article.id.in_(ids)).values(indexed=True))
            total += len(ids)


def iter_all_docs(sessions: sessionmaker, chunk: int = 2000, upto: Optional[list[int]] = None) -> Iterator[dict]:
    """Every article as a document, in id order, read in chunks so memory stays flat; records the last id read."""
    last = 0
    while True:
        with sessions() as session:
            ids = list(session.scalars(select(Article.id).where(Article.id > last).order_by(Article.id).limit(chunk)))
            if not ids:
                return
            docs = article_docs(session, ids)
        last = ids[-1]
        if upto is not None:
            upto[:] = [last]
        yield from docs


def reindex(sessions: sessionmaker, index: ArchiveIndex, *, procs: int = 1, memory_mb: int = 256,
            progress: Optional[Callable[[int], None]] = None) -> int:
    """Rebuild the index from SQL beside the live one and swap it in; searches keep answering meanwhile.

    Rows stored while the rebuild ran are marked pending after the swap and synced into the new index.
    """
    last_id: list[int] = [0]
    count = index.rebuild(iter_all_docs(sessions, upto=last_id), procs=procs, memory_mb=memory_mb, progress=progress,
                          before_swap=lambda: _mark_later_pending(sessions, last_id[0]))
    sync_pending(sessions, index, procs=procs, memory_mb=memory_mb)
    return count


def _mark_later_pending(sessions: sessionmaker, last_id: int) -> None:
    with sessions.begin() as session:
        session.execute(update(Article).where(Article.id > last_id).values(indexed=False))
        session.execute(update(Article).where(Article.id <= last_id, Article.indexed.is_(False)).values(indexed=True))


def counts(session: Session) -> dict[str, int]:
    return {
        "articles": session.scalar(select(func.count()).select_from(Article)) or 0,
        "pending_index": session.scalar(select(func.count()).select_from(Article).where(Article.indexed.is_(False))) or 0,
    }
