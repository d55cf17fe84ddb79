"""Matching and BM25F scoring over whole posting lists with NumPy, on Whoosh's own index files.

Whoosh finds matches one document at a time in Python; for a common word in a large archive that is
tens of thousands of Python calls per query, before facets are even counted. Here a query tree is
evaluated per segment on arrays: a term's posting list is decoded block by block (each block is one
pickled tuple, so decoding is a C call), AND/OR/NOT become sorted-array intersections, unions and
differences, and scores are Whoosh's BM25F (same idf, field lengths, K1 and B) computed over the
arrays. Anything this module does not know (phrases, for example) is matched by Whoosh itself, one
segment at a time, and scored as the sum of its terms, so no query type is lost.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pickle import loads
from typing import Optional

import numpy as np
from whoosh import query
from whoosh.codec.whoosh3 import W3LeafMatcher
from whoosh.reading import TermNotFound

B = 0.75
K1 = 1.2
EMPTY_IDS = np.empty(0, dtype=np.int64)
EMPTY_SCORES = np.empty(0, dtype=np.float64)


def term_postings(reader, fieldname: str, text) -> tuple[np.ndarray, np.ndarray]:
    """(document numbers, weights) of one term in one segment reader, as arrays."""
    try:
        matcher = reader.postings(fieldname, text)
    except TermNotFound:
        return EMPTY_IDS, EMPTY_SCORES
    if isinstance(matcher, W3LeafMatcher) and not matcher._byteids:
        return _decode_blocks(matcher)
    ids, weights = [], []
    while matcher.is_active():
        ids.append(matcher.id())
        weights.append(matcher.weight())
        matcher.next()
    return np.asarray(ids, dtype=np.int64), np.asarray(weights, dtype=np.float64)


def _decode_blocks(m: W3LeafMatcher) -> tuple[np.ndarray, np.ndarray]:
    id_chunks, weight_chunks = [], []
    while not m._atend:
        raw = m._postfile.get(m._dataoffset, m._nextoffset - m._dataoffset)
        data = loads(zlib.decompress(raw) if m._compression else raw)
        ids = np.cumsum(np.asarray(data[0], dtype=np.int64))  # stored as deltas (whoosh.util.numlists.delta_encode)
        weights = data[1]
        if weights is None:
            w = np.ones(ids.size)
        elif isinstance(weights, float):
            w = np.full(ids.size, weights)
        else:
            w = np.asarray(weights, dtype=np.float64)
        id_chunks.append(ids)
        weight_chunks.append(w)
        if m._lastblock:
            break
        m._goto(m._nextoffset)
    if not id_chunks:
        return EMPTY_IDS, EMPTY_SCORES
    return np.concatenate(id_chunks), np.concatenate(weight_chunks)


class PostingsCache:
    """Decoded posting lists kept between queries, least recently used first out, within a byte budget.

    Keys name a segment (its id and live document count), a field and a term; segments never change,
    so an entry never goes stale, and a new segment simply has new keys. Popular words ("oil", "bank")
    are then decoded once, not on every query. Shared by all request threads.
    """

    def __init__(self, max_bytes: int = 128 * 1024 * 1024) -> None:
        from collections import OrderedDict
        import threading

        self.max_bytes = max_bytes
        self._entries: "OrderedDict[tuple, tuple[np.ndarray, np.ndarray]]" = OrderedDict()
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


def _byte_to_length_table() -> np.ndarray:
    from whoosh.util.numeric import byte_to_length

    return np.array([byte_to_length(b) or 0 for b in range(256)], dtype=np.float64)


LENGTHS = _byte_to_length_table()


@dataclass
class Scored:
    ids: np.ndarray  # sorted, unique, local document numbers
    scores: np.ndarray  # same length


def _union(parts: list[Scored]) -> Scored:
    parts = [p for p in parts if p.ids.size]
    if not parts:
        return Scored(EMPTY_IDS, EMPTY_SCORES)
    if len(parts) == 1:
        return parts[0]
    ids = np.concatenate([p.ids for p in parts])
    scores = np.concatenate([p.scores for p in parts])
    unique, inverse = np.unique(ids, return_inverse=True)
    return Scored(unique, np.bincount(inverse, weights=scores, minlength=unique.size))


def _intersect(a: Scored, b: Scored, keep_b_scores: bool = True) -> Scored:
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

    def __init__(self, top_searcher, leaf_searcher, reader, lengths: dict[str, np.ndarray], live: Optional[np.ndarray],
                 cache: Optional[PostingsCache] = None, segment_key: tuple = ()):
        self.top = top_searcher
        self.leaf = leaf_searcher
        self.reader = reader
        self.lengths = lengths
        self.live = live  # boolean array, or None when the segment has no deletions
        self.doc_count = reader.doc_count_all()
        self.cache = cache
        self.segment_key = segment_key

    # -- scoring ---------------------------------------------------------------------------------------

    def _term(self, fieldname: str, text, boost: float) -> Scored:
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

    # -- the tree ------------------------------------------------------------------------------------

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
            a, b = q.children()
            return _minus(self._eval(a), self._eval(b))
        if isinstance(q, query.AndMaybe):
            a, b = q.children()
            required, optional = self._eval(a), self._eval(b)
            both = _intersect(required, optional)
            extra = np.zeros(required.ids.size)
            extra[np.searchsorted(required.ids, both.ids)] = both.scores - required.scores[np.searchsorted(required.ids, both.ids)]
            return Scored(required.ids, required.scores + extra)
        if isinstance(q, query.Not):
            return self._inverse(q.query)
        if isinstance(q, query.And):
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
        if isinstance(q, (query.Or, query.DisjunctionMax)):
            if isinstance(q, query.Or) and getattr(q, "minmatch", 0):
                return self._by_whoosh(q)
            negatives = [c.query for c in q.children() if isinstance(c, query.Not)]
            result = _union([self._eval(c) for c in q.children() if not isinstance(c, query.Not)])
            for negative in negatives:  # "a OR NOT b" reads as everything but b, or a
                result = _union([result, self._inverse(negative)])
            return self._boosted(result, boost)
        if isinstance(q, (query.Prefix, query.Wildcard, query.FuzzyTerm, query.Variations, query.Regex, query.TermRange,
                          query.ExpandingTerm)) or isinstance(q, query.MultiTerm):
            try:
                texts = list(q._btexts(self.reader))
            except Exception:
                return self._by_whoosh(q)
            return self._boosted(_union([self._term(q.fieldname, t, 1.0) for t in texts]), boost)
        if isinstance(q, query.NumericRange):
            return self._eval(q._compile_query(self.reader))
        if isinstance(q, query.ConstantScoreQuery):
            inner = self._eval(q.child)
            return Scored(inner.ids, np.full(inner.ids.size, q.score))
        return self._by_whoosh(q)

    def _inverse(self, q: query.Query) -> Scored:
        """Every document but those matching `q`, each scoring 1.0 as under Whoosh's inverse matcher."""
        rest = _minus(self.all_docs(), self._eval(q))
        return Scored(rest.ids, np.ones(rest.ids.size))

    @staticmethod
    def _boosted(result: Scored, boost: float) -> Scored:
        return result if boost == 1.0 else Scored(result.ids, result.scores * boost)

    def _by_whoosh(self, q: query.Query) -> Scored:
        """Match with Whoosh's own matcher (phrases and the rest); score by the query's terms."""
        ids = np.fromiter(q.docs(self.leaf), dtype=np.int64)
        if not ids.size:
            return Scored(EMPTY_IDS, EMPTY_SCORES)
        ids = np.unique(ids)
        scores = np.zeros(ids.size)
        for fieldname, text in q.iter_all_terms():
            term = self._term(fieldname, text, 1.0)
            both, ia, ib = np.intersect1d(ids, term.ids, assume_unique=True, return_indices=True)
            scores[ia] += term.scores[ib]
        boost = getattr(q, "boost", 1.0) or 1.0
        return Scored(ids, scores * boost)

