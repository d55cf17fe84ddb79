"""The read side's answers (store/read.py `Archive`): search pages filled from SQL in rank order, with
snippets, story labels and related articles, and exports."""

from __future__ import annotations

import re
import time
from collections import Counter
from html import unescape
from typing import Iterator, Optional

from sqlalchemy import select

from search.highlight import best_snippet, find_matches, snippet
from search.index import IndexMissing
from search.languages import DEFAULT_LANGUAGE
from search.parse import analyse
from search.query import ArchiveSearcher
from search.request import SearchRequest
from search.timing import timed

from .display import human_date
from .models import Article, Caption, Place, Source, article_places
from .visible import Readable

# An export's columns, in order; then "snippet" or "body".
EXPORT_FIELDS = ("id", "headline", "published", "source", "byline", "dateline", "places", "language", "url", "story_id")
EXPORT_CHUNK = 500  # rows read from SQL at a time while an export is written
_MARK = re.compile(r"</?mark>")
_WORD = re.compile(r"\w[\w'-]*\w|\w")


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


@timed("snippets")
def _snippet(fields: list[tuple[str, str]], terms: dict[str, set[str]], key: str) -> str:
    return best_snippet(fields, terms, key=key)


@timed("snippets")
def _caption_match(captions: list, terms: Optional[set[str]], key: str):
    return caption_match(captions, terms, key)


class Answers:
    """Archive's answers to searches (store/read.py holds the connections and the searcher they use)."""

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
