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
SPARSE_UNION = 16  # a union of fewer postings than a segment's documents / this sorts them (see _union)
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


class ArrayCache:
    """Pairs of arrays by key, least recently used first out, within a byte budget; shared by threads."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._entries: OrderedDict[tuple, tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def lookup(self, key: tuple) -> Optional[tuple[np.ndarray, np.ndarray]]:
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def keep(self, key: tuple, found: tuple[np.ndarray, np.ndarray]) -> None:
        size = found[0].nbytes + found[1].nbytes
        if size * 4 > self.max_bytes:
            return  # too big to be worth keeping
        with self._lock:
            if key not in self._entries:
                self._entries[key] = found
                self._bytes += size
                while self._bytes > self.max_bytes and self._entries:
                    _, (ids, weights) = self._entries.popitem(last=False)
                    self._bytes -= ids.nbytes + weights.nbytes


class PostingsCache(ArrayCache):
    """Decoded posting lists kept between queries, within a byte budget.

    Keys name a segment (its id and live document count), a field and a term; segments never change,
    so an entry never goes stale, and a new segment simply has new keys. Popular words ("oil", "bank")
    are then decoded once, not on every query. Shared by all request threads.

    Beside it, `scored` keeps (within a budget of its own, so scores never push out the postings they
    are computed from) the matches and BM25F scores of a word in one segment (a query of terms, ORs and
    analysis scopes: see _cacheable), keyed as well by the set of segments of the searcher that scored
    it: the statistics (idf, average field lengths) are the whole index's, so they hold exactly as long
    as the set does. Its arrays are read-only.
    """

    def __init__(self, max_bytes: int = 128 * 1024 * 1024, scored_bytes: Optional[int] = None) -> None:
        super().__init__(max_bytes)
        self.scored = ArrayCache(max_bytes if scored_bytes is None else scored_bytes)

    def get(self, key: tuple, reader, fieldname: str, text) -> tuple[np.ndarray, np.ndarray]:
        found = self.lookup(key)
        if found is not None:
            return found
        found = term_postings(reader, fieldname, text)
        self.keep(key, found)
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
    return _union_arrays(np.concatenate([p.ids for p in parts]), np.concatenate([p.scores for p in parts]), doc_count)


def _union_arrays(ids: np.ndarray, scores: np.ndarray, doc_count: int) -> Scored:
    """The union of several lists laid end to end: each document once, its scores summed in list order."""
    if ids.size * SPARSE_UNION < doc_count:
        # Few postings in a large segment: sort them rather than walk arrays as long as the segment. The
        # sums are bincount's either way (added in the same order), so scores are equal to the last bit.
        unique, inverse = np.unique(ids, return_inverse=True)
        return Scored(unique, np.bincount(inverse, weights=scores, minlength=unique.size))
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


def query_key(q: query.Query) -> tuple:
    """A hashable key naming a query tree exactly (its types, fields, texts, boosts). Whoosh's own hash of
    an OR XORs its children's, so a word's terms in four fields cancel out and every such OR hashes alike:
    a dict keyed by the queries themselves degrades to a list."""
    if type(q) is query.Term:
        return ("T", q.fieldname, q.text, q.boost)
    if isinstance(q, query.compound.CompoundQuery) or type(q) in (query.Require, query.AndNot, query.AndMaybe):
        return (type(q).__name__, getattr(q, "boost", 1.0), tuple(query_key(c) for c in q.children()))
    if type(q) is query.Not:
        return ("Not", query_key(q.query))
    return (type(q).__name__, repr(q))


def _cacheable(q: query.Query) -> bool:
    """Whether `q` is a word as the archive asks for one (terms in fields, ORed, within the articles of some
    analyses): such results are cached by segment. Phrases, wildcards and the rest are not."""
    if type(q) is query.Term:
        return True
    if type(q) in (query.Or, query.Require):
        return all(_cacheable(c) for c in q.children())
    return False


class Statistics:
    """A searcher's BM25F statistics (a term's idf, a field's average length), asked of Whoosh once each:
    they never change for one searcher, and Whoosh computes the average length anew on every call."""

    def __init__(self, searcher, key: tuple = ()) -> None:
        self.searcher = searcher
        self.key = key  # names the index's segments, so the statistics: scores cached under it stay true
        self._idf: dict[tuple[str, object], float] = {}
        self._avgfl: dict[str, float] = {}

    def get(self, fieldname: str, text) -> tuple[float, float]:
        idf = self._idf.get((fieldname, text))
        if idf is None:
            idf = self._idf[(fieldname, text)] = self.searcher.idf(fieldname, text)
        avgfl = self._avgfl.get(fieldname)
        if avgfl is None:
            avgfl = self._avgfl[fieldname] = self.searcher.avg_field_length(fieldname) or 1
        return idf, avgfl


class SegmentEvaluator:
    """Evaluates query trees on one segment; statistics (idf, average lengths) come from the whole index."""

    def __init__(
        self,
        stats: Statistics,
        leaf_searcher,
        lengths: dict[str, np.ndarray],
        live: Optional[np.ndarray],
        cache: Optional[PostingsCache] = None,
        segment_key: tuple = (),
    ):
        self.stats = stats  # the whole index's (the top searcher's)
        self.leaf = leaf_searcher
        self.reader = leaf_searcher.reader()
        self.lengths = lengths
        self.live = live  # boolean array, or None when the segment has no deletions
        self.doc_count = self.reader.doc_count_all()
        self.cache = cache
        self.segment_key = segment_key

    def _postings(self, fieldname: str, text) -> tuple[np.ndarray, np.ndarray]:
        if self.cache is not None:
            key_text = text if isinstance(text, str) else text.decode("utf-8", "surrogateescape")
            return self.cache.get((self.segment_key, fieldname, key_text), self.reader, fieldname, text)
        return term_postings(self.reader, fieldname, text)

    def _term(self, fieldname: str, text, boost: float) -> Scored:
        if fieldname not in self.reader.schema:
            return Scored(EMPTY_IDS, EMPTY_SCORES)
        ids, weights = self._postings(fieldname, text)
        if not ids.size:
            return Scored(EMPTY_IDS, EMPTY_SCORES)
        field = self.reader.schema[fieldname]
        if not field.scorable:
            return Scored(ids, weights * boost)
        idf, avgfl = self.stats.get(fieldname, text)
        lengths = self.lengths.get(fieldname)
        fl = lengths[ids] if lengths is not None else np.ones(ids.size)
        fl = np.where(fl > 0, fl, 1)
        scores = idf * (weights * (K1 + 1)) / (weights + K1 * ((1 - B) + B * fl / avgfl))
        return Scored(ids, scores * boost)

    def _terms(self, terms: list[query.Term]) -> Optional[Scored]:
        """An OR of plain terms (a word in each default field) scored in one pass over all their postings:
        the same arithmetic, element by element, as _term for each and _union of them, so the same scores
        to the last bit, with a few NumPy calls instead of a dozen per term. None when a term's field is not
        scored (the caller takes the general path)."""
        schema = self.reader.schema
        ids_parts, weight_parts, length_parts, sizes, idfs, averages, boosts = [], [], [], [], [], [], []
        for t in terms:
            if t.fieldname not in schema:
                continue
            ids, weights = self._postings(t.fieldname, t.text)
            if not ids.size:
                continue
            if not schema[t.fieldname].scorable:
                return None
            idf, avgfl = self.stats.get(t.fieldname, t.text)
            lengths = self.lengths.get(t.fieldname)
            ids_parts.append(ids)
            weight_parts.append(weights)
            length_parts.append(lengths[ids] if lengths is not None else np.ones(ids.size))
            sizes.append(ids.size)
            idfs.append(idf)
            averages.append(avgfl)
            boosts.append(getattr(t, "boost", 1.0) or 1.0)
        if not ids_parts:
            return Scored(EMPTY_IDS, EMPTY_SCORES)
        weights = np.concatenate(weight_parts)
        fl = np.concatenate(length_parts)
        fl = np.where(fl > 0, fl, 1)
        idf = np.repeat(np.asarray(idfs, dtype=np.float64), sizes)
        avgfl = np.repeat(np.asarray(averages, dtype=np.float64), sizes)
        scores = idf * (weights * (K1 + 1)) / (weights + K1 * ((1 - B) + B * fl / avgfl))
        scores = scores * np.repeat(np.asarray(boosts, dtype=np.float64), sizes)
        if len(ids_parts) == 1:
            return Scored(ids_parts[0], scores)
        return _union_arrays(np.concatenate(ids_parts), scores, self.doc_count)

    def all_docs(self) -> Scored:
        ids = np.arange(self.doc_count, dtype=np.int64)
        return Scored(ids, np.zeros(ids.size))

    def evaluate(self, q: query.Query) -> Scored:
        cache_key = None
        if self.cache is not None and _cacheable(q):
            cache_key = (self.stats.key, self.segment_key, query_key(q))
            found = self.cache.scored.lookup(cache_key)
            if found is not None:
                return Scored(*found)
        result = self._eval(q)
        if self.live is not None and result.ids.size:
            keep = self.live[result.ids]
            result = Scored(result.ids[keep], result.scores[keep])
        if cache_key is not None:
            result.ids.flags.writeable = False
            result.scores.flags.writeable = False
            self.cache.scored.keep(cache_key, (result.ids, result.scores))
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
            children = list(q.children())
            if all(type(c) is query.Term for c in children):
                batched = self._terms(children)
                if batched is not None:
                    return self._boosted(batched, boost)
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
        self.stats = Statistics(searcher, tuple(key for _, _, key in segments))

    def evaluate(self, q: query.Query) -> tuple[np.ndarray, np.ndarray]:
        leaves = self.searcher.subsearchers or [(self.searcher, 0)]
        ids, scores = [], []
        for (leaf, offset), (lengths, live, key) in zip(leaves, self.segments, strict=False):
            result = SegmentEvaluator(self.stats, leaf, lengths, live, self.cache, key).evaluate(q)
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
