"""Bounded, tiered merges of an index's segments, done apart from the commits that add documents.

Whoosh's own policy (MERGE_SMALL) runs inside every commit and decides by a Fibonacci rule on the number of
segments: once an index has many segments it merges the big ones too, so one small commit can turn into a
rewrite of hundreds of megabytes. Where commits are frequent and each is part of a database transaction
(the `postgres` backend publishes every ingest slice with its articles), that stopped ingest for minutes
at about 150,000 articles (BENCHMARKS.md, "The two search backends").

Here, as in Lucene's log and tiered merge policies, segments fall into tiers by their live documents (a
tier spans FACTOR times the sizes of the one below, from FLOOR_DOCS); when a tier holds FACTOR segments,
they are merged into one, which usually lands in the next tier. Each document is so rewritten about
log_FACTOR(archive / FLOOR_DOCS) times in all, the number of segments stays near (FACTOR - 1) per tier,
and no merge makes a segment of more than MAX_MERGED_DOCS documents: a merge's cost is bounded, whatever
the archive's size. On both search backends the commits that add documents merge nothing (`merge=False`);
the merge runs after them: `merge_local` on the `whoosh` backend's index folder, store/pgmerge.py's
`merge_once` on the `postgres` backend, outside the ingest transaction. With MERGE_SMALL, the `whoosh`
backend would have rewritten its whole index inside one ingest commit at about 30 segments (about
1,500,000 articles).
"""

from __future__ import annotations

import fcntl
import math
import os
import shutil
import time
from pathlib import Path
from typing import Iterable, Optional, Sequence

import whoosh.index
from whoosh.filedb.filestore import FileStorage
from whoosh.index import TOC, clean_files
from whoosh.reading import SegmentReader
from whoosh.util.filelock import try_for

from .internals import abandon_writer, open_writer

FACTOR = 4
# Tier 0 holds segments below FLOOR_DOCS * FACTOR. A small floor keeps a stream of one-article commits (a
# watched inbox, the `postgres` backend's ingest of small files) from rewriting one tier-0 segment of
# thousands of documents at every merge: with 2,000 each article of 28,000 ingested one file at a time was
# rewritten about 1,240 times (1 article/s on the `postgres` backend); with 25, about 21 times.
FLOOR_DOCS = 25
# Whoosh merges segments through its posting pool (every posting read, sorted and written again, in
# Python): at 1,000,000 articles one merge of 500,000 took more than 8 minutes (BENCHMARKS.md). Segments of
# about the `whoosh` backend's own (it commits two of about 50,000 per 100,000 articles) keep each merge to
# minutes and the number of segments near that backend's.
MAX_MERGED_DOCS = 100_000


def tier(live_docs: int) -> int:
    """The tier of a segment of `live_docs` documents: 0 below FLOOR_DOCS * FACTOR, then one per FACTOR."""
    return int(math.log(max(live_docs, FLOOR_DOCS) / FLOOR_DOCS, FACTOR) + 1e-9)


def plan(segments: Iterable[tuple[str, int]]) -> list[str]:
    """The ids of the segments to merge into one now, from (segment id, live documents) pairs, or [].

    The lowest tier holding FACTOR or more segments is merged, smallest first, as many as keep the merged
    segment within MAX_MERGED_DOCS (at least two); segments of MAX_MERGED_DOCS / 2 or more are left as
    they are. Segments whose documents are all deleted are merged away with the first merge due, or
    alone when FACTOR of them have gathered."""
    tiers: dict[int, list[tuple[int, str]]] = {}
    for segid, live in segments:
        if live * 2 >= MAX_MERGED_DOCS:
            continue
        tiers.setdefault(tier(live), []).append((live, segid))
    for number in sorted(tiers):
        members = sorted(tiers[number])
        if len(members) < FACTOR:
            continue
        chosen, total = [], 0
        for live, segid in members:
            if total + live > MAX_MERGED_DOCS:
                break
            chosen.append(segid)
            total += live
        if len(chosen) >= 2:
            return chosen
    return []


def due(index_path: Path | str) -> list[str]:
    """The segments of the index at `index_path` that `plan` would merge now."""
    toc = whoosh.index.open_dir(str(index_path))._read_toc()
    return plan((seg.segid, seg.doc_count()) for seg in toc.segments)


def _storage(path: Path | str):
    return FileStorage(str(path))


def merge_into(work: Path | str, chosen: Sequence[str], memory_mb: int = 256):
    """Merge the segments `chosen` of the index in the folder `work` into one, in place (a new commit
    there, other segments untouched); return (the TOC before, the merged segment)."""
    ix = whoosh.index.open_dir(str(work))
    before = ix._read_toc()
    wanted = set(chosen)
    writer = open_writer(ix, 1, memory_mb)

    def policy(writer_, segments):
        kept = []
        for seg in segments:
            if seg.segid in wanted:
                reader = SegmentReader(writer_.storage, writer_.schema, seg)
                writer_.add_reader(reader)
                reader.close()
            else:
                kept.append(seg)
        return kept

    try:
        writer.commit(mergetype=policy)
    except BaseException:
        abandon_writer(writer)
        raise
    after = ix._read_toc()
    old = {seg.segid for seg in before.segments}
    new = [seg for seg in after.segments if seg.segid not in old]
    return before, (new[0] if new else None)


def rebase(merged, chosen_before: Sequence, live_segments: Sequence) -> Optional[list]:
    """The segment list of a commit that replaces the segments merged (as they were: `chosen_before`, in
    the order merged) by `merged`, over a live commit that others made meanwhile (`live_segments`): the
    documents deleted from the merged segments since are deleted from `merged` too. None when a merged
    segment is no longer live (someone else merged it: the merge is given up)."""
    live = {seg.segid: seg for seg in live_segments}
    if any(seg.segid not in live for seg in chosen_before):
        return None
    offset = 0
    for seg in chosen_before:
        newly = set(live[seg.segid].deleted_docs()) - set(seg.deleted_docs())
        if newly:
            kept = [d for d in range(seg.doc_count_all()) if not seg.is_deleted(d)]
            position = {d: i for i, d in enumerate(kept)}
            for docnum in newly:
                merged.delete_document(offset + position[docnum])
        offset += seg.doc_count()
    gone = {seg.segid for seg in chosen_before}
    return [seg for seg in live_segments if seg.segid not in gone] + [merged]


def write_commit(folder: Path | str, generation: int, segments: list) -> None:
    """Write the TOC of commit `generation` with `segments` in `folder` and drop the files it no longer
    names (older TOCs, the merged segments')."""
    storage = _storage(folder)
    schema = whoosh.index.open_dir(str(folder)).schema
    TOC(schema, segments, generation).write(storage, "MAIN")
    clean_files(storage, "MAIN", generation, segments)


# -- the `whoosh` backend: the same policy over an index folder -------------------------------------------

MERGE_LOCK = ".merge.lock"  # in the index's root: one process merges at a time, the others skip their turn


def merge_local(root: Path | str, path: Path | str, memory_mb: int = 256, lock_timeout_s: float = 120.0) -> bool:
    """Merge the segments of the live index folder `path` that are due, if any; whether a merge was
    published. The merge is written in a folder of hard links beside it with no lock held, so ingesters go
    on committing meanwhile; then, under Whoosh's write lock (no writer is between open and commit), the
    merged segment's files are linked in and a commit replacing the merged segments is written over
    whatever commit is live by then (`rebase`)."""
    root, path = Path(root), Path(path)
    with open(root / MERGE_LOCK, "a+b") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        try:
            return _merge_local(root, path, memory_mb, lock_timeout_s)
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _merge_local(root: Path, path: Path, memory_mb: int, lock_timeout_s: float) -> bool:
    chosen = due(path)
    if not chosen:
        return False
    work = root / f".merge-{os.getpid()}-{time.time_ns()}"
    work.mkdir()
    try:
        for item in path.iterdir():
            if item.is_file() and _index_file(item.name):
                os.link(item, work / item.name)
        before, merged = merge_into(work, chosen, memory_mb)
        in_order = [seg for seg in before.segments if seg.segid in set(chosen)]
        lock = _storage(path).lock("WRITELOCK")
        if not try_for(lock.acquire, timeout=lock_timeout_s, delay=0.1):
            return False  # writers held the index all along: tried again after the next commit
        try:
            live = whoosh.index.open_dir(str(path))._read_toc()
            if merged is None:  # every document merged was deleted meanwhile or before
                if live.generation != before.generation:
                    return False
                segments = [seg for seg in live.segments if seg.segid not in set(chosen)]
            else:
                segments = rebase(merged, in_order, live.segments)
                if segments is None:
                    return False
                for item in work.iterdir():
                    if item.name.startswith(merged.segment_id()) and not (path / item.name).exists():
                        os.link(item, path / item.name)
            write_commit(path, live.generation + 1, segments)
            return True
        finally:
            lock.release()
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _index_file(name: str) -> bool:
    """Whether a file of a Whoosh folder is part of the index (not a lock, temporary or marker file)."""
    # A lock file must never be linked: the work folder's writer would take the live index's lock.
    return name.startswith(("MAIN_", "_MAIN_")) and not name.endswith((".tmp", "LOCK"))
