"""Per-segment arrays for facets and date sorting, built once per segment and shared by every searcher.

Whoosh segments never change once written (deletions aside, which the matchers already skip), so
each segment's facet postings and date column are read into NumPy arrays once, keyed by segment id.
A searcher's view concatenates its segments' arrays at their document offsets. Counting facets is
then a `bincount` over the matched documents, and sorting by date an `argpartition`, with no Python
loop over matches.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from whoosh.searching import Searcher

from .schema import FACETS

MISSING_INT64 = np.iinfo(np.int64).max  # what Whoosh's numeric column holds for a document without a value


@dataclass
class FacetArrays:
    values: list[str]  # sorted
    docs: np.ndarray  # document numbers, grouped by value
    value_of: np.ndarray  # for each entry of docs, the index of its value


@dataclass
class SegmentArrays:
    doc_count: int
    deleted: np.ndarray  # local document numbers that are deleted
    published_ts: np.ndarray  # int64 per local document; MISSING_INT64 when undated
    facets: dict[str, FacetArrays]


def _read_segment(reader) -> SegmentArrays:
    count = reader.doc_count_all()
    deleted = np.fromiter(reader.deleted_docs(), dtype=np.int64) if reader.has_deletions() else np.empty(0, np.int64)
    if reader.has_column("published_ts"):
        ts = np.fromiter(reader.column_reader("published_ts"), dtype=np.int64, count=count)
    else:
        ts = np.full(count, MISSING_INT64, dtype=np.int64)
    facets = {}
    for facet in FACETS:
        field = f"{facet}_facet"
        values: list[str] = []
        chunks: list[np.ndarray] = []
        if field in reader.indexed_field_names():
            for term in reader.lexicon(field):
                ids = np.fromiter(reader.postings(field, term).all_ids(), dtype=np.int64)
                values.append(term.decode("utf-8"))
                chunks.append(ids)
        docs = np.concatenate(chunks) if chunks else np.empty(0, np.int64)
        value_of = np.repeat(np.arange(len(values), dtype=np.int64), [c.size for c in chunks]) if chunks else np.empty(0, np.int64)
        facets[facet] = FacetArrays(values, docs, value_of)
    return SegmentArrays(count, deleted, ts, facets)


class SegmentCache:
    """Segment arrays keyed by segment id (plus its deletion count), and merged views keyed by segment set."""

    def __init__(self, max_views: int = 4) -> None:
        self._segments: dict[tuple, SegmentArrays] = {}
        self._views: OrderedDict[tuple, "View"] = OrderedDict()
        self._max_views = max_views
        self._lock = threading.Lock()

    def view(self, searcher: Searcher) -> "View":
        leaves = list(searcher.reader().leaf_readers())
        key = tuple((_segment_key(r), offset) for r, offset in leaves)
        with self._lock:
            view = self._views.get(key)
            if view is not None:
                self._views.move_to_end(key)
                return view.bind(searcher)
            parts = []
            for reader, offset in leaves:
                seg_key = _segment_key(reader)
                arrays = self._segments.get(seg_key)
                if arrays is None:
                    arrays = _read_segment(reader)
                    self._segments[seg_key] = arrays
                parts.append((arrays, offset))
            view = View(parts, [_segment_key(r) for r, _ in leaves])
            self._views[key] = view
            while len(self._views) > self._max_views:
                self._views.popitem(last=False)
            live = {k for v in self._views.values() for k in v.segment_keys}
            for seg_key in list(self._segments):
                if seg_key not in live:
                    del self._segments[seg_key]
            return view.bind(searcher)


def _segment_key(reader) -> tuple:
    segment = reader.segment() if hasattr(reader, "segment") else None
    seg_id = segment.segment_id() if segment is not None else id(reader)
    return (seg_id, reader.doc_count())  # doc_count changes when documents are deleted


class View:
    """Arrays of one set of segments, laid end to end at their document offsets."""

    def __init__(self, parts: list[tuple[SegmentArrays, int]], segment_keys: list[tuple]) -> None:
        self.segment_keys = segment_keys
        self.doc_count_all = sum(a.doc_count for a, _ in parts)
        self.published_ts = (np.concatenate([a.published_ts for a, _ in parts]) if parts else np.empty(0, np.int64))
        live = np.ones(self.doc_count_all, dtype=bool)
        for arrays, offset in parts:
            if arrays.deleted.size:
                live[arrays.deleted + offset] = False
        self.live_docs = np.flatnonzero(live)
        self.facets: dict[str, FacetArrays] = {}
        for facet in FACETS:
            merged: dict[str, list[np.ndarray]] = {}
            for arrays, offset in parts:
                fa = arrays.facets[facet]
                if not fa.values:
                    continue
                bounds = np.searchsorted(fa.value_of, np.arange(len(fa.values) + 1))
                for i, value in enumerate(fa.values):
                    merged.setdefault(value, []).append(fa.docs[bounds[i]:bounds[i + 1]] + offset)
            values = sorted(merged)
            chunks = [np.concatenate(merged[v]) for v in values]
            docs = np.concatenate(chunks) if chunks else np.empty(0, np.int64)
            value_of = (np.repeat(np.arange(len(values), dtype=np.int64), [c.size for c in chunks])
                        if chunks else np.empty(0, np.int64))
            self.facets[facet] = FacetArrays(values, docs, value_of)

    def bind(self, searcher: Searcher) -> "BoundView":
        return BoundView(self, searcher)


class BoundView:
    """A view used by one searcher (the searcher maps document numbers to stored ids and runs queries)."""

    def __init__(self, view: View, searcher: Searcher) -> None:
        self.view = view
        self.searcher = searcher

    def all_docs(self) -> np.ndarray:
        return self.view.live_docs

    def docs_for_query(self, q) -> np.ndarray:
        return np.fromiter(self.searcher.docs_for_query(q), dtype=np.int64)

    def doc_id(self, docnum: int) -> str:
        return self.searcher.stored_fields(docnum)["id"]

    def facet_counts(self, matched: np.ndarray, size: int) -> dict[str, list[dict]]:
        out: dict[str, list[dict]] = {}
        if size == 0:
            return {facet: [] for facet in FACETS}
        mask = np.zeros(self.view.doc_count_all, dtype=bool)
        mask[matched] = True
        for facet, fa in self.view.facets.items():
            if not fa.values or not matched.size:
                out[facet] = []
                continue
            counts = np.bincount(fa.value_of[mask[fa.docs]], minlength=len(fa.values))
            order = np.argsort(-counts, kind="stable")[:size]
            out[facet] = [{"value": fa.values[i], "count": int(counts[i])} for i in order if counts[i] > 0]
        return out

    def sort_by_date(self, matched: np.ndarray, newest: bool, stop: int) -> np.ndarray:
        """The first `stop` matched documents by date (undated last), ties broken by document order."""
        if not matched.size:
            return matched
        ts = self.view.published_ts[matched]
        undated = ts == MISSING_INT64
        key = np.where(undated, MISSING_INT64, -ts if newest else ts)  # ascending key; undated sort last
        if stop < matched.size:
            # Everything up to the stop-th key, ties at the boundary included, so pages never overlap.
            kth = np.partition(key, stop - 1)[stop - 1]
            chosen = np.flatnonzero(key <= kth)
            order = chosen[np.lexsort((matched[chosen], key[chosen]))][:stop]
        else:
            order = np.lexsort((matched, key))
        return matched[order]
