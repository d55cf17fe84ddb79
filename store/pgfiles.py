"""The `postgres` search backend's index files: kept in SQL (`search_index_files` and
`search_index_parts`, the live generation and commit in `search_index_state`), and this machine's copies
of them under NEWSARCHIVE_INDEX_DIR (store/pgindex.py says how the two are used).

Files are written once and never changed (Whoosh names every segment anew; a commit writes a new TOC), so
a copy is exact when its names and sizes match the database's list; each download is checked against its
SHA-256.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import time
from pathlib import Path
from typing import Iterable

from sqlalchemy import delete, insert, select, update
from sqlalchemy.engine import Connection

from search.index import VERSION_FILE, IndexMissing
from search.schema import SCHEMA_VERSION

from .models import SearchIndexBuild, SearchIndexFile, SearchIndexPart, SearchIndexState, utcnow

PART_BYTES = 16 * 1024 * 1024
LOCK_KEY = 0x6E657773  # the advisory lock of the index's writers ("news")
# The advisory lock whose holder writes articles now ("neww": ingest/lock.py take_turn). Taken before
# LOCK_KEY by everything that takes both, so that two writers never wait for each other's.
WRITE_TURN_KEY = 0x6E657777
COMPLETE = ".complete"  # in a local copy: every file is there
STATE_ID = 1
# Local copies other than the newest KEEP_COPIES are removed once this old (a search that opened one has
# long ended: a searcher moves to the new copy on its next request).
KEEP_OLD_COPIES_S = 60
KEEP_COPIES = 2
_TOC = re.compile(r"^_MAIN_(\d+)\.toc$")


def is_published(name: str) -> bool:
    """Whether a file of a Whoosh folder belongs to the index (not a lock, marker or version file)."""
    return not (name.startswith(".") or name.endswith("LOCK") or name == VERSION_FILE)


def latest_toc(names: Iterable[str]) -> int:
    numbers = [int(m.group(1)) for m in map(_TOC.match, names) if m]
    if not numbers:
        raise IndexMissing("the index has no table of contents (_MAIN_*.toc)")
    return max(numbers)


# -- this machine's copies ------------------------------------------------------------------------------


def link_files(source: Path, target: Path) -> None:
    """Hard-link the index files of the folder `source` into `target` (files are never changed in place)."""
    for item in source.iterdir():
        if item.is_file() and is_published(item.name):
            os.link(item, target / item.name)


def make_copy(root: Path, conn: Connection, state: tuple[int, int, int], path: Path) -> None:
    generation = state[0]
    listed = conn.execute(
        select(SearchIndexFile.name, SearchIndexFile.size, SearchIndexFile.sha256).where(
            SearchIndexFile.generation == generation
        )
    ).all()
    root.mkdir(parents=True, exist_ok=True)
    donors = [p for p in root.glob(f"pg-{generation}-*") if (p / COMPLETE).exists()]
    tmp = root / f".copy-{os.getpid()}-{time.time_ns()}"
    tmp.mkdir()
    try:
        for name, size, sha in listed:
            if not any(_link_same(donor / name, size, tmp / name) for donor in donors):
                _download(conn, generation, name, size, sha, tmp / name)
        (tmp / VERSION_FILE).write_text(f"{state[2]}\n")
        (tmp / COMPLETE).write_text("")
        try:
            os.rename(tmp, path)
        except OSError:  # another process made the same copy first
            shutil.rmtree(tmp, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _link_same(have: Path, size: int, target: Path) -> bool:
    """Hard-link `have` as `target` when it is there with `size` bytes (another process may be removing
    that copy: then it is not there)."""
    try:
        if have.stat().st_size != size:
            return False
        os.link(have, target)
    except OSError:
        return False
    return True


def tidy(root: Path, keep: Path) -> None:
    """Remove this machine's older copies (all but the newest KEEP_COPIES, once KEEP_OLD_COPIES_S old) and
    abandoned work folders."""
    now = time.time()
    entries = [p for p in root.iterdir() if p.is_dir()] if root.is_dir() else []
    copies = sorted((p for p in entries if p.name.startswith("pg-")), key=lambda p: p.stat().st_mtime)
    newest = set(copies[-KEEP_COPIES:]) | {keep}
    for path in entries:
        if path in newest:
            continue
        old = now - path.stat().st_mtime > KEEP_OLD_COPIES_S
        if path.name.startswith("pg-") and old:
            shutil.rmtree(path, ignore_errors=True)
        elif path.name.startswith((".copy-", "work-")) and old and not alive(path.name.split("-")[1]):
            shutil.rmtree(path, ignore_errors=True)


def adopt(root: Path, work: Path, generation: int, toc: int) -> None:
    """After the commit: the work folder becomes this machine's copy of the new live commit (its files
    hard-linked, so the copy costs no download)."""
    path = copy_path(root, generation, toc)
    if (path / COMPLETE).exists():
        return
    tmp = root / f".copy-{os.getpid()}-{time.time_ns()}"
    tmp.mkdir()
    try:
        for item in work.iterdir():
            if item.is_file() and is_published(item.name):
                os.link(item, tmp / item.name)
        (tmp / VERSION_FILE).write_text(f"{SCHEMA_VERSION}\n")
        (tmp / COMPLETE).write_text("")
        os.rename(tmp, path)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
    tidy(root, path)


def copy_path(root: Path, generation: int, toc: int) -> Path:
    return root / f"pg-{generation}-{toc}"


# -- the index's files in SQL ---------------------------------------------------------------------------


def _download(conn: Connection, generation: int, name: str, size: int, sha: str, target: Path) -> None:
    parts = conn.scalars(
        select(SearchIndexPart.part)
        .where(SearchIndexPart.generation == generation, SearchIndexPart.name == name)
        .order_by(SearchIndexPart.part)
    ).all()
    digest = hashlib.sha256()
    written = 0
    with open(target, "wb") as out:
        for part in parts:
            data = conn.scalar(
                select(SearchIndexPart.data).where(
                    SearchIndexPart.generation == generation,
                    SearchIndexPart.name == name,
                    SearchIndexPart.part == part,
                )
            )
            digest.update(data)
            out.write(data)
            written += len(data)
    if written != size or digest.hexdigest() != sha:
        raise IndexMissing(f"the index file {name} read from the database is damaged; run `newsarchive reindex`")


def upload_all(conn: Connection, generation: int, work: Path) -> int:
    names = sorted(p.name for p in work.iterdir() if p.is_file() and is_published(p.name))
    for name in names:
        _upload(conn, generation, name, work / name)
    return latest_toc(names)


def publish_files(conn: Connection, generation: int, work: Path) -> int:
    """Make the files of `work` the generation's files (upload the new, drop the gone) and its last
    TOC the live commit, in `conn`'s transaction; return that commit's number."""
    toc = sync_files(conn, generation, work)
    make_live(conn, generation, toc, keep_others=True)
    return toc


def sync_files(conn: Connection, generation: int, work: Path) -> int:
    """Make the files of `work` the generation's files in the database (upload the new, drop the gone),
    in `conn`'s transaction; return the number of its last TOC."""
    local = {p.name for p in work.iterdir() if p.is_file() and is_published(p.name)}
    listed = set(conn.scalars(select(SearchIndexFile.name).where(SearchIndexFile.generation == generation)))
    for name in sorted(listed - local):
        conn.execute(
            delete(SearchIndexPart).where(SearchIndexPart.generation == generation, SearchIndexPart.name == name)
        )
        conn.execute(
            delete(SearchIndexFile).where(SearchIndexFile.generation == generation, SearchIndexFile.name == name)
        )
    for name in sorted(local - listed):
        _upload(conn, generation, name, work / name)
    return latest_toc(local)


def _upload(conn: Connection, generation: int, name: str, path: Path) -> None:
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        part = 0
        while True:
            data = handle.read(PART_BYTES)
            if not data and part:
                break
            digest.update(data)
            size += len(data)
            conn.execute(insert(SearchIndexPart).values(generation=generation, name=name, part=part, data=data))
            part += 1
            if len(data) < PART_BYTES:
                break
    conn.execute(insert(SearchIndexFile).values(generation=generation, name=name, size=size, sha256=digest.hexdigest()))


def make_live(conn: Connection, generation: int, toc: int, keep_others: bool = False) -> None:
    values = dict(generation=generation, toc=toc, schema_version=SCHEMA_VERSION, changed_at=utcnow())
    done = conn.execute(update(SearchIndexState).where(SearchIndexState.id == STATE_ID).values(**values))
    if not done.rowcount:
        conn.execute(insert(SearchIndexState).values(id=STATE_ID, **values))
    if not keep_others:
        others = conn.scalars(
            select(SearchIndexFile.generation).where(SearchIndexFile.generation != generation).distinct()
        ).all()
        for old in others:
            drop_generation(conn, old)


def drop_generation(conn: Connection, generation: int) -> None:
    conn.execute(delete(SearchIndexPart).where(SearchIndexPart.generation == generation))
    conn.execute(delete(SearchIndexFile).where(SearchIndexFile.generation == generation))
    conn.execute(delete(SearchIndexBuild).where(SearchIndexBuild.generation == generation))


def alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True
