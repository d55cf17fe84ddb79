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
   query finds clearly more (at least twice as many, plus one). When the typed query finds nothing at
   all and the correction finds something, the corrected results are answered (`corrected`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable, Optional

import numpy as np
from whoosh import query
from whoosh.searching import Searcher

from .columns import BoundView, SegmentCache
from .parse import ParsedQuery, analyse, analysed_terms, parse_query, word_query
from .request import BadRequest, SearchRequest
from .schema import DEFAULT_FIELDS, FACETS, MISSING_DAY, day_number

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

# Corrections are looked for only for words this rare: at most this many articles, or this share of them.
SUGGEST_RARE_DOCS = 3
SUGGEST_RARE_SHARE = 0.0001

MATCH_ALL = "all"  # every bare word (and every required part) matched
MATCH_MOST = "most"  # relaxed: articles matching more of the words first
MATCH_URL = "url"  # the article stored with the URL in the query
MATCH_LIST = "list"  # no words to look for: the archive (filtered, or with exclusions), newest first


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


class ArchiveSearcher:
    """One Whoosh searcher with its segment arrays and engine (NumPy, or plain Whoosh on untested versions)."""

    def __init__(
        self,
        searcher: Searcher,
        cache: SegmentCache,
        engine: str = "auto",
        texts: Optional[Callable[[list[str]], list[str]]] = None,
    ) -> None:
        """`texts` gives the text (headline, body, captions) of articles by id, for relevance feedback;
        without it relaxed answers are ranked by BM25F alone."""
        self.searcher = searcher
        self.schema = searcher.schema
        self.view: BoundView = cache.view(searcher, engine)
        self.texts = texts
        self._frequencies: dict[str, int] = {}  # this searcher's index never changes: counts stay true

    # -- the answer ----------------------------------------------------------------------------------

    def search(self, request: SearchRequest) -> Found:
        parsed = parse_query(request.q)
        filters = self._filter_masks(request)
        matched = self._match(parsed, filters, request.per_page)
        if matched.match == MATCH_MOST and self.texts is not None and FEEDBACK_DOCS:
            self._feedback(parsed, matched, filters)
        found = self._found(parsed, matched, filters, request)
        if parsed.is_empty or matched.match == MATCH_URL:
            return found
        if found.total >= request.per_page and matched.match != MATCH_MOST:
            return found  # every word found a page: a relaxed answer, though, may hide a misspelt word
        suggestion, suggested_total = self.suggest(parsed, filters)
        if suggestion is None:
            return found
        if found.total == 0 and suggested_total > 0 and request.correct:
            corrected = parse_query(suggestion)
            again = self._found(corrected, self._match(corrected, filters, request.per_page), filters, request)
            return replace(again, suggestion=suggestion, corrected=True, notices=found.notices)
        return replace(found, suggestion=suggestion)

    def _found(
        self, parsed: ParsedQuery, matched: _Matched, filters: dict[str, np.ndarray], request: SearchRequest
    ) -> Found:
        final = matched.mask & _combined(filters, self.view.doc_count_all)
        ids = np.flatnonzero(final)
        start = (request.page - 1) * request.per_page
        stop = start + request.per_page
        versions: Optional[np.ndarray] = None
        total = int(ids.size)
        shown = ids  # the hits the histogram counts: one per story when collapsed
        if request.collapse and self.view.may_collapse(ids):
            kept, counts = self.view.collapse(ids, self._order(ids, matched, request, int(ids.size)))
            total = int(kept.size)
            shown = ids[kept]
            order, versions = kept[start:stop], counts[start:stop]
        elif start >= ids.size:
            order = np.empty(0, dtype=np.int64)
        else:
            order = self._order(ids, matched, request, stop)[start:stop]
        page = [(self.view.doc_id(int(ids[i])), float(matched.scores[ids[i]])) for i in order]
        stories = [self.view.story_of(int(ids[i])) for i in order]
        counts_shown = [int(v) for v in versions] if versions is not None else [1] * len(page)
        facets = {}
        for facet in FACETS:
            # Disjunctive counts: each facet under every filter but its own.
            if facet in filters:
                others = {k: v for k, v in filters.items() if k != facet}
                counted = np.flatnonzero(matched.mask & _combined(others, self.view.doc_count_all))
            else:
                counted = ids
            facets[facet] = self.view.facet_counts(facet, counted, request.facet_size)
        return Found(
            total=total,
            articles=int(ids.size),
            stories=stories,
            versions=counts_shown,
            page=page,
            facets=facets,
            terms=parsed.terms_by_field(),
            match=matched.match,
            notices=list(parsed.notices),
            histogram=date_histogram(self.view.view.day[shown], request.interval),
        )

    def ordered(self, request: SearchRequest, limit: int) -> tuple[int, list[str], dict[str, set[str]]]:
        """(total, the ids of the first `limit` hits in the order the request's pages show them, the query
        terms by field for snippets): every page at once, for export. Matched as `search` matches (relaxed
        by the request's page size, corrected when the typed query finds nothing)."""
        first = self.search(replace(request, page=1, facet_size=0))
        parsed = parse_query(first.suggestion if first.corrected and first.suggestion else request.q)
        filters = self._filter_masks(request)
        matched = self._match(parsed, filters, request.per_page)
        if matched.match == MATCH_MOST and self.texts is not None and FEEDBACK_DOCS:
            self._feedback(parsed, matched, filters)
        ids = np.flatnonzero(matched.mask & _combined(filters, self.view.doc_count_all))
        total = int(ids.size)
        if request.collapse and self.view.may_collapse(ids):
            order, _ = self.view.collapse(ids, self._order(ids, matched, request, total))
            total = int(order.size)
        else:
            order = self._order(ids, matched, request, limit)
        return total, [self.view.doc_id(int(ids[i])) for i in order[:limit]], parsed.terms_by_field()

    def _order(self, ids: np.ndarray, matched: _Matched, request: SearchRequest, stop: int) -> np.ndarray:
        """Positions in `ids` of the first `stop` hits in the request's order."""
        if request.sort == "stored":
            return self.view.by_ingest(ids, stop)
        if matched.match == MATCH_LIST or request.sort != "relevance":
            return self.view.by_date(ids, request.sort != "oldest", stop)
        return self.view.top(ids, self._rank_key(ids, matched), stop)

    def newest_article(self) -> int:
        """The highest article id among the index's live documents (0 when there are none)."""
        live = self.view.all_docs()
        return int(self.view.view.article_num[live].max()) if live.size else 0

    def facet_values(self, request: SearchRequest, facet: str, prefix: str, size: int) -> list[dict]:
        """Values of one facet among the request's hits, counted as the answer's facets are (under every
        filter but the facet's own), limited to those starting with `prefix` (or with a word that does)."""
        parsed = parse_query(request.q)
        filters = self._filter_masks(request)
        matched = self._match(parsed, filters, request.per_page)
        others = {k: v for k, v in filters.items() if k != facet}
        counted = np.flatnonzero(matched.mask & _combined(others, self.view.doc_count_all))
        return self.view.facet_counts(facet, counted, size, prefix)

    @staticmethod
    def _rank_key(ids: np.ndarray, matched: _Matched) -> np.ndarray:
        """Ascending sort key, best first: articles holding the typed words as a run, then (relaxed queries)
        by telling words matched, then by score."""
        scores = matched.scores[ids]
        if not scores.size or (matched.words is None and matched.phrase is None):
            return -scores
        low = scores.min()
        span = float(scores.max() - low) + 1.0
        key = scores - low
        if matched.words is not None:
            tiers = matched.words[ids].astype(np.float64)
            key = key + tiers * span
            span *= float(tiers.max()) + 1.0
        if matched.phrase is not None:
            key = key + matched.phrase[ids] * span
        return -key

    # -- matching ------------------------------------------------------------------------------------

    def _match(self, parsed: ParsedQuery, filters: dict[str, np.ndarray], per_page: int) -> _Matched:
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
            ids, found = self.view.evaluate(parsed.boolean)
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
            url_ids, _ = self.view.evaluate(query.Term("url", parsed.url))
            if url_ids.size:
                required.append(query.Term("url", parsed.url))
                match = MATCH_URL
            else:
                words += [w for w in parsed.url_words if w.term not in {x.term for x in words}]
        if required:
            ids, found = self.view.evaluate(_and(required))
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
        tiers = np.zeros(n, dtype=np.int32)  # telling words matched, for ranking "most"
        live = max(1, self.view.all_docs().size)
        for word in words:
            ids, found = self.view.evaluate(word_query(word.term))
            counts[ids] += 1
            scores[ids] += found
            if ids.size <= TIER_MAX_SHARE * live:
                tiers[ids] += 1
        every = allowed & (counts == len(words))
        if ALL_WORDS_FIRST:
            tiers += every.astype(np.int32) * (len(words) + 1)  # above any count of telling words
        if match == MATCH_URL or len(words) == 1:
            return _Matched(every, scores, None, match)
        phrase = self._phrase_mask(parsed.runs, every, scores, n)
        if int(np.count_nonzero(every & _combined(filters, n))) >= per_page:
            return _Matched(every, scores, None, MATCH_ALL, phrase)
        return _Matched(allowed & (counts > 0), scores, tiers, MATCH_MOST, phrase)

    def _phrase_mask(
        self, runs: tuple[tuple[str, ...], ...], every: np.ndarray, scores: np.ndarray, n: int
    ) -> Optional[np.ndarray]:
        """Among the best PHRASE_CHECK_DOCS articles holding every word, those that hold each run of typed
        words in a row (in the headline, the body or a caption); None when none does or there is no run."""
        if not runs or not every.any():
            return None
        candidates = np.flatnonzero(every)
        candidates = np.sort(candidates[np.lexsort((candidates, -scores[candidates]))[:PHRASE_CHECK_DOCS]])
        for run in runs:
            candidates = self.view.holding_run(run, PHRASE_FIELDS, candidates)
            if not candidates.size:
                return None
        mask = np.zeros(n, dtype=bool)
        mask[candidates] = True
        return mask

    def _feedback(self, parsed: ParsedQuery, matched: _Matched, filters: dict[str, np.ndarray]) -> None:
        """Re-score a relaxed answer with the typed words and the telling words of its best articles (RM3)."""
        n = self.view.doc_count_all
        candidates = np.flatnonzero(matched.mask & _combined(filters, n))
        if candidates.size < 2:
            return
        best = candidates[np.lexsort((candidates, -matched.scores[candidates]))[:FEEDBACK_DOCS]]
        texts = self.texts([self.view.doc_id(int(d)) for d in best])
        top = matched.scores[best]
        doc_weights = np.exp(top - top.max())
        model: Counter = Counter()
        for text, weight in zip(texts, doc_weights, strict=False):
            terms = Counter(analysed_terms(text or ""))
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
        typed = [w.term for w in parsed.words]
        weights: Counter = Counter({t: FEEDBACK_TYPED_WEIGHT / len(typed) for t in typed})
        mass = sum(v for _, v in chosen) or 1.0
        for term, value in chosen:
            weights[term] += (1 - FEEDBACK_TYPED_WEIGHT) * value / mass
        scores = np.zeros(n)
        for term, weight in weights.items():
            ids, found = self.view.evaluate(word_query(term))
            scores[ids] += weight * found
        matched.scores = scores

    def _mask_of(self, q: query.Query, n: int) -> np.ndarray:
        ids, _ = self.view.evaluate(q)
        mask = np.zeros(n, dtype=bool)
        mask[ids] = True
        return mask

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
        return masks

    def count_all_words(self, parsed: ParsedQuery, filters: dict[str, np.ndarray]) -> int:
        """How many articles match every word and required part of `parsed` under the filters."""
        matched = self._match(parsed, filters, per_page=0)  # per_page 0: never relaxed
        return int(np.count_nonzero(matched.mask & _combined(filters, self.view.doc_count_all)))

    # -- related articles ----------------------------------------------------------------------------

    def more_like(self, doc_id: str, text: str, limit: int) -> list[tuple[str, list[str]]]:
        """The documents most like `text` (the article `doc_id` itself left out), best first, each with
        the article's key terms it shares (the reason it is related), as index terms (stems).

        The key terms are the RELATED_TERMS words of the text that best tell it apart from the rest of
        the archive (Whoosh's key terms of the body: frequent here, rare elsewhere); articles are ranked
        by BM25F over them, and only articles sharing at least RELATED_MIN_SHARED of them are offered."""
        docnum = self.searcher.document_number(id=doc_id)
        if docnum is None or not text.strip():
            return []
        key_terms = [term for term, _ in self.searcher.key_terms_from_text("body", text, numterms=RELATED_TERMS)]
        if not key_terms:
            return []
        n = self.view.doc_count_all
        scores = np.zeros(n)
        shared = np.zeros(n, dtype=np.int32)
        holders = {}
        for term in key_terms:
            ids, found = self.view.evaluate(word_query(term))
            scores[ids] += found
            shared[ids] += 1
            holders[term] = ids
        shared[self.view.view.story_num == self.view.story_of(docnum)] = 0  # itself and its other versions
        candidates = np.flatnonzero(shared >= RELATED_MIN_SHARED)
        order = self.view.top(candidates, -(scores[candidates] + shared[candidates] * (scores.max() + 1)), limit)
        out = []
        for position in order:
            doc = int(candidates[position])
            reasons = [term for term in key_terms if _holds(holders[term], doc)]
            out.append((self.view.doc_id(doc), reasons))
        return out

    # -- corrections ---------------------------------------------------------------------------------

    def suggest(self, parsed: ParsedQuery, filters: dict[str, np.ndarray]) -> tuple[Optional[str], int]:
        """(a corrected query text, how many articles it finds with every word), or (None, 0).

        Only rare bare words (held by at most SUGGEST_RARE_DOCS articles, or SUGGEST_RARE_SHARE of the
        archive) of three or more letters with no digits are candidates (never stop words, numbers or
        URLs). A word is replaced by the close word (one edit for words of up to four letters,
        two for longer) from the headline and caption vocabulary that matches the most articles, when
        that is more than three times as many as the typed word matches. The corrected query is kept
        only when it finds at least twice as many articles as the typed one, plus one.
        """
        if parsed.boolean is not None or not parsed.words:
            return None, 0
        reader = self.searcher.reader()
        spell_fields = [f for f in ("spell_headline", "spell_caption") if f in self.schema]
        replacements: dict[str, str] = {}
        rare = max(SUGGEST_RARE_DOCS, self.view.all_docs().size * SUGGEST_RARE_SHARE)
        for word in parsed.words:
            typed = word.text.lower()
            if len(typed) < 3 or not typed.isalpha():
                continue
            own = self._doc_frequency(reader, word.term)
            if own > rare:
                continue  # a word this many articles hold is meant as typed
            best, best_freq = None, 3 * own
            for spell_field in spell_fields:
                corrector = self.searcher.corrector(spell_field)
                for candidate in corrector.suggest(typed, limit=8, maxdist=1 if len(typed) <= 4 else 2, prefix=1):
                    terms = analyse(candidate)
                    if candidate == typed or not terms or terms[0] == word.term:
                        continue
                    freq = self._doc_frequency(reader, terms[0])
                    if freq > best_freq:
                        best, best_freq = candidate, freq
            if best is not None:
                replacements[word.text] = best
        if not replacements:
            return None, 0
        corrected = parsed.text
        for typed, better in replacements.items():
            corrected = re.sub(rf"(?<!\w){re.escape(typed)}(?!\w)", better, corrected)
        if corrected == parsed.text:
            return None, 0
        typed_all = self.count_all_words(parsed, filters)
        corrected_all = self.count_all_words(parse_query(corrected), filters)
        if corrected_all >= 2 * typed_all + 1:
            return corrected, corrected_all
        return None, 0

    def _doc_frequency(self, reader, term: str) -> int:
        """In how many articles a default field holds `term`, at most (the largest field's count)."""
        found = self._frequencies.get(term)
        if found is None:
            found = self._frequencies[term] = max(reader.doc_frequency(f, term) for f in DEFAULT_FIELDS)
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
