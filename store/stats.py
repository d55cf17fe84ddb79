"""Archive counts for `newsarchive stats` and `/healthz`."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from search.index import ArchiveIndex, IndexMissing

from .db import make_engine
from .models import Article, Caption, IngestFile, Place, Source
from .pgindex import open_index
from .replicas import Router
from .settings import Settings


def skipped_records(session: Session) -> int:
    """Records of ingested files that were skipped (bad JSON, no text, ...), over every file read."""
    return sum(
        len(errors or []) for errors in session.scalars(select(IngestFile.errors).where(IngestFile.errors.is_not(None)))
    )


def sql_counts(session: Session) -> dict[str, int]:
    def count(model, *where) -> int:
        return session.scalar(select(func.count()).select_from(model).where(*where)) or 0

    return {
        "articles": count(Article),
        "captions": count(Caption),
        "sources": count(Source),
        "places": count(Place),
        "files_read": count(IngestFile),
        "failed_files": count(IngestFile, IngestFile.status == "failed"),
        "pending_index": count(Article, Article.indexed.is_(False)),
        "skipped_records": skipped_records(session),
    }


def searchable_count(session: Session) -> int:
    """How many articles the index holds when it is complete: the searchable (usable) versions."""
    return session.scalar(select(func.count()).select_from(Article).where(Article.status == "usable")) or 0


def index_status(index: ArchiveIndex) -> dict:
    """The index's document count and size, or the reason it cannot be used."""
    try:
        docs = index.doc_count()
    except IndexMissing as exc:
        return {"index_ok": False, "index_error": str(exc), "index_documents": 0, "index_bytes": 0}
    return {
        "index_ok": True,
        "index_documents": docs,
        "index_bytes": index.size_bytes(),
        "index_backend": getattr(index, "backend", "whoosh"),
    }


def collect(settings: Settings) -> dict:
    engine = make_engine(settings)
    try:
        with Session(engine) as session:
            data = sql_counts(session)
        data.update(index_status(open_index(settings, engine)))
        if settings.database_replica_urls:
            router = Router(engine, settings.database_replica_urls, settings.replica_max_lag_s)
            try:
                data["database"] = router.describe(with_urls=True)
            finally:
                router.close()
    finally:
        engine.dispose()
    return data
