"""The index on disk: Whoosh generations under one folder, with the live one named by an atomically swapped link.

Layout: `<index_dir>/gen-<n>/` holds one complete Whoosh index each, and the symlink `<index_dir>/current`
names the live one. A rebuild writes a new generation beside the live one and swaps the link with
`os.replace`, so searchers never see a half-built index; a searcher opened before the swap keeps reading
its own generation until it reopens. The generation before the live one is kept for such searchers;
older ones are removed at the next swap.
"""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional

import whoosh.index
from whoosh.filedb.filestore import RamStorage
from whoosh.index import Index

from . import merging
from .internals import abandon_writer, open_writer
from .schema import READABLE_VERSIONS, SCHEMA_VERSION, IndexDocument, build_schema

log = logging.getLogger(__name__)

CURRENT = "current"
VERSION_FILE = "newsarchive-schema-version"


class IndexMissing(RuntimeError):
    """There is no usable index; `newsarchive reindex` builds one from the SQL store."""


class IndexBusy(RuntimeError):
    """Another process is rebuilding the index now."""


class ArchiveIndex:
    def __init__(self, index_dir: Path | str) -> None:
        self.root = Path(index_dir)

    # -- generations ---------------------------------------------------------------------------------

    def current_path(self) -> Optional[Path]:
        """The folder of the live generation, resolved, or None when there is none."""
        link = self.root / CURRENT
        try:
            target = os.readlink(link)
        except OSError:
            return None
        path = (self.root / target).resolve()
        return path if path.is_dir() else None

    def generation(self) -> Optional[str]:
        """A token that changes whenever the live index changes (new generation or new commit)."""
        path = self.current_path()
        if path is None:
            return None
        try:
            tocs = sorted(p for p in os.listdir(path) if p.endswith(".toc"))
        except OSError:
            return None
        return f"{path.name}/{tocs[-1] if tocs else ''}"

    def live(self) -> tuple[Optional[Path], Optional[str]]:
        """(the live generation's folder, its generation token), or (None, None) when there is none."""
        path = self.current_path()
        return (path, self.generation()) if path is not None else (None, None)

    def exists(self) -> bool:
        path = self.current_path()
        return path is not None and whoosh.index.exists_in(str(path))

    def usable(self) -> bool:
        """True when the live generation exists, opens, and was built under this SCHEMA_VERSION."""
        try:
            self.open().close()
            return True
        except IndexMissing:
            return False

    def reset(self) -> None:
        """Make an empty generation the live one (the old one, if any, is kept until the next swap)."""
        self._swap(self._new_generation())

    def open(self, older: bool = False) -> Index:
        """Open the live generation; raise IndexMissing when there is none or it cannot be read. With `older`,
        an index built under an older schema that this version still reads (READABLE_VERSIONS) opens too:
        searches keep answering by its own rules until it is rebuilt."""
        path = self.current_path()
        if path is None:
            raise IndexMissing(f"no search index at {self.root}; run `newsarchive reindex`")
        if _version(path) != SCHEMA_VERSION and not (older and _version(path) in READABLE_VERSIONS):
            raise IndexMissing(
                f"the search index at {path} was built by another version of newsarchive "
                f"(schema {_version(path)}, this one needs {SCHEMA_VERSION}); run `newsarchive reindex`"
            )
        try:
            return whoosh.index.open_dir(str(path))
        except Exception as exc:  # whoosh raises several types for damaged files
            raise IndexMissing(
                f"the search index at {path} cannot be opened ({type(exc).__name__}: {exc}); run `newsarchive reindex`"
            ) from exc

    def ensure(self) -> Index:
        """Open the live index, creating an empty first generation when there is none yet."""
        if self.current_path() is None:
            self._swap(self._new_generation())
        return self.open()

    def _new_generation(self) -> Path:
        self.root.mkdir(parents=True, exist_ok=True)
        path = self.root / f"gen-{time.time_ns()}"
        path.mkdir()
        whoosh.index.create_in(str(path), build_schema())
        (path / VERSION_FILE).write_text(f"{SCHEMA_VERSION}\n")
        return path

    def _swap(self, path: Path) -> None:
        previous = self.current_path()
        tmp = self.root / f".{CURRENT}.{os.getpid()}.tmp"
        if tmp.is_symlink() or tmp.exists():
            tmp.unlink()
        os.symlink(path.name, tmp)
        os.replace(tmp, self.root / CURRENT)
        keep = {path.name, previous.name if previous else None}
        for old in self.root.glob("gen-*"):
            if old.name not in keep:
                shutil.rmtree(old, ignore_errors=True)

    # -- writing -------------------------------------------------------------------------------------

    def write(
        self,
        docs: Iterable[IndexDocument],
        *,
        procs: int = 1,
        memory_mb: int = 256,
        lock_timeout_s: float = 120.0,
        delete: Iterable[int] = (),
    ) -> int:
        """Add or replace documents (by id), and delete the `delete` ids, in the live index in one commit;
        return how many were written."""
        ix = self.ensure()
        writer = open_writer(ix, procs, memory_mb, lock_timeout_s)
        count = 0
        try:
            for doc_id in delete:
                writer.delete_by_term("id", str(doc_id))
            for doc in docs:
                writer.update_document(**doc.fields())
                count += 1
            writer.commit(merge=False)  # merged after, apart from the commit (search/merging.py)
        except BaseException:
            abandon_writer(writer)
            raise
        self.merge_due(memory_mb)
        return count

    def delete(self, ids: Iterable[int]) -> None:
        ix = self.ensure()
        writer = open_writer(ix, 1, 64, 120.0)
        try:
            for doc_id in ids:
                writer.delete_by_term("id", str(doc_id))
            writer.commit(merge=False)
        except BaseException:
            abandon_writer(writer)
            raise
        self.merge_due(64)

    def merge_due(self, memory_mb: int = 256) -> None:
        """After a commit that added or deleted documents: merge the segments search/merging.py's policy
        says are due (bounded, tiered), outside the commit. A merge that fails is logged and left for the
        next commit; the live index is untouched by it."""
        path = self.current_path()
        if path is None:
            return
        try:
            merging.merge_local(self.root, path, memory_mb)
        except Exception:
            log.warning("merging the search index's segments failed; the next commit tries again", exc_info=True)

    @contextmanager
    def lock(self) -> Iterator[None]:
        """Hold the index's sync lock: one feeder or one swap at a time, across processes."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".sync.lock", "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def rebuild(
        self,
        docs_after: Callable[[int], Iterable[IndexDocument]],
        *,
        procs: int = 1,
        memory_mb: int = 256,
        progress: Optional[Callable[[int], None]] = None,
        before_swap: Optional[Callable[[int], None]] = None,
    ) -> int:
        """Build a complete new generation from `docs_after(0)` (documents in id order) beside the live
        one, then swap it in atomically.

        `before_swap(last id)` runs under the sync lock just before the swap, so no feeder runs between the
        two. (The `postgres` backend's rebuild also goes on after an interrupted one: store/pgbuild.py.)
        """
        path = self._new_generation()
        writer = None
        last_id = 0
        try:
            ix = whoosh.index.open_dir(str(path))
            writer = open_writer(ix, procs, memory_mb, 0)
            count = 0
            for doc in docs_after(0):
                writer.add_document(**doc.fields())
                last_id = doc.id
                count += 1
                if progress is not None:
                    progress(count)
            writer.commit()
        except BaseException:
            if writer is not None:
                abandon_writer(writer)
            shutil.rmtree(path, ignore_errors=True)
            raise
        with self.lock():
            if before_swap is not None:
                before_swap(last_id)
            self._swap(path)
        return count

    def doc_count(self) -> int:
        return self.open().doc_count()

    def size_bytes(self) -> int:
        path = self.current_path()
        if path is None:
            return 0
        return sum(p.stat().st_size for p in path.iterdir() if p.is_file())

    def iter_ids(self) -> Iterator[str]:
        with self.open().searcher() as searcher:
            for fields in searcher.all_stored_fields():
                yield fields["id"]


def empty_index() -> Index:
    """An empty index in memory, with the archive's schema: what an archive answers before its first ingest."""
    return RamStorage().create_index(build_schema())


def _version(path: Path) -> Optional[int]:
    try:
        return int((path / VERSION_FILE).read_text().strip())
    except (OSError, ValueError):
        return None
