"""Answering a search request from the index: match, relax, filter, count facets, order, correct.

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
import re
import threading
from collections import Counter, OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Optional

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein
from whoosh import query
from whoosh.searching import Searcher

from .analysis import mark
from .columns import BoundView, SegmentCache
from .engine import query_key
from .languages import DEFAULT_LANGUAGE, LEGACY, analysis, analysis_key, fold
from .parse import ParsedQuery, Word, analyses_query, parse_query, term_counts, term_query, word_query
from .request import BadRequest, SearchRequest
from .schema import DEFAULT_FIELDS, FACETS, MISSING_DAY, day_number
from .timing import stage, timed

# In a relaxed ("most") answer, articles are ranked by how many of the words they match, then by BM25F.
# Words found in more than this share of the archive's articles are left out of that count (they still
# score): a question's "what", "did" or "said" should not lift an article above one that holds its rarer,
# telling words. Chosen on the judged development questions (bench/relevance.py --tune; BENCHMARKS.md).
TIER_MAX_SHARE = 0.0
# In a relaxed answer, the articles that hold every word (fewer than a page of them) come first.
ALL_WORDS_FIRST = True
# Articles holding the typed words in a row come before the rest (a pasted headline or sentence finds its
# article): checked with Whoosh's phrase matching among this many of the best articles holding every word.
PHRASE_CHECK_DOCS = 100
PHRASE_FIELDS = ("headline", "body", "caption")
# Relaxed answers are re-ranked with pseudo-relevance feedback (RM3): the words that stand out in the
# best FEEDBACK_DOCS articles (found in at most FEEDBACK_MAX_SHARE of the archive) join the typed words,
# the typed words keeping FEEDBACK_TYPED_WEIGHT of the weight. Only the order changes: every hit still
# holds at least one typed word. Chosen on the judged development questions (BENCHMARKS.md).
FEEDBACK_DOCS = 10
FEEDBACK_TERMS = 20
FEEDBACK_TYPED_WEIGHT = 0.5
FEEDBACK_MAX_SHARE = 0.1

# Related articles: by the article's most telling words (its key terms), and sharing at least a few of them.
RELATED_TERMS = 12
RELATED_MIN_SHARED = 3

# Close words weighed for a correction, at each edit distance: the most frequent in the spelling vocabulary.
SUGGEST_CANDIDATES = 8
# Corrections are looked for only for words this rare: at most this many articles, or this share of them.
SUGGEST_RARE_DOCS = 3
SUGGEST_RARE_SHARE = 0.0001
# A correction is answered automatically only when its word is held by this many times as many articles as
# any other word as close to what was typed. Chosen on the development half of bench/languages.py's
# misspellings: at 3, 5, 10 and 20, 9, 7, 6 and 2 of 195 were answered with another word than meant, while
# 174, 170, 167 and 163 were answered automatically (BENCHMARKS.md).
CERTAIN_RATIO = 20
# A word is a name in the archive when at least this share of the articles holding it write it as one
# (capitalised inside a sentence, or as a writer's, photographer's or place's name).
NAME_SHARE = 0.5
# A request's word results kept for reuse within it (see ArchiveSearcher._evaluate), at most this many bytes.
REQUEST_RESULTS_BYTES = 64 * 1024 * 1024
MAX_LANGUAGES = 1000  # more than there are language tags
EMPTY = np.empty(0, dtype=np.int64)
ACCESS = "access"  # the filter of the documents a request may see (not a facet's name)
LEGACY_NOTICE = (
    "this archive's index was built by an older version: accents, other languages and bylines are not "
    "searched as described until `newsarchive reindex` rebuilds it"
)

MATCH_ALL = "all"  # every bare word (and every required part) matched
MATCH_MOST = "most"  # relaxed: articles matching more of the words first
MATCH_URL = "url"  # the article stored with the URL in the query
MATCH_LIST = "list"  # no words to look for: the archive (filtered, or with exclusions), newest first


class Visibility:
    """Which documents one reader may see (store/read.py makes them from collections and permissions).

    `key` names the set (equal keys: the same documents in every view), for the answer cache; `mask(view)`
    is True for each visible document of a View. Every answer is built under it as under a filter that no
    facet count leaves out: hits, totals, facet counts, the histogram, story version counts, relevance
    feedback, corrections and related articles see only these documents."""

    key: tuple = ()

    def mask(self, view) -> np.ndarray:  # pragma: no cover - an interface
        raise NotImplementedError


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
class _Matched:
    """Matches before filters: a document mask, scores, and (relaxed) how many words each matched."""

    mask: np.ndarray
    scores: np.ndarray
    words: Optional[np.ndarray]  # per document, matched word count (relaxed queries only)
    match: str
    phrase: Optional[np.ndarray] = None  # per document, True when it holds the typed words as a run
    spelling: Optional[np.ndarray] = None  # per document, how it writes the words typed (see _typed_spelling)
    all_words: Optional[int] = None  # how many articles match every bare word under the filters, when known


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


class ArchiveSearcher:
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
        if matched.match == MATCH_MOST and self.texts is not None and FEEDBACK_DOCS:
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
        ids = np.flatnonzero(matched.mask & _combined(filters, self.view.doc_count_all))
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
            for facet in FACETS:
                # Disjunctive counts: each facet under every filter but its own.
                if facet in filters:
                    others = {k: v for k, v in filters.items() if k != facet}
                    counted = np.flatnonzero(matched.mask & _combined(others, self.view.doc_count_all))
                else:
                    counted = ids
                facets[facet] = self.view.facet_counts(facet, counted, request.facet_size)
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

    @staticmethod
    def _rank_key(ids: np.ndarray, matched: _Matched) -> np.ndarray:
        """Ascending sort key, best first: articles holding the typed words as a run, then (relaxed queries)
        by telling words matched, then by words written as typed and then written at all (where the archive
        has accented spellings of them: see _typed_spelling), then by score."""
        scores = matched.scores[ids]
        if not scores.size or (matched.words is None and matched.phrase is None and matched.spelling is None):
            return -scores
        low = scores.min()
        span = float(scores.max() - low) + 1.0
        key = scores - low
        if matched.spelling is not None:
            spelling = matched.spelling[ids].astype(np.float64)
            key = key + spelling * span
            span *= float(spelling.max()) + 1.0
        if matched.words is not None:
            tiers = matched.words[ids].astype(np.float64)
            key = key + tiers * span
            span *= float(tiers.max()) + 1.0
        if matched.phrase is not None:
            key = key + matched.phrase[ids] * span
        return -key

    # -- matching ------------------------------------------------------------------------------------

    @timed("match")
    def _match(self, parsed: ParsedQuery, filters: dict[str, np.ndarray], per_page: int, rank: bool = True) -> _Matched:
        """What `parsed` matches, relaxed to "most" when every word finds fewer than `per_page` under the
        filters; `rank` False when only the matches are counted (no phrase or spelling tiers)."""
        n = self.view.doc_count_all
        scores = np.zeros(n)
        if parsed.is_empty:
            mask = np.zeros(n, dtype=bool)
            if parsed.ignored and not parsed.excluded:  # only stop words: nothing to look for
                return _Matched(mask, scores, None, MATCH_ALL)
            mask[self.view.all_docs()] = True  # no words: list the archive, but for any exclusions ("-sport")
            if parsed.excluded:
                mask &= ~self._mask_of(_or(parsed.excluded), n)
            return _Matched(mask, scores, None, MATCH_LIST)
        if parsed.boolean is not None:
            ids, found = self._evaluate(parsed.boolean)
            mask = np.zeros(n, dtype=bool)
            mask[ids] = True
            scores[ids] = found
            return _Matched(mask, scores, None, MATCH_ALL)

        allowed = np.zeros(n, dtype=bool)
        allowed[self.view.all_docs()] = True
        required = list(parsed.required)
        words = list(parsed.words)
        match = MATCH_ALL
        if parsed.url:
            url_ids, _ = self._evaluate(query.Term("url", parsed.url))
            if url_ids.size:
                required.append(query.Term("url", parsed.url))
                match = MATCH_URL
            else:
                words += [w for w in parsed.url_words if w.term not in {x.term for x in words}]
        if required:
            ids, found = self._evaluate(_and(required))
            base = np.zeros(n, dtype=bool)
            base[ids] = True
            scores[ids] += found
            allowed &= base
        if parsed.excluded:
            allowed &= ~self._mask_of(_or(parsed.excluded), n)
        if not words:
            if not required:
                return _Matched(np.zeros(n, dtype=bool), scores, None, match)
            return _Matched(allowed, scores, None, match)
        counts = np.zeros(n, dtype=np.int32)  # words matched, for "all"
        held = np.zeros(n, dtype=bool)  # holds one of the words (not only stop words of its language)
        tiers = np.zeros(n, dtype=np.int32)  # telling words matched, for ranking "most"
        spelling: Optional[np.ndarray] = None  # words written as typed, where the archive has accented spellings
        live = max(1, self.view.all_docs().size)
        for word in words:
            ids, found = self._evaluate(word_query(word))
            counts[ids] += 1
            held[ids] = True
            scores[ids] += found * self._kept_share(word)
            typed = self._typed_spelling(word, ids) if rank else None
            if typed is not None:
                spelling = np.zeros(n, dtype=np.int32) if spelling is None else spelling
                spelling[ids] += typed
            if ids.size <= TIER_MAX_SHARE * live:
                tiers[ids] += 1
            if word.stopped:  # a stop word in an article's language: the article need not hold it
                stopped = np.zeros(n, dtype=bool)
                stopped[self._evaluate(analyses_query(word.stopped))[0]] = True
                stopped[ids] = False
                counts[stopped] += 1
        every = allowed & held & (counts == len(words))
        if ALL_WORDS_FIRST:
            tiers += every.astype(np.int32) * (len(words) + 1)  # above any count of telling words
        all_words = int(np.count_nonzero(every & _combined(filters, n)))
        if match == MATCH_URL or len(words) == 1:
            return _Matched(every, scores, None, match, spelling=spelling, all_words=all_words)
        # The phrase check's best articles are among those the request may see (hidden ones take no places).
        visible_every = every if self._visible is None else every & self._visible
        phrase = self._phrase_mask(parsed.runs, visible_every, scores, n) if rank else None
        if all_words >= per_page:
            return _Matched(every, scores, None, MATCH_ALL, phrase, spelling, all_words)
        return _Matched(allowed & held, scores, tiers, MATCH_MOST, phrase, spelling, all_words)

    def _kept_share(self, word: Word) -> float:
        """The share of the archive's articles whose language does not drop the word as a stop word: what
        the word's score is worth. "the" in an archive of English articles and a few German ones tells
        little, although the German articles index it (and a rare word scores high)."""
        if not word.stopped:
            return 1.0
        if self._analysis_counts is None:
            self._analysis_counts = {key: self._evaluate(analyses_query((key,)))[0].size for key in self.keys}
        total = sum(self._analysis_counts.values()) or 1
        stopped = sum(self._analysis_counts.get(key, 0) for key in word.stopped)
        return max(0.0, 1.0 - stopped / total)

    @timed("spelling")
    def _typed_spelling(self, word: Word, ids: np.ndarray) -> Optional[np.ndarray]:
        """For the articles `ids` holding `word`, when the archive writes the word with accents somewhere
        ("quebec:québec" in the variant field): 2 where the article writes it as typed (with the accents
        typed; typed without, as a name without accents), 1 where it writes the word itself in another
        spelling, 0 where it holds only a word of the same stem ("Verrat" for "Verrater", "Verräter").
        None when the archive has no accented spelling of the word (nothing to rank apart)."""
        if self.legacy or not ids.size:
            return None
        typed = word.text.lower()
        folded = fold(typed)
        reader = self.searcher.reader()
        if folded not in self.view.view.accented(self.view.leaves()):
            return None
        variants = list(reader.expand_prefix("variant", f"{folded}:"))
        accented, _ = self._evaluate(query.Or([query.Term("variant", v) for v in variants]))
        names, _ = self._evaluate(query.Term("name", folded))
        if typed != folded:
            as_typed, _ = self._evaluate(query.Term("variant", f"{folded}:{typed}"))
        else:  # a name written without accents: written as a name, and with no accented spelling
            as_typed = names[~np.isin(names, accented, assume_unique=True)]
        itself = np.union1d(accented, names)
        out = np.isin(ids, itself, assume_unique=True).astype(np.int32)
        out[np.isin(ids, as_typed, assume_unique=True)] = 2
        return out

    @timed("phrase")
    def _phrase_mask(
        self, runs: tuple[tuple[tuple[str, ...], ...], ...], every: np.ndarray, scores: np.ndarray, n: int
    ) -> Optional[np.ndarray]:
        """Among the best PHRASE_CHECK_DOCS articles holding every word, those that hold each run of typed
        words in a row (in the headline, the body or a caption; by any analysis's terms); None when none
        does or there is no run."""
        if not runs or not every.any():
            return None
        candidates = np.flatnonzero(every)
        candidates = np.sort(
            candidates[np.lexsort((self.view.view.article_num[candidates], -scores[candidates]))[:PHRASE_CHECK_DOCS]]
        )
        for alternatives in runs:
            held = [self.view.holding_run(run, PHRASE_FIELDS, candidates) for run in alternatives]
            candidates = np.unique(np.concatenate(held)) if len(held) > 1 else held[0]
            if not candidates.size:
                return None
        mask = np.zeros(n, dtype=bool)
        mask[candidates] = True
        return mask

    @timed("feedback")
    def _feedback(self, parsed: ParsedQuery, matched: _Matched, filters: dict[str, np.ndarray]) -> None:
        """Re-score a relaxed answer with the typed words and the telling words of its best articles (RM3)."""
        n = self.view.doc_count_all
        candidates = np.flatnonzero(matched.mask & _combined(filters, n))
        if candidates.size < 2:
            return
        by_score = np.lexsort((self.view.view.article_num[candidates], -matched.scores[candidates]))
        best = candidates[by_score[:FEEDBACK_DOCS]]
        texts = self.texts([self.view.doc_id(int(d)) for d in best])
        top = matched.scores[best]
        doc_weights = np.exp(top - top.max())
        model: Counter = Counter()
        for (text, language), weight in zip(texts, doc_weights, strict=False):
            terms = term_counts(text or "", self.key_of(language))
            length = sum(terms.values()) or 1
            for term, count in terms.items():
                model[term] += weight * count / length
        reader = self.searcher.reader()
        limit = FEEDBACK_MAX_SHARE * max(1, self.view.all_docs().size)
        chosen = []
        for term, value in model.most_common():
            if self._doc_frequency(reader, term) <= limit:
                chosen.append((term, value))
                if len(chosen) == FEEDBACK_TERMS:
                    break
        typed = {w.term: w for w in parsed.words}
        weights: Counter = Counter({t: FEEDBACK_TYPED_WEIGHT / len(typed) for t in typed})
        mass = sum(v for _, v in chosen) or 1.0
        for term, value in chosen:
            weights[term] += (1 - FEEDBACK_TYPED_WEIGHT) * value / mass
        scores = np.zeros(n)
        for term, weight in weights.items():
            word = typed.get(term)
            if word is not None:
                ids, found = self._evaluate(word_query(word))
                found = found * self._kept_share(word)
            else:
                ids, found = self._evaluate(term_query(term))
            scores[ids] += weight * found
        matched.scores = scores

    def _mask_of(self, q: query.Query, n: int) -> np.ndarray:
        ids, _ = self._evaluate(q)
        mask = np.zeros(n, dtype=bool)
        mask[ids] = True
        return mask

    @timed("filters")
    def _filter_masks(self, request: SearchRequest) -> dict[str, np.ndarray]:
        """One mask per active filter (facet name, or "date")."""
        masks = {}
        for facet in FACETS:
            values, excluded = request.filters.get(facet), request.exclude.get(facet)
            if values or excluded:
                # A facet's chosen and excluded values are one filter: its counts are taken without both.
                mask = self.view.facet_mask(facet, values) if values else np.ones(self.view.doc_count_all, bool)
                if excluded:
                    mask &= ~self.view.facet_mask(facet, excluded)
                masks[facet] = mask
        if request.after is not None:
            masks["after"] = self.view.after_article(request.after)
        if request.date_from or request.date_to:
            masks["date"] = self.view.day_mask(
                day_number(request.date_from) if request.date_from else None,
                day_number(request.date_to) if request.date_to else None,
            )
        if self._visible is not None:
            masks[ACCESS] = self._visible  # no facet's name: every count keeps it
        return masks

    def count_all_words(self, parsed: ParsedQuery, filters: dict[str, np.ndarray]) -> int:
        """How many articles match every word and required part of `parsed` under the filters."""
        # per_page 0: never relaxed; timed as part of the caller's stage (the corrections), not as matching
        matched = ArchiveSearcher._match.__wrapped__(self, parsed, filters, per_page=0, rank=False)
        return int(np.count_nonzero(matched.mask & _combined(filters, self.view.doc_count_all)))

    # -- related articles ----------------------------------------------------------------------------

    def more_like(
        self,
        doc_id: str,
        text: str,
        limit: int,
        language: Optional[str] = None,
        visible: Optional[Visibility] = None,
    ) -> list[tuple[str, list[str]]]:
        """The documents most like `text` (the article `doc_id` itself left out), best first, each with
        the article's key terms it shares (the reason it is related), as index terms (stems).

        The key terms are the RELATED_TERMS words of the text that best tell it apart from the rest of
        the archive (Whoosh's key terms of the body: frequent here, rare elsewhere), read by the rules of
        the article's `language` (its stop words are never key terms); articles are ranked by BM25F over
        them, and only articles sharing at least RELATED_MIN_SHARED of them are offered."""
        docnum = self.searcher.document_number(id=doc_id)
        if docnum is None or not text.strip():
            return []
        marked = text if self.legacy else mark(self.key_of(language), text)
        key_terms = [term for term, _ in self.searcher.key_terms_from_text("body", marked, numterms=RELATED_TERMS)]
        if not key_terms:
            return []
        n = self.view.doc_count_all
        scores = np.zeros(n)
        shared = np.zeros(n, dtype=np.int32)
        holders = {}
        for term in key_terms:
            ids, found = self._evaluate(term_query(term))
            scores[ids] += found
            shared[ids] += 1
            holders[term] = ids
        shared[self.view.view.story_num == self.view.story_of(docnum)] = 0  # itself and its other versions
        if visible is not None:
            shared[~visible.mask(self.view.view)] = 0
        candidates = np.flatnonzero(shared >= RELATED_MIN_SHARED)
        order = self.view.top(candidates, -(scores[candidates] + shared[candidates] * (scores.max() + 1)), limit)
        out = []
        for position in order:
            doc = int(candidates[position])
            reasons = [term for term in key_terms if _holds(holders[term], doc)]
            out.append((self.view.doc_id(doc), reasons))
        return out

    # -- corrections ---------------------------------------------------------------------------------

    @timed("corrections")
    def suggest(
        self, parsed: ParsedQuery, filters: dict[str, np.ndarray], typed_all: Optional[int] = None
    ) -> tuple[Optional[str], int, bool]:
        """(a corrected query text, how many articles it finds with every word, whether the correction is
        near-certain), or (None, 0, False).

        Candidates are bare words of three or more letters with no digits (never stop words, numbers or
        URLs) that the archive holds in at most SUGGEST_RARE_DOCS articles (or SUGGEST_RARE_SHARE of it),
        or more when no headline or caption writes the word itself (it is held only by a word of its stem,
        as "migrantion" is by "migrant"). A word the archive holds (in any spelling: "Meheut" for
        "Méheut") is kept as typed when it was typed capitalised or the archive writes it as a name; one
        that headlines or captions write is never replaced by a word its articles' languages do not use
        ("gouvernement" in a French article is not a misspelt "government"). A word
        is replaced by the close word of the headline and caption vocabulary (one edit first; two for
        words of more than five letters when none is one edit away) that the most articles hold, when that
        is more than three times as many as hold the typed word; a word typed capitalised only by a name.
        The corrected query is kept only when it finds at least twice as many articles as the typed one,
        plus one. It is near-certain when every word it replaces was typed in lower case, is in no article
        and is one edit from its replacement, which CERTAIN_RATIO times as many articles hold as any other
        word one edit away.
        """
        if parsed.boolean is not None or not parsed.words:
            return None, 0, False
        spell_fields = [f for f in ("spell_headline", "spell_caption") if f in self.schema]
        replacements: dict[str, str] = {}
        certain = True
        rare = max(SUGGEST_RARE_DOCS, self.view.all_docs().size * SUGGEST_RARE_SHARE)
        shouting = parsed.text.isupper()  # a pasted all-caps headline: capitals say nothing of names
        for word in parsed.words:
            typed = word.text.lower()
            if len(typed) < 3 or not typed.isalpha():
                continue
            capitalised = word.text[:1].isupper() and not shouting
            own = self._holders(word).size
            written = any((f, word.plain) in self.searcher.reader() for f in spell_fields)
            if own and (capitalised or self._is_name(word.plain, own) or (own > rare and written)):
                continue  # a name the archive holds, or a word it writes this often, is meant as typed
            choice = self._best_correction(word, own, capitalised, written, parsed.keys, spell_fields)
            if choice is not None:
                best, distance, freq, runner_up = choice
                replacements[word.text] = best.capitalize() if capitalised else best
                # Near-certain: typed in lower case, in no article, one edit away, and no other word as far
                # away is nearly as common ("spiek": "spiel" or "spike"?).
                clear = runner_up * CERTAIN_RATIO <= freq
                certain = certain and not capitalised and not own and distance == 1 and clear
        if not replacements:
            return None, 0, False
        corrected = parsed.text
        for typed, better in replacements.items():
            corrected = re.sub(rf"(?<!\w){re.escape(typed)}(?!\w)", better, corrected)
        if corrected == parsed.text:
            return None, 0, False
        if typed_all is None:  # how many the typed words find together (known when the search just matched them)
            typed_all = self.count_all_words(parsed, filters)
        corrected_all = self.count_all_words(parse_query(corrected, parsed.keys), filters)
        if corrected_all >= 2 * typed_all + 1:
            return corrected, corrected_all, certain
        return None, 0, False

    def _best_correction(
        self, word: Word, own: int, capitalised: bool, written: bool, keys: tuple[str, ...], spell_fields: list[str]
    ) -> Optional[tuple[str, int, int, int]]:
        """(the close word held by the most articles, its edit distance, how many hold it, how many hold
        the next best other word at that distance) for `word`, held by `own` articles and `written` in the
        headline and caption vocabulary or not; None when no close word qualifies (see `suggest`).

        Close words: the vocabulary's words within one edit (two for words of more than five letters, as
        Elasticsearch's AUTO fuzziness: a short word two edits away is another word, "suruc" not "sure") by
        Damerau-Levenshtein distance (a swap of neighbouring letters is one edit), the first letter
        included, found by rapidfuzz over the whole vocabulary in C; the SUGGEST_CANDIDATES most frequent
        of each distance are weighed."""
        reader = self.searcher.reader()
        by_length = self.view.view.vocabulary_by_length(self.view.leaves(), tuple(spell_fields))
        limit = 1 if len(word.plain) <= 5 else 2
        close = []
        for length in range(len(word.plain) - limit, len(word.plain) + limit + 1):  # farther lengths are farther
            close += process.extract(
                word.plain,
                by_length.get(length, ()),
                scorer=DamerauLevenshtein.distance,
                score_cutoff=limit,
                limit=None,
            )
        for distance in range(1, limit + 1):
            candidates = [c for c, d, _ in close if d == distance]
            candidates.sort(key=lambda c: (-max(reader.frequency(f, c) for f in spell_fields), c))
            found: dict[str, int] = {}
            for candidate in candidates[:SUGGEST_CANDIDATES]:
                words = parse_query(candidate, keys).words
                held = self._holders(words[0]) if len(words) == 1 else EMPTY
                if held.size <= 3 * own:
                    continue
                if self._same_word(word.plain, candidate, self._languages_of(held).most_common(1)[0][0]):
                    continue
                if capitalised and not self._is_name(candidate, held.size):
                    continue  # a name is never replaced by a common word
                if written and own and not self._same_languages(word, held):
                    continue  # a word of another language is not a misspelling of this one
                found[candidate] = held.size
            if found:
                ranked = sorted(found.items(), key=lambda item: (-item[1], item[0]))
                return ranked[0][0], distance, ranked[0][1], ranked[1][1] if len(ranked) > 1 else 0
        return None

    @staticmethod
    def _same_word(typed: str, candidate: str, key: str) -> bool:
        """Whether the analysis `key` (that of most articles holding the candidate) reads two (folded)
        words as one term ("refugees", "refugee"): then the candidate is no correction. German reads
        "awesoem" as "awesome" (both "awesom"), English does not: the English articles holding "awesome"
        decide."""
        term = analysis(key).term
        found = term(typed)
        return found is not None and found == term(candidate)

    def _holders(self, word: Word) -> np.ndarray:
        """The articles holding a word (by the analyses of their own languages, or in their bylines) that this
        request may see: a word only hidden articles hold is neither kept as a name nor offered."""
        ids = self._evaluate(word_query(word))[0]
        return ids if self._visible is None else ids[self._visible[ids]]

    def _is_name(self, folded: str, holders: int) -> bool:
        """Whether the archive writes a (folded) word as a name in at least NAME_SHARE of the `holders`
        articles holding it."""
        if self.legacy or not holders:
            return False
        return self._doc_frequency(self.searcher.reader(), folded, ("name",)) >= NAME_SHARE * holders

    def _same_languages(self, word: Word, candidate_holders: np.ndarray) -> bool:
        """Whether articles of a language that the articles holding `word` are in hold the candidate."""
        ids = self._holders(word)
        if not ids.size:
            return True
        return bool(self._languages_of(ids).keys() & self._languages_of(candidate_holders).keys())

    def _languages_of(self, ids: np.ndarray) -> Counter:
        """How many of the articles `ids` each analysis indexed (at least one key, however few `ids`)."""
        if self.legacy:
            return Counter({LEGACY: max(1, ids.size)})
        counts = self.view.facet_counts("language", ids, MAX_LANGUAGES) if ids.size else []
        keys: Counter = Counter()
        for item in counts:
            keys[analysis_key(item["value"])] += item["count"]
        unknown = ids.size - sum(item["count"] for item in counts)
        if unknown or not keys:
            keys[DEFAULT_LANGUAGE] += max(1, unknown)  # articles of no known language are read as English
        return keys

    def _doc_frequency(self, reader, term: str, fields: tuple[str, ...] = DEFAULT_FIELDS) -> int:
        """In how many articles one of `fields` holds `term`, at most (the largest field's count)."""
        key = (fields[0] if len(fields) == 1 else "", term)
        found = self._frequencies.get(key)
        if found is None:
            # Live documents only (search/columns.py): the same however the segments were merged.
            frequency = getattr(self.searcher, "live_frequency", reader.doc_frequency)
            found = self._frequencies[key] = max(frequency(f, term) for f in fields)
        return found


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
    keys, counts = np.unique(dated // divisor, return_counts=True)
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


def _holds(ids: np.ndarray, doc: int) -> bool:
    """Whether the ascending document numbers `ids` hold `doc`."""
    i = int(np.searchsorted(ids, doc))
    return i < ids.size and int(ids[i]) == doc


def _combined(masks: dict[str, np.ndarray], n: int) -> np.ndarray:
    out = np.ones(n, dtype=bool)
    for mask in masks.values():
        out &= mask
    return out


def _and(parts: list[query.Query]) -> query.Query:
    return parts[0] if len(parts) == 1 else query.And(parts)


def _or(parts) -> query.Query:
    parts = list(parts)
    return parts[0] if len(parts) == 1 else query.Or(parts)
