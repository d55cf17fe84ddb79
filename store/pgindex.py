"""The search index kept in PostgreSQL: NEWSARCHIVE_SEARCH_BACKEND=postgres.

The index is the same Whoosh index as the `whoosh` backend's, with the same analysis, matching, ranking,
facets and corrections (search/query.py answers from it either way), but its files live in the database
(`search_index_files`, `search_index_parts`, and `search_index_state`, which names the live generation and
its last commit). So:

- an ingester writes a file's articles and the index files that make them searchable in one SQL
  transaction (ingest/indexing.py `PgIndexFeeder`): once the articles commit they are found, on every
  machine, and a crash leaves neither articles without index nor index without articles;
- any number of web servers, on any machines, read the index from the primary or a replica: each keeps a
  local copy under NEWSARCHIVE_INDEX_DIR (`pg-<generation>-<commit>/`, one folder per commit, the files
  they share hard-linked), brings it up to date when a request finds the live commit changed (downloading
  only the files it lacks), and can lose it at any time: it is rebuilt from the database;
- ingesters on several machines take turns by a PostgreSQL advisory lock (one writes the index at a time,
  as with Whoosh; the others wait, holding their articles' transaction open).

Files are written once and never changed (Whoosh names every segment anew; a commit writes a new TOC), so
a copy is exact when its names and sizes match the database's list; each download is checked against its
SHA-256. A writer copies the live commit (hard links), lets Whoosh commit there, and uploads the files
that commit made and deletes those it dropped, in the caller's transaction (merging nothing: segments
are merged afterwards, bounded, by store/pgmerge.py). `newsarchive reindex` builds a new generation beside
the live one, uploads it, and makes it live in one transaction. The files in SQL and this machine's copies
are store/pgfiles.py's.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional

import whoosh.index
from sqlalchemy import func, select
from sqlalchemy.engine import Connection, Engine
from whoosh.index import Index

from search.index import ArchiveIndex, IndexMissing
from search.internals import abandon_writer, open_writer
from search.schema import READABLE_VERSIONS, SCHEMA_VERSION, IndexDocument, build_schema

from . import pgbuild
from .db import make_engine
from .models import SearchIndexFile, SearchIndexState
from .pgfiles import (
    COMPLETE,
    LOCK_KEY,
    STATE_ID,
    WRITE_TURN_KEY,
    adopt,
    copy_path,
    drop_generation,
    link_files,
    make_copy,
    make_live,
    publish_files,
    tidy,
    upload_all,
)
from .pgmerge import merge_quietly


class PgIndex(ArchiveIndex):
    """ArchiveIndex's interface over the index kept in PostgreSQL, with a local copy under `index_dir`."""

    backend = "postgres"

    def __init__(self, index_dir: Path | str, engine: Engine, reader: Optional[Callable[[], Engine]] = None) -> None:
        super().__init__(index_dir)
        self._engine = engine
        self._reader = reader  # the engine the web server reads from now (a replica, or the primary)
        self._held = threading.local()

    @property
    def engine(self) -> Engine:
        """Where the index is read from (and, outside a web server's reads, written to: the primary)."""
        return self._reader() if self._reader is not None else self._engine

    # -- the live state and the local copy -----------------------------------------------------------

    @staticmethod
    def _state(conn: Connection) -> Optional[tuple[int, int, int]]:
        row = conn.execute(
            select(SearchIndexState.generation, SearchIndexState.toc, SearchIndexState.schema_version).where(
                SearchIndexState.id == STATE_ID
            )
        ).first()
        return None if row is None else (int(row[0]), int(row[1]), int(row[2]))

    def state(self) -> Optional[tuple[int, int, int]]:
        """(generation, commit, schema version) of the live index, or None before the first."""
        with self.engine.connect() as conn:
            return self._state(conn)

    def _synced(self) -> Optional[tuple[tuple[int, int, int], Path]]:
        """The live state and this machine's copy of it, brought up to date; None when there is no index."""
        state = self.state()
        if state is None:
            return None
        path = copy_path(self.root, state[0], state[1])
        if (path / COMPLETE).exists():
            return state, path
        # One consistent view of the state and its files, however many commits land meanwhile.
        with self.engine.connect().execution_options(isolation_level="REPEATABLE READ") as conn:
            with conn.begin():
                state = self._state(conn)
                if state is None:
                    return None
                path = copy_path(self.root, state[0], state[1])
                if not (path / COMPLETE).exists():
                    make_copy(self.root, conn, state, path)
        tidy(self.root, path)
        return state, path

    # -- ArchiveIndex's reading side -----------------------------------------------------------------

    def current_path(self) -> Optional[Path]:
        synced = self._synced()
        return None if synced is None else synced[1]

    def live(self) -> tuple[Optional[Path], Optional[str]]:
        """(this machine's copy of the live commit, brought up to date, its token): one query when current."""
        synced = self._synced()
        if synced is None:
            return None, None
        (generation, toc, _), path = synced
        return path, f"pg-{generation}-{toc}"

    def generation(self) -> Optional[str]:
        state = self.state()
        return None if state is None else f"pg-{state[0]}-{state[1]}"

    def open(self, older: bool = False) -> Index:
        synced = self._synced()
        if synced is None:
            raise IndexMissing("there is no search index in the database yet; run `newsarchive reindex`")
        (_, _, version), path = synced
        if version != SCHEMA_VERSION and not (older and version in READABLE_VERSIONS):
            raise IndexMissing(
                f"the search index in the database was built by another version of newsarchive "
                f"(schema {version}, this one needs {SCHEMA_VERSION}); run `newsarchive reindex`"
            )
        try:
            return whoosh.index.open_dir(str(path))
        except Exception as exc:
            raise IndexMissing(
                f"the search index copied to {path} cannot be opened ({type(exc).__name__}: {exc}); "
                "run `newsarchive reindex`"
            ) from exc

    def size_bytes(self) -> int:
        with self.engine.connect() as conn:
            state = self._state(conn)
            if state is None:
                return 0
            return int(
                conn.scalar(
                    select(func.coalesce(func.sum(SearchIndexFile.size), 0)).where(
                        SearchIndexFile.generation == state[0]
                    )
                )
            )

    # -- writing -------------------------------------------------------------------------------------

    @contextmanager
    def lock(self) -> Iterator[None]:
        """One writer of the index at a time, on every machine: PostgreSQL's advisory lock, held on a
        connection of its own. Re-entered freely by the thread holding it (or a PgChange's transaction)."""
        if getattr(self._held, "depth", 0):
            self._held.depth += 1
            try:
                yield
            finally:
                self._held.depth -= 1
            return
        conn = self.engine.connect()
        try:
            # The ingesters' write turn first (a file's transaction takes it before the index's lock): a
            # sync or reindex marking rows never waits for rows that a transaction waiting for it holds.
            conn.execute(select(func.pg_advisory_lock(WRITE_TURN_KEY)))
            conn.execute(select(func.pg_advisory_lock(LOCK_KEY)))
            conn.commit()
            self._held.depth = 1
            try:
                yield
            finally:
                self._held.depth = 0
                conn.execute(select(func.pg_advisory_unlock(LOCK_KEY)))
                conn.execute(select(func.pg_advisory_unlock(WRITE_TURN_KEY)))
                conn.commit()
        finally:
            conn.close()

    def change(self, procs: int = 1, memory_mb: int = 256, conn: Optional[Connection] = None) -> "PgChange":
        """A Whoosh writer on a copy of the live index, under the lock (with `conn`, the lock of that
        connection's transaction, let go when it ends); publish it in a transaction."""
        return PgChange(self, procs, memory_mb, conn)

    def optimistic_change(self, procs: int = 1, memory_mb: int = 256) -> Optional["PgChange"]:
        """A Whoosh writer on a copy of the live commit of the moment, without the lock (see PgChange), or
        None when there is no usable index to start from."""
        try:
            return PgChange(self, procs, memory_mb, optimistic=True)
        except Exception:  # no usable index yet, or it does not open: the careful path at commit decides
            return None

    def ensure(self) -> Index:
        with self.lock():
            if self.state() is None:
                self.reset()
        return self.open()

    def reset(self) -> None:
        """Make an empty index the live one (a new generation; the files of the others are dropped)."""
        with self.lock():
            work = self._new_work()
            try:
                whoosh.index.create_in(str(work), build_schema())
                generation = time.time_ns() // 1000
                with self.engine.begin() as conn:
                    toc = upload_all(conn, generation, work)
                    make_live(conn, generation, toc)
                adopt(self.root, work, generation, toc)
            finally:
                shutil.rmtree(work, ignore_errors=True)

    def write(
        self,
        docs: Iterable[IndexDocument],
        *,
        procs: int = 1,
        memory_mb: int = 256,
        lock_timeout_s: float = 120.0,
        delete: Iterable[int] = (),
    ) -> int:
        change = self.change(procs, memory_mb)
        count = 0
        try:
            for doc_id in delete:
                change.writer.delete_by_term("id", str(doc_id))
            for doc in docs:
                change.writer.update_document(**doc.fields())
                count += 1
            with self.engine.begin() as conn:
                change.publish(conn)
        except BaseException:
            change.abandon()
            raise
        change.done()
        merge_quietly(self, memory_mb)
        return count

    def delete(self, ids: Iterable[int]) -> None:
        self.write((), delete=ids)

    def merge_due(self, memory_mb: int = 256) -> None:
        merge_quietly(self, memory_mb)

    def rebuild(
        self,
        docs_after: Callable[[int], Iterable[IndexDocument]],
        *,
        procs: int = 1,
        memory_mb: int = 256,
        progress: Optional[Callable[[int], None]] = None,
        before_swap: Optional[Callable[[int], None]] = None,
    ) -> int:
        """A new generation built here and uploaded at checkpoints beside the live one (searches keep
        answering from that), then made live; an interrupted rebuild goes on where it stopped."""
        return pgbuild.rebuild(
            self, docs_after, procs=procs, memory_mb=memory_mb, progress=progress, before_swap=before_swap
        )

    def upload_folder(self, folder: Path, before_swap: Optional[Callable[[int], None]] = None) -> None:
        """Make the Whoosh index in `folder` live, a new generation swapped in under the lock (`rebuild`)."""
        generation = time.time_ns() // 1000
        self.root.mkdir(parents=True, exist_ok=True)
        with self.engine.begin() as conn:
            toc = upload_all(conn, generation, folder)
        try:
            with self.lock():
                if before_swap is not None:
                    before_swap(0)
                with self.engine.begin() as conn:
                    make_live(conn, generation, toc)
        except BaseException:
            with self.engine.begin() as conn:
                drop_generation(conn, generation)
            raise
        adopt(self.root, folder, generation, toc)

    # -- the files in SQL ----------------------------------------------------------------------------

    def _new_work(self) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        work = self.root / f"work-{os.getpid()}-{time.time_ns()}"
        work.mkdir()
        return work


class PgChange:
    """One commit of the index kept in PostgreSQL: the lock, a work copy of the live commit with a Whoosh
    writer on it; `publish(conn)` commits the writer and writes its files in `conn`'s transaction; after
    that transaction commits, `done()` keeps the work folder as this machine's copy and lets the lock go;
    `abandon()` drops everything (the database never saw it).

    With `conn`, the lock is `pg_advisory_xact_lock` in that connection's transaction: taken when the
    articles' rows are already written and held until they commit, so no ingester ever waits for the
    index while another waits for its rows. With `optimistic`, no lock is taken yet: the writer works on
    the live commit of the moment (an ingester indexes a slice's articles while it reads and stores them);
    `claim(conn)` then takes the transaction's lock and says whether that commit is still the live one
    (when another ingester published meanwhile, the caller starts again on the new one)."""

    def __init__(
        self,
        index: PgIndex,
        procs: int,
        memory_mb: int,
        conn: Optional[Connection] = None,
        optimistic: bool = False,
    ) -> None:
        self.index = index
        self.work: Optional[Path] = None
        self.toc: Optional[int] = None
        self._lock = ExitStack()  # the session's lock, when this change holds one
        self._in_transaction = False
        if conn is not None:
            self._take(conn)
        elif not optimistic:
            self._lock.enter_context(index.lock())
        try:
            state = index.state()
            if optimistic:  # the careful path (below) checks the index opens; this one finds out on opening
                if state is None or state[2] != SCHEMA_VERSION:
                    raise _NotYet()
                self.fresh = False
            else:
                self.fresh = state is None or not index.usable()
            if self.fresh:
                index.reset()
            self.base, copy = index._synced()
            self.generation = self.base[0]
            self.work = index._new_work()
            link_files(copy, self.work)
            self.writer = open_writer(whoosh.index.open_dir(str(self.work)), procs, memory_mb)
        except BaseException:
            self._release()
            raise

    def _take(self, conn: Connection) -> None:
        conn.execute(select(func.pg_advisory_xact_lock(LOCK_KEY)))
        self.index._held.depth = getattr(self.index._held, "depth", 0) + 1
        self._in_transaction = True

    def claim(self, conn: Connection) -> bool:
        """Take the lock of `conn`'s transaction; whether the commit this writer started from is still live."""
        self._take(conn)
        return self.index.state() == self.base

    def publish(self, conn: Connection) -> None:
        # No merging here, in the ingest transaction: PgIndex.merge_once merges afterwards, bounded.
        self.writer.commit(merge=False)
        self.toc = publish_files(conn, self.generation, self.work)

    def done(self) -> None:
        try:
            if self.toc is not None:
                adopt(self.index.root, self.work, self.generation, self.toc)
        finally:
            self._release()

    def abandon(self) -> None:
        if self.toc is None:
            abandon_writer(self.writer)
        self._release()

    def _release(self) -> None:
        if self.work is not None:
            shutil.rmtree(self.work, ignore_errors=True)
            self.work = None
        if self._in_transaction:
            self._in_transaction = False
            self.index._held.depth -= 1
        self._lock.close()


class _NotYet(Exception):
    """An optimistic change cannot start: there is no usable index to start from (make it under the lock)."""


def open_index(
    settings, engine: Optional[Engine] = None, reader: Optional[Callable[[], Engine]] = None
) -> ArchiveIndex:
    """The archive's index by NEWSARCHIVE_SEARCH_BACKEND: a Whoosh folder, or kept in PostgreSQL."""
    if settings.search_backend == "postgres":
        if engine is None:
            engine = make_engine(settings)
        return PgIndex(settings.index_dir, engine, reader)
    return ArchiveIndex(settings.index_dir)
