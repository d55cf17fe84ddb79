"""`newsarchive reindex` with the PostgreSQL search backend, resumable.

The new generation is built on this machine beside the live one (searches keep answering from that) and
uploaded at checkpoints: every CHECKPOINT_DOCS documents the writer commits, the files it made go to the
database, and `search_index_builds` records the last article id they hold, in one transaction. When the
rebuild is interrupted (a crash, a deploy, Ctrl-C), the next `newsarchive reindex`, on this machine or
another, downloads what was uploaded and goes on after that article. At the end the segments are merged
by search/merging.py's policy (bounded merges, checkpointed too), and the generation goes live under the
index's lock in one transaction, which drops the old one and the build's record.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Callable, Iterable, Optional

import whoosh.index
from sqlalchemy import delete, func, insert, select, update

from search import merging
from search.index import IndexBusy
from search.internals import abandon_writer, open_writer
from search.schema import SCHEMA_VERSION, IndexDocument, build_schema

from .models import SearchIndexBuild, SearchIndexFile, utcnow
from .pgfiles import adopt, drop_generation, make_copy, make_live, sync_files, upload_all

CHECKPOINT_DOCS = 50_000
BUILD_KEY = 0x6E657762  # the advisory lock of the one rebuild at a time ("newb")


def rebuild(
    index,
    docs_after: Callable[[int], Iterable[IndexDocument]],
    *,
    procs: int = 1,
    memory_mb: int = 256,
    progress: Optional[Callable[[int], None]] = None,
    before_swap: Optional[Callable[[int], None]] = None,
    checkpoint_docs: Optional[int] = None,
) -> int:
    """Build (or go on building) a new generation of `index` (a PgIndex) from `docs_after(last id)`, in id
    order, then make it live; `before_swap(last id)` runs under the lock just before. The documents in
    the new generation, those of an earlier attempt included. One rebuild at a time."""
    with index.engine.connect() as guard:
        if not guard.execute(select(func.pg_try_advisory_lock(BUILD_KEY))).scalar():
            raise IndexBusy("another `newsarchive reindex` is rebuilding the search index now")
        guard.commit()
        try:
            every = checkpoint_docs or CHECKPOINT_DOCS
            return _rebuild(
                index,
                docs_after,
                procs=procs,
                memory_mb=memory_mb,
                progress=progress,
                before_swap=before_swap,
                checkpoint_docs=every,
            )
        finally:
            guard.execute(select(func.pg_advisory_unlock(BUILD_KEY)))
            guard.commit()


def _rebuild(index, docs_after, *, procs, memory_mb, progress, before_swap, checkpoint_docs) -> int:
    work = index._new_work()
    try:
        generation, last_id, done = _start(index, work)
        if progress is not None and done:
            progress(done)
        writer, pending = None, 0
        try:
            for doc in docs_after(last_id):
                if writer is None:
                    writer = open_writer(whoosh.index.open_dir(str(work)), procs, memory_mb, 0)
                writer.add_document(**doc.fields())
                last_id, done, pending = doc.id, done + 1, pending + 1
                if progress is not None:
                    progress(done)
                if pending >= checkpoint_docs:
                    writer.commit(merge=False)
                    writer, pending = None, 0
                    _checkpoint(index, work, generation, last_id, done)
            if writer is not None:
                writer.commit(merge=False)
                writer = None
        except BaseException:
            if writer is not None:
                abandon_writer(writer)
            raise
        _checkpoint(index, work, generation, last_id, done)
        while chosen := merging.due(work):
            merging.merge_into(work, chosen, memory_mb)
            _checkpoint(index, work, generation, last_id, done)
        with index.lock():
            if before_swap is not None:
                before_swap(last_id)
            with index.engine.begin() as conn:
                toc = sync_files(conn, generation, work)
                make_live(conn, generation, toc)  # drops the old generation
                conn.execute(delete(SearchIndexBuild).where(SearchIndexBuild.generation == generation))
        adopt(index.root, work, generation, toc)
        return done
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _start(index, work: Path) -> tuple[int, int, int]:
    """(generation, last article id, documents) of the build to go on with, its files copied to `work`;
    a new build when there is none (or it was made by another version, or its files are gone)."""
    with index.engine.begin() as conn:
        b = SearchIndexBuild
        rows = conn.execute(
            select(b.generation, b.toc, b.last_article_id, b.documents, b.schema_version).order_by(b.generation.desc())
        ).all()
        for n, row in enumerate(rows):
            has_files = conn.scalar(
                select(func.count()).select_from(SearchIndexFile).where(SearchIndexFile.generation == row.generation)
            )
            if n == 0 and has_files and row.schema_version == SCHEMA_VERSION:
                work.rmdir()
                make_copy(index.root, conn, (row.generation, row.toc, row.schema_version), work)
                return row.generation, row.last_article_id, row.documents
            drop_generation(conn, row.generation)  # an older or unusable attempt: its files go
    whoosh.index.create_in(str(work), build_schema())
    generation = time.time_ns() // 1000
    with index.engine.begin() as conn:
        toc = upload_all(conn, generation, work)
        conn.execute(
            insert(SearchIndexBuild).values(
                generation=generation, toc=toc, last_article_id=0, documents=0, schema_version=SCHEMA_VERSION
            )
        )
    return generation, 0, 0


def _checkpoint(index, work: Path, generation: int, last_id: int, done: int) -> None:
    """Upload what `work` holds now and record how far the build got, in one transaction."""
    with index.engine.begin() as conn:
        toc = sync_files(conn, generation, work)
        conn.execute(
            update(SearchIndexBuild)
            .where(SearchIndexBuild.generation == generation)
            .values(toc=toc, last_article_id=last_id, documents=done, saved_at=utcnow())
        )
