"""One file's articles and its ingest-log row in SQL: in one transaction, or a slice at a time for a file of
many records, resumed after a kill and abandoned cleanly after a failure.

A file of many records (JSON Lines, a JSON array, a feed, a WARC file, a bundle) is stored in slices, a
transaction about every SLICE_SECONDS: the store is not locked for the whole file, its progress survives
a kill (a rerun finds the articles it stored again, as the file's own, and stores the rest), and the
watcher can read small files dropped meanwhile between two slices. Any other file is one transaction.
The row says "ingesting" until the last slice.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Optional

from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session, sessionmaker

from store.models import Article, IngestFile, utcnow
from store.replicas import is_disconnect

from . import indexing
from .errors import InputError
from .inbox import display_path
from .lock import take_turn
from .outcomes import FileResult, no_article_reason
from .persist import ArticleStore
from .records import ArticleData

# Files of many records, stored a slice (a transaction) at a time.
SLICED_FORMATS = ("jsonl", "json", "feed", "newsml", "warc", "zip", "tar")
SLICE_SECONDS = 1.0


class FileTransaction:
    """Storing one file's articles under its ingest-log row: `open` the row (or carry on the row of a run
    that was killed reading these bytes), `store` batches, `finish`; `abandon` after a failure. The index
    `feeder`, when there is one, is given the articles as they are stored and told of every commit."""

    def __init__(
        self,
        sessions: sessionmaker,
        store: ArticleStore,
        result: FileResult,
        *,
        feeder: Optional[indexing.IndexFeeder],
        parallel_index: bool,
        slice_seconds: Optional[float] = None,
    ) -> None:
        self.sessions = sessions
        self.store_ = store
        self.result = result
        self.feeder = feeder
        self.parallel_index = parallel_index
        # NEWSARCHIVE_INGEST_SLICE_S, else the feeder's own (longer with the index in PostgreSQL)
        self.slice_seconds = slice_seconds or getattr(feeder, "slice_seconds", SLICE_SECONDS)
        self.sliced = result.format in SLICED_FORMATS
        self.session: Session = sessions()
        self.row: Optional[IngestFile] = None
        self.before = 0  # articles a killed run stored from these bytes (its row is carried on)
        self._slice_started = time.monotonic()
        self._turn = False  # this transaction holds the archive's write turn (PostgreSQL)

    def _take_turn(self) -> None:
        """Wait for this ingester's turn to write, once per transaction (ingest/lock.py `take_turn`); taken
        when the transaction first writes, so the watcher's small files read between two slices (in
        transactions of their own) never wait for this one."""
        if not self._turn:
            take_turn(self.session)
            self._turn = True

    def open(self, sha: str, size: int, destination: Optional[Path]) -> Optional[Path]:
        """Find or make the file's row; return where the file goes (a resumed row keeps its destination)."""
        self._take_turn()
        row = self.session.scalars(
            select(IngestFile)
            .where(IngestFile.sha256 == sha, IngestFile.status == "ingesting")
            .order_by(IngestFile.id)
            .limit(1)
        ).first()
        if row is not None:
            # Cut off part way by a kill: read again under the same row and destination; the articles it
            # stored are found as duplicates of themselves, and counted as this file's own.
            self.before = row.articles_ingested or 0
            row.path = self.result.path
            if destination is not None and row.stored_path:
                destination = Path(row.stored_path)
        else:
            row = IngestFile(
                path=self.result.path,
                sha256=sha,
                size_bytes=size,
                format=self.result.format,
                status="ingesting",
                stored_path=display_path(destination) if destination else self.result.path,
            )
            self.session.add(row)
            self.session.flush()
        self.row = row
        return destination

    def store(self, batch: list[ArticleData], between_slices: Optional[Callable[[], None]] = None) -> None:
        """Store a batch; for a sliced file, commit when the slice has lasted SLICE_SECONDS and then call
        `between_slices` (the watcher reads small files dropped meanwhile)."""
        row = self.row
        self._take_turn()
        done = self.store_.store(self.session, batch, original_file=row.stored_path, ingest_file_id=row.id)
        self.result.articles += done.stored
        self.result.duplicates += done.duplicates
        if self.feeder is not None:
            self.feeder.add(done.docs, parallel=self.parallel_index)
            self.feeder.remove(done.removed)
        if self.sliced and time.monotonic() - self._slice_started >= self.slice_seconds:
            row.articles_ingested = self.before + self.result.articles  # with what a killed run stored
            if self.feeder is not None:
                self.feeder.before_commit(self.session)
            self.session.commit()
            self._turn = False
            if self.feeder is not None:
                self.feeder.file_committed(row.id)
            if between_slices is not None:
                between_slices()
            self._slice_started = time.monotonic()

    def finish(self) -> FileResult:
        """Commit the file's last articles and its row's outcome (quarantined when nothing was usable)."""
        result, row = self.result, self.row
        self._take_turn()
        if self.before:
            result.articles += self.before
            result.duplicates -= self.before
        if result.articles == 0 and result.duplicates == 0:
            raise InputError(no_article_reason(result.errors, result.format or "unknown"))
        result.status = "ingested" if result.articles else "duplicate"
        row.articles_ingested = result.articles
        row.duplicates = result.duplicates
        row.errors = list(result.errors) or None
        row.status = result.status
        row.reason = f"{len(result.errors)} bad record(s) skipped" if result.errors else None
        row.finished_at = utcnow()
        result.stored_path = row.stored_path
        if self.feeder is not None:
            self.feeder.before_commit(self.session)
        self.session.commit()
        if self.feeder is not None:
            self.feeder.file_committed(row.id)
        return result

    def abandon(self, exc: BaseException) -> None:
        """After a failure: roll back, tell the feeder, and for a sliced file with committed slices let its
        row go when no article kept it, else say where the reading stopped (its stored articles stay).
        With the database gone, only what is held here is dropped: a sliced file's row still says
        "ingesting", and the next run resumes the file from it."""
        try:
            self.session.rollback()
        except Exception as error:
            if not is_disconnect(error):
                raise
        self.store_.forget_cache()
        if self.feeder is not None:
            self.feeder.file_failed()
        if is_disconnect(exc):
            return
        if not self.sliced or self.row is None or self.row.id is None:
            return
        file_id = self.row.id
        with self.sessions.begin() as session:
            kept = session.scalar(select(Article.id).where(Article.ingest_file_id == file_id).limit(1))
            if kept is None:
                session.execute(delete(IngestFile).where(IngestFile.id == file_id))
            else:
                reason = f"stopped part way: {type(exc).__name__}: {exc}"[:2000]
                session.execute(
                    update(IngestFile).where(IngestFile.id == file_id).values(status="interrupted", reason=reason)
                )

    def close(self) -> None:
        self.session.close()
