"""The archive as readers see it: search answers from Whoosh, filled from SQL in rank order, and article records.

Used by the web app's pages and JSON API and by `newsarchive search`, so all three answer alike.
It only reads: the ingester is the only writer of articles and the index (saved searches, in store/saved.py,
are the only rows the web server writes). With NEWSARCHIVE_DATABASE_REPLICA_URLS, what is read inside
`Archive.reading()` comes from the server the replica router chose for it (store/replicas.py); everything
else (and every write) from the primary.
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter, OrderedDict
from contextlib import contextmanager
from contextvars import ContextVar
from html import unescape
from typing import Iterator, Optional

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload, sessionmaker

from search.columns import SegmentCache
from search.highlight import best_snippet, find_matches, snippet
from search.index import IndexMissing, empty_index
from search.languages import DEFAULT_LANGUAGE
from search.parse import analyse
from search.query import AnswerCache, ArchiveSearcher, Visibility
from search.request import SearchRequest
from search.timing import timed

from . import access
from .access import OPEN, Principal
from .db import make_engine, make_sessionmaker
from .display import human_date
from .models import Article, Caption, Place, Source, article_places
from .pgindex import open_index
from .replicas import Router
from .settings import Settings
from .stats import sql_counts

NOT_BUILT = "(no index built yet)"
# An export's columns, in order; then "snippet" or "body".
EXPORT_FIELDS = ("id", "headline", "published", "source", "byline", "dateline", "places", "language", "url", "story_id")
EXPORT_CHUNK = 500  # rows read from SQL at a time while an export is written
_MARK = re.compile(r"</?mark>")
_WORD = re.compile(r"\w[\w'-]*\w|\w")


class CollectionMap:
    """Each article's collection, by article id, as an array read from SQL (the index does not hold it),
    with the masks of visible documents made from it; shared by a server's threads.

    The array grows as new articles appear in the index; an access change (access_state.version: a
    collection filled or emptied) reads it afresh. An article it does not know yet is invisible until read."""

    MASKS = 64

    def __init__(self, engine_of) -> None:
        self._engine_of = engine_of  # the engine to read from now (the request's server)
        self._of = np.full(0, -1, dtype=np.int32)
        self._version: Optional[int] = None
        self._masks: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def _read(self, where: str = "", params: tuple = ()) -> tuple[np.ndarray, np.ndarray]:
        with self._engine_of().connect() as connection:
            marker = "?" if connection.dialect.paramstyle == "qmark" else "%s"
            rows = connection.exec_driver_sql(
                "SELECT id, collection_id FROM articles" + where.replace("?", marker), params
            ).fetchall()
        if not rows:
            return np.empty(0, np.int64), np.empty(0, np.int32)
        pairs = np.asarray(rows, dtype=np.int64)
        return pairs[:, 0], pairs[:, 1].astype(np.int32)

    def _store(self, ids: np.ndarray, collections: np.ndarray) -> None:
        if ids.size and int(ids.max()) >= self._of.size:
            grown = np.full(int(ids.max()) + 1024, -1, dtype=np.int32)
            grown[: self._of.size] = self._of
            self._of = grown
        self._of[ids] = collections

    def mask(self, view, readable: frozenset[int], version: int) -> np.ndarray:
        """True for the documents of `view` whose article is in a `readable` collection."""
        key = (tuple(view.segment_keys), readable, version)
        with self._lock:
            found = self._masks.get(key)
            if found is not None:
                self._masks.move_to_end(key)
                return found
            if version != self._version:
                self._of = np.full(0, -1, dtype=np.int32)
                self._store(*self._read())
                self._version = version
                self._masks.clear()
            nums = view.article_num
            known = nums[(nums > 0) & (nums < self._of.size)]
            missing = np.union1d(nums[nums >= self._of.size], known[self._of[known] < 0])
            missing = missing[missing > 0]
            if missing.size:  # stored since the array was read (or committed out of id order)
                low = int(missing.min())
                self._store(*self._read(" WHERE id >= ?", (low,)))
            collection = np.full(nums.size, -1, dtype=np.int32)
            inside = (nums > 0) & (nums < self._of.size)
            collection[inside] = self._of[nums[inside]]
            table = np.zeros(max(readable, default=0) + 1, dtype=bool)
            table[list(readable)] = True
            mask = np.zeros(nums.size, dtype=bool)
            known = (collection >= 0) & (collection < table.size)
            mask[known] = table[collection[known]]
            mask.flags.writeable = False
            self._masks[key] = mask
            while len(self._masks) > self.MASKS:
                self._masks.popitem(last=False)
            return mask


class Readable(Visibility):
    """The documents of the collections one principal may read (search/query.py's Visibility)."""

    def __init__(self, collections: CollectionMap, readable: frozenset[int], version: int) -> None:
        self.collections = collections
        self.readable = readable
        self.version = version
        self.key = (readable, version)

    def mask(self, view) -> np.ndarray:
        return self.collections.mask(view, self.readable, self.version)


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


class Archive:
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

    def search(
        self, request: SearchRequest, searcher: Optional[ArchiveSearcher] = None, visible: Optional[Readable] = None
    ) -> dict:
        """The /api/search answer for a request among what `visible` lets through (None: every article;
        BadRequest for a query the user must fix)."""
        started = time.perf_counter()
        searcher = searcher or self.searcher()
        found = searcher.search(request, visible)
        ids = [int(doc_id) for doc_id, _ in found.page]
        # Credits are shown inside the caption text, so a credit: query highlights there.
        terms = dict(found.terms)
        if "credit" in terms:
            terms["caption"] = terms.get("caption", set()) | terms["credit"]
        rows = self._hit_rows(ids, full=True)
        hits = []
        for (doc_id, score), story, versions in zip(found.page, found.stories, found.versions, strict=True):
            row = rows.get(int(doc_id))
            if row is None:
                continue  # removed from SQL since it was indexed; a reindex will drop it
            fields = [("body", row["body"]), ("caption", row["captions"]), ("headline", row["headline"])]
            key = searcher.key_of(row["language"])
            hits.append(
                {
                    "id": row["id"],
                    "headline": row["headline"],
                    "published": row["published"],
                    "published_display": human_date(row["published"], self.settings.time_zone),
                    "source": row["source"],
                    "byline": row["byline"],
                    "dateline": row["dateline"],
                    "places": row["places"],
                    "snippet": _snippet(fields, terms, key),
                    "caption_match": _caption_match(row["caption_list"], terms.get("caption"), key),
                    "url": row["url"],
                    "score": round(score, 4),
                    "story_id": story,
                    "versions": versions,
                }
            )
        return {
            "query": request.q,
            "total": found.total,
            "articles": found.articles,
            "collapse": request.collapse,
            "page": request.page,
            "per_page": request.per_page,
            "took_ms": round((time.perf_counter() - started) * 1000, 2),
            "hits": hits,
            "facets": self.label_stories(found.facets, visible),
            "suggestion": found.suggestion,
            "corrected": found.corrected,
            "match": found.match,
            "notices": found.notices,
            "sort": request.sort,
            "filters": request.filters,
            "exclude": request.exclude,
            "histogram": found.histogram,
            "from": request.date_from.isoformat() if request.date_from else None,
            "to": request.date_to.isoformat() if request.date_to else None,
        }

    def label_stories(self, facets: dict[str, list[dict]], visible: Optional[Readable] = None) -> dict[str, list[dict]]:
        """The story facet's values (story ids) labelled with the headline of each story's first article
        that `visible` lets through."""
        stories = facets.get("story")
        if stories:
            headlines = self._headlines([int(item["value"]) for item in stories], visible)
            for item in stories:
                item["label"] = headlines.get(int(item["value"]), f"Story {item['value']}")
        return facets

    @timed("sql")
    def _headlines(self, ids: list[int], visible: Optional[Readable] = None) -> dict[int, str]:
        """The headline of each story's first article (its own id), or of its first readable one."""
        condition = self._readable_clause(visible)
        with self.engine.connect() as connection:
            q = select(Article.id, Article.headline).where(Article.id.in_(ids))
            if condition is not None:
                q = q.where(condition)
            out = {r.id: r.headline for r in connection.execute(q)}
            hidden = [i for i in ids if i not in out]
            if hidden and condition is not None:  # a story whose first article this reader may not read
                later = (
                    select(Article.story_id, Article.headline)
                    .where(Article.story_id.in_(hidden), condition)
                    .order_by(Article.id)
                )
                for r in connection.execute(later):
                    out.setdefault(r.story_id, r.headline)
            return out

    def export(
        self,
        request: SearchRequest,
        text: str = "snippet",
        limit: Optional[int] = None,
        visible: Optional[Readable] = None,
    ) -> tuple[int, Iterator[dict]]:
        """(total hits, the export rows of the first `limit` of them, in the order the pages show them).

        The hits' ids are found at once (numbers only); their rows are read from SQL EXPORT_CHUNK at a time
        as the iterator is consumed, so memory stays flat however many rows are written. `text` is
        "snippet" (the passage that matched, as plain text) or "body" (the whole text)."""
        limit = min(limit or self.settings.export_max_rows, self.settings.export_max_rows)
        searcher = self.searcher()
        total, ids, terms = searcher.ordered(request, limit, visible)
        if "credit" in terms:
            terms = {**terms, "caption": terms.get("caption", set()) | terms["credit"]}
        return total, self._export_rows([int(i) for i in ids], terms, text, searcher)

    def _export_rows(
        self, ids: list[int], terms: dict[str, set[str]], text: str, searcher: ArchiveSearcher
    ) -> Iterator[dict]:
        for start in range(0, len(ids), EXPORT_CHUNK):
            chunk = ids[start : start + EXPORT_CHUNK]
            rows = self._hit_rows(chunk, full=True)
            for article_id in chunk:
                row = rows.get(article_id)
                if row is None:
                    continue  # removed from SQL since it was indexed
                out = {key: row[key] for key in EXPORT_FIELDS}
                if text == "body":
                    out["body"] = row["body"]
                else:
                    fields = [("body", row["body"]), ("caption", row["captions"]), ("headline", row["headline"])]
                    snippet_html = best_snippet(fields, terms, key=searcher.key_of(row["language"]))
                    out["snippet"] = unescape(_MARK.sub("", snippet_html))
                yield out

    def ingested_at(self, ids: list[int]) -> dict[int, str]:
        """When each article was stored, as RFC 3339 UTC ("2026-12-03T21:05:00Z")."""
        if not ids:
            return {}
        with self.engine.connect() as connection:
            rows = connection.execute(select(Article.id, Article.ingested_at).where(Article.id.in_(ids)))
            return {r.id: r.ingested_at.isoformat(timespec="seconds") + "Z" for r in rows}

    def _texts(self, ids: list[str]) -> list[tuple[str, Optional[str]]]:
        """(headline, body and captions; language) of articles by id (for relevance feedback), in the order
        asked."""
        wanted = [int(i) for i in ids]
        rows = self._hit_rows(wanted)
        return [
            (f"{rows[i]['headline']}\n{rows[i]['body']}\n{rows[i]['captions']}", rows[i]["language"])
            if i in rows
            else ("", None)
            for i in wanted
        ]

    @timed("sql")
    def _hit_rows(self, ids: list[int], full: bool = False) -> dict[int, dict]:
        """Rows of articles by id; `full` adds byline, dateline and places (hits and export)."""
        if not ids:
            return {}
        extra = (Article.byline, Article.dateline, Article.story_id) if full else ()
        with self.engine.connect() as session:  # Core: a third of the ORM session's overhead per query
            rows = session.execute(
                select(
                    Article.id,
                    Article.headline,
                    Article.published,
                    Article.url,
                    Article.body,
                    Article.language,
                    Source.name.label("source"),
                    *extra,
                )
                .outerjoin(Source, Source.id == Article.source_id)
                .where(Article.id.in_(ids))
            ).all()
            captions: dict[int, list[tuple[str, Optional[str]]]] = {}
            for article_id, text, credit in session.execute(
                select(Caption.article_id, Caption.text, Caption.credit)
                .where(Caption.article_id.in_(ids))
                .order_by(Caption.position)
            ):
                captions.setdefault(article_id, []).append((text, credit))
            places: dict[int, list[str]] = {}
            if full:
                for article_id, name in session.execute(
                    select(article_places.c.article_id, Place.name)
                    .join(Place, Place.id == article_places.c.place_id)
                    .where(article_places.c.article_id.in_(ids))
                    .order_by(article_places.c.article_id, Place.name)
                ):
                    places.setdefault(article_id, []).append(name)
        out = {}
        for r in rows:
            row = {
                "id": r.id,
                "headline": r.headline,
                "published": r.published,
                "url": r.url,
                "body": r.body,
                "source": r.source,
                "language": r.language,
                "captions": "\n".join(f"{t} ({c})" if c else t for t, c in captions.get(r.id, [])),
                "caption_list": captions.get(r.id, []),
            }
            if full:
                row.update(
                    byline=r.byline,
                    dateline=r.dateline,
                    places=places.get(r.id, []),
                    story_id=r.story_id or r.id,
                )
            out[r.id] = row
        return out

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

    def related(self, article_id: int, limit: int = 5, visible: Optional[Readable] = None) -> list[dict]:
        """Articles like this one, by the key terms of its headline and body, each with the words they
        share with it (`shared`, as the article writes them)."""
        with self.sessions() as session:
            q = select(Article.headline, Article.body, Article.language).where(Article.id == article_id)
            condition = self._readable_clause(visible)
            row = session.execute(q if condition is None else q.where(condition)).first()
        if row is None:
            return []
        try:
            searcher = self.searcher()
        except IndexMissing:
            return []
        text = f"{row.headline}\n{row.body}"
        found = searcher.more_like(str(article_id), text, limit, row.language, visible)
        rows = self._hit_rows([int(i) for i, _ in found])
        words = surface_words(text, searcher.key_of(row.language))
        return [
            {
                "id": r["id"],
                "headline": r["headline"],
                "published": r["published"],
                "published_display": human_date(r["published"], self.settings.time_zone),
                "source": r["source"],
                "shared": [words.get(term, term) for term in terms],
            }
            for r, terms in ((rows.get(int(i)), terms) for i, terms in found)
            if r is not None
        ]

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


def surface_words(text: str, key: str = DEFAULT_LANGUAGE) -> dict[str, str]:
    """Index term -> the word as the text most often writes it ("airstrik" -> "airstrikes"), in lower case
    unless the text always capitalises it (a name: "Kobani"); words read by the analysis `key`."""
    seen: dict[str, Counter] = {}
    shapes: dict[str, str] = {}
    for word in _WORD.findall(text):
        terms = analyse(word, key=key)
        if len(terms) == 1:
            lower = word.lower()
            seen.setdefault(terms[0], Counter())[lower] += 1
            if word == lower or word.isupper():
                shapes[lower] = lower
            else:
                shapes.setdefault(lower, word)
    return {term: shapes[counts.most_common(1)[0][0]] for term, counts in seen.items()}


def caption_match(
    captions: list[tuple[str, Optional[str]]], terms: Optional[set[str]], key: str = DEFAULT_LANGUAGE
) -> Optional[dict]:
    """The first caption holding a query word (read by the analysis `key`), as {"snippet" (escaped HTML
    with <mark>), "credit"}."""
    if not terms:
        return None
    for text, credit in captions:
        spans = find_matches(text, terms, "caption", key)
        if spans:
            return {"snippet": snippet(text, spans), "credit": credit}
    return None


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


@timed("snippets")
def _snippet(fields: list[tuple[str, str]], terms: dict[str, set[str]], key: str) -> str:
    return best_snippet(fields, terms, key=key)


@timed("snippets")
def _caption_match(captions: list, terms: Optional[set[str]], key: str):
    return caption_match(captions, terms, key)
