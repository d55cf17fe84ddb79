"""Bounded, tiered merges of the index's segments (search/merging.py), and the `postgres` backend merging
outside its ingest transactions (store/pgindex.py `merge_once`): the policy's choices, a merge that keeps
every live document findable exactly once, and a merge published over commits that others made while it
ran (their new documents kept, their deletions from the merged segments applied)."""

from __future__ import annotations

import fcntl
import shutil
from pathlib import Path

import pytest
import whoosh.index
from whoosh.query import Term

from search import merging
from search.index import ArchiveIndex
from search.internals import open_writer
from search.schema import IndexDocument, build_schema
from store import pgindex
from store.db import make_engine, upgrade
from store.pgindex import PgIndex
from store.pgmerge import merge_once

from .conftest import database, make_settings


def _doc(n: int) -> IndexDocument:
    return IndexDocument(id=n, headline=f"Report number {n}", body=f"Harbour cranes story {n} with detail {n % 7}.")


def _commit(ix, ids, delete=()) -> None:
    writer = open_writer(ix)
    for n in delete:
        writer.delete_by_term("id", str(n))
    for n in ids:
        writer.add_document(**_doc(n).fields())
    writer.commit(merge=False)


def _ids(path: Path) -> list[int]:
    ix = whoosh.index.open_dir(str(path))
    with ix.searcher() as searcher:
        return sorted(int(fields["id"]) for fields in searcher.all_stored_fields())


def _found(path: Path, n: int) -> int:
    ix = whoosh.index.open_dir(str(path))
    with ix.searcher() as searcher:
        return len(searcher.search(Term("id", str(n)), limit=None))


def test_the_policy_merges_a_full_tier_smallest_first_and_never_past_its_cap():
    assert merging.tier(0) == merging.tier(merging.FLOOR_DOCS * merging.FACTOR - 1) == 0
    assert merging.tier(merging.FLOOR_DOCS * merging.FACTOR) == 1
    small = [(f"s{i}", merging.FLOOR_DOCS + i) for i in range(merging.FACTOR - 1)]
    assert merging.plan(small) == []  # a tier not yet full: nothing to do
    assert merging.plan(small + [("t", merging.FLOOR_DOCS // 2)]) == ["t", "s0", "s1", "s2"]
    # Bigger segments in a higher tier are left alone while the small tier is merged.
    big = [(f"b{i}", 20_000) for i in range(merging.FACTOR - 1)]
    assert set(merging.plan(big + small + [("t", merging.FLOOR_DOCS // 2)])) == {"t", "s0", "s1", "s2"}
    # A full tier of segments near the cap: only as many as fit in MAX_MERGED_DOCS, and at least two.
    near_cap = [(f"c{i}", merging.MAX_MERGED_DOCS // 2 - 1) for i in range(merging.FACTOR)]
    assert merging.plan(near_cap) == ["c0", "c1"]
    # Segments at half the cap or more are never merged again.
    assert merging.plan([(f"h{i}", merging.MAX_MERGED_DOCS // 2) for i in range(8)]) == []
    # Segments whose documents are all deleted go with the smallest tier's merge.
    assert "gone" in merging.plan(small + [("gone", 0)])


@pytest.mark.parametrize("per_commit", [1, 20, 1000])
def test_a_stream_of_small_commits_rewrites_each_article_a_few_times_and_keeps_few_segments(per_commit):
    # A watched inbox or the `postgres` backend commits every file: one article at a time. Each merge the
    # policy asks for is done; count how often an article is rewritten and how many segments stand.
    segments: list[tuple[str, int]] = []
    rewritten = most = made = 0
    articles = 30_000
    for _ in range(articles // per_commit):
        made += 1
        segments.append((f"s{made}", per_commit))
        while chosen := merging.plan(segments):
            merged = sum(live for segid, live in segments if segid in chosen)
            rewritten += merged
            made += 1
            segments = [seg for seg in segments if seg[0] not in chosen] + [(f"s{made}", merged)]
        most = max(most, len(segments))
    assert rewritten / articles <= 25  # about log_FACTOR(articles / FLOOR_DOCS) rewrites each
    assert most <= 16


def test_a_merge_keeps_every_live_document_findable_once(tmp_path):
    ix = whoosh.index.create_in(str(tmp_path), build_schema())
    for start in range(0, 60, 10):
        _commit(ix, range(start, start + 10))
    _commit(ix, [], delete=[15])
    assert len(ix._read_toc().segments) == 6
    chosen = merging.due(tmp_path)
    assert len(chosen) == 6
    before, merged = merging.merge_into(tmp_path, chosen)
    segments = whoosh.index.open_dir(str(tmp_path))._read_toc().segments
    assert [seg.segid for seg in segments] == [merged.segid]
    assert merged.doc_count() == 59
    assert _ids(tmp_path) == [n for n in range(60) if n != 15]
    assert all(_found(tmp_path, n) == 1 for n in (0, 14, 16, 59)) and _found(tmp_path, 15) == 0


def test_a_merge_published_over_later_commits_keeps_their_documents_and_deletions(tmp_path):
    live = tmp_path / "live"
    live.mkdir()
    ix = whoosh.index.create_in(str(live), build_schema())
    for start in range(0, 40, 10):
        _commit(ix, range(start, start + 10))
    work = tmp_path / "work"
    shutil.copytree(live, work)
    chosen = merging.due(work)
    before, merged = merging.merge_into(work, chosen)
    # Meanwhile, on the live index: a document of a merged segment deleted, new ones added.
    _commit(ix, range(100, 105), delete=[3, 27])
    live_toc = ix._read_toc()
    in_order = [seg for seg in before.segments if seg.segid in set(chosen)]
    segments = merging.rebase(merged, in_order, live_toc.segments)
    assert segments is not None and len(segments) == 2
    result = tmp_path / "result"
    shutil.copytree(live, result)
    for item in work.iterdir():
        if item.name.startswith(merged.segment_id()):
            shutil.copy(item, result / item.name)
    merging.write_commit(result, live_toc.generation + 1, segments)
    expected = [n for n in range(40) if n not in (3, 27)] + list(range(100, 105))
    assert _ids(result) == expected
    assert _found(result, 3) == 0 and _found(result, 27) == 0 and _found(result, 104) == 1
    # A merged segment that someone else merged away meanwhile: the merge is given up.
    assert merging.rebase(merged, in_order, [seg for seg in live_toc.segments if seg.segid != chosen[0]]) is None


def _pg_index(root: Path, url: str) -> PgIndex:
    settings = make_settings(root, url)
    return PgIndex(root / "index", make_engine(settings))


@pytest.fixture
def pg_url(tmp_path):
    with database("pgsearch") as url:
        upgrade(make_settings(tmp_path / "home", url))
        yield url


def _segments(index: PgIndex) -> int:
    return len(index.open()._read_toc().segments)


def _pg_ids(index: PgIndex) -> list[int]:
    with index.open().searcher() as searcher:
        return sorted(int(fields["id"]) for fields in searcher.all_stored_fields())


def test_postgres_backend_merges_after_its_commits_and_answers_from_every_machine(tmp_path, pg_url):
    index = _pg_index(tmp_path / "a", pg_url)
    index.ensure()
    for start in range(0, 70, 10):
        index.write([_doc(n) for n in range(start, start + 10)])
        # never more than a full tier of small segments: a merge follows the commit that fills one
        assert _segments(index) < merging.FACTOR
    assert _pg_ids(index) == list(range(70))
    other = _pg_index(tmp_path / "b", pg_url)  # another machine: its copy comes from the database
    assert _pg_ids(other) == list(range(70))
    assert _segments(other) == _segments(index)


def test_postgres_merge_published_over_another_machines_commit(tmp_path, pg_url, monkeypatch):
    index = _pg_index(tmp_path / "a", pg_url)
    other = _pg_index(tmp_path / "b", pg_url)
    index.ensure()
    monkeypatch.setattr(pgindex, "merge_quietly", lambda index, memory_mb=256: None)  # merge by hand below
    for start in range(0, 40, 10):
        index.write([_doc(n) for n in range(start, start + 10)])
    assert _segments(index) == merging.FACTOR
    real_merge_into = merging.merge_into

    def merge_then_other_machine_writes(work, chosen, memory_mb=256):
        result = real_merge_into(work, chosen, memory_mb)
        other.write([_doc(n) for n in range(200, 205)], delete=[5, 33])  # while the merge was written
        return result

    monkeypatch.setattr(merging, "merge_into", merge_then_other_machine_writes)
    assert merge_once(index) is True
    expected = [n for n in range(40) if n not in (5, 33)] + list(range(200, 205))
    assert _pg_ids(index) == expected
    assert _pg_ids(_pg_index(tmp_path / "c", pg_url)) == expected
    assert _segments(index) == 2  # the merged one and the other machine's


# -- the `whoosh` backend: the same policy over its index folder (search/merging.py merge_local) ----------


def _local_ids(index: ArchiveIndex) -> list[int]:
    with index.open().searcher() as searcher:
        return sorted(int(fields["id"]) for fields in searcher.all_stored_fields())


def test_whoosh_backend_merges_after_its_commits_never_inside_them(tmp_path):
    index = ArchiveIndex(tmp_path / "index")
    index.ensure()
    for start in range(0, 70, 10):
        index.write([_doc(n) for n in range(start, start + 10)])
        # never more than a full tier of small segments: a merge follows the commit that fills one
        assert len(index.open()._read_toc().segments) < merging.FACTOR
    index.delete([12, 64])
    assert _local_ids(index) == [n for n in range(70) if n not in (12, 64)]
    # Nothing of the merges is left beside the index: no work folder, no file the live commit does not name.
    assert not list((tmp_path / "index").glob(".merge-*"))
    named = {seg.segment_id() for seg in index.open()._read_toc().segments}
    stray = [
        p.name
        for p in index.current_path().glob("MAIN_*")
        if not p.name.endswith("LOCK") and not any(p.name.startswith(s) for s in named)
    ]
    assert stray == []


def test_whoosh_merge_published_over_an_ingesters_commit(tmp_path, monkeypatch):
    index = ArchiveIndex(tmp_path / "index")
    index.ensure()
    monkeypatch.setattr(ArchiveIndex, "merge_due", lambda self, memory_mb=256: None)  # merge by hand below
    for start in range(0, 40, 10):
        index.write([_doc(n) for n in range(start, start + 10)])
    assert len(index.open()._read_toc().segments) == merging.FACTOR
    real_merge_into = merging.merge_into

    def merge_then_an_ingester_commits(work, chosen, memory_mb=256):
        result = real_merge_into(work, chosen, memory_mb)
        index.write([_doc(n) for n in range(200, 205)], delete=[5, 33])  # while the merge was written
        return result

    monkeypatch.setattr(merging, "merge_into", merge_then_an_ingester_commits)
    assert merging.merge_local(index.root, index.current_path()) is True
    assert _local_ids(index) == [n for n in range(40) if n not in (5, 33)] + list(range(200, 205))
    assert len(index.open()._read_toc().segments) == 2  # the merged one and the ingester's
    # A second merger while one runs skips its turn instead of waiting.
    with open(index.root / merging.MERGE_LOCK, "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        assert merging.merge_local(index.root, index.current_path()) is False
