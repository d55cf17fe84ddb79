"""The archive as readers see it: search answers from Whoosh, filled from SQL in rank order, and article records.

Used by the web app's pages and JSON API and by `newsarchive search`, so all three answer alike.
It only reads: the ingester is the only writer of articles and the index (saved searches, in store/saved.py,
are the only rows the web server writes). With NEWSARCHIVE_DATABASE_REPLICA_URLS, what is read inside
`Archive.reading()` comes from the server the replica router chose for it (store/replicas.py); everything
else (and every write) from the primary.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator, Optional

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from search.columns import SegmentCache
from search.index import IndexMissing, empty_index
from search.query import AnswerCache, ArchiveSearcher
from search.timing import timed

from . import access
from .access import OPEN, Principal
from .answers import Answers
from .db import make_engine, make_sessionmaker
from .models import Article
from .pgindex import open_index
from .records import Records
from .replicas import Router
from .settings import Settings
from .stats import sql_counts
from .visible import CollectionMap, Readable

NOT_BUILT = "(no index built yet)"


class RoutedSessions:
    """`archive.sessions()` and `archive.sessions.begin()`: ORM sessions on the server this request reads
    from (the primary outside `Archive.reading`)."""

    def __init__(self, archive: "Archive") -> None:
        self._archive = archive
        self._maker = sessionmaker(expire_on_commit=False)

    def __call__(self, **kw) -> Session:
        return self._maker(bind=self._archive.engine, **kw)

    @contextmanager
    def begin(self) -> Iterator[Session]:
        with self() as session, session.begin():
            yield session


class Archive(Answers, Records):
    """Read access to one archive: a SQL engine (the primary, and the replicas it may read from instead),
    the index, and one reusable searcher per thread."""

    def __init__(self, settings: Settings, engine=None) -> None:
        self.settings = settings
        self.primary = engine or make_engine(settings)
        self.router = Router(self.primary, settings.database_replica_urls, settings.replica_max_lag_s)
        self._reader: ContextVar = ContextVar(f"archive-reader-{id(self)}", default=None)
        self.sessions = RoutedSessions(self)
        self.write_sessions = make_sessionmaker(self.primary)  # always the primary
        self.index = open_index(settings, self.primary, reader=lambda: self.engine)
        self.cache = SegmentCache(postings_cache_bytes=settings.search_cache_mb * 1024 * 1024)
        self.answers = AnswerCache(entries=settings.search_answers)
        self.collections = CollectionMap(lambda: self.engine)
        self._readable: dict[tuple, frozenset[int]] = {}
        self._local = threading.local()
        self._searchers: list = []
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            for searcher in self._searchers:
                try:
                    searcher.close()
                except Exception:
                    pass
            self._searchers.clear()
        self.router.close()
        self.primary.dispose()

    # -- which server reads --------------------------------------------------------------------------

    @property
    def engine(self):
        """The engine reads go to now: the server `reading()` chose, else the primary."""
        return self._reader.get() or self.primary

    @contextmanager
    def reading(self, engine=None) -> Iterator:
        """Read from `engine` (by default, the server the replica router chooses) inside the block."""
        token = self._reader.set(engine if engine is not None else self.router.choose())
        try:
            yield self._reader.get()
        finally:
            self._reader.reset(token)

    def pin(self, engine=None):
        """Start reading from `engine` (or the router's choice) until `unpin(token)`; for a web request."""
        return self._reader.set(engine if engine is not None else self.router.choose())

    def unpin(self, token) -> None:
        self._reader.reset(token)

    # -- searchers -----------------------------------------------------------------------------------

    @timed("searcher")
    def searcher(self) -> ArchiveSearcher:
        """This thread's searcher, reopened only when the index has changed since it was opened."""
        path, generation = self.index.live()
        built = path is not None
        # An archive nothing was ever indexed into answers from an empty index rather than an error; the
        # read side never creates the real one (the ingester does, so two creators never race).
        generation = generation if built else NOT_BUILT
        state = getattr(self._local, "state", None)
        if state is not None and state[0] == generation and generation is not None:
            return state[1]
        if state is not None:
            self._retire(state[2])
        if not built and self._any_indexed():
            raise IndexMissing(
                f"the search index at {self.index.root} is missing although articles were "
                f"indexed; run `newsarchive reindex`"
            )
        whoosh_searcher = (self.index.open(older=True) if built else empty_index()).searcher()
        with self._lock:
            self._searchers.append(whoosh_searcher)
        archive_searcher = ArchiveSearcher(
            whoosh_searcher, self.cache, self.settings.search_engine, self._texts, self.answers
        )
        self._local.state = (generation, archive_searcher, whoosh_searcher)
        return archive_searcher

    def _any_indexed(self) -> bool:
        with self.engine.connect() as connection:
            return connection.execute(select(Article.id).where(Article.indexed.is_(True)).limit(1)).first() is not None

    def _retire(self, whoosh_searcher) -> None:
        with self._lock:
            if whoosh_searcher in self._searchers:
                self._searchers.remove(whoosh_searcher)
        try:
            whoosh_searcher.close()
        except Exception:
            pass

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self.sessions() as session:
            yield session

    # -- who may see what ----------------------------------------------------------------------------

    def visibility(self, principal: Principal = OPEN) -> Optional[Readable]:
        """What `principal` may see (None: everything), as of this moment's permissions."""
        if principal.reads_everything:
            return None
        with self.engine.connect() as connection:
            version = access.version(connection)
            key = (principal.role, principal.name, principal.groups, version)
            readable = self._readable.get(key)
            if readable is None:
                readable = access.readable(connection, principal) or frozenset()
                if len(self._readable) > 1000:
                    self._readable.clear()
                self._readable[key] = readable
        return Readable(self.collections, readable, version)

    @staticmethod
    def _readable_clause(visible: Optional[Readable]):
        """The SQL condition of the articles `visible` lets through (None: no condition)."""
        return None if visible is None else Article.collection_id.in_(sorted(visible.readable))

    # -- answers -------------------------------------------------------------------------------------

    def health(self) -> tuple[bool, dict]:
        """(healthy, details): the database answers and the index opens."""
        details: dict = {}
        ok = True
        try:
            with self.sessions() as session:
                details.update(sql_counts(session))
        except Exception as exc:
            ok = False
            details["database_error"] = f"{type(exc).__name__}: {exc}"
        details["index_backend"] = self.settings.search_backend
        try:
            details["index_documents"] = self.searcher().searcher.doc_count()
        except IndexMissing as exc:
            ok = False
            details["index_error"] = str(exc)
        return ok, details
