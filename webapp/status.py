"""What the ingester is doing and has done, for `/status` and `/api/status`.

Files waiting are the inbox's files; the file being read comes from the ingester's progress file
(ingest/status.py); what became of finished files, their skipped records and the last failure come
from SQL (`ingest_files`); pending index work is the articles stored but not yet searchable. Paths are
shown relative to the archive's home (or by name for files read in place), never as server paths.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ingest.errors import position_name
from ingest.inbox import discover
from ingest.status import read_progress
from store.models import Article, IngestFile
from store.settings import Settings

RECENT_FILES = 20
WAITING_SHOWN = 50
WAITING_COUNTED = 10_000
ERRORS_SHOWN = 20


def shown_path(path: Optional[str], settings: Settings) -> Optional[str]:
    """A stored path as the status page shows it: under the archive's home relative to it, else its name."""
    if not path:
        return path
    for folder in (settings.inbox, settings.home):
        try:
            return Path(os.path.abspath(path)).relative_to(Path(os.path.abspath(folder))).as_posix()
        except ValueError:
            continue
    return Path(path).name


def waiting_files(settings: Settings) -> tuple[int, list[str]]:
    """(how many files wait in the inbox, the first WAITING_SHOWN of them); counting stops at WAITING_COUNTED."""
    if not settings.inbox.is_dir():
        return 0, []
    count, names = 0, []
    for found in discover([settings.inbox], settings.inbox):
        count += 1
        if len(names) < WAITING_SHOWN:
            names.append(found.relative.as_posix())
        if count >= WAITING_COUNTED:
            break
    return count, names


def file_outcome(row: IngestFile, settings: Settings) -> dict:
    errors = row.errors or []
    return {
        "id": row.id,
        "file": shown_path(row.path, settings),
        "format": row.format,
        "status": row.status,
        "articles": row.articles_ingested,
        "duplicates": row.duplicates,
        "skipped": len(errors),
        "skipped_records": errors[:ERRORS_SHOWN],
        "position_name": position_name(row.format),
        "reason": row.reason,
        "finished_at": row.finished_at.isoformat(timespec="seconds") + "Z" if row.finished_at else None,
    }


def ingest_status(session: Session, settings: Settings) -> dict:
    waiting, names = waiting_files(settings)
    current = read_progress(settings.home)
    if current is not None:
        current = {**current, "file": shown_path(current.get("file"), settings)}
        current.pop("pid", None)
    recent = session.scalars(select(IngestFile).order_by(IngestFile.id.desc()).limit(RECENT_FILES)).all()
    failed = session.scalars(
        select(IngestFile).where(IngestFile.status == "failed").order_by(IngestFile.id.desc()).limit(1)
    ).first()
    pending = session.scalar(select(func.count()).select_from(Article).where(Article.indexed.is_(False))) or 0
    return {
        "waiting": {"count": waiting, "files": names},
        "current": current,
        "recent": [file_outcome(row, settings) for row in recent],
        "pending_index": pending,
        "last_error": (
            {
                "file": shown_path(failed.path, settings),
                "reason": failed.reason,
                "at": failed.finished_at.isoformat(timespec="seconds") + "Z" if failed.finished_at else None,
            }
            if failed is not None
            else None
        ),
    }


def access_state(settings: Settings) -> dict:
    """Who may read this archive, for /status and /api/status."""
    if settings.login_required:
        return {"mode": "login", "note": "sign-in required; each collection is read by those it is granted to"}
    return {
        "mode": "open",
        "note": "open to everyone who can reach this server: they read every article and may change saved searches",
    }
