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

import concurrent.futures as cf
import datetime as dt
import fcntl
import gc
import hashlib
import io
import logging
import multiprocessing
import os
import sys
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Optional

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session
from tqdm import tqdm

from search.index import ArchiveIndex
from store.db import make_engine, make_sessionmaker
from store.models import Article, IngestFile, utcnow
from store.settings import Settings, SettingsError

from . import indexing
from .credits import use_source_table
from .errors import InputError, RecordError, position_name
from .folders import FolderDefaults, FolderDefaultsCache, load_source_table
from .inbox import (
    InputFile,
    discover,
    display_path,
    free_destination,
    hash_stream,
    move_file,
    open_input,
    read_all,
    settled,
    write_error_file,
)
from .normalise import safe_text
from .persist import ArticleStore
from .places import gazetteer
from .progress import Progress
from .readers import STREAMED_FORMATS, Limits, Unit, iter_units, open_unpacked, parse_unit, sniff
from .records import ArticleData

log = logging.getLogger(__name__)

# Files with at least this many units are parsed in worker processes.
PARALLEL_MIN_UNITS = 64
# Runs of at least this many files feed the index with several writer processes.
MANY_FILES = 200
CHUNK_UNITS = 64
# A run that leaves at least this many documents for the index's last commit ends its parser processes
# first: the commit (and the segment merge it may start) then runs without them holding their memory.
RELEASE_POOL_DOCS = 20_000


@dataclass
class FileResult:
    path: str
    status: str  # ingested, duplicate, failed
    stored_path: Optional[str] = None
    format: Optional[str] = None
    articles: int = 0
    duplicates: int = 0
    errors: list[dict] = field(default_factory=list)
    reason: Optional[str] = None

    def as_dict(self) -> dict:
        return {
            "path": self.path,
            "status": self.status,
            "stored_path": self.stored_path,
            "format": self.format,
            "articles": self.articles,
            "duplicates": self.duplicates,
            "errors": self.errors,
            "reason": self.reason,
        }


@dataclass
class RunSummary:
    """Counts over a run: new articles, duplicates (files or records), failures (files or records)."""

    ingested: int = 0
    duplicates: int = 0
    failed: int = 0
    files: list[FileResult] = field(default_factory=list)

    def add(self, result: FileResult) -> None:
        self.files.append(result)
        self.ingested += result.articles
        if result.status == "duplicate" and result.articles == 0 and result.duplicates == 0:
            self.duplicates += 1  # the bytes were known: the whole file is one duplicate
        else:
            self.duplicates += result.duplicates
        if result.status == "failed" and not result.errors:
            self.failed += 1
        else:
            self.failed += len(result.errors)

    @property
    def failed_files(self) -> int:
        return sum(1 for f in self.files if f.status == "failed")

    @property
    def skipped_records(self) -> int:
        """Bad records skipped in files whose other records were kept."""
        return sum(len(f.errors) for f in self.files if f.status != "failed")

    def as_dict(self) -> dict:
        return {
            "ingested": self.ingested,
            "duplicates": self.duplicates,
            "failed": self.failed,
            "failed_files": self.failed_files,
            "skipped_records": self.skipped_records,
            "files": [f.as_dict() for f in self.files],
        }


@dataclass(kw_only=True)
class _FileWrite:
    """Storing one file's articles: its transaction, its ingest-log row, and the index feeder they go to next."""

    store: ArticleStore
    session: Session
    original: str
    file_id: int
    result: FileResult
    feeder: Optional[indexing.IndexFeeder]
    parallel_index: bool

    def store_batch(self, batch: list[ArticleData]) -> None:
        done = self.store.store(self.session, batch, original_file=self.original, ingest_file_id=self.file_id)
        self.result.articles += done.stored
        self.result.duplicates += done.duplicates
        if self.feeder is not None:
            self.feeder.add(done.docs, parallel=self.parallel_index)
            self.feeder.remove(done.removed)


class Ingester:
    """Ingests files into the archive; the only writer of articles and the index."""

    def __init__(self, settings: Settings, *, workers: Optional[int] = None, engine=None) -> None:
        self.settings = settings
        settings.ensure_dirs()
        self.engine = engine or make_engine(settings, writer=True)
        self.sessions = make_sessionmaker(self.engine)
        self.index = ArchiveIndex(settings.index_dir)
        self.store = ArticleStore()
        self.limits = Limits(settings.max_unpacked_bytes, settings.max_record_bytes)
        try:
            self.source_table = load_source_table(settings.sources_file)
        except ValueError as exc:
            raise SettingsError(f"NEWSARCHIVE_SOURCES_FILE: {exc}") from None
        use_source_table(self.source_table)
        self.folder_defaults = FolderDefaultsCache()
        if workers is None:
            workers = settings.ingest_workers or os.cpu_count() or 1
        self.workers = workers
        self._pool: Optional[cf.ProcessPoolExecutor] = None
        self._lock_depth = 0
        self._progress = False  # a run's progress bars on the terminal (ingest_files sets it)
        self.status = Progress(settings.home)  # the file being read now, for /status
        self.between_slices = None  # called between two slices of a big file (the watcher reads small files)
        self._between = False

    def close(self) -> None:
        self._release_pool()
        self.engine.dispose()

    def _release_pool(self) -> None:
        """End the parser processes (the next big file forks new ones)."""
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None

    def __enter__(self) -> "Ingester":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- runs ----------------------------------------------------------------------------------------

    def run(self, paths: Iterable[Path | str] = (), *, progress: bool = False, sync_index: bool = True) -> RunSummary:
        """Ingest files and folders (the inbox when none are given) and bring the index up to date."""
        targets = [Path(p) for p in paths] or [self.settings.inbox]
        found = _unique(discover(targets, self.settings.inbox))
        return self.ingest_files(found, progress=progress, sync_index=sync_index)

    def ingest_files(self, files: list[InputFile], *, progress: bool = False, sync_index: bool = True) -> RunSummary:
        """Ingest these files one by one, feeding the index as they are stored; then sync what is left."""
        summary = RunSummary()
        self.folder_defaults = FolderDefaultsCache()  # read afresh each run: an edit applies to the next files
        bar = _progress_bar(len(files)) if progress else None
        self._progress = progress
        feeder = self.feeder() if sync_index else None
        many = len(files) >= MANY_FILES
        with self._ingest_lock():
            try:
                for input_file in files:
                    result = self.ingest_file(input_file, feeder=feeder, many_files=many)
                    summary.add(result)
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
                        self._release_pool()
                    feeder.commit()
            if bar is not None:
                bar.close()
            if sync_index:
                self.sync_index()
        return summary

    def feeder(self) -> indexing.IndexFeeder:
        """An index feeder for one run (commit it at the end)."""
        return indexing.IndexFeeder(
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
        """Ingest one file; every outcome is recorded in the ingest log and never raises for bad input.

        With a `feeder`, the file's articles go to the index as they are stored; without one they wait,
        marked not indexed, for `sync_index`.
        """
        shown = display_path(f.path)
        with self._ingest_lock():
            if f.refusal:
                return self._quarantine(f, shown, f.refusal, sha=None, size=None)
            try:
                handle, size = open_input(f.path, follow_links=not f.in_inbox)
            except (OSError, ValueError) as exc:
                return self._quarantine(f, shown, f"cannot read the file: {_reason(exc)}", sha=None, size=None)
            with handle:
                return self._ingest_open_file(f, shown, handle, size, feeder=feeder, many_files=many_files)

    def _ingest_open_file(
        self,
        f: InputFile,
        shown: str,
        handle: io.BufferedReader,
        size: int,
        *,
        feeder: Optional[indexing.IndexFeeder],
        many_files: bool,
    ) -> FileResult:
        """A file up to max_file_bytes is read into memory; a bigger one is hashed, then read as a stream
        (JSON Lines only: their records are read one by one, each under max_record_bytes)."""
        try:
            if size <= self.settings.max_file_bytes:
                source: bytes | io.BufferedReader = read_all(handle, self.settings.max_file_bytes)
                size = len(source)
                sha = hashlib.sha256(source).hexdigest()
            else:
                sha = hash_stream(handle)
                handle.seek(0)
                source = handle
        except (OSError, ValueError) as exc:
            return self._quarantine(f, shown, f"cannot read the file: {_reason(exc)}", sha=None, size=None)
        if f.in_inbox:
            resumed = self._finish_interrupted_move(f, shown, sha)
            if resumed is not None:
                return resumed
        known = self._known_bytes(sha)
        if known is not None:
            return self._record_duplicate_file(f, shown, sha, size, known)
        try:
            return self._ingest_bytes(f, shown, sha, source, size=size, feeder=feeder, many_files=many_files)
        except InputError as exc:
            return self._quarantine(f, shown, str(exc), sha=sha, size=size)
        except Exception as exc:  # a bug must cost one file, not the run
            log.error("internal error while ingesting %s\n%s", shown, traceback.format_exc())
            self.store.forget_cache()
            return self._quarantine(f, shown, f"internal error: {type(exc).__name__}: {exc}", sha=sha, size=size)

    def _ingest_bytes(
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
        defaults = self.folder_defaults.for_file(f.path, self.settings.inbox if f.in_inbox else None)
        stream, _ = open_unpacked(source, self.limits)
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
        units = iter_units(stream, fmt, self.limits)
        parallel_index = many_files or fmt in SLICED_FORMATS
        destination = free_destination(self.settings.archive_dir, f.relative) if f.in_inbox else None
        result = FileResult(path=shown, status="ingested", format=fmt)
        # A file of many records (JSON Lines, a JSON array) is stored in slices, a transaction every
        # SLICE_SECONDS: the store is not locked for the whole file, its progress survives a kill (a rerun
        # finds the stored articles as duplicates and stores the rest), and the watcher can read small files
        # dropped meanwhile between two slices (`between_slices`). Any other file is one transaction.
        sliced = fmt in SLICED_FORMATS
        session = self.sessions()
        row: Optional[IngestFile] = None
        before = 0  # articles a killed run stored from these bytes (their row is carried on)
        try:
            row = session.scalars(
                select(IngestFile)
                .where(IngestFile.sha256 == sha, IngestFile.status == "ingesting")
                .order_by(IngestFile.id)
                .limit(1)
            ).first()
            if row is not None:
                # Cut off part way by a kill: read it again under the same row and destination; the articles
                # it stored are found as duplicates of themselves, and counted as this file's own.
                before = row.articles_ingested or 0
                row.path = shown
                if destination is not None and row.stored_path:
                    destination = Path(row.stored_path)
            else:
                row = IngestFile(
                    path=shown,
                    sha256=sha,
                    size_bytes=size,
                    format=fmt,
                    status="ingesting",
                    stored_path=display_path(destination) if destination else shown,
                )
                session.add(row)
                session.flush()
            file_id = row.id
            write = _FileWrite(
                store=self.store,
                session=session,
                original=row.stored_path,
                file_id=file_id,
                result=result,
                feeder=feeder,
                parallel_index=parallel_index,
            )
            slice_started = time.monotonic()
            batch: list[ArticleData] = []
            bar = _file_bar(f.path.name, size) if self._progress and not isinstance(source, bytes) else None
            self.status.start(shown, size, fmt, None if isinstance(source, bytes) else source)
            for records, item in enumerate(self._parse(units, defaults), 1):
                self.status.update(
                    articles=result.articles,
                    duplicates=result.duplicates,
                    skipped=len(result.errors),
                    records=records,
                )
                if isinstance(item, RecordError):
                    result.errors.append({"line": item.line, "reason": safe_text(item.reason)})
                    continue
                batch.append(item)
                if len(batch) >= self.settings.ingest_batch_articles:
                    write.store_batch(batch)
                    batch = []
                    if bar is not None:
                        _show_file_progress(bar, source, result)
                    if sliced and time.monotonic() - slice_started >= SLICE_SECONDS:
                        self._commit_slice(session, row, result, feeder, before)
                        slice_started = time.monotonic()
            if batch:
                write.store_batch(batch)
            if bar is not None:
                _show_file_progress(bar, source, result)
                bar.close()
            if before:
                result.articles += before
                result.duplicates -= before
            if result.articles == 0 and result.duplicates == 0:
                # Nothing usable: the whole file is quarantined, with every record's reason.
                raise InputError(_no_article_reason(result.errors, fmt))
            result.status = "ingested" if result.articles else "duplicate"
            _record_counts(row, result)
            row.status = result.status
            row.reason = f"{len(result.errors)} bad record(s) skipped" if result.errors else None
            row.finished_at = utcnow()
            result.stored_path = row.stored_path
            session.commit()
        except BaseException as exc:
            session.rollback()
            self.store.forget_cache()
            if feeder is not None:
                feeder.file_failed()
            if sliced and row is not None and row.id is not None:
                self._abandon_slices(row.id, exc)
            raise
        finally:
            session.close()
            self.status.finish()
        if feeder is not None:
            feeder.file_committed(file_id)
        if destination is not None:
            self._move(f.path, destination)
        return result

    def _commit_slice(
        self,
        session: Session,
        row: IngestFile,
        result: FileResult,
        feeder: Optional[indexing.IndexFeeder],
        before: int,
    ) -> None:
        """Commit what is stored of the file so far, then let the watcher read small files meanwhile."""
        row.articles_ingested = before + result.articles  # with what a killed run stored under this row
        session.commit()
        if feeder is not None:
            feeder.file_committed(row.id)
        hook = self.between_slices
        if hook is not None and not self._between:
            self._between = True
            try:
                hook()
            finally:
                self._between = False

    def _abandon_slices(self, file_id: int, exc: BaseException) -> None:
        """A sliced file failed after some slices were committed: its row goes when no article kept it,
        else it says where the reading stopped (the articles already stored stay: they are real)."""
        with self.sessions.begin() as session:
            kept = session.scalar(select(Article.id).where(Article.ingest_file_id == file_id).limit(1))
            if kept is None:
                session.execute(delete(IngestFile).where(IngestFile.id == file_id))
            else:
                reason = f"stopped part way: {type(exc).__name__}: {exc}"[:2000]
                session.execute(
                    update(IngestFile).where(IngestFile.id == file_id).values(status="interrupted", reason=reason)
                )

    def _parse(
        self, units: Iterator[Unit | RecordError], defaults: FolderDefaults
    ) -> Iterator[ArticleData | RecordError]:
        """Parse units in order; past PARALLEL_MIN_UNITS, in worker processes with a bounded window in flight."""
        buffered: list = []
        for item in units:
            buffered.append(item)
            if len(buffered) >= PARALLEL_MIN_UNITS and self.workers > 1:
                break
        else:
            yield from _parse_chunk(buffered, self.limits, defaults)
            return
        pool = self._get_pool()
        window: list[cf.Future] = []
        chunk: list = buffered
        for item in units:
            chunk.append(item)
            if len(chunk) >= CHUNK_UNITS:
                window.append(pool.submit(_parse_chunk, chunk, self.limits, defaults))
                chunk = []
                while len(window) >= 4 * self.workers:
                    yield from window.pop(0).result()
        if chunk:
            window.append(pool.submit(_parse_chunk, chunk, self.limits, defaults))
        for future in window:
            yield from future.result()

    def _get_pool(self) -> cf.ProcessPoolExecutor:
        if self._pool is None:
            gazetteer()  # loaded once here; forked workers share it
            _warm_up()
            # Objects made so far are left out of every later garbage collection, so that collections in
            # the forked workers do not write to (and so copy) the pages they share with this process.
            gc.freeze()
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
            self._pool = cf.ProcessPoolExecutor(
                self.workers,
                mp_context=multiprocessing.get_context(method),
                initializer=use_source_table,
                initargs=(self.source_table,),
            )
        return self._pool

    # -- outcomes ------------------------------------------------------------------------------------

    def _known_bytes(self, sha: str) -> Optional[IngestFile]:
        with self.sessions() as session:
            return session.scalars(
                select(IngestFile)
                .where(IngestFile.sha256 == sha, IngestFile.status.in_(("ingested", "duplicate")))
                .order_by(IngestFile.id)
                .limit(1)
            ).first()

    def _record_duplicate_file(self, f: InputFile, shown: str, sha: str, size: int, known: IngestFile) -> FileResult:
        destination = free_destination(self.settings.archive_dir, f.relative) if f.in_inbox else None
        stored = display_path(destination) if destination else shown
        reason = f"the same bytes were ingested before from {known.path}"
        with self.sessions.begin() as session:
            session.add(
                IngestFile(
                    path=shown,
                    stored_path=stored,
                    sha256=sha,
                    size_bytes=size,
                    format=known.format,
                    status="duplicate",
                    reason=reason,
                    finished_at=utcnow(),
                )
            )
        if destination is not None:
            self._move(f.path, destination)
        return FileResult(path=shown, status="duplicate", stored_path=stored, format=known.format, reason=reason)

    def _quarantine(
        self, f: InputFile, shown: str, reason: str, *, sha: Optional[str], size: Optional[int]
    ) -> FileResult:
        """Record a failed file; an inbox file moves to failed/ with `<name>.error.json` saying why."""
        reason = safe_text(reason)
        exists = f.path.exists() or f.path.is_symlink()
        destination = free_destination(self.settings.failed_dir, f.relative) if f.in_inbox and exists else None
        stored = display_path(destination) if destination else (shown if exists else None)
        with self.sessions.begin() as session:
            session.add(
                IngestFile(
                    path=shown,
                    stored_path=stored,
                    sha256=sha,
                    size_bytes=size,
                    status="failed",
                    reason=reason,
                    finished_at=utcnow(),
                )
            )
        if destination is not None:
            write_error_file(
                destination,
                {
                    "file": shown,
                    "reason": reason,
                    "sha256": sha,
                    "size_bytes": size,
                    "failed_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                },
            )
            self._move(f.path, destination)
        return FileResult(path=shown, status="failed", stored_path=stored, reason=reason)

    def _finish_interrupted_move(self, f: InputFile, shown: str, sha: str) -> Optional[FileResult]:
        """After a crash between commit and move: the row is there, the file is still in the inbox. Move it."""
        with self.sessions() as session:
            row = session.scalars(
                select(IngestFile)
                .where(
                    IngestFile.sha256 == sha,
                    IngestFile.path == shown,
                    IngestFile.status.in_(("ingested", "duplicate", "failed")),
                )
                .order_by(IngestFile.id.desc())
                .limit(1)
            ).first()
        if row is None or not row.stored_path or row.stored_path == shown or Path(row.stored_path).exists():
            return None
        destination = Path(row.stored_path)
        if not (destination.parent.exists() or destination.parent == self.settings.archive_dir):
            destination.parent.mkdir(parents=True, exist_ok=True)
        if row.status == "failed":
            write_error_file(destination, {"file": shown, "reason": row.reason, "sha256": sha})
        self._move(f.path, destination)
        return FileResult(
            path=shown,
            status=row.status,
            stored_path=row.stored_path,
            format=row.format,
            articles=row.articles_ingested,
            duplicates=row.duplicates,
            errors=row.errors or [],
            reason=row.reason,
        )

    def _move(self, source: Path, destination: Path) -> None:
        move_file(source, destination)

    @contextmanager
    def _ingest_lock(self) -> Iterator[None]:
        """One ingester at a time per archive home, so dedup checks, file moves and the index feed never race.

        Re-entrant within this ingester; taken before the index's sync lock, never after it.
        """
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
            return
        with open(self.settings.home / ".ingest.lock", "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            self._lock_depth = 1
            try:
                yield
            finally:
                self._lock_depth = 0
                fcntl.flock(handle, fcntl.LOCK_UN)


def _parse_chunk(items: list, limits: Limits, defaults: FolderDefaults) -> list[ArticleData | RecordError]:
    out: list[ArticleData | RecordError] = []
    single = (
        len(items) == 1
        and isinstance(items[0], Unit)
        and items[0].format in ("text", "html", "json-object", "nitf", "newsml-item")
        and items[0].line is None
        and items[0].member is None
    )
    for item in items:
        if isinstance(item, RecordError):
            out.append(item)
            continue
        try:
            out.append(parse_unit(item, limits, defaults))
        except InputError as exc:
            if single:
                raise
            out.append(RecordError(item.line or 0, _where(item) + str(exc)))
        except RecursionError:
            if single:
                raise InputError("the content is nested too deeply to read") from None
            out.append(RecordError(item.line or 0, _where(item) + "the content is nested too deeply to read"))
    return out


_WARM_UP_TEXT = (
    "LONDON, March 3 (Reuters) - Shares in London rose on Tuesday as the Bank of England held its rates, "
    "traders in the City said, and oil prices fell after talks in Vienna. Markets in Paris and Frankfurt "
    "followed, while investors in New York waited for figures due on Friday, 6 March 2015."
)


def _warm_up() -> None:
    """Read one small article of each common kind in this process, before the parser processes are forked.
    What the readers load or build on first use (the language model, the date parsers' tables, compiled
    patterns, the HTML extractors' settings, trafilatura's 11.5 MB stop-word list of every language for its
    jusText fallback) is then made once, left out of garbage collection by
    `gc.freeze()`, and shared by every worker instead of built again in each. Measured on JSON Lines
    records: a worker's private memory after 15,000 records fell from 58 MB to 18 MB."""
    import json  # noqa: PLC0415

    paragraphs = "".join(f"<p>{_WARM_UP_TEXT}</p>" for _ in range(3))
    html = (
        "<html><head><title>Shares rise in London</title>"
        '<meta property="article:published_time" content="2015-03-03T10:00:00Z"></head>'
        f"<body><nav><a href='/'>Home</a></nav><article><h1>Shares rise in London</h1>{paragraphs}"
        "<figure><img src='a.jpg'><figcaption>Traders at work. REUTERS/Jane Doe</figcaption></figure>"
        "</article><footer>Contact us</footer></body></html>"
    )
    record = {"title": "Shares rise in London", "published": "2015-03-03T10:00:00Z", "body": _WARM_UP_TEXT}
    units = [
        Unit("jsonl-line", json.dumps(record).encode(), line=1),
        Unit("html", html),
        # A page with a headline and no story: the extractors' fallbacks (trafilatura's jusText rescue,
        # readability) then load what they load on first use too.
        Unit("html", "<html><body><nav><a href='/'>Home</a></nav><h1>Shares rise in London</h1></body></html>"),
        Unit("text", f"Shares rise in London\n\n{_WARM_UP_TEXT}\n"),
    ]
    for unit in units:
        try:
            parse_unit(unit)
        except Exception:  # noqa: BLE001 (a warm-up only; a real file's errors are reported where they occur)
            log.debug("warm-up of the %s reader failed", unit.format, exc_info=True)


def _where(unit: Unit) -> str:
    """The bundle member a record came from, to start its error's reason."""
    return f"{unit.member}: " if unit.member else ""


def _no_article_reason(errors: list[dict], fmt: str) -> str:
    if not errors:
        return "no article in the file"
    shown = "; ".join(f"{position_name(fmt)} {e['line']}: {e['reason']}" for e in errors[:5])
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return f"no readable article in the file: {shown}{more}"


def _unique(files: Iterable[InputFile]) -> list[InputFile]:
    seen: set[Path] = set()
    out = []
    for f in files:
        if f.path not in seen:
            seen.add(f.path)
            out.append(f)
    return out


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


LARGE_FILE_BYTES = 1_000_000  # in a watch batch, the index is committed before a file this big is read
# Files of many records, stored a slice (a transaction) at a time.
SLICED_FORMATS = ("jsonl", "json", "feed", "newsml", "warc", "zip", "tar")
SLICE_SECONDS = 1.0


def watch(ingester: Ingester, *, stop=None, on_result=None) -> None:
    """Ingest the inbox, then keep watching it: each file is read once it has stopped changing.

    `stop` is a threading.Event (or anything with is_set) that ends the loop; `on_result` is called with
    each FileResult.
    """
    settings = ingester.settings
    seen: dict = {}
    interval = settings.watch_interval_ms / 1000
    handled: set = set()  # files read in this batch, by the loop or between the slices of a big file

    def ready_files() -> list[InputFile]:
        now = time.time_ns()
        return [
            f
            for f in _unique(discover([settings.inbox], settings.inbox))
            if f.path not in handled
            and (f.path.is_symlink() or settled(f.path, seen, settings.settle_ms * 1_000_000, now))
        ]

    def read(f: InputFile, feeder: indexing.IndexFeeder) -> None:
        handled.add(f.path)
        result = ingester.ingest_file(f, feeder=feeder)
        seen.pop(f.path, None)
        if on_result is not None:
            on_result(result)

    while stop is None or not stop.is_set():
        handled.clear()
        ready = ready_files()
        if ready:
            # Small files first, and their index committed before a large file starts: a large file holds
            # the index writer until it is read, and what was dropped beside it should not wait for it.
            ready.sort(key=_size_or_zero)
            feeder = ingester.feeder()

            def between_slices(feeder=feeder) -> None:
                # Small files dropped while a big one is read: stored and made searchable between two of its
                # slices (the index commit also makes the big file's stored slices searchable).
                small = [f for f in ready_files() if _size_or_zero(f) < LARGE_FILE_BYTES]
                for f in small:
                    read(f, feeder)
                if small:
                    feeder.commit()

            with ingester._ingest_lock():
                ingester.between_slices = between_slices
                try:
                    for f in ready:
                        if f.path in handled:
                            continue
                        if _size_or_zero(f) >= LARGE_FILE_BYTES:
                            feeder.commit()
                        read(f, feeder)
                finally:
                    ingester.between_slices = None
                    feeder.commit()
                ingester.sync_index()
        if stop is not None:
            if stop.wait(interval):
                break
        else:
            time.sleep(interval)


def _record_counts(row: IngestFile, result: FileResult) -> None:
    row.articles_ingested = result.articles
    row.duplicates = result.duplicates
    row.errors = list(result.errors) or None


def _size_or_zero(f: InputFile) -> int:
    try:
        return f.path.lstat().st_size
    except OSError:
        return 0


def _reason(exc: OSError | ValueError) -> str:
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
