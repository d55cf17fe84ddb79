"""Per-segment arrays for facets, field lengths, days and date sorting, read once per segment and shared.

Whoosh segments never change once written (deletions aside), so each segment's facet postings, field
lengths and date columns are read into NumPy arrays once, keyed by segment id and live document count.
A searcher's view lays its segments' arrays end to end at their document offsets. Counting facets is
then a `bincount` over the matched documents, filtering by date a comparison, and sorting by date an
`argpartition`, with no Python loop over matches. The arrays come through search/internals.py's fast
paths where they apply, else through Whoosh's public API (slower, same values).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from math import log
from typing import Optional

import numpy as np
from whoosh.reading import TermNotFound
from whoosh.searching import Searcher
from whoosh.util.numeric import length_to_byte

from . import internals
from .engine import LENGTHS, NumpyEngine, PostingsCache, WhooshEngine, term_postings
from .languages import fold
from .schema import COLUMN_FACETS, FACETS, MISSING_DAY, MISSING_TS, TEXT_FIELDS


@dataclass
class FacetArrays:
    values: list[str]  # sorted
    docs: np.ndarray  # document numbers, grouped by value
    value_of: np.ndarray  # for each entry of docs, the index of its value
    # The same pairs grouped by document: doc_values[doc_start[d]:doc_start[d + 1]] are document d's values.
    doc_start: Optional[np.ndarray] = None
    doc_values: Optional[np.ndarray] = None
    # When no document carries two values (source, year, language): each document's value, or -1.
    single: Optional[np.ndarray] = None

    def index_by_document(self, doc_count: int) -> None:
        order = np.argsort(self.docs, kind="stable")
        self.doc_values = self.value_of[order]
        counts = np.bincount(self.docs, minlength=doc_count) if self.docs.size else np.zeros(doc_count, np.int64)
        self.doc_start = np.concatenate([[0], np.cumsum(counts)])
        if not counts.size or counts.max() <= 1:
            self.single = np.full(doc_count, -1, dtype=np.int64)
            self.single[self.docs] = self.value_of

    def counts(self, matched: np.ndarray, doc_count: int) -> np.ndarray:
        """How many matched documents carry each value, walking whichever side is shorter."""
        if self.single is not None:
            codes = self.single[matched]
            return np.bincount(codes[codes >= 0], minlength=len(self.values))
        if self.doc_start is not None and matched.size * 4 < self.docs.size:
            starts = self.doc_start[matched]
            lengths = self.doc_start[matched + 1] - starts
            total = int(lengths.sum())
            if not total:
                return np.zeros(len(self.values), dtype=np.int64)
            offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
            return np.bincount(self.doc_values[offsets], minlength=len(self.values))
        mask = np.zeros(doc_count, dtype=bool)
        mask[matched] = True
        return np.bincount(self.value_of[mask[self.docs]], minlength=len(self.values))

    def mask_of(self, values: list[str], doc_count: int) -> np.ndarray:
        """True for the documents that carry any of `values`."""
        mask = np.zeros(doc_count, dtype=bool)
        for value in values:
            i = _index_of(self.values, value)
            if i is not None:
                start, stop = np.searchsorted(self.value_of, [i, i + 1])
                mask[self.docs[start:stop]] = True
        return mask


def _largest(counts: np.ndarray, size: int) -> np.ndarray:
    """Indexes of the `size` largest counts, largest first, ties by index (a stable sort's order); only the
    counts at or above the size-th largest are sorted (a facet may have tens of thousands of values)."""
    if size < counts.size // 4:
        kth = np.partition(counts, counts.size - size)[counts.size - size]
        chosen = np.flatnonzero(counts >= kth)
        return chosen[np.argsort(-counts[chosen], kind="stable")][:size]
    return np.argsort(-counts, kind="stable")[:size]


def _starts(value: str, prefix: str) -> bool:
    return value.startswith(prefix) or any(word.startswith(prefix) for word in value.split()[1:])


def _index_of(values: list[str], value: str) -> Optional[int]:
    lo, hi = 0, len(values)
    while lo < hi:
        mid = (lo + hi) // 2
        if values[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < len(values) and values[lo] == value else None


@dataclass
class SegmentArrays:
    doc_count: int
    live: Optional[np.ndarray]  # bool per local document, None when nothing is deleted
    published_ts: np.ndarray  # int64 per local document; MISSING_TS when undated
    day: np.ndarray  # int64 yyyymmdd per local document; MISSING_DAY when undated
    lengths: dict[str, np.ndarray]  # field -> length per local document
    facets: dict[str, FacetArrays]
    article_num: np.ndarray  # int64 SQL article id per local document (ids grow in ingest order)
    story_num: np.ndarray  # int64 story id per local document (the id of the story's first article)
    # Words of a segment's lexicons, read when first asked (by field names): segments never change.
    lexicons: dict[tuple[str, ...], frozenset[str]] = field(default_factory=dict)

    def words(self, reader, fields: tuple[str, ...], part=None) -> frozenset[str]:
        """The terms of `fields` in this segment (`part` of each term before a ":", when given)."""
        key = fields + ((part,) if part else ())
        found = self.lexicons.get(key)
        if found is None:
            terms = {t.decode("utf-8") for f in fields if f in reader.schema for t in reader.lexicon(f)}
            found = self.lexicons[key] = frozenset(t.partition(":")[0] for t in terms) if part else frozenset(terms)
        return found


def _read_segment(reader) -> SegmentArrays:
    count = reader.doc_count_all()
    live = None
    if reader.has_deletions():
        live = np.zeros(count, dtype=bool)
        live[np.fromiter(reader.all_doc_ids(), dtype=np.int64)] = True
    ts = _numeric_column(reader, "published_ts", count, ">i8", MISSING_TS)
    day = _numeric_column(reader, "day_column", count, ">i4", MISSING_DAY)
    article_num = _numeric_column(reader, "article_num", count, ">i4", 0)
    story_num = _numeric_column(reader, "story_num", count, ">i4", 0)
    lengths = {name: LENGTHS[_length_bytes(reader, name, count)] for name in TEXT_FIELDS if name in reader.schema}
    facets = {}
    for facet in FACETS:
        if facet in COLUMN_FACETS:
            continue
        name = f"{facet}_facet"
        values: list[str] = []
        chunks: list[np.ndarray] = []
        if name in reader.indexed_field_names():
            for term in reader.lexicon(name):
                ids = np.fromiter(reader.postings(name, term).all_ids(), dtype=np.int64)
                values.append(term.decode("utf-8"))
                chunks.append(ids)
        docs = np.concatenate(chunks) if chunks else np.empty(0, np.int64)
        value_of = (
            np.repeat(np.arange(len(values), dtype=np.int64), [c.size for c in chunks])
            if chunks
            else np.empty(0, np.int64)
        )
        facets[facet] = FacetArrays(values, docs, value_of)
    return SegmentArrays(count, live, ts, day, lengths, facets, article_num, story_num)


def _numeric_column(reader, name: str, count: int, dtype: str, default: int) -> np.ndarray:
    fast = internals.numeric_column(reader, name, count, dtype, default)
    if fast is not None:
        return fast
    if not reader.has_column(name):
        return np.full(count, default, dtype=np.int64)
    column = reader.column_reader(name)
    return np.fromiter((column[d] for d in range(count)), dtype=np.int64, count=count)


def _length_bytes(reader, fieldname: str, count: int) -> np.ndarray:
    fast = internals.length_bytes(reader, fieldname, count)
    if fast is not None:
        return fast
    return np.array([length_to_byte(reader.doc_field_length(d, fieldname) or 0) for d in range(count)], dtype=np.uint8)


def _holding_run(reader, fieldname: str, terms: tuple[str, ...], docs: list[int]) -> list[int]:
    """The documents of `docs` (ascending, local) whose `fieldname` holds `terms` at consecutive positions.
    Term by term, only the documents where the run so far holds are read further."""
    decode = reader.schema[fieldname].format.decode_positions
    starts: dict[int, set[int]] = {}  # document -> positions where the run so far begins
    for shift, term in enumerate(terms):
        found = _positions(reader, fieldname, term, docs, decode)
        if not shift:
            starts = {d: set(found[d]) for d in docs if d in found}
        else:
            going = {}
            for d in docs:
                if d in found:
                    held = starts[d] & {p - shift for p in found[d]}
                    if held:
                        going[d] = held
            starts = going
        docs = [d for d in docs if d in starts]
        if not docs:
            return []
    return docs


def _positions(reader, fieldname: str, term: str, docs: list[int], decode) -> dict[int, list[int]]:
    values = internals.posting_values(reader, fieldname, term, docs)
    if values is not None:
        return {d: decode(v) for d, v in values.items()}
    try:
        matcher = reader.postings(fieldname, term)
    except TermNotFound:
        return {}
    out = {}
    for doc in docs:
        if not matcher.is_active():
            break
        if matcher.id() < doc:
            matcher.skip_to(doc)
            if not matcher.is_active():
                break
        if matcher.id() == doc:
            out[doc] = matcher.value_as("positions")
    return out


def _segment_key(reader) -> tuple:
    segment = reader.segment() if hasattr(reader, "segment") else None
    seg_id = segment.segment_id() if segment is not None else id(reader)
    return (seg_id, reader.doc_count())  # doc_count changes when documents are deleted


class SegmentCache:
    """Segment arrays keyed by segment, and merged views keyed by the set of segments, shared by threads."""

    def __init__(self, max_views: int = 4, postings_cache_bytes: int = 128 * 1024 * 1024) -> None:
        self.postings = PostingsCache(postings_cache_bytes)
        internals.BLOCKS.allow(postings_cache_bytes // 16 // internals.BLOCK_BYTES)
        self._segments: dict[tuple, SegmentArrays] = {}
        self._views: OrderedDict[tuple, View] = OrderedDict()
        self._max_views = max_views
        self._lock = threading.Lock()

    def view(self, searcher: Searcher, engine: str = "auto") -> "BoundView":
        """The arrays of `searcher`'s segments, with an engine: "numpy", "whoosh", or "auto" (numpy where
        search/internals.py's fast paths are tested, else whoosh)."""
        leaves = list(searcher.reader().leaf_readers())
        key = tuple((_segment_key(r), offset) for r, offset in leaves)
        with self._lock:
            view = self._views.get(key)
            if view is None:
                parts = []
                for reader, offset in leaves:
                    seg_key = _segment_key(reader)
                    arrays = self._segments.get(seg_key)
                    if arrays is None:
                        arrays = self._segments[seg_key] = _read_segment(reader)
                    parts.append((arrays, offset))
                view = View(parts, [_segment_key(r) for r, _ in leaves])
                self._views[key] = view
                while len(self._views) > self._max_views:
                    self._views.popitem(last=False)
                live = {k for v in self._views.values() for k in v.segment_keys}
                for seg_key in list(self._segments):
                    if seg_key not in live:
                        del self._segments[seg_key]
            else:
                self._views.move_to_end(key)
        _use_live_statistics(searcher, view)
        if engine == "auto":
            engine = "numpy" if internals.FAST else "whoosh"
        if engine == "numpy":
            segments = [
                (arrays.lengths, arrays.live, seg_key)
                for (arrays, _), seg_key in zip(view.parts, view.segment_keys, strict=False)
            ]
            chosen = NumpyEngine(searcher, segments, self.postings)
        elif engine == "whoosh":
            chosen = WhooshEngine(searcher)
        else:
            raise ValueError(f"unknown search engine {engine!r}: use auto, numpy or whoosh")
        return BoundView(view, searcher, chosen)


def _use_live_statistics(searcher: Searcher, view: "View") -> None:
    """Make `searcher`'s BM25F statistics (what scorers ask it, in either engine) those of the view's live
    documents: the average field lengths (View.average_length) and each term's idf, counted over live
    documents only. Whoosh counts deleted documents until their segment is merged, so its statistics
    depend on how the index's segments were written and merged; these do not (the same articles score the
    same on either search backend, and before and after a reindex)."""
    if getattr(searcher, "_newsarchive_view", None) is view:
        return
    whoosh_average = type(searcher).avg_field_length
    leaves = list(searcher.reader().leaf_readers())
    idfs: dict[tuple[str, object], float] = {}

    def avg_field_length(fieldname, default=None):
        found = view.average_length(fieldname)
        return whoosh_average(searcher, fieldname, default) if found is None else (found or default)

    frequencies: dict[tuple[str, object], int] = {}

    def live_frequency(fieldname, text) -> int:
        """How many live documents hold the term in the field."""
        key = (fieldname, text)
        found = frequencies.get(key)
        if found is None:
            found = 0
            for (reader, _), (arrays, _) in zip(leaves, view.parts, strict=True):
                if arrays.live is None:
                    found += reader.doc_frequency(fieldname, text)
                else:
                    ids, _ = term_postings(reader, fieldname, text)
                    found += int(arrays.live[ids].sum()) if ids.size else 0
            frequencies[key] = found
        return found

    def idf(fieldname, text):
        key = (fieldname, text)
        found = idfs.get(key)
        if found is None:
            found = idfs[key] = log(max(1, view.live_docs.size) / (live_frequency(fieldname, text) + 1)) + 1
        return found

    searcher.avg_field_length = avg_field_length
    searcher.idf = idf
    searcher.live_frequency = live_frequency
    searcher._newsarchive_view = view


class View:
    """Arrays of one set of segments, laid end to end at their document offsets."""

    def __init__(self, parts: list[tuple[SegmentArrays, int]], segment_keys: list[tuple]) -> None:
        self.parts = parts
        self.segment_keys = segment_keys
        self.doc_count_all = sum(a.doc_count for a, _ in parts)
        self.published_ts = np.concatenate([a.published_ts for a, _ in parts]) if parts else np.empty(0, np.int64)
        self.day = np.concatenate([a.day for a, _ in parts]) if parts else np.empty(0, np.int64)
        self.article_num = np.concatenate([a.article_num for a, _ in parts]) if parts else np.empty(0, np.int64)
        self.story_num = np.concatenate([a.story_num for a, _ in parts]) if parts else np.empty(0, np.int64)
        live = np.ones(self.doc_count_all, dtype=bool)
        for arrays, offset in parts:
            if arrays.live is not None:
                live[offset : offset + arrays.doc_count] = arrays.live
        self.live = live
        self.live_docs = np.flatnonzero(live).astype(np.int64)
        # True for the live documents whose story has another live version: only they can be collapsed.
        live_stories = self.story_num[self.live_docs]
        if live_stories.size:
            versions = np.bincount(live_stories)
            self.has_versions = (versions[self.story_num] > 1) & self.live
        else:
            versions = np.zeros(0, dtype=np.int64)
            self.has_versions = np.zeros(self.doc_count_all, dtype=bool)
        self.story_versions = versions  # live versions of each story number
        self._live_counts: dict[str, np.ndarray] = {}
        self.facets: dict[str, FacetArrays] = {}
        for facet in FACETS:
            if facet in COLUMN_FACETS:
                continue
            merged: dict[str, list[np.ndarray]] = {}
            for arrays, offset in parts:
                fa = arrays.facets[facet]
                if not fa.values:
                    continue
                bounds = np.searchsorted(fa.value_of, np.arange(len(fa.values) + 1))
                for i, value in enumerate(fa.values):
                    merged.setdefault(value, []).append(fa.docs[bounds[i] : bounds[i + 1]] + offset)
            values = sorted(merged)
            chunks = [np.concatenate(merged[v]) for v in values]
            docs = np.concatenate(chunks) if chunks else np.empty(0, np.int64)
            value_of = (
                np.repeat(np.arange(len(values), dtype=np.int64), [c.size for c in chunks])
                if chunks
                else np.empty(0, np.int64)
            )
            self.facets[facet] = FacetArrays(values, docs, value_of)
            self.facets[facet].index_by_document(self.doc_count_all)
        self._by_story: Optional[np.ndarray] = None
        self._vocabulary: Optional[list[str]] = None
        self._by_length: Optional[dict[int, list[str]]] = None
        self._accented: Optional[frozenset[str]] = None
        self._average_lengths: dict[str, float] = {}

    def live_counts(self, facet: str) -> np.ndarray:
        """How many live documents carry each value of `facet` (made once per view, then kept): a count
        over most of the archive is this minus the count over the few documents left out."""
        found = self._live_counts.get(facet)
        if found is None:
            found = self._live_counts[facet] = self.facets[facet].counts(self.live_docs, self.doc_count_all)
            found.flags.writeable = False
        return found

    def by_story(self) -> np.ndarray:
        """The documents that share their story with another live version, by story, then by article id
        (made on the first collapsed answer of this view, then kept)."""
        if self._by_story is None:
            grouped = np.flatnonzero(self.has_versions)
            self._by_story = grouped[np.lexsort((self.article_num[grouped], self.story_num[grouped]))]
        return self._by_story

    def average_length(self, fieldname: str) -> Optional[float]:
        """The mean length of a text field over the live documents that have it (as Lucene's BM25 counts it),
        from each document's own (encoded) length, or None for a field without lengths. Averaged over every
        document instead, a field most articles lack (captions, credits) would have a tiny mean, and an
        article's one caption would count as many times too long: its words would score next to nothing.
        BM25F scores use it in place of Whoosh's, which divides each segment's running total (kept exact
        when written, summed from encoded lengths when segments merge, counting deleted documents) by every
        document: this one is the same however the index's segments were written and merged, so the same
        articles score the same on either search backend and before and after a reindex."""
        found = self._average_lengths.get(fieldname)
        if found is None:
            if not self.parts or any(fieldname not in arrays.lengths for arrays, _ in self.parts):
                return None
            total = 0.0
            holding = 0
            for arrays, _ in self.parts:
                lengths = arrays.lengths[fieldname]
                lengths = lengths if arrays.live is None else lengths[arrays.live]
                total += float(lengths.sum())
                holding += int(np.count_nonzero(lengths))
            found = self._average_lengths[fieldname] = total / max(1, holding)
        return found

    def accented(self, leaves: list) -> frozenset[str]:
        """The (folded) words the archive also writes with accents: the "folded" halves of the variant
        field's "folded:written" terms, read once per segment and joined once per view. `leaves` are the
        view's segment readers, in order."""
        if self._accented is None:
            found: set[str] = set()
            for (arrays, _), reader in zip(self.parts, leaves, strict=True):
                found |= arrays.words(reader, ("variant",), part="folded")
            self._accented = frozenset(found)
        return self._accented

    def vocabulary_by_length(self, leaves: list, fields: tuple[str, ...]) -> dict[int, list[str]]:
        """The vocabulary of `fields` (see `vocabulary`) by word length: words within k edits of a word
        differ from it in length by at most k, so only those lengths need comparing."""
        if self._by_length is None:
            by_length: dict[int, list[str]] = {}
            for word in self.vocabulary(leaves, fields):
                by_length.setdefault(len(word), []).append(word)
            self._by_length = by_length
        return self._by_length

    def vocabulary(self, leaves: list, fields: tuple[str, ...]) -> list[str]:
        """The words of `fields` (the spelling fields: headline and caption words, unstemmed), sorted; read
        once per segment and joined once per view, shared by the searchers of these segments."""
        if self._vocabulary is None:
            words: set[str] = set()
            for (arrays, _), reader in zip(self.parts, leaves, strict=True):
                words |= arrays.words(reader, fields)
            self._vocabulary = sorted(words)
        return self._vocabulary


class BoundView:
    """A view used by one searcher: matching (through its engine), facet counts, filters and ordering."""

    def __init__(self, view: View, searcher: Searcher, engine) -> None:
        self.view = view
        self.searcher = searcher
        self.engine = engine

    def leaves(self) -> list:
        """The searcher's segment readers, in the view's order."""
        return [reader for reader, _ in self.searcher.reader().leaf_readers()]

    @property
    def doc_count_all(self) -> int:
        return self.view.doc_count_all

    def all_docs(self) -> np.ndarray:
        return self.view.live_docs

    def evaluate(self, q) -> tuple[np.ndarray, np.ndarray]:
        """(matching document numbers in ascending order, their BM25F scores) over all segments."""
        return self.engine.evaluate(q)

    def holding_run(self, terms: tuple[str, ...], fields: tuple[str, ...], candidates: np.ndarray) -> np.ndarray:
        """Which of `candidates` (ascending document numbers) hold `terms` one after the other in one of
        `fields`: what Whoosh's Phrase query matches, read from the positions of the candidates only
        (Whoosh's own phrase matcher walks every document that holds all the words)."""
        leaves = self.searcher.subsearchers or [(self.searcher, 0)]
        found: list[int] = []
        for leaf, offset in leaves:
            reader = leaf.reader()
            local = candidates[(candidates >= offset) & (candidates < offset + reader.doc_count_all())] - offset
            if not local.size:
                continue
            remaining = set(local.tolist())
            for fieldname in fields:
                if not remaining or fieldname not in reader.schema:
                    continue
                held = _holding_run(reader, fieldname, terms, sorted(remaining))
                found.extend(d + offset for d in held)
                remaining -= set(held)
        return np.asarray(sorted(found), dtype=np.int64)

    def doc_id(self, docnum: int) -> str:
        """The article id of a document: from the article_num column (no stored fields to unpickle), or
        the stored id where an index has no such column."""
        number = int(self.view.article_num[docnum])
        return str(number) if number > 0 else self.searcher.stored_fields(docnum)["id"]

    def facet_mask(self, facet: str, values: list[str]) -> np.ndarray:
        if facet == "story":
            return np.isin(self.view.story_num, [int(v) for v in values if v.isdigit() and len(v) < 12])
        return self.view.facets[facet].mask_of(values, self.view.doc_count_all)

    def day_mask(self, low: Optional[int], high: Optional[int]) -> np.ndarray:
        """True for the documents whose day (yyyymmdd) lies within [low, high]; undated ones never do."""
        day = self.view.day
        mask = day != MISSING_DAY
        if low is not None:
            mask &= day >= low
        if high is not None:
            mask &= day <= high
        return mask

    def facet_counts(
        self, facet: str, matched: np.ndarray, size: int, prefix: str = "", rest: Optional[np.ndarray] = None
    ) -> list[dict]:
        """The `size` values of `facet` most carried by `matched`, with their counts; with a `prefix`, only
        values that start with it, or have a word that does (any case, any accents: "york" finds "New York",
        "sao" finds "São Paulo"). `rest`, when given, is every live document not in `matched` (fewer than
        it): the counts are then the live documents' less those of `rest`, the same numbers for less work."""
        if facet == "story":
            return self._story_counts(matched, size, prefix, rest)
        fa = self.view.facets[facet]
        if size == 0 or not fa.values or not matched.size:
            return []
        if rest is not None:
            counts = self.view.live_counts(facet) - fa.counts(rest, self.view.doc_count_all)
        else:
            counts = fa.counts(matched, self.view.doc_count_all)
        if prefix:
            wanted = fold(prefix.casefold())
            keep = np.fromiter(
                (_starts(fold(value.casefold()), wanted) for value in fa.values), dtype=bool, count=len(fa.values)
            )
            counts = np.where(keep, counts, 0)
        order = _largest(counts, size)
        return [{"value": fa.values[i], "count": int(counts[i])} for i in order if counts[i] > 0]

    def _story_counts(self, matched: np.ndarray, size: int, prefix: str, rest: Optional[np.ndarray]) -> list[dict]:
        """The stories with the most matched versions (two or more), largest first."""
        if size == 0 or not matched.size:
            return []
        versions = self.view.story_versions
        if rest is not None and versions.size <= 4 * self.view.doc_count_all + 1024:
            per_story = versions - np.bincount(self.view.story_num[rest], minlength=versions.size)
            stories = np.flatnonzero(per_story > 1)
            counts = per_story[stories]
            return self._largest_stories(stories, counts, size, prefix)
        numbers = self.view.story_num[matched]
        if numbers.size and int(numbers.max()) <= 4 * self.view.doc_count_all + 1024:
            per_story = np.bincount(numbers)  # story numbers are article ids, about as many as documents
            stories = np.flatnonzero(per_story > 1)
            counts = per_story[stories]
        else:
            stories, counts = np.unique(numbers, return_counts=True)
        return self._largest_stories(stories, counts, size, prefix)

    @staticmethod
    def _largest_stories(stories: np.ndarray, counts: np.ndarray, size: int, prefix: str) -> list[dict]:
        keep = counts > 1
        if prefix:
            keep &= np.array([str(v).startswith(prefix) for v in stories.tolist()], dtype=bool)
        stories, counts = stories[keep], counts[keep]
        order = _largest(counts, size)  # stories ascend: ties by story number
        return [{"value": str(int(stories[i])), "count": int(counts[i])} for i in order]

    def top(self, matched: np.ndarray, key: np.ndarray, stop: int) -> np.ndarray:
        """Positions in `matched` of the first `stop` documents by ascending key, ties by article id (not by
        document number: the order stays the same however the index's segments are laid out, after a
        reindex and on either search backend)."""
        if not matched.size:
            return matched
        articles = self.view.article_num
        if stop < matched.size:
            # Everything up to the stop-th key, ties at the boundary included, so pages never overlap.
            kth = np.partition(key, stop - 1)[stop - 1]
            chosen = np.flatnonzero(key <= kth)
            order = chosen[np.lexsort((articles[matched[chosen]], key[chosen]))][:stop]
        else:
            order = np.lexsort((articles[matched], key))
        return order

    def collapse(self, matched: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One hit per story: the best version of each (lowest `key`, then lowest article id, as `top`
        orders). Returns (the positions in `matched` (ascending document numbers) of the kept hits, in no
        particular order; how many matched documents each one's story has).

        Only documents whose story has other versions in the index are grouped; the rest stand alone. No
        sort is made per query: the grouped documents are walked in the view's story order (View.by_story,
        made once), so the cost grows with the archive, not as a sort of every match."""
        view = self.view
        return best_per_story(matched, key, view.has_versions, view.by_story(), view.story_num)

    def may_collapse(self, matched: np.ndarray) -> bool:
        """Whether any matched document has another version in the index."""
        return bool(self.view.has_versions[matched].any())

    def story_of(self, docnum: int) -> int:
        return int(self.view.story_num[docnum])

    def after_article(self, article_id: int) -> np.ndarray:
        """True for the documents of articles stored after article `article_id` (ids grow in ingest order)."""
        return self.view.article_num > article_id

    def sort_key(self, matched: np.ndarray, sort: str) -> np.ndarray:
        """Ascending sort key of `matched` for "stored" (the most recently stored first), "newest" or
        "oldest" (undated last)."""
        if sort == "stored":
            return -self.view.article_num[matched]
        ts = self.view.published_ts[matched]
        return np.where(ts == MISSING_TS, MISSING_TS, -ts if sort == "newest" else ts)


def best_per_story(
    matched: np.ndarray, key: np.ndarray, has_versions: np.ndarray, by_story: np.ndarray, story_num: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """BoundView.collapse's work on plain arrays: `matched` ascending document numbers, `key` theirs,
    `by_story` the documents with other versions ordered by story, then article id."""
    alone = np.flatnonzero(~has_versions[matched])
    position = np.full(has_versions.size, -1, dtype=np.int64)
    position[matched] = np.arange(matched.size)
    at = position[by_story]
    held = at >= 0
    at, stories = at[held], story_num[by_story[held]]
    if not at.size:
        return alone, np.ones(alone.size, np.int64)
    first = np.flatnonzero(np.r_[True, stories[1:] != stories[:-1]])
    sizes = np.diff(np.r_[first, at.size])
    keys = key[at]
    best = keys == np.repeat(np.minimum.reduceat(keys, first), sizes)
    group = np.repeat(np.arange(first.size), sizes)[best]
    # Within a story the walk is by article id: its first version with the lowest key is the one kept.
    chosen = at[best][np.r_[True, group[1:] != group[:-1]]]
    return np.concatenate([alone, chosen]), np.concatenate([np.ones(alone.size, np.int64), sizes])
