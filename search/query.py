"""Answering a search request from the index: match, relax, filter, count facets, order, correct.

ArchiveSearcher (here: the request, the answer, its order, facets and pages) is built from one class per
job: Matching (search/matching.py: steps 2, 4 and 6 below, and the ranking tiers), Feedback
(search/feedback.py: relevance feedback, related articles) and Corrections (search/corrections.py: step 5).

How a query is answered (the README's "How search answers" says the same for users):
1. The text is parsed (search/parse.py) into bare words, required parts (phrases, fields, wildcards,
   +words), exclusions, a URL, or a boolean query.
2. Every bare word must match ("all"). When that finds fewer articles than one page and the query has
   two or more bare words, the search relaxes to "most": every article matching at least one of the
   words, the ones matching more of them first, then by BM25F. Required parts, exclusions, boolean
   queries and filters are never relaxed.
3. A URL that an article was stored with answers that article ("url"); otherwise its words are searched.
4. Facet filters: values of one facet are OR'ed, facets AND'ed, `not_<facet>` values excluded; dates
   from/to inclusive. Facet counts are disjunctive: each facet is counted under every filter but its own
   (its chosen and its excluded values).
5. A correction is looked for only when the typed words together find fewer than a page; it replaces
   words with close words of the archive's headline and caption vocabulary, and is offered only when the corrected
   query finds clearly more (at least twice as many, plus one). A word the archive holds (in any spelling)
   is kept when it was typed capitalised, when the archive writes it as a name, or when it is of another
   language than the close word; a capitalised word is only ever replaced by a name. When the typed query
   finds nothing at all and the correction is near-certain (every word replaced was typed in lower case,
   is not in the archive, and is one edit from its replacement), the corrected results are answered
   (`corrected`); otherwise the correction is only suggested.
6. Words are read by the rules of every language the archive holds (or those the `language` filter
   chooses), accents folded. When the archive writes a word with accents somewhere, the articles writing
   it as it was typed (with those accents; typed without, as a name without accents) rank first, then
   those writing the word itself in another spelling, then those holding only a word of its stem (after
   the run and "most" tiers).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Optional

import numpy as np
from whoosh import query
from whoosh.searching import Searcher

from .columns import BoundView, SegmentCache
from .corrections import Corrections
from .engine import query_key
from .feedback import Feedback
from .languages import DEFAULT_LANGUAGE, LEGACY, analysis_key
from .matching import (
    MATCH_LIST,
    MATCH_MOST,
    MATCH_URL,
    Matching,
    Visibility,
    _combined,
    _Matched,
)
from .parse import ParsedQuery, parse_query
from .request import BadRequest, SearchRequest
from .schema import FACETS, MISSING_DAY, day_number
from .timing import stage, timed

# A request's word results kept for reuse within it (see ArchiveSearcher._evaluate), at most this many bytes.
REQUEST_RESULTS_BYTES = 64 * 1024 * 1024
LEGACY_NOTICE = (
    "this archive's index was built by an older version: accents, other languages and bylines are not "
    "searched as described until `newsarchive reindex` rebuilds it"
)


@dataclass
class Found:
    """What the index answers for a request: the page's (article id, score) in rank order, totals, facets."""

    total: int
    page: list[tuple[str, float]]
    facets: dict[str, list[dict]]
    terms: dict[str, set[str]]  # field -> query terms, for snippets
    match: str
    suggestion: Optional[str] = None
    corrected: bool = False
    notices: list[str] = field(default_factory=list)
    histogram: Optional[dict] = None
    articles: int = 0  # matching articles; `total` counts one per story when versions are collapsed
    stories: list[int] = field(default_factory=list)  # the story of each hit on the page
    versions: list[int] = field(default_factory=list)  # how many matching versions each hit's story has


@dataclass
class _Answer:
    """What every page of one request shares: its hits in ascending document order with their order key and
    scores, one hit per story when collapsed (`kept`, with each story's matching versions), and the page-less
    Found (totals, facets, histogram, match, suggestion)."""

    ids: np.ndarray
    key: np.ndarray  # ascending: the request's order
    scores: np.ndarray  # of ids
    kept: Optional[np.ndarray]  # positions in ids of the best version of each story (collapsed), or None
    versions: Optional[np.ndarray]  # for each kept position, how many matching versions its story has
    found: Found

    def first(self, view: BoundView, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """(positions in ids of the first `stop` hits in order, each one's matching versions)."""
        if self.kept is None:
            order = view.top(self.ids, self.key, stop)
            return order, np.ones(order.size, dtype=np.int64)
        at = view.top(self.ids[self.kept], self.key[self.kept], stop)
        return self.kept[at], self.versions[at]

    @property
    def nbytes(self) -> int:
        arrays = (self.ids, self.key, self.scores, self.kept, self.versions)
        return sum(a.nbytes for a in arrays if a is not None)


class AnswerCache:
    """The answers of recent requests (see ArchiveSearcher.answer), least recently used first out, within a
    number of entries and a byte budget; shared by a server's threads."""

    def __init__(self, entries: int = 32, max_bytes: int = 256 * 1024 * 1024) -> None:
        self.entries = entries
        self.max_bytes = max_bytes
        self._answers: OrderedDict[tuple, _Answer] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Optional[_Answer]:
        with self._lock:
            found = self._answers.get(key)
            if found is not None:
                self._answers.move_to_end(key)
            return found

    def put(self, key: tuple, answer: _Answer) -> None:
        if not self.entries or answer.nbytes * 4 > self.max_bytes:
            return
        with self._lock:
            if key in self._answers:
                return
            self._answers[key] = answer
            self._bytes += answer.nbytes
            while len(self._answers) > self.entries or self._bytes > self.max_bytes:
                _, old = self._answers.popitem(last=False)
                self._bytes -= old.nbytes


class ArchiveSearcher(Matching, Feedback, Corrections):
    """One Whoosh searcher with its segment arrays and engine (NumPy, or plain Whoosh on untested versions)."""

    def __init__(
        self,
        searcher: Searcher,
        cache: SegmentCache,
        engine: str = "auto",
        texts: Optional[Callable[[list[str]], list[tuple[str, Optional[str]]]]] = None,
        answers: Optional[AnswerCache] = None,
    ) -> None:
        """`texts` gives the text (headline, body, captions) and language of articles by id, for relevance
        feedback; without it relaxed answers are ranked by BM25F alone. `answers` is shared by the searchers
        of one archive (all with the same engine and `texts`); without it this searcher keeps its own."""
        self.answers = answers if answers is not None else AnswerCache(entries=8)
        self.searcher = searcher
        self.schema = searcher.schema
        self.view: BoundView = cache.view(searcher, engine)
        self.texts = texts
        self._results: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}  # this request's, by query_key
        self._result_bytes = 0
        self._depth = 0
        self._frequencies: dict[tuple[str, str], int] = {}  # this searcher's index never changes: counts stay true
        self._analysis_counts: Optional[dict[str, int]] = None  # live articles of each analysis
        self._visible: Optional[np.ndarray] = None  # this request's visible documents (None: all)
        # The analyses of the archive's articles; an index built before languages were analysed apart has one.
        self.legacy = "analysis" not in self.schema
        if self.legacy:
            self.keys: tuple[str, ...] = (LEGACY,)
        else:
            found = sorted(term.decode("utf-8") for term in searcher.reader().lexicon("analysis"))
            self.keys = tuple(found) or (DEFAULT_LANGUAGE,)

    @contextmanager
    def _request(self, visible: Optional[Visibility] = None) -> Iterator[None]:
        """Answers to one request share their word results (_evaluate); they are dropped when it ends. Within
        it, `visible` limits what the request may see."""
        if not self._depth:
            self._visible = visible.mask(self.view.view) if visible is not None else None
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if not self._depth:
                self._results.clear()
                self._result_bytes = 0
                self._visible = None

    def _evaluate(self, q: query.Query) -> tuple[np.ndarray, np.ndarray]:
        """(matching document numbers, scores) of `q`, computed once per request: a word is matched again
        for relevance feedback, for corrections and for counting, with the same answer. Read-only arrays."""
        key = query_key(q)
        found = self._results.get(key)
        if found is None:
            ids, scores = self.view.evaluate(q)
            ids.flags.writeable = False
            scores.flags.writeable = False
            found = (ids, scores)
            if self._depth and self._result_bytes + ids.nbytes + scores.nbytes <= REQUEST_RESULTS_BYTES:
                self._results[key] = found
                self._result_bytes += ids.nbytes + scores.nbytes
        return found

    def key_of(self, language: Optional[str]) -> str:
        """The analysis an article in `language` is indexed with, in this index."""
        return LEGACY if self.legacy else analysis_key(language)

    @timed("parse")
    def parse(self, text: str, request: Optional[SearchRequest] = None) -> ParsedQuery:
        """`text` read by the analyses of the archive's articles, or of those the request's language filter
        lets through."""
        keys = self.keys
        languages = request.filters.get("language") if request is not None else None
        if languages and not self.legacy:
            keys = tuple(k for k in keys if k in {analysis_key(v) for v in languages}) or keys
        return parse_query(text, keys)

    # -- the answer ----------------------------------------------------------------------------------

    def search(self, request: SearchRequest, visible: Optional[Visibility] = None) -> Found:
        """One page of the answer to `request` among the `visible` documents (None: all); the pages of one
        request share one answer (AnswerCache)."""
        return self._page(self.answer(request, visible), request)

    def answer(self, request: SearchRequest, visible: Optional[Visibility] = None) -> "_Answer":
        """Every page's share of the answer to `request`: computed once, then kept for its other pages
        and for exports (keyed by the index's segments, so an ingest makes new keys, and by who may see what)."""
        key = (
            tuple(self.view.view.segment_keys),
            self.view.engine.name,
            self.texts is not None,
            visible.key if visible is not None else None,
            request.cache_key(),
        )
        found = self.answers.get(key)
        if found is None:
            with self._request(visible):
                found = self._answer(request)
            self.answers.put(key, found)
        return found

    def _answer(self, request: SearchRequest) -> "_Answer":
        parsed = self.parse(request.q, request)
        filters = self._filter_masks(request)
        matched = self._match(parsed, filters, request.per_page)
        if matched.match == MATCH_MOST and self.texts is not None:
            self._feedback(parsed, matched, filters)
        answer = self._counted(parsed, matched, filters, request)
        found = answer.found
        if self.legacy:
            found.notices.append(LEGACY_NOTICE)
        if parsed.is_empty or matched.match == MATCH_URL:
            return answer
        if found.total >= request.per_page and matched.match != MATCH_MOST:
            return answer  # every word found a page: a relaxed answer, though, may hide a misspelt word
        suggestion, suggested_total, certain = self.suggest(parsed, filters, matched.all_words)
        if suggestion is None:
            return answer
        if found.total == 0 and suggested_total > 0 and request.correct and certain:
            corrected = self.parse(suggestion, request)
            again = self._counted(corrected, self._match(corrected, filters, request.per_page), filters, request)
            again.found = replace(again.found, suggestion=suggestion, corrected=True, notices=found.notices)
            return again
        answer.found = replace(found, suggestion=suggestion)
        return answer

    def _counted(
        self, parsed: ParsedQuery, matched: _Matched, filters: dict[str, np.ndarray], request: SearchRequest
    ) -> "_Answer":
        """The hits of `matched` under the filters with their order, one per story when collapsing, and
        their totals, facet counts and histogram (no page yet)."""
        hit_mask = matched.mask & _combined(filters, self.view.doc_count_all)
        ids = np.flatnonzero(hit_mask)
        with stage("order"):
            key = self._order_key(ids, matched, request)
        kept = versions = None
        shown = ids  # the hits the histogram counts: one per story when collapsed
        if request.collapse and self.view.may_collapse(ids):
            with stage("collapse"):
                kept, versions = self.view.collapse(ids, key)
            shown = ids[kept]
        with stage("facets"):
            facets = {}
            rest = self._rest(hit_mask, ids.size)
            for facet in FACETS:
                # Disjunctive counts: each facet under every filter but its own.
                if facet in filters:
                    others = {k: v for k, v in filters.items() if k != facet}
                    mask = matched.mask & _combined(others, self.view.doc_count_all)
                    counted = np.flatnonzero(mask)
                    facets[facet] = self.view.facet_counts(
                        facet, counted, request.facet_size, rest=self._rest(mask, counted.size)
                    )
                else:
                    facets[facet] = self.view.facet_counts(facet, ids, request.facet_size, rest=rest)
        with stage("histogram"):
            histogram = date_histogram(self.view.view.day[shown], request.interval)
        found = Found(
            total=int(shown.size),
            articles=int(ids.size),
            page=[],
            facets=facets,
            terms=parsed.terms_by_field(),
            match=matched.match,
            notices=list(parsed.notices),
            histogram=histogram,
        )
        return _Answer(ids, key, matched.scores[ids], kept, versions, found)

    def _rest(self, mask: np.ndarray, count: int) -> Optional[np.ndarray]:
        """The live documents outside `mask` (`count` documents), when they are fewer than those in it: a
        relaxed answer often holds most of the archive, and its facets are then counted by what it leaves
        out (BoundView.facet_counts)."""
        view = self.view.view
        if count * 2 <= view.live_docs.size:
            return None
        return np.flatnonzero(view.live & ~mask)

    def _page(self, answer: "_Answer", request: SearchRequest) -> Found:
        """The request's page of an answer: hits in order, with their stories and version counts."""
        start = (request.page - 1) * request.per_page
        order, versions = answer.first(self.view, start + request.per_page)
        order, versions = order[start:], versions[start:]
        ids = answer.ids
        return replace(
            answer.found,
            page=[(self.view.doc_id(int(ids[i])), float(answer.scores[i])) for i in order],
            stories=[self.view.story_of(int(ids[i])) for i in order],
            versions=[int(v) for v in versions],
            facets={k: [dict(v) for v in values] for k, values in answer.found.facets.items()},
            notices=list(answer.found.notices),
        )

    def ordered(
        self, request: SearchRequest, limit: int, visible: Optional[Visibility] = None
    ) -> tuple[int, list[str], dict[str, set[str]]]:
        """(total, the ids of the first `limit` hits in the order the request's pages show them, the query
        terms by field for snippets): every page at once, for export. Matched as `search` matches (relaxed
        by the request's page size, corrected when the typed query finds nothing)."""
        answer = self.answer(request, visible)
        order, _ = answer.first(self.view, limit)
        ids = [self.view.doc_id(int(answer.ids[i])) for i in order]
        return answer.found.total, ids, answer.found.terms

    def _order_key(self, ids: np.ndarray, matched: _Matched, request: SearchRequest) -> np.ndarray:
        """The ascending sort key of the hits `ids` in the request's order (ties: by article id, see View.top)."""
        if request.sort == "stored":
            return self.view.sort_key(ids, "stored")
        if matched.match == MATCH_LIST or request.sort != "relevance":
            return self.view.sort_key(ids, "oldest" if request.sort == "oldest" else "newest")
        return self._rank_key(ids, matched)

    def newest_article(self) -> int:
        """The highest article id among the index's live documents (0 when there are none)."""
        live = self.view.all_docs()
        return int(self.view.view.article_num[live].max()) if live.size else 0

    def facet_values(
        self, request: SearchRequest, facet: str, prefix: str, size: int, visible: Optional[Visibility] = None
    ) -> list[dict]:
        """Values of one facet among the request's hits, counted as the answer's facets are (under every
        filter but the facet's own), limited to those starting with `prefix` (or with a word that does)."""
        with self._request(visible):
            parsed = self.parse(request.q, request)
            filters = self._filter_masks(request)
            matched = self._match(parsed, filters, request.per_page)
            others = {k: v for k, v in filters.items() if k != facet}
            counted = np.flatnonzero(matched.mask & _combined(others, self.view.doc_count_all))
            return self.view.facet_counts(facet, counted, size, prefix)

    # -- matching ------------------------------------------------------------------------------------

    # -- related articles ----------------------------------------------------------------------------

    # -- corrections ---------------------------------------------------------------------------------


# Date histograms: the interval chosen from the span of the matching days (at most about this many bars),
# and the most bars any interval may give (a finer interval over a longer span is a request to fix).
HISTOGRAM_AUTO_BARS = 80
HISTOGRAM_MAX_BARS = 2000


def date_histogram(days: np.ndarray, interval: str = "auto") -> dict:
    """Counts of the hits per year, month or day (yyyymmdd `days`, MISSING_DAY for undated hits), with the
    empty buckets between the first and the last; the buckets and `undated` add up to the hits."""
    dated = days[days != MISSING_DAY]
    undated = int(days.size - dated.size)
    if not dated.size:
        return {"interval": None if interval == "auto" else interval, "buckets": [], "undated": undated}
    first, last = _day_of(int(dated.min())), _day_of(int(dated.max()))
    if interval == "auto":
        span = (last - first).days
        if span < HISTOGRAM_AUTO_BARS:
            interval = "day"
        elif (last.year - first.year) * 12 + last.month - first.month < HISTOGRAM_AUTO_BARS:
            interval = "month"
        else:
            interval = "year"
    divisor = {"year": 10000, "month": 100, "day": 1}[interval]
    numbers = dated // divisor
    low = int(numbers.min())
    if int(numbers.max()) - low <= 4 * numbers.size + 100_000:  # counted in one pass, no sort of the hits
        counts = np.bincount(numbers - low)
        keys = np.flatnonzero(counts)
        found = dict(zip((keys + low).tolist(), counts[keys].tolist(), strict=True))
    else:
        keys, counts = np.unique(numbers, return_counts=True)
        found = dict(zip(keys.tolist(), counts.tolist(), strict=True))
    bars = {
        "year": last.year - first.year + 1,
        "month": (last.year - first.year) * 12 + last.month - first.month + 1,
        "day": (last - first).days + 1,
    }[interval]
    if bars > HISTOGRAM_MAX_BARS:
        raise BadRequest(
            "bad_parameter",
            f"interval={interval} would draw {bars:,} bars (at most {HISTOGRAM_MAX_BARS:,}): "
            "choose a longer interval or a shorter from/to",
        )
    buckets = []
    start = {"year": dt.date(first.year, 1, 1), "month": dt.date(first.year, first.month, 1), "day": first}[interval]
    for _ in range(bars):
        if interval == "year":
            end, following, key = dt.date(start.year, 12, 31), dt.date(start.year + 1, 1, 1), str(start.year)
        elif interval == "month":
            following = dt.date(start.year + start.month // 12, start.month % 12 + 1, 1)
            end, key = following - dt.timedelta(days=1), f"{start.year:04d}-{start.month:02d}"
        else:
            end, following, key = start, start + dt.timedelta(days=1), start.isoformat()
        buckets.append(
            {
                "key": key,
                "from": start.isoformat(),
                "to": end.isoformat(),
                "count": found.get(day_number(start) // divisor, 0),
            }
        )
        start = following
    return {"interval": interval, "buckets": buckets, "undated": undated}


def _day_of(number: int) -> dt.date:
    return dt.date(number // 10000, number // 100 % 100, number % 100)
