"""The ingest pipeline: file -> units -> articles -> SQL transactions -> archive/ or failed/ -> index.

Order of effects, chosen so that a crash at any point loses nothing and doubles nothing:
1. read and hash the file; a hash already ingested is a duplicate;
2. parse its units (in worker processes for big files) and store the articles and the file's log row,
   the row naming where the file is going: in one transaction, or for a file of many records (JSON
   Lines, a JSON array) a slice at a time, a transaction about every SLICE_SECONDS, the row saying
   "ingesting" until the last slice;
3. move the file there (inbox files only), with an `.error.json` beside a quarantined one;
4. feed new rows to the index (`indexing.sync_pending`).
A rerun after a crash between 2 and 3 finds the committed row for the same bytes and path and only
finishes the move. A rerun after a crash inside a sliced file carries on its row ("ingesting") and
reads the file again: the articles its committed slices stored are found again (counted as the file's
own, not as duplicates), the rest are stored.

While `watch` reads a big file, small files dropped meanwhile are read between two of its slices
(`Ingester.between_slices`) and the index is committed then, so they are searchable within seconds.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional

from sqlalchemy.engine import make_url
from tqdm import tqdm

from store.db import make_engine, make_sessionmaker, refresh_statistics
from store.pgindex import open_index
from store.replicas import is_disconnect
from store.settings import Settings, SettingsError

from . import indexing
from .credits import use_source_table
from .errors import DatabaseUnavailable, InputError, RecordError
from .folders import FolderDefaultsCache, load_source_table
from .inbox import (
    InputFile,
    discover,
    display_path,
    free_destination,
    hash_stream,
    move_file,
    open_input,
    read_all,
    unique_files,
)
from .lock import FileClaims, IngestLock
from .normalise import safe_text
from .outcomes import FileLog, FileResult, RunSummary
from .parsing import ParserPool
from .persist import ArticleStore
from .readers import STREAMED_FORMATS, Limits, iter_units, open_unpacked, sniff
from .status import StatusFile
from .transaction import SLICED_FORMATS, FileTransaction

log = logging.getLogger(__name__)

# Runs of at least this many files feed the index with several writer processes.
MANY_FILES = 200
# A run that leaves at least this many documents for the index's last commit ends its parser processes
# first: the commit (and the segment merge it may start) then runs without them holding their memory.
RELEASE_POOL_DOCS = 20_000

__all__ = ["FileResult", "Ingester", "RunSummary"]


class Ingester:
    """Ingests files into the archive; the only writer of articles and the index.

    Its parts: the parser processes (`parsers`), the ingest log of files that store nothing (`files`),
    one `FileTransaction` per file that does, the index feeder, and the archive's ingest `lock`. `move`
    moves a file out of the inbox (a test replaces it to stop a run between a commit and its move)."""

    def __init__(
        self,
        settings: Settings,
        *,
        workers: Optional[int] = None,
        engine=None,
        move: Callable[[Path, Path], None] = move_file,
    ) -> None:
        self.settings = settings
        settings.ensure_dirs()
        self.engine = engine or make_engine(settings, writer=True)
        self.sessions = make_sessionmaker(self.engine)
        self.index = open_index(settings, self.engine)
        self.store = ArticleStore()
        self.limits = Limits(settings.max_unpacked_bytes, settings.max_record_bytes)
        try:
            source_table = load_source_table(settings.sources_file)
        except ValueError as exc:
            raise SettingsError(f"NEWSARCHIVE_SOURCES_FILE: {exc}") from None
        use_source_table(source_table)
        self.folder_defaults = FolderDefaultsCache()
        self.parsers = ParserPool(workers or settings.ingest_workers or os.cpu_count() or 1, self.limits, source_table)
        self.move = move
        self.files = FileLog(settings, self.sessions, move)
        self.lock = IngestLock(settings.home)
        self.claims = FileClaims(self.engine)  # files being read, across machines (PostgreSQL)
        self.status = StatusFile(settings.home)  # the file being read now, for /status
        self.between_slices: Optional[Callable[[], None]] = None  # the watcher reads small files between slices
        self._progress = False  # a run's progress bars on the terminal (ingest_files sets it)
        self._between = False

    def close(self) -> None:
        self.parsers.release()
        self.claims.close()
        self.engine.dispose()

    def __enter__(self) -> "Ingester":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- runs ----------------------------------------------------------------------------------------

    def run(self, paths: Iterable[Path | str] = (), *, progress: bool = False, sync_index: bool = True) -> RunSummary:
        """Ingest files and folders (the inbox when none are given) and bring the index up to date."""
        targets = [Path(p) for p in paths] or [self.settings.inbox]
        found = unique_files(discover(targets, self.settings.inbox))
        return self.ingest_files(found, progress=progress, sync_index=sync_index)

    def ingest_files(self, files: list[InputFile], *, progress: bool = False, sync_index: bool = True) -> RunSummary:
        """Ingest these files one by one, feeding the index as they are stored; then sync what is left."""
        summary = RunSummary()
        self.folder_defaults = FolderDefaultsCache()  # read afresh each run: an edit applies to the next files
        bar = _progress_bar(len(files)) if progress else None
        self._progress = progress
        feeder = self.feeder() if sync_index else None
        many = len(files) >= MANY_FILES
        with self.lock.held():
            try:
                for input_file in files:
                    summary.add(self.ingest_file(input_file, feeder=feeder, many_files=many))
                    if bar is not None:
                        bar.update(1)
                        bar.set_postfix(
                            ingested=summary.ingested,
                            duplicates=summary.duplicates,
                            failed=summary.failed,
                            refresh=False,
                        )
            finally:
                if feeder is not None:
                    if feeder.pending_docs >= RELEASE_POOL_DOCS:
                        self.parsers.release()
                    commit_index(feeder, self.settings)
            if bar is not None:
                bar.close()
            if sync_index:
                self.sync_index()
        if summary.ingested:
            _refresh_statistics(self.engine, summary.ingested)
        return summary

    def feeder(self) -> indexing.IndexFeeder:
        """An index feeder for one run (commit it at the end)."""
        feeder = indexing.PgIndexFeeder if self.settings.search_backend == "postgres" else indexing.IndexFeeder
        return feeder(
            self.sessions, self.index, procs=self.settings.index_procs, memory_mb=self.settings.index_memory_mb
        )

    def sync_index(self) -> int:
        return indexing.sync_pending(
            self.sessions, self.index, procs=self.settings.index_procs, memory_mb=self.settings.index_memory_mb
        )

    # -- one file ------------------------------------------------------------------------------------

    def ingest_file(
        self, f: InputFile, *, feeder: Optional[indexing.IndexFeeder] = None, many_files: bool = False
    ) -> FileResult:
        """Ingest one file; every outcome is recorded in the ingest log and never raises for bad input (only
        DatabaseUnavailable). With a `feeder`, the file's articles go to the index as they are stored;
        without one they wait, marked not indexed, for `sync_index`."""
        shown = display_path(f.path)
        with stops_with_database(self.settings, f"while {shown} was read", "the file stays in the inbox"):
            return self._ingest_file(f, shown, feeder=feeder, many_files=many_files)

    def _ingest_file(
        self, f: InputFile, shown: str, *, feeder: Optional[indexing.IndexFeeder], many_files: bool
    ) -> FileResult:
        with self.lock.held():
            if f.refusal:
                return self.files.quarantine(f, shown, f.refusal, sha=None, size=None)
            try:
                handle, size = open_input(f.path, follow_links=not f.in_inbox)
            except FileNotFoundError:
                if f.in_inbox:  # another ingester sharing the inbox has read it and moved it
                    return FileResult(path=shown, status="gone", reason="read by another ingester")
                return self.files.quarantine(f, shown, "cannot read the file: it does not exist", sha=None, size=None)
            except (OSError, ValueError) as exc:
                return self.files.quarantine(f, shown, f"cannot read the file: {_reason(exc)}", sha=None, size=None)
            with handle:
                try:
                    source, sha, size = read_source(handle, size, self.settings.max_file_bytes)
                except (OSError, ValueError) as exc:
                    return self.files.quarantine(f, shown, f"cannot read the file: {_reason(exc)}", sha=None, size=None)
                if not self.claims.claim(sha):
                    reason = "another ingester is reading these bytes now: left where it is, for the next look"
                    return FileResult(path=shown, status="busy", reason=reason)
                try:
                    return self._claimed(f, shown, sha, source, size, feeder=feeder, many_files=many_files)
                finally:
                    self.claims.release(sha)

    def _claimed(
        self, f: InputFile, shown: str, sha: str, source, size: int, *, feeder, many_files: bool
    ) -> FileResult:
        """The rest of a file's reading, once no other ingester reads it: resume a move, know its bytes,
        or store its articles."""
        if f.in_inbox:
            resumed = self.files.finish_interrupted_move(f, shown, sha)
            if resumed is not None:
                return resumed
        known = self.files.known_bytes(sha)
        if known is not None:
            return self.files.duplicate_file(f, shown, sha, size, known)
        try:
            return self._store_articles(f, shown, sha, source, size=size, feeder=feeder, many_files=many_files)
        except InputError as exc:
            return self.files.quarantine(f, shown, str(exc), sha=sha, size=size)
        except Exception as exc:  # a bug must cost one file, not the run
            if is_disconnect(exc):
                raise  # not the file's fault: it stays where it is (see ingest_file)
            log.error("internal error while ingesting %s\n%s", shown, traceback.format_exc())
            self.store.forget_cache()
            reason = f"internal error: {type(exc).__name__}: {exc}"
            return self.files.quarantine(f, shown, reason, sha=sha, size=size)

    def _store_articles(
        self,
        f: InputFile,
        shown: str,
        sha: str,
        source: bytes | io.BufferedReader,
        *,
        size: int,
        feeder: Optional[indexing.IndexFeeder],
        many_files: bool,
    ) -> FileResult:
        """Parse the file's units and store its articles under its ingest-log row; then move it."""
        defaults = self.folder_defaults.for_file(f.path, self.settings.inbox if f.in_inbox else None)
        stream, _ = open_unpacked(source, self.limits)
        fmt = self._format(stream, f, source, size)
        result = FileResult(path=shown, status="ingested", format=fmt)
        write = FileTransaction(
            self.sessions,
            self.store,
            result,
            feeder=feeder,
            parallel_index=many_files or fmt in SLICED_FORMATS,
            slice_seconds=self.settings.ingest_slice_s,
        )
        streamed = not isinstance(source, bytes)
        try:
            inbox_destination = free_destination(self.settings.archive_dir, f.relative) if f.in_inbox else None
            destination = write.open(sha, size, inbox_destination)
            bar = _file_bar(f.path.name, size) if self._progress and streamed else None
            self.status.start(shown, size, fmt, source if streamed else None)
            batch = []
            for records, item in enumerate(self.parsers.parse(iter_units(stream, fmt, self.limits), defaults), 1):
                self.status.update(
                    articles=result.articles, duplicates=result.duplicates, skipped=len(result.errors), records=records
                )
                if isinstance(item, RecordError):
                    result.errors.append({"line": item.line, "reason": safe_text(item.reason)})
                    continue
                batch.append(item)
                if len(batch) >= self.settings.ingest_batch_articles:
                    write.store(batch, self._between_slices)
                    batch = []
                    if bar is not None:
                        _show_file_progress(bar, source, result)
            if batch:
                write.store(batch)
            if bar is not None:
                _show_file_progress(bar, source, result)
                bar.close()
            write.finish()
        except BaseException as exc:
            write.abandon(exc)
            raise
        finally:
            write.close()
            self.status.finish()
        if destination is not None:
            self.move(f.path, destination)
        return result

    def _format(self, stream, f: InputFile, source, size: int) -> str:
        """The file's format, by its content; a file too big to read whole must be one read record by record."""
        try:
            fmt = sniff(stream, f.path.name)
        except InputError:
            if isinstance(source, bytes):
                raise
            fmt = "unknown"
        if not isinstance(source, bytes) and fmt not in STREAMED_FORMATS:
            raise InputError(
                f"the file is {size:_} bytes, over max_file_bytes={self.settings.max_file_bytes:_}; only JSON Lines, "
                f"WARC files and zip or tar bundles (plain or gzipped) are read past that size, record by record "
                f"(split the file, or raise NEWSARCHIVE_MAX_FILE_BYTES)"
            )
        return fmt

    def _between_slices(self) -> None:
        """After a slice of a big file is committed: the watcher's hook (never while it runs already)."""
        hook = self.between_slices
        if hook is not None and not self._between:
            self._between = True
            try:
                hook()
            finally:
                self._between = False


def read_source(handle: io.BufferedReader, size: int, max_bytes: int) -> tuple[bytes | io.BufferedReader, str, int]:
    """(the file's bytes, their SHA-256, their count) for a file up to `max_bytes`; for a bigger one,
    hashed, (the stream rewound, its hash, its size): it is read record by record."""
    if size <= max_bytes:
        data = read_all(handle, max_bytes)
        return data, hashlib.sha256(data).hexdigest(), len(data)
    sha = hash_stream(handle)
    handle.seek(0)
    return handle, sha, size


def unavailable(settings: Settings, exc: BaseException, when: str, kept: str) -> DatabaseUnavailable:
    """The error that stops a run whose database stopped answering, saying what is kept."""
    reason = getattr(exc, "orig", None) or exc
    said = str(reason).strip().splitlines()[0] if str(reason).strip() else "no reason given"
    where = make_url(settings.database_url).render_as_string(hide_password=True)
    return DatabaseUnavailable(
        f"the database at {where} stopped answering {when} ({type(reason).__name__}: {said}); nothing is lost: "
        f"{kept}, and the next run goes on from there"
    )


@contextmanager
def stops_with_database(settings: Settings, when: str, kept: str) -> Iterator[None]:
    """Turn a database that stopped answering inside the block into DatabaseUnavailable, saying what is kept."""
    try:
        yield
    except DatabaseUnavailable:
        raise
    except Exception as exc:
        if not is_disconnect(exc):
            raise
        raise unavailable(settings, exc, when, kept) from exc


def commit_index(feeder: indexing.IndexFeeder, settings: Settings) -> None:
    """Commit the index of the files stored so far; with the database gone, their rows stay marked not
    indexed, for the next run to index."""
    try:
        with stops_with_database(settings, "as the index was committed", "what was stored is indexed later"):
            feeder.commit()
    except DatabaseUnavailable:
        feeder.file_failed()
        raise


def _progress_bar(total: int):
    return tqdm(total=total, unit="file", file=sys.stderr, disable=None, dynamic_ncols=True)


def _file_bar(name: str, size: int):
    """Progress through one file read as a stream (a big JSON Lines file), in bytes of the file as stored
    (compressed bytes for a gzipped one); shown under the run's bar of files."""
    return tqdm(
        total=size, desc=name[:40], unit="B", unit_scale=True, file=sys.stderr, disable=None, leave=False, position=1
    )


def _show_file_progress(bar, handle: io.BufferedReader, result: FileResult) -> None:
    try:
        bar.n = min(handle.tell(), bar.total)
    except (OSError, ValueError):  # a closed or unseekable stream: the bar keeps its last position
        pass
    bar.set_postfix(articles=result.articles, duplicates=result.duplicates, skipped=len(result.errors), refresh=False)
    bar.refresh()


def _reason(exc: OSError | ValueError) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def _refresh_statistics(engine, stored: int) -> None:
    """Fresh planner statistics for the tables a run grew (store/db.py); a failure is only logged."""
    try:
        refresh_statistics(engine, stored)
    except Exception:
        log.warning("refreshing the database's planner statistics failed", exc_info=True)
