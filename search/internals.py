"""Every use of Whoosh's private internals, in one place, behind a check of the installed Whoosh version.

The archive reads and writes Whoosh's own index files, but two things are too slow through Whoosh's public
API in Python: decoding whole posting lists and per-document columns (the search engine wants them as
NumPy arrays), and the index writer's posting pool (it keeps every posting as a Python tuple and sorts
and spills them all). The fast paths below use private names (`W3LeafMatcher._postfile`, column readers'
`_dbfile`, `PostingPool._write_run`, ...). They are switched on only for the Whoosh versions they were
tested with (`TESTED_VERSIONS`; the project pins Whoosh exactly): on any other version `FAST` is False,
every function here answers None or hands back Whoosh's public equivalent, and the archive searches with
plain Whoosh (slower, still correct). Tests compare each fast path with Whoosh's own result.

The posting pool: Whoosh's `PostingPool` keeps every posting as a 5-tuple (field, term, doc, weight,
value), sorts all of them when the segment is written, and once its memory limit is reached spills
sorted runs to disk with `marshal` and merges them back in Python. On news articles the tuples cost
about 200 bytes a posting, so the limit is reached after a few thousand articles, and spilling and
merging then take as long as analysing the text (measured on Reuters articles: 13,455 articles indexed
in 44.1 s of CPU with limitmb=384, 22.1 s when nothing spills). `GroupedPostingPool` keeps, per field
and term, one `bytearray` of packed (doc, weight, value) entries: about 16 bytes plus the value's own
bytes a posting, eight times less. Only the distinct terms are sorted when the segment is written. It
yields exactly the postings, in exactly the order, that Whoosh's pool would (a test compares the two
on the same documents). When even this exceeds the memory limit it writes a sorted run in Whoosh's own
run format, and Whoosh's merge takes over, as before.
"""

from __future__ import annotations

import threading
import zlib
from array import array
from collections import OrderedDict
from pickle import loads
from struct import Struct
from typing import Optional

import numpy as np
import whoosh
from whoosh.codec.whoosh3 import LENGTHS_COLUMN, W3Codec, W3LeafMatcher
from whoosh.filedb.filetables import OrderedHashWriter, _lengths, _pointer
from whoosh.multiproc import MpWriter, SubWriterTask
from whoosh.reading import TermNotFound
from whoosh.writing import PostingPool, SegmentWriter

TESTED_VERSIONS = ((2, 7, 5),)
FAST = tuple(whoosh.__version__[:3]) in TESTED_VERSIONS


# -- reading -----------------------------------------------------------------------------------------


def decode_postings(reader, fieldname: str, text) -> Optional[tuple[np.ndarray, np.ndarray]]:
    """(document numbers, weights) of one term in one segment, decoded block by block; None when the
    fast path does not apply (another Whoosh version, another codec, or postings with byte ids)."""
    if not FAST:
        return None
    try:
        matcher = reader.postings(fieldname, text)
    except TermNotFound:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    if not isinstance(matcher, W3LeafMatcher) or matcher._byteids:
        return None
    id_chunks, weight_chunks = [], []
    m = matcher
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
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    return np.concatenate(id_chunks), np.concatenate(weight_chunks)


def posting_values(reader, fieldname: str, text, docs: list[int]) -> Optional[dict[int, bytes]]:
    """The stored value (e.g. encoded positions) of one term's posting in each of `docs` (ascending) that
    has one, reading only the blocks that can hold them; None when the fast path does not apply."""
    if not FAST:
        return None
    try:
        matcher = reader.postings(fieldname, text)
    except TermNotFound:
        return {}
    matcher = getattr(matcher, "child", matcher) if type(matcher).__name__ == "FilterMatcher" else matcher
    if not isinstance(matcher, W3LeafMatcher) or matcher._byteids or matcher._fixedsize not in (None, -1):
        return None
    m = matcher
    segment = reader.segment() if hasattr(reader, "segment") else None
    block_key = (segment.segment_id(), fieldname, text) if segment is not None else None
    maxids, offsets = _block_directory(m, block_key)
    out: dict[int, bytes] = {}
    wanted = np.asarray(docs, dtype=np.int64)
    at_block = np.searchsorted(maxids, wanted)  # the first block whose last document is at or past each
    for block in np.unique(at_block[at_block < maxids.size]).tolist():
        m._goto(offsets[block])
        ids, values = _decoded_block(m, block_key)
        inside = wanted[at_block == block]
        at = np.minimum(np.searchsorted(ids, inside), ids.size - 1)
        for doc, k in zip(inside.tolist(), at.tolist(), strict=True):
            if ids[k] == doc:
                out[doc] = values[k]
    return out


def _block_directory(m, block_key: Optional[tuple]) -> tuple[np.ndarray, list[int]]:
    """(the last document number of each posting block, each block's offset) of the term the leaf matcher
    `m` stands at the start of: Whoosh's blocks are chained, so finding the block of one document means
    reading every header before it. Read once per segment and term, then kept (BLOCKS), so a phrase check
    reads only the blocks it needs, however long the word's posting list has grown."""
    key = ("directory", *block_key) if block_key is not None else None
    found = BLOCKS.get(key) if key is not None else None
    if found is None:
        maxids, offsets = [], []
        position = m._baseoffset
        while not m._atend:
            maxids.append(m._maxid)
            offsets.append(position)
            if m._lastblock:
                break
            position = m._nextoffset
            m._goto(position)
        found = (np.asarray(maxids, dtype=np.int64), offsets)
        if key is not None:
            BLOCKS.put(key, found)
    return found


class _BlockCache:
    """Decoded posting blocks (document numbers and stored values) of segments, least recently used first
    out: a phrase check reads the positions of common words in the same blocks query after query. A
    segment's files never change, so a block is named by its segment, field, term and offset."""

    def __init__(self, max_blocks: int) -> None:
        self.max_blocks = max_blocks
        self._blocks: OrderedDict[tuple, tuple[np.ndarray, list]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> Optional[tuple[np.ndarray, list]]:
        with self._lock:
            found = self._blocks.get(key)
            if found is not None:
                self._blocks.move_to_end(key)
            return found

    def put(self, key: tuple, block: tuple[np.ndarray, list]) -> None:
        with self._lock:
            self._blocks[key] = block
            while len(self._blocks) > self.max_blocks:
                self._blocks.popitem(last=False)

    def allow(self, max_blocks: int) -> None:
        """Keep at least `max_blocks` blocks (one cache per process: the largest budget asked for wins)."""
        with self._lock:
            self.max_blocks = max(self.max_blocks, max_blocks)


# About 5 KB a block of 128 positions postings: 4,096 blocks are some 20 MB. A server given a bigger
# postings budget (NEWSARCHIVE_SEARCH_CACHE_MB) keeps a sixteenth of it in blocks (search/columns.py).
BLOCK_BYTES = 5 * 1024
BLOCKS = _BlockCache(4096)


def _decoded_block(m, block_key: Optional[tuple]) -> tuple[np.ndarray, list]:
    """(document numbers, values) of the block the leaf matcher `m` stands on, decoded once."""
    key = (*block_key, m._dataoffset) if block_key is not None else None
    found = BLOCKS.get(key) if key is not None else None
    if found is None:
        raw = m._postfile.get(m._dataoffset, m._nextoffset - m._dataoffset)
        data = loads(zlib.decompress(raw) if m._compression else raw)
        found = (np.cumsum(np.asarray(data[0], dtype=np.int64)), data[2])
        if key is not None:
            BLOCKS.put(key, found)
    return found


def numeric_column(reader, name: str, count: int, dtype: str, default: int) -> Optional[np.ndarray]:
    """A fixed-width numeric column as an int64 array, read in one slice; None when the fast path does not apply."""
    if not FAST or not reader.has_column(name):
        return None
    column = reader.column_reader(name, translate=False)
    try:
        stored = column._count
        raw = np.frombuffer(column._dbfile.get(column._basepos, stored * column._fixedlen), dtype=dtype)
    except AttributeError:
        return None
    values = raw.astype(np.int64)
    if stored < count:
        values = np.concatenate([values, np.full(count - stored, default, dtype=np.int64)])
    return values[:count]


def length_bytes(reader, fieldname: str, count: int) -> Optional[np.ndarray]:
    """The byte-encoded length of a field in each document (Whoosh keeps one byte per document in an
    internal column), read in one slice; None when the fast path does not apply."""
    if not FAST:
        return None
    try:
        column = reader._perdoc._cached_reader(f"_{fieldname}_len", LENGTHS_COLUMN)
        if column is None:
            return np.zeros(count, dtype=np.uint8)
        stored = column._count
        raw = np.frombuffer(column._dbfile.get(column._basepos, stored), dtype=np.uint8)
    except AttributeError:
        return None
    return np.concatenate([raw, np.zeros(count - stored, dtype=np.uint8)]) if stored < count else raw[:count].copy()


# -- writing -----------------------------------------------------------------------------------------


class ArchiveCodec(W3Codec):
    """Whoosh's W3 codec with 512 postings per block instead of 128, zlib level 1 instead of 3, and (on a
    tested version) no per-block length statistics.

    The statistics only serve Whoosh's block-skipping top-N collector, which the NumPy engine does not
    use. Measured on Reuters articles in one process: fewer, larger blocks and no statistics make indexing
    about 20% faster; zlib level 1 another 15%, for an index 4% larger (no compression would be 50%
    faster still, but the index nearly three times as large).
    """

    length_stats = not FAST

    def __init__(self, blocklimit: int = 512, compression: int = 1, inlinelimit: int = 1) -> None:
        super().__init__(blocklimit=blocklimit, compression=compression, inlinelimit=inlinelimit)

    def field_writer(self, storage, segment):
        writer = super().field_writer(storage, segment)
        if FAST and type(writer._tindex) is OrderedHashWriter:
            CompactTermTable.adopt(writer._tindex)
        return writer


class CompactTermTable(OrderedHashWriter):
    """Whoosh's term table writer, holding each term's (hash, file position) in two slots of a packed array
    instead of a tuple in a list: 16 bytes a term instead of about 120, and the same file, byte for byte (a
    test compares the two). Whoosh keeps every term of a segment this way until the segment is written, so
    on a bulk load of millions of distinct terms (numbers, names, ids) its tuples were the memory that grew
    with the input while the postings stayed under their limit."""

    @classmethod
    def adopt(cls, writer: OrderedHashWriter) -> None:
        """Turn a just-made OrderedHashWriter (header written, nothing added) into this class."""
        assert not any(writer.buckets) and not len(writer.index)
        writer.__class__ = cls
        writer.buckets = [array("Q") for _ in range(256)]

    def add(self, key: bytes, value: bytes) -> None:
        if key <= self.lastkey:
            raise ValueError(f"Keys must increase: {self.lastkey!r}..{key!r}")
        dbfile = self.dbfile
        pos = dbfile.tell()
        self.index.append(pos)
        dbfile.write(_lengths.pack(len(key), len(value)))
        dbfile.write(key)
        dbfile.write(value)
        h = self.hashfn(key)
        bucket = self.buckets[h & 255]
        bucket.append(h)
        bucket.append(pos)
        self.lastkey = key

    def _write_hashes(self) -> None:
        # Whoosh's open-addressing tables, one per bucket, twice as many slots as entries; (0, 0) is an
        # empty slot (no entry is at position 0, where the header is).
        dbfile = self.dbfile
        for entries in self.buckets:
            pos = dbfile.tell()
            numslots = len(entries)  # 2 * the number of (hash, position) pairs
            self.directory.append((pos, numslots))
            table = array("Q", bytes(16 * numslots))
            for n in range(0, len(entries), 2):
                hashval, position = entries[n], entries[n + 1]
                slot = (hashval >> 8) % numslots
                while table[2 * slot] or table[2 * slot + 1]:
                    slot = (slot + 1) % numslots
                table[2 * slot] = hashval
                table[2 * slot + 1] = position
            pack = _pointer.pack
            dbfile.write(b"".join(pack(table[2 * n], table[2 * n + 1]) for n in range(numslots)))


def open_writer(ix, procs: int = 1, memory_mb: int = 256, lock_timeout_s: float = 120.0):
    """A writer on `ix`: Whoosh's own writers with the grouped posting pool on a tested version, Whoosh's
    plain writers otherwise. procs > 1 writes one segment per process."""
    # compound=False keeps each segment's files apart: readers then read them from disk (page cache),
    # where a compound file is copied whole into every reader's memory by Whoosh.
    options = {"timeout": lock_timeout_s, "compound": False, "codec": ArchiveCodec()}
    if procs > 1:
        limit = max(32, memory_mb // procs)
        if FAST:
            return GroupingMultiSegmentWriter(ix, procs=procs, limitmb=limit, **options)
        return MpWriter(ix, procs=procs, multisegment=True, limitmb=limit, **options)
    if FAST:
        return GroupingSegmentWriter(ix, limitmb=memory_mb, **options)
    return SegmentWriter(ix, limitmb=memory_mb, **options)


def abandon_writer(writer) -> None:
    """Give up a writer after an error, releasing Whoosh's write lock even when cancel() itself fails."""
    try:
        writer.cancel()
    except Exception:
        pass
    lock = getattr(writer, "writelock", None)
    if lock is not None:
        try:
            lock.release()
        except Exception:
            pass


# -- the grouped posting pool ---------------------------------------------------------------------------

_ENTRY = Struct("<idI")  # docnum, weight, length of the value bytes (then the value bytes)
_ENTRY_SIZE = _ENTRY.size
_NONE = 0xFFFFFFFF  # the length that stands for a value of None
# Estimated bytes per distinct term (dict slot, key bytes object, bytearray header) and per posting.
_TERM_OVERHEAD = 150
_POSTING_OVERHEAD = _ENTRY_SIZE + 2


class GroupedPostingPool(PostingPool):
    """Postings grouped by (field, term) in packed byte arrays; see the module's docstring."""

    def __init__(self, tempstore, segment, limitmb: int = 128, **kwargs) -> None:
        super().__init__(tempstore, segment, limitmb=limitmb, **kwargs)
        self._terms: dict[str, dict[bytes, bytearray]] = {}
        self._top_doc = -1  # the highest document number added so far
        self._unordered: set[str] = set()  # fields that got a posting for a lower document after a higher one

    def add(self, item) -> None:
        fieldname, tbytes, docnum, weight, vbytes = item
        terms = self._terms.get(fieldname)
        if terms is None:
            terms = self._terms[fieldname] = {}
            self.fieldnames.add(fieldname)
        entries = terms.get(tbytes)
        if entries is None:
            entries = terms[tbytes] = bytearray()
            self.currentsize += _TERM_OVERHEAD + len(tbytes)
        if docnum < self._top_doc:
            self._unordered.add(fieldname)  # e.g. spelling words, all added as document 0
        else:
            self._top_doc = docnum
        if vbytes is None:
            entries += _ENTRY.pack(docnum, weight, _NONE)
            self.currentsize += _POSTING_OVERHEAD
        else:
            entries += _ENTRY.pack(docnum, weight, len(vbytes))
            entries += vbytes
            self.currentsize += _POSTING_OVERHEAD + len(vbytes)
        if self.currentsize > self.limit:
            self.save()

    def _sorted_items(self):
        """Every posting held in memory as Whoosh's 5-tuples, in Whoosh's sort order."""
        unpack = _ENTRY.unpack_from
        for fieldname in sorted(self._terms):
            terms = self._terms[fieldname]
            reorder = fieldname in self._unordered
            for tbytes in sorted(terms):
                entries = terms[tbytes]
                postings = []
                pos, end = 0, len(entries)
                while pos < end:
                    docnum, weight, length = unpack(entries, pos)
                    pos += _ENTRY_SIZE
                    if length == _NONE:
                        value = None
                    else:
                        value = bytes(entries[pos : pos + length])
                        pos += length
                    postings.append((fieldname, tbytes, docnum, weight, value))
                if reorder:
                    postings.sort()
                yield from postings

    def save(self) -> None:
        """Write what is in memory as one sorted run on disk (Whoosh's run format) and start afresh."""
        if self._terms:
            path, f = self._new_run()
            self._write_run(f, self._sorted_items())
            self._add_run(path)
            self._clear()

    def _clear(self) -> None:
        self._terms = {}
        self._unordered = set()
        self._top_doc = -1
        self.currentsize = 0

    def items(self, maxfiles: int = 128):
        if not self.runs:
            return self._sorted_items()
        self.save()
        if maxfiles < len(self.runs):
            self.reduce_to(maxfiles, maxfiles)
        runs, self.runs = self.runs, []
        return self._merge_runs(runs)

    def iter_postings(self):
        return self.items()


class GroupingSegmentWriter(SegmentWriter):
    """Whoosh's SegmentWriter with a GroupedPostingPool."""

    def __init__(self, ix, limitmb: int = 128, **kwargs) -> None:
        super().__init__(ix, limitmb=limitmb, **kwargs)
        self.pool = GroupedPostingPool(self._tempstorage, self.newsegment, limitmb=limitmb)


class _GroupingSubWriterTask(SubWriterTask):
    """Whoosh's writer sub-process, writing its segment with a GroupingSegmentWriter (multisegment only)."""

    def run(self) -> None:
        ix = self.storage.open_index(self.indexname)
        writer = self.writer = GroupingSegmentWriter(ix, _lk=False, **self.kwargs)
        while self.running:
            jobinfo = self.jobqueue.get()
            if jobinfo is None:
                break
            self._process_file(*jobinfo)
        if not self.running:
            writer.cancel()
        else:
            fieldnames = writer.pool.fieldnames
            segment = writer._finalize_segment()
            self.resultqueue.put((None, fieldnames, segment), timeout=5)


class GroupingMultiSegmentWriter(MpWriter):
    """Whoosh's multi-process writer (each process writes its own segment), with grouped posting pools."""

    def __init__(self, ix, procs: int, limitmb: int = 128, **kwargs) -> None:
        super().__init__(ix, procs=procs, multisegment=True, limitmb=limitmb, **kwargs)
        self.pool = GroupedPostingPool(self._tempstorage, self.newsegment, limitmb=limitmb)

    def _new_task(self):
        task = _GroupingSubWriterTask(self.storage, self.indexname, self.jobqueue, self.resultqueue, self.subargs, True)
        self.tasks.append(task)
        task.start()
        return task
