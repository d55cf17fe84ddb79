"""Merging the `postgres` backend's segments apart from the commits that add documents (search/merging.py
says which): written on a copy of the live commit with no lock held, so ingesters go on publishing
meanwhile, then published in a short transaction under the index's lock, over whatever commit is live by
then (documents deleted from the merged segments meanwhile are deleted from the merged one too). One
process merges at a time, by an advisory lock of its own; the others skip their turn."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

import whoosh.index
from sqlalchemy import func, select

from search import merging
from search.index import IndexMissing
from search.schema import SCHEMA_VERSION

from .pgfiles import COMPLETE, LOCK_KEY, adopt, copy_path, link_files, publish_files

log = logging.getLogger(__name__)

# The advisory lock of the one process merging segments now: others skip their turn.
MERGE_KEY = 0x6E65776D


def merge_quietly(index, memory_mb: int = 256) -> None:
    """merge_once after a commit that added documents; a merge that fails is logged and left for the next
    (the live index is untouched by it)."""
    try:
        merge_once(index, memory_mb)
    except Exception:
        log.warning("merging the search index's segments failed; the next commit tries again", exc_info=True)


def merge_once(index, memory_mb: int = 256) -> bool:
    """Merge the segments that are due, if any; whether a merge was published."""
    conn = index._engine.connect()
    try:
        if not conn.execute(select(func.pg_try_advisory_lock(MERGE_KEY))).scalar():
            conn.rollback()
            return False
        conn.commit()
        try:
            return _merge(index, memory_mb)
        finally:
            conn.execute(select(func.pg_advisory_unlock(MERGE_KEY)))
            conn.commit()
    finally:
        conn.close()


def _merge(index, memory_mb: int) -> bool:
    synced = index._synced()
    if synced is None or synced[0][2] != SCHEMA_VERSION:
        return False
    (generation, _, _), copy = synced
    chosen = merging.due(copy)
    if not chosen:
        return False
    work = index._new_work()
    rebased = None
    try:
        link_files(copy, work)
        before, merged = merging.merge_into(work, chosen, memory_mb)
        in_order = [seg for seg in before.segments if seg.segid in set(chosen)]
        with index._engine.begin() as conn:
            conn.execute(select(func.pg_advisory_xact_lock(LOCK_KEY)))
            state = index._state(conn)
            if state is None or state[0] != generation:
                return False  # a new generation (reindex) went live meanwhile
            if state[1] != before.generation:  # others published meanwhile: over their commit
                if merged is None:  # every document merged was deleted: tried again on the next commit
                    return False
                live_path = _copy_of(index, state)
                live_toc = whoosh.index.open_dir(str(live_path))._read_toc()
                segments = merging.rebase(merged, in_order, live_toc.segments)
                if segments is None:
                    return False
                rebased = index._new_work()
                link_files(live_path, rebased)
                for item in work.iterdir():
                    if item.name.startswith(merged.segment_id()):
                        os.link(item, rebased / item.name)
                merging.write_commit(rebased, live_toc.generation + 1, segments)
                work, rebased = rebased, work
            toc = publish_files(conn, generation, work)
        adopt(index.root, work, generation, toc)
        return True
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if rebased is not None:
            shutil.rmtree(rebased, ignore_errors=True)


def _copy_of(index, state: tuple[int, int, int]) -> Path:
    """This machine's copy of the commit `state`, made when missing (`state` must be the live one)."""
    path = copy_path(index.root, state[0], state[1])
    if not (path / COMPLETE).exists():
        synced = index._synced()
        if synced is None or synced[0] != state:
            raise IndexMissing("the live commit changed while it was being copied")
        path = synced[1]
    return path
