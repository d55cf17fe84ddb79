"""Queries: parse what users type, find matching documents, count facets, sort, and suggest corrections."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import numpy as np
from whoosh import qparser, query
from whoosh.searching import Searcher

from .columns import SegmentCache
from .schema import build_schema
from .request import BadRequest, SearchRequest
from .schema import FACETS

PUBLIC_FIELDS = ("headline", "body", "caption", "credit", "source", "place", "byline", "dateline")
# Words without a field search these; the others (source, place, byline, dateline) repeat what the
# headline and body say, and each field searched costs a posting list per word.
DEFAULT_FIELDS = ("headline", "body", "caption", "credit")
FIELD_ALIASES = {
    "title": "headline", "hed": "headline", "text": "body", "captions": "caption", "photo": "caption",
    "photographer": "credit", "credits": "credit", "author": "byline", "by": "byline", "places": "place",
    "location": "place", "year": "year_facet", "agency": "source",
}
_FIELD_PREFIX = re.compile(r'"[^"]*"?|(?<![\w:.])([A-Za-z_][\w]*):(?=\S)')
_WILDCARD = re.compile(r"(?<![\w*?])([\w]*)[*?]")
MIN_WILDCARD_PREFIX = 2


def _rewrite_fields(text: str) -> str:
    """Map field aliases and case to schema names; refuse unknown fields with the list of known ones."""

    def repl(m: re.Match) -> str:
        name = m.group(1)
        if name is None:
            return m.group(0)  # inside a quoted phrase: leave as typed
        key = name.lower()
        if key in PUBLIC_FIELDS:
            return key + ":"
        if key in FIELD_ALIASES:
            return FIELD_ALIASES[key] + ":"
        if key in ("http", "https", "ftp", "mailto"):
            return m.group(0).replace(":", " ")
        raise BadRequest("bad_query", f"unknown field {name!r}: use one of {', '.join(PUBLIC_FIELDS)} or year "
                                      f"(e.g. caption:refugee), or put the text in quotes")

    return _FIELD_PREFIX.sub(repl, text)


def _check_wildcards(text: str) -> None:
    outside_quotes = re.sub(r'"[^"]*"', " ", text)
    for m in _WILDCARD.finditer(outside_quotes):
        if len(m.group(1)) < MIN_WILDCARD_PREFIX:
            raise BadRequest("bad_query", f"a wildcard needs at least {MIN_WILDCARD_PREFIX} letters before * or ? "
                                          f"(e.g. kob*), so it does not expand to every word in the archive")


def make_parser(schema) -> qparser.QueryParser:
    parser = qparser.MultifieldParser(list(DEFAULT_FIELDS), schema, group=qparser.AndGroup)
    parser.remove_plugin_class(qparser.EveryPlugin)
    return parser


def parse_user_query(schema, text: str) -> Optional[query.Query]:
    """The Whoosh query for what a user typed, or None for an empty one. Unbalanced quotes and brackets are
    read literally; unknown fields and bare wildcards raise BadRequest."""
    text = text.strip()
    if not text:
        return None
    if schema.names() == _SCHEMA_NAMES:
        return _parse_cached(text)  # the same text always parses to the same query
    return _parse(schema, text)


_SCHEMA = build_schema()
_SCHEMA_NAMES = _SCHEMA.names()


@lru_cache(maxsize=2048)
def _parse_cached(text: str) -> Optional[query.Query]:
    return _parse(_SCHEMA, text)


def _parse(schema, text: str) -> Optional[query.Query]:
    text = _rewrite_fields(text)
    _check_wildcards(text)
    try:
        parsed = make_parser(schema).parse(text)
    except Exception as exc:  # the parser is lenient; anything it still rejects is the user's to fix
        raise BadRequest("bad_query", f"the query could not be read ({exc}); check quotes and brackets")
    if parsed is query.NullQuery or isinstance(parsed, type(query.NullQuery)):
        return query.NullQuery
    return parsed


def filter_query(request: SearchRequest) -> Optional[query.Query]:
    """The facet filters (values of one facet OR'ed, facets AND'ed) and the date range, as one query."""
    parts: list[query.Query] = []
    for facet in FACETS:
        values = request.filters.get(facet)
        if values:
            terms = [query.Term(f"{facet}_facet", v) for v in values]
            parts.append(terms[0] if len(terms) == 1 else query.Or(terms))
    if request.date_from or request.date_to:
        low = _day(request.date_from) if request.date_from else None
        high = _day(request.date_to) if request.date_to else None
        parts.append(query.NumericRange("day", low, high))
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else query.And(parts)


def _day(value) -> int:
    return value.year * 10000 + value.month * 100 + value.day


@dataclass
class Found:
    """What the index answers for a request: ranked document numbers and their scores, totals, facets."""

    total: int
    page: list[tuple[str, float]]  # (article id, score) for the requested page, in rank order
    facets: dict[str, list[dict]]
    terms: dict[str, set[str]]  # field -> query terms, for snippets
    suggestion: Optional[str]


class ArchiveSearcher:
    """One Whoosh searcher plus the per-segment caches (facets, dates) that make facets and sorting fast."""

    def __init__(self, searcher: Searcher, cache: SegmentCache) -> None:
        self.searcher = searcher
        self.schema = searcher.schema
        self.cache = cache
        self.view = cache.view(searcher)

    def search(self, request: SearchRequest) -> Found:
        user_q = parse_user_query(self.schema, request.q)
        filters = filter_query(request)
        if user_q is query.NullQuery:
            matched, scores = np.empty(0, dtype=np.int64), np.empty(0)
        elif user_q is None and filters is None:
            matched = self.view.all_docs()
            scores = np.zeros(matched.size)
        elif user_q is None:
            matched, scores = self.view.evaluate(filters)
        else:
            matched, scores = self.view.evaluate(user_q if filters is None else query.Require(user_q, filters))
        total = int(matched.size)
        start = (request.page - 1) * request.per_page
        stop = start + request.per_page
        if start >= total:
            order = np.empty(0, dtype=np.int64)
        elif user_q is None or request.sort != "relevance":
            order = self.view.by_date(matched, request.sort != "oldest", stop)[start:stop]
        else:
            order = self.view.top(matched, -scores, stop)[start:stop]
        page = [(self.view.doc_id(int(matched[i])), float(scores[i])) for i in order]
        facets = self.view.facet_counts(matched, request.facet_size)
        terms = _terms_by_field(user_q) if user_q not in (None, query.NullQuery) else {}
        suggestion = self.suggest(request.q, user_q) if request.q else None
        return Found(total=total, page=page, facets=facets, terms=terms, suggestion=suggestion)

    def more_like(self, doc_id: str, text: str, limit: int) -> list[str]:
        """Ids of the documents most like `text` (the article `doc_id` itself left out)."""
        docnum = self.searcher.document_number(id=doc_id)
        if docnum is None or not text.strip():
            return []
        results = self.searcher.more_like(docnum, "body", text=text, top=limit, numterms=12)
        return [hit["id"] for hit in results]

    def suggest(self, text: str, parsed: Optional[query.Query]) -> Optional[str]:
        """A corrected query string, or None when every word of the query looks intended.

        A word is checked only when no headline or caption contains it as typed (a cheap lookup). A
        close word (up to two edits) from the headline and caption vocabulary replaces it when it stems
        the same ("footbal" -> "football"), when the word itself matches nothing, or when the close word
        matches at least ten times as many articles.
        """
        if parsed is None:
            return None
        spell_fields = [f for f in ("spell_headline", "spell_caption") if f in self.schema]
        reader = self.searcher.reader()
        replacements: dict[str, str] = {}
        words = re.findall(r"[^\W\d_]{3,}", re.sub(r"\b\w+:", " ", re.sub(r"\b(?:AND|OR|NOT)\b", " ", text)))
        for word in dict.fromkeys(words):
            lower = word.lower()
            if any(reader.doc_frequency(f, lower) for f in spell_fields):
                continue
            stems = _analysed(self.schema, lower)
            own = max((reader.doc_frequency(f, t) for f, t in stems), default=0)
            for field in spell_fields:
                choice = None
                for candidate in self.searcher.corrector(field).suggest(lower, limit=5, maxdist=2, prefix=1):
                    if candidate == lower:
                        continue
                    theirs = _analysed(self.schema, candidate)
                    freq = max((reader.doc_frequency(f, t) for f, t in theirs), default=0)
                    if theirs == stems or (freq > 0 and own == 0) or freq >= 10 * own:
                        choice = candidate
                        break
                if choice:
                    replacements[word] = choice
                    break
        if not replacements:
            return None
        corrected = text
        for word, better in replacements.items():
            corrected = re.sub(rf"\b{re.escape(word)}\b", better, corrected)
        return corrected if corrected != text else None


def _analysed(schema, word: str) -> list[tuple[str, bytes]]:
    out = []
    for field in ("headline", "body", "caption"):
        for token in schema[field].analyzer(word):
            out.append((field, token.text.encode("utf-8") if isinstance(token.text, str) else token.text))
    return [(f, t.decode("utf-8")) for f, t in out]


def _terms_by_field(q: query.Query) -> dict[str, set[str]]:
    terms: dict[str, set[str]] = {}
    for fieldname, text in q.iter_all_terms(phrases=True):
        if isinstance(text, bytes):
            text = text.decode("utf-8", "replace")
        terms.setdefault(fieldname, set()).add(text)
    # Wildcards and prefixes: keep their pattern for the snippet to match words that start with it.
    for sub in q.leaves():
        if isinstance(sub, (query.Prefix, query.Wildcard)):
            terms.setdefault(sub.fieldname, set()).add(sub.text.rstrip("*?") + "*")
    return terms
