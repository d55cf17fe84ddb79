"""What became of each file: the results a run reports, and the ingest log's rows of files that store no
articles (bytes read before, quarantined files, and moves a crash interrupted), with the moves they make."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from sqlalchemy import select
from sqlalchemy.orm import sessionmaker

from store.models import IngestFile, utcnow
from store.settings import Settings

from .errors import position_name
from .inbox import InputFile, display_path, free_destination, write_error_file
from .normalise import safe_text


@dataclass
class FileResult:
    path: str
    # ingested, duplicate, failed; or, with another ingester on the archive, busy (it is reading the same
    # bytes: the file is left for the next look) or gone (it read the file and moved it out of the inbox)
    status: str
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


def no_article_reason(errors: list[dict], fmt: str) -> str:
    """Why a file gave no article: its records' reasons, the first five."""
    if not errors:
        return "no article in the file"
    shown = "; ".join(f"{position_name(fmt)} {e['line']}: {e['reason']}" for e in errors[:5])
    more = f" (and {len(errors) - 5} more)" if len(errors) > 5 else ""
    return f"no readable article in the file: {shown}{more}"


class FileLog:
    """The ingest log's rows of files that store no articles, and the moves out of the inbox they make
    (through `move`, which tests replace to stop a run between a commit and its move)."""

    def __init__(self, settings: Settings, sessions: sessionmaker, move: Callable[[Path, Path], None]) -> None:
        self.settings = settings
        self.sessions = sessions
        self.move = move

    def known_bytes(self, sha: str) -> Optional[IngestFile]:
        """The row of a file with these bytes read before (ingested or a duplicate), if any."""
        with self.sessions() as session:
            return session.scalars(
                select(IngestFile)
                .where(IngestFile.sha256 == sha, IngestFile.status.in_(("ingested", "duplicate")))
                .order_by(IngestFile.id)
                .limit(1)
            ).first()

    def _log(self, shown: str, stored: Optional[str], sha: Optional[str], size: Optional[int], **row) -> None:
        """Write the finished ingest-log row of a file that stored no article."""
        with self.sessions.begin() as session:
            session.add(
                IngestFile(path=shown, stored_path=stored, sha256=sha, size_bytes=size, finished_at=utcnow(), **row)
            )

    def duplicate_file(self, f: InputFile, shown: str, sha: str, size: int, known: IngestFile) -> FileResult:
        """Record a file whose bytes were read before; an inbox file moves to archive/."""
        destination = free_destination(self.settings.archive_dir, f.relative) if f.in_inbox else None
        stored = display_path(destination) if destination else shown
        reason = f"the same bytes were ingested before from {known.path}"
        self._log(shown, stored, sha, size, status="duplicate", reason=reason, format=known.format)
        if destination is not None:
            self.move(f.path, destination)
        return FileResult(path=shown, status="duplicate", stored_path=stored, format=known.format, reason=reason)

    def quarantine(
        self, f: InputFile, shown: str, reason: str, *, sha: Optional[str], size: Optional[int]
    ) -> FileResult:
        """Record a failed file; an inbox file moves to failed/ with `<name>.error.json` saying why."""
        reason = safe_text(reason)
        exists = f.path.exists() or f.path.is_symlink()
        destination = free_destination(self.settings.failed_dir, f.relative) if f.in_inbox and exists else None
        stored = display_path(destination) if destination else (shown if exists else None)
        self._log(shown, stored, sha, size, status="failed", reason=reason)
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
            self.move(f.path, destination)
        return FileResult(path=shown, status="failed", stored_path=stored, reason=reason)

    def finish_interrupted_move(self, f: InputFile, shown: str, sha: str) -> Optional[FileResult]:
        """After a crash between commit and move: the row is there, the file is still in the inbox. Move it
        and return what the row says; None when there is no such row."""
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
        self.move(f.path, destination)
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
