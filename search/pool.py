"""A posting pool that groups postings by term as they arrive, in place of Whoosh's sort-everything pool.

Whoosh's `PostingPool` keeps every posting as a 5-tuple (field, term, doc, weight, value), sorts all of
them when the segment is written, and once its memory limit is reached spills sorted runs to disk with
`marshal` and merges them back in Python. On news articles the tuples cost about 200 bytes a posting, so
the limit is reached after a few thousand articles, and spilling and merging then take as long as
analysing the text (measured on Reuters articles: 13,455 articles indexed in 44.1 s of CPU with
limitmb=384, 22.1 s when nothing spills).

`GroupedPostingPool` keeps, per field and term, one `bytearray` of packed (doc, weight, value) entries:
about 16 bytes plus the value's own bytes a posting, eight times less. Only the distinct terms are
sorted when the segment is written. It yields exactly the postings, in exactly the order, that Whoosh's
pool would (a test compares the two on the same documents). When even this exceeds the memory limit it
writes a sorted run in Whoosh's own run format, and Whoosh's merge takes over, as before.
"""

from __future__ import annotations

from struct import Struct

from whoosh.multiproc import MpWriter, SubWriterTask
from whoosh.writing import PostingPool, SegmentWriter

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
                        value = bytes(entries[pos:pos + length])
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
        task = _GroupingSubWriterTask(self.storage, self.indexname, self.jobqueue, self.resultqueue, self.subargs,
                                      True)
        self.tasks.append(task)
        task.start()
        return task
