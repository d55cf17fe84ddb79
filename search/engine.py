"""Matching and scoring a Whoosh query over a whole index, as arrays: two engines that must always agree.

`WhooshEngine` asks Whoosh itself (`Searcher.search` with no limit): the reference, and what the archive
uses on a Whoosh version the fast paths were not tested with. `NumpyEngine` gets the same answer faster:
Whoosh finds matches one document at a time in Python, so for a common word in a large archive that is
tens of thousands of Python calls per query. Here a query tree is evaluated per segment on arrays: a
term's posting list is decoded whole (search/internals.py, block by block, one C call each), AND/OR/NOT
become sorted-array intersections, unions and differences, and scores are Whoosh's BM25F (same idf,
field lengths, K1 and B) computed over the arrays. Any query type this module does not know is matched
and scored by Whoosh's own matcher, one segment at a time, so nothing is lost. A differential test runs
thousands of generated queries through both engines and compares matches, scores and order.

Both answer `evaluate(query) -> (document numbers, scores)`: global document numbers in ascending order,
deleted documents left out.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional

import numpy as np
from whoosh import query
from whoosh.reading import TermNotFound
from whoosh.util.numeric import byte_to_length

from . import internals

B = 0.75
K1 = 1.2
UNBALANCED = 16  # an intersection of lists this many times apart in length searches the long one
EMPTY_IDS = np.empty(0, dtype=np.int64)
EMPTY_SCORES = np.empty(0, dtype=np.float64)
LENGTHS = np.array([byte_to_length(b) or 0 for b in range(256)], dtype=np.float64)


def term_postings(reader, fieldname: str, text) -> tuple[np.ndarray, np.ndarray]:
    """(document numbers, weights) of one term in one segment reader, as arrays; deleted documents may be
    included (callers drop them with the segment's live mask)."""
    fast = internals.decode_postings(reader, fieldname, text)
    if fast is not None:
        return fast
    try:
        matcher = reader.postings(fieldname, text)
    except TermNotFound:
        return EMPTY_IDS, EMPTY_SCORES
    ids, weights = [], []
    while matcher.is_active():
        ids.append(matcher.id())
        weights.append(matcher.weight())
        matcher.next()
    return np.asarray(ids, dtype=np.int64), np.asarray(weights, dtype=np.float64)


class PostingsCache:
    """Decoded posting lists kept between queries, least recently used first out, within a byte budget.

    Keys name a segment (its id and live document count), a field and a term; segments never change,
    so an entry never goes stale, and a new segment simply has new keys. Popular words ("oil", "bank")
    are then decoded once, not on every query. Shared by all request threads.
    """

    def __init__(self, max_bytes: int = 128 * 1024 * 1024) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get(self, key: tuple, reader, fieldname: str, text) -> tuple[np.ndarray, np.ndarray]:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
        found = term_postings(reader, fieldname, text)
        size = found[0].nbytes + found[1].nbytes
        if size * 4 > self.max_bytes:
            return found  # too big to be worth keeping
        with self._lock:
            if key not in self._entries:
                self._entries[key] = found
                self._bytes += size
                while self._bytes > self.max_bytes and self._entries:
                    _, (ids, weights) = self._entries.popitem(last=False)
                    self._bytes -= ids.nbytes + weights.nbytes
        return found


@dataclass
class Scored:
    ids: np.ndarray  # sorted, unique, local document numbers
    scores: np.ndarray  # same length


def _union(parts: list[Scored], doc_count: int) -> Scored:
    parts = [p for p in parts if p.ids.size]
    if not parts:
        return Scored(EMPTY_IDS, EMPTY_SCORES)
    if len(parts) == 1:
        return parts[0]
    ids = np.concatenate([p.ids for p in parts])
    scores = np.concatenate([p.scores for p in parts])
    # Dense counting is linear in the postings (no sort); a segment's document count bounds the arrays.
    present = np.bincount(ids, minlength=doc_count)
    sums = np.bincount(ids, weights=scores, minlength=doc_count)
    unique = np.flatnonzero(present)
    return Scored(unique, sums[unique])


def _intersect(a: Scored, b: Scored, keep_b_scores: bool = True) -> Scored:
    small, large = (a, b) if a.ids.size <= b.ids.size else (b, a)
    if small.ids.size * UNBALANCED < large.ids.size:
        # A short list against a long one (a word among the articles of one language): binary search of
        # the short list's ids in the long one, instead of sorting both together.
        at = np.searchsorted(large.ids, small.ids)
        at[at == large.ids.size] = 0
        held = large.ids[at] == small.ids
        ids = small.ids[held]
        ia, ib = (np.flatnonzero(held), at[held]) if small is a else (at[held], np.flatnonzero(held))
    else:
        ids, ia, ib = np.intersect1d(a.ids, b.ids, assume_unique=True, return_indices=True)
    scores = a.scores[ia] + (b.scores[ib] if keep_b_scores else 0)
    return Scored(ids, scores)


def _minus(a: Scored, b: Scored) -> Scored:
    if not b.ids.size or not a.ids.size:
        return a
    keep = ~np.isin(a.ids, b.ids, assume_unique=True)
    return Scored(a.ids[keep], a.scores[keep])


class SegmentEvaluator:
    """Evaluates query trees on one segment; statistics (idf, average lengths) come from the whole index."""

    def __init__(
        self,
        top_searcher,
        leaf_searcher,
        lengths: dict[str, np.ndarray],
        live: Optional[np.ndarray],
        cache: Optional[PostingsCache] = None,
        segment_key: tuple = (),
    ):
        self.top = top_searcher
        self.leaf = leaf_searcher
        self.reader = leaf_searcher.reader()
        self.lengths = lengths
        self.live = live  # boolean array, or None when the segment has no deletions
        self.doc_count = self.reader.doc_count_all()
        self.cache = cache
        self.segment_key = segment_key

    def _term(self, fieldname: str, text, boost: float) -> Scored:
        if fieldname not in self.reader.schema:
            return Scored(EMPTY_IDS, EMPTY_SCORES)
        if self.cache is not None:
            key_text = text if isinstance(text, str) else text.decode("utf-8", "surrogateescape")
            ids, weights = self.cache.get((self.segment_key, fieldname, key_text), self.reader, fieldname, text)
        else:
            ids, weights = term_postings(self.reader, fieldname, text)
        if not ids.size:
            return Scored(EMPTY_IDS, EMPTY_SCORES)
        field = self.reader.schema[fieldname]
        if not field.scorable:
            return Scored(ids, weights * boost)
        idf = self.top.idf(fieldname, text)
        avgfl = self.top.avg_field_length(fieldname) or 1
        lengths = self.lengths.get(fieldname)
        fl = lengths[ids] if lengths is not None else np.ones(ids.size)
        fl = np.where(fl > 0, fl, 1)
        scores = idf * (weights * (K1 + 1)) / (weights + K1 * ((1 - B) + B * fl / avgfl))
        return Scored(ids, scores * boost)

    def all_docs(self) -> Scored:
        ids = np.arange(self.doc_count, dtype=np.int64)
        return Scored(ids, np.zeros(ids.size))

    def evaluate(self, q: query.Query) -> Scored:
        result = self._eval(q)
        if self.live is not None and result.ids.size:
            keep = self.live[result.ids]
            result = Scored(result.ids[keep], result.scores[keep])
        return result

    def _eval(self, q: query.Query) -> Scored:
        boost = getattr(q, "boost", 1.0) or 1.0
        if isinstance(q, query.Term):
            return self._term(q.fieldname, q.text, boost)
        if q is query.NullQuery or isinstance(q, type(query.NullQuery)):
            return Scored(EMPTY_IDS, EMPTY_SCORES)
        if isinstance(q, query.Every):
            return self.all_docs()
        if isinstance(q, query.Require):
            a, b = q.children()
            return _intersect(self._eval(a), self._eval(b), keep_b_scores=False)
        if isinstance(q, query.AndNot):
            # The archive never builds AndNot: Whoosh 2.7.5's AndNotMatcher lets its first positive
            # document through without checking it against the excluded ones. This is the correct answer.
            a, b = q.children()
            return _minus(self._eval(a), self._eval(b))
        if isinstance(q, query.AndMaybe):
            a, b = q.children()
            required, optional = self._eval(a), self._eval(b)
            both = _intersect(required, optional)
            at = np.searchsorted(required.ids, both.ids)
            extra = np.zeros(required.ids.size)
            extra[at] = both.scores - required.scores[at]
            return Scored(required.ids, required.scores + extra)
        if isinstance(q, query.Not):
            return self._inverse(q.query)
        if isinstance(q, query.And):
            return self._and(q, boost)
        if isinstance(q, query.Or) and not getattr(q, "minmatch", 0) and not isinstance(q, query.DisjunctionMax):
            negatives = [c.query for c in q.children() if isinstance(c, query.Not)]
            result = _union([self._eval(c) for c in q.children() if not isinstance(c, query.Not)], self.doc_count)
            for negative in negatives:  # "a OR NOT b" reads as everything but b, or a
                result = _union([result, self._inverse(negative)], self.doc_count)
            return self._boosted(result, boost)
        if isinstance(q, (query.Prefix, query.Wildcard)) and not q.constantscore:
            texts = [text for _, text in q.expanded_terms(self.reader)]
            if len(texts) == 1:  # Whoosh matches a lone expansion as a plain term, without the boost
                return self._term(q.fieldname, texts[0], 1.0)
            return self._boosted(_union([self._term(q.fieldname, t, 1.0) for t in texts], self.doc_count), boost)
        return self._by_whoosh(q)

    def _and(self, q: query.And, boost: float) -> Scored:
        positives = [c for c in q.children() if not isinstance(c, query.Not)]
        negatives = [c.query for c in q.children() if isinstance(c, query.Not)]
        if not positives:
            result = self.all_docs()
        else:
            parts = sorted((self._eval(c) for c in positives), key=lambda s: s.ids.size)
            result = parts[0]
            for part in parts[1:]:
                if not result.ids.size:
                    break
                result = _intersect(result, part)
        for negative in negatives:
            # Whoosh's inverse matcher scores 1.0 for each document it lets through; so do we.
            result = _minus(result, self._eval(negative))
            result = Scored(result.ids, result.scores + 1.0)
        return self._boosted(result, boost)

    def _inverse(self, q: query.Query) -> Scored:
        """Every document but those matching `q`, each scoring 1.0 as under Whoosh's inverse matcher."""
        rest = _minus(self.all_docs(), self._eval(q))
        return Scored(rest.ids, np.ones(rest.ids.size))

    @staticmethod
    def _boosted(result: Scored, boost: float) -> Scored:
        return result if boost == 1.0 else Scored(result.ids, result.scores * boost)

    def _by_whoosh(self, q: query.Query) -> Scored:
        """Match and score with Whoosh's own matcher on this segment (phrases and anything else)."""
        matcher = q.matcher(self.leaf, self.leaf.context())
        ids, scores = [], []
        while matcher.is_active():
            ids.append(matcher.id())
            scores.append(matcher.score())
            matcher.next()
        if not ids:
            return Scored(EMPTY_IDS, EMPTY_SCORES)
        id_array = np.asarray(ids, dtype=np.int64)
        score_array = np.asarray(scores, dtype=np.float64)
        if id_array.size > 1 and np.any(np.diff(id_array) <= 0):
            id_array, first = np.unique(id_array, return_index=True)
            score_array = score_array[first]
        return Scored(id_array, score_array)


class NumpyEngine:
    """Evaluates queries segment by segment over arrays; see the module's docstring."""

    name = "numpy"

    def __init__(self, searcher, segments: list, cache: Optional[PostingsCache] = None) -> None:
        """`segments` lists, per leaf of `searcher` in order, (lengths by field, live mask or None, segment key)."""
        self.searcher = searcher
        self.segments = segments
        self.cache = cache

    def evaluate(self, q: query.Query) -> tuple[np.ndarray, np.ndarray]:
        leaves = self.searcher.subsearchers or [(self.searcher, 0)]
        ids, scores = [], []
        for (leaf, offset), (lengths, live, key) in zip(leaves, self.segments, strict=False):
            result = SegmentEvaluator(self.searcher, leaf, lengths, live, self.cache, key).evaluate(q)
            ids.append(result.ids + offset)
            scores.append(result.scores)
        if not ids:
            return EMPTY_IDS, EMPTY_SCORES
        return np.concatenate(ids), np.concatenate(scores)


class WhooshEngine:
    """Evaluates queries with Whoosh's own searching: the reference, and the fallback on untested versions.

    NOT is computed here as a set difference: Whoosh 2.7.5's inverse matcher can let a deleted document
    through (the last document of a segment), so a query that is, or is AND'ed with, a NOT would
    otherwise count documents that no longer exist. Scores stay Whoosh's (1.0 for each NOT passed).
    """

    name = "whoosh"

    def __init__(self, searcher) -> None:
        self.searcher = searcher

    def evaluate(self, q: query.Query) -> tuple[np.ndarray, np.ndarray]:
        if isinstance(q, query.Not):
            ids = self._live()
            ids = ids[~np.isin(ids, self.evaluate(q.query)[0])]
            return ids, np.ones(ids.size)
        if isinstance(q, query.And) and any(isinstance(c, query.Not) for c in q.children()):
            positives = [c for c in q.children() if not isinstance(c, query.Not)]
            negatives = [c.query for c in q.children() if isinstance(c, query.Not)]
            if positives:
                ids, scores = self.evaluate(positives[0] if len(positives) == 1 else query.And(positives))
            else:
                ids = self._live()
                scores = np.zeros(ids.size)
            for negative in negatives:
                keep = ~np.isin(ids, self.evaluate(negative)[0])
                ids, scores = ids[keep], scores[keep] + 1.0
            boost = getattr(q, "boost", 1.0) or 1.0
            return ids, scores * boost
        return self._search(q)

    def _live(self) -> np.ndarray:
        leaves = self.searcher.subsearchers or [(self.searcher, 0)]
        chunks = [np.fromiter(leaf.reader().all_doc_ids(), dtype=np.int64) + offset for leaf, offset in leaves]
        return np.concatenate(chunks) if chunks else EMPTY_IDS

    def _search(self, q: query.Query) -> tuple[np.ndarray, np.ndarray]:
        results = self.searcher.search(q, limit=None)
        if not len(results):
            return EMPTY_IDS, EMPTY_SCORES
        pairs = sorted((hit.docnum, hit.score) for hit in results)
        ids = np.fromiter((d for d, _ in pairs), dtype=np.int64, count=len(pairs))
        scores = np.fromiter((s for _, s in pairs), dtype=np.float64, count=len(pairs))
        return ids, scores
