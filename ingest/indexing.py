"""Feeding the Whoosh index from SQL: pending rows are written, then marked indexed; a full rebuild swaps in
a new index.

`Article.indexed` changes here only (`_set_indexed`); new rows are stored not indexed (ingest/persist.py).
The index is always written and committed before rows are marked, so a crash in between leaves rows to
redo, never rows lost (a redo is an `update_document`, harmless).
"""

from __future__ import annotations

from collections import defaultdict
from contextlib import ExitStack
from typing import Callable, Iterator, Optional

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from search.index import ArchiveIndex
from search.internals import abandon_writer, open_writer
from search.schema import CaptionFields, IndexDocument
from store.models import Article, Caption, Place, Source, article_places
from store.pgmerge import merge_quietly

SYNC_BATCH = 5000
PG_SLICE_SECONDS = 5.0
# Below this many documents one process writes faster than starting helper processes.
PARALLEL_MIN_DOCS = 2000
PARALLEL_FIRST_BATCH = 100


def article_docs(session: Session, ids: list[int]) -> list[IndexDocument]:
    """The index documents for these article ids, read from SQL, in id order; an article that is not
    searchable (an older version, a withdrawn one) has none."""
    if not ids:
        return []
    captions: dict[int, list[CaptionFields]] = defaultdict(list)
    for row in session.execute(
        select(Caption.article_id, Caption.text, Caption.credit, Caption.photographer, Caption.agency)
        .where(Caption.article_id.in_(ids))
        .order_by(Caption.article_id, Caption.position)
    ):
        captions[row.article_id].append(CaptionFields(row.text, row.credit, row.photographer, row.agency))
    places: dict[int, list[str]] = defaultdict(list)
    for article_id, name in session.execute(
        select(article_places.c.article_id, Place.name)
        .join(Place, Place.id == article_places.c.place_id)
        .where(article_places.c.article_id.in_(ids))
        .order_by(article_places.c.article_id, Place.id)
    ):
        places[article_id].append(name)
    docs = []
    for row in session.execute(
        select(
            Article.id,
            Article.headline,
            Article.body,
            Article.byline,
            Article.dateline,
            Article.url,
            Article.published_day,
            Article.published_utc,
            Article.language,
            Article.story_id,
            Source.name.label("source"),
        )
        .outerjoin(Source, Source.id == Article.source_id)
        .where(Article.id.in_(ids), Article.status == "usable")
        .order_by(Article.id)
    ):
        docs.append(
            IndexDocument(
                id=row.id,
                headline=row.headline,
                body=row.body,
                captions=tuple(captions.get(row.id, ())),
                source=row.source,
                places=tuple(places.get(row.id, ())),
                byline=row.byline,
                dateline=row.dateline,
                url=row.url,
                day=row.published_day,
                published_utc=row.published_utc,
                language=row.language,
                story=row.story_id or row.id,
            )
        )
    return docs


_MARK_CHUNK = 900  # ids per UPDATE (SQLite allows 999 bound parameters in older builds)


def _set_indexed(sessions: sessionmaker, indexed: bool, *where) -> None:
    """Mark the articles matching `where` (all of them when empty) as indexed or not, in one transaction."""
    with sessions.begin() as session:
        session.execute(update(Article).where(*where).values(indexed=indexed))


def sync_pending(
    sessions: sessionmaker, index: ArchiveIndex, *, procs: int = 1, memory_mb: int = 256, batch: int = SYNC_BATCH
) -> int:
    """Write every not-yet-indexed article to the index, then mark it indexed; return how many.

    The index lock keeps a concurrent `reindex` from swapping generations part-way through.
    """
    total = 0
    with index.lock():
        if not index.usable():
            # No index, or one that cannot be read (or built by another schema version): start a fresh
            # one and feed it every article.
            index.reset()
            _set_indexed(sessions, False)
        while True:
            with sessions() as session:
                ids = list(
                    session.scalars(
                        select(Article.id).where(Article.indexed.is_(False)).order_by(Article.id).limit(batch)
                    )
                )
                if not ids:
                    return total
                docs = article_docs(session, ids)
            gone = sorted(set(ids) - {d.id for d in docs})  # not searchable: out of the index, if there
            index.write(docs, procs=procs if len(docs) >= PARALLEL_MIN_DOCS else 1, memory_mb=memory_mb, delete=gone)
            _set_indexed(sessions, True, Article.id.in_(ids))
            total += len(ids)


class IndexFeeder:
    """Writes articles to the index while their file is being stored, and commits the index after SQL.

    Documents are added to one open Whoosh writer as soon as their rows are inserted (so parsing, SQL
    and indexing overlap), but the writer commits only after the SQL transactions of those rows have
    committed; then the rows are marked indexed. If a file's transaction fails after its documents were
    added, the whole uncommitted writer is dropped: the rows of earlier files stay marked not indexed,
    and `sync_pending` writes them. A crash anywhere leaves rows to redo, never documents without rows.
    The index's sync lock is held from the first document to the commit (on `self._held`), so `reindex`
    cannot swap the index underneath.
    """

    def __init__(
        self,
        sessions: sessionmaker,
        index: ArchiveIndex,
        *,
        procs: int = 1,
        memory_mb: int = 256,
        commit_docs: int = 100_000,
    ) -> None:
        self.sessions = sessions
        self.index = index
        self.procs = procs
        self.memory_mb = memory_mb
        self.commit_docs = commit_docs
        self._writer = None
        self._held = ExitStack()  # the index lock, from the first document to the commit
        self._file_ids: list[int] = []  # articles of the file being stored, added to the writer
        self._committed_ids: list[int] = []  # articles whose rows are committed, added to the writer

        self._rebuild_all = False

    @property
    def pending_docs(self) -> int:
        """Documents added (or removed) since the last commit."""
        return len(self._committed_ids) + len(self._file_ids)

    def add(self, docs: list[IndexDocument], *, parallel: bool) -> None:
        if not docs:
            return
        if self._writer is None:
            self._open(parallel)
        for doc in docs:
            self._writer.add_document(**doc.fields())
            self._file_ids.append(doc.id)

    def remove(self, ids: list[int]) -> None:
        """Take these articles out of the index (a newer version or a withdrawal replaced them) with the
        same commit as the documents added; they are marked indexed (in step) when it is done."""
        if not ids:
            return
        if self._writer is None:
            self._open(False)
        for article_id in ids:
            self._writer.delete_by_term("id", str(article_id))
            self._file_ids.append(article_id)

    def before_commit(self, session: Session) -> None:
        """The file's transaction is about to commit (the PostgreSQL backend writes the index in it)."""

    def file_committed(self, ingest_file_id: int) -> None:
        """The file's rows (those stored so far) are committed: its documents may now be committed with the
        index. Only the articles added here are marked indexed at commit: rows an interrupted run of the
        same file left pending are left to `sync_pending`."""
        if self._file_ids:
            self._committed_ids.extend(self._file_ids)
            self._file_ids = []
        if len(self._committed_ids) >= self.commit_docs:
            self.commit()

    def file_failed(self) -> None:
        """The file's transaction rolled back: drop every uncommitted document (their rows stay pending)."""
        if self._file_ids:
            self._close(commit=False)

    def commit(self) -> int:
        """Commit the index and mark the committed files' rows indexed; returns how many documents."""
        docs = len(self._committed_ids)
        self._close(commit=True)
        return docs

    def _open(self, parallel: bool) -> None:
        with ExitStack() as opening:
            opening.enter_context(self.index.lock())
            if not self.index.usable():
                # Called inside a file's transaction, so the rows are marked pending at commit time.
                self.index.reset()
                self._rebuild_all = True
            self._writer = open_writer(self.index.open(), self.procs if parallel else 1, self.memory_mb)
            self._held = opening.pop_all()  # opened: keep the lock until _close

    def _close(self, commit: bool) -> None:
        if self._writer is None:
            return
        writer, self._writer = self._writer, None
        ids, self._committed_ids = self._committed_ids, []
        self._file_ids = []
        with self._held:
            if commit and ids:
                try:
                    writer.commit(merge=False)  # merged below, with the lock released (search/merging.py)
                except BaseException:
                    abandon_writer(writer)
                    raise
                if self._rebuild_all:  # a fresh index: every other article still has to be written
                    _set_indexed(self.sessions, False)
                with self.sessions.begin() as session:
                    for start in range(0, len(ids), _MARK_CHUNK):
                        session.execute(
                            update(Article).where(Article.id.in_(ids[start : start + _MARK_CHUNK])).values(indexed=True)
                        )
            else:
                abandon_writer(writer)
                if self._rebuild_all:
                    _set_indexed(self.sessions, False)
            self._rebuild_all = False
        if commit and ids:
            self.index.merge_due(self.memory_mb)


class PgIndexFeeder(IndexFeeder):
    """The feeder of the PostgreSQL search backend (store/pgindex.py): a file's documents (or a slice's)
    are indexed as they are stored, on a writer over the live commit of the moment, and published in the
    file's transaction when it is about to commit (`before_commit`), with its rows marked indexed: once
    the articles commit they are searchable everywhere, and nothing is left pending. The index's lock is
    the transaction's own (`pg_advisory_xact_lock`), taken only then; when another ingester published
    meanwhile, the documents are written again on its commit."""

    # A slice of a file of many records commits with its index files: longer slices than the Whoosh
    # backend's make fewer, larger index segments to write, upload and merge (bench/backends.py).
    slice_seconds = PG_SLICE_SECONDS

    def __init__(self, sessions: sessionmaker, index, *, procs: int = 1, memory_mb: int = 256, **_) -> None:
        super().__init__(sessions, index, procs=procs, memory_mb=memory_mb)
        self._docs: list[IndexDocument] = []
        self._removed: list[int] = []
        self._parallel = False
        self._change = None
        self._optimistic_failed = False  # no usable index to start from: write under the lock at commit

    @property
    def pending_docs(self) -> int:
        return len(self._docs) + len(self._removed)

    def add(self, docs: list[IndexDocument], *, parallel: bool) -> None:
        """Keep the documents, and index them now on a writer over the live commit of the moment (no lock:
        see `before_commit`), so that indexing overlaps reading and storing."""
        if not docs:
            return
        self._docs.extend(docs)
        self._parallel = self._parallel or parallel
        if self._change is None and not self._optimistic_failed:
            # Helper processes for a file whose first batch is a big one (a file of many records); a small
            # file is written faster by this process alone.
            procs = self.procs if self._parallel and len(self._docs) >= PARALLEL_FIRST_BATCH else 1
            self._change = self.index.optimistic_change(procs, self.memory_mb)
            self._optimistic_failed = self._change is None
            if self._change is None:
                return
            for article_id in self._removed:
                self._change.writer.delete_by_term("id", str(article_id))
            docs = self._docs
        if self._change is not None:
            for doc in docs:
                self._change.writer.add_document(**doc.fields())

    def remove(self, ids: list[int]) -> None:
        self._removed.extend(ids)
        if self._change is not None:
            for article_id in ids:
                self._change.writer.delete_by_term("id", str(article_id))

    def before_commit(self, session: Session) -> None:
        """Write the file's documents to the index in `session`'s transaction, about to commit: under the
        transaction's lock, the writer that indexed them is published when the commit it started from is
        still the live one; otherwise (another ingester published meanwhile, or there was no index) they
        are written again on the live commit."""
        if not self._docs and not self._removed:
            return
        conn = session.connection()
        try:
            change = self._change
            if change is not None and not change.claim(conn):
                change.abandon()
                change = self._change = None
            if change is None:
                procs = self.procs if self._parallel and len(self._docs) >= PARALLEL_MIN_DOCS else 1
                change = self._change = self.index.change(procs, self.memory_mb, conn=conn)
                for article_id in self._removed:
                    change.writer.delete_by_term("id", str(article_id))
                for doc in self._docs:
                    change.writer.add_document(**doc.fields())
            if change.fresh:  # a new index: every other article has to be written to it (sync_pending)
                session.execute(update(Article).values(indexed=False))
            change.publish(conn)
            ids = [doc.id for doc in self._docs] + self._removed
            for start in range(0, len(ids), _MARK_CHUNK):
                session.execute(
                    update(Article).where(Article.id.in_(ids[start : start + _MARK_CHUNK])).values(indexed=True)
                )
        except BaseException:
            self.file_failed()
            raise

    def file_committed(self, ingest_file_id: int) -> None:
        change, self._change = self._change, None
        self._docs, self._removed, self._parallel, self._optimistic_failed = [], [], False, False
        if change is not None:
            change.done()
            # Bounded merges after the slice's transaction, never inside it (search/merging.py).
            merge_quietly(self.index, self.memory_mb)

    def file_failed(self) -> None:
        change, self._change = self._change, None
        self._docs, self._removed, self._parallel, self._optimistic_failed = [], [], False, False
        if change is not None:
            change.abandon()

    def commit(self) -> int:
        self.file_failed()  # every file's documents were published with its rows; nothing is left
        return 0


def iter_all_docs(sessions: sessionmaker, chunk: int = 2000, after: int = 0) -> Iterator[IndexDocument]:
    """Every article after the id `after` as a document, in id order, read in chunks so memory stays flat."""
    last = after
    while True:
        with sessions() as session:
            ids = list(session.scalars(select(Article.id).where(Article.id > last).order_by(Article.id).limit(chunk)))
            if not ids:
                return
            docs = article_docs(session, ids)
        last = ids[-1]
        yield from docs


def reindex(
    sessions: sessionmaker,
    index: ArchiveIndex,
    *,
    procs: int = 1,
    memory_mb: int = 256,
    progress: Optional[Callable[[int], None]] = None,
) -> int:
    """Rebuild the index from SQL beside the live one and swap it in; searches keep answering meanwhile.

    Rows stored while the rebuild ran (after the last id it read) are marked pending at the swap and
    synced into the new index; rows up to it that are no longer searchable are taken out of it then.
    """

    def before_swap(last_id: int) -> None:
        _set_indexed(sessions, False, Article.id > last_id)
        _set_indexed(sessions, True, Article.id <= last_id, Article.status == "usable")
        # Versions replaced or withdrawn after the rebuild read them (a resumed one read them long ago):
        # pending, so sync_pending takes them out of the new index.
        _set_indexed(sessions, False, Article.id <= last_id, Article.status != "usable")

    count = index.rebuild(
        lambda after: iter_all_docs(sessions, after=after),
        procs=procs,
        memory_mb=memory_mb,
        progress=progress,
        before_swap=before_swap,
    )
    sync_pending(sessions, index, procs=procs, memory_mb=memory_mb)
    return count
