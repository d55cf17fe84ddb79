"""What the ingester is doing now, for `/status` and `/api/status` (which run in another process).

While a file is read, the ingester keeps `HOME/ingest-progress.json` up to date: the file, its size,
how far it has got (bytes of the file as stored, where it is read as a stream, and records), and the
counts so far. The file is replaced atomically (at most every UPDATE_SECONDS) and removed when the file
is done, so a reader sees the last complete state or nothing. What became of finished files is in SQL
(`ingest_files`): the status page reads both.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import time
from pathlib import Path
from typing import Optional

UPDATE_SECONDS = 0.5
FILENAME = "ingest-progress.json"


def progress_path(home: Path) -> Path:
    return home / FILENAME


class StatusFile:
    """The status file of one ingester process; every method is cheap and never raises for I/O."""

    def __init__(self, home: Path) -> None:
        self.path = progress_path(home)
        self._state: Optional[dict] = None
        self._handle = None
        self._paused: list[tuple[dict, object]] = []
        self._written = 0.0

    def start(self, name: str, size: int, fmt: str, handle=None) -> None:
        """A file is being read; `handle`, for a file read as a stream, tells how far it has got. A file read
        while another is paused (the watcher reads small files between a big one's slices) is shown until it
        is done, then the paused one again."""
        if self._state is not None:
            self._paused.append((self._state, self._handle))
        self._handle = handle
        now = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        self._state = {
            "file": name,
            "format": fmt,
            "size_bytes": size,
            "bytes_read": 0,
            "records": 0,
            "articles": 0,
            "duplicates": 0,
            "skipped": 0,
            "started_at": now,
            "updated_at": now,
            "pid": os.getpid(),
        }
        self._write()

    def update(self, *, articles: int, duplicates: int, skipped: int, records: int) -> None:
        """Counts so far: articles stored, duplicates, records skipped, and records read (stored or not)."""
        if self._state is None or time.monotonic() - self._written < UPDATE_SECONDS:
            return
        self._state.update(articles=articles, duplicates=duplicates, skipped=skipped, records=records)
        if self._handle is not None:
            try:
                self._state["bytes_read"] = self._handle.tell()
            except (OSError, ValueError):
                pass
        self._write()

    def finish(self) -> None:
        if self._paused:
            self._state, self._handle = self._paused.pop()
            self._write()
            return
        self._state = self._handle = None
        try:
            self.path.unlink(missing_ok=True)
        except OSError:
            pass

    def _write(self) -> None:
        self._written = time.monotonic()
        self._state["updated_at"] = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
        partial = self.path.with_name(self.path.name + f".{os.getpid()}.tmp")
        try:
            partial.write_text(json.dumps(self._state, ensure_ascii=False), encoding="utf-8")
            os.replace(partial, self.path)
        except OSError:
            pass


def read_progress(home: Path) -> Optional[dict]:
    """The file being read now, or None; a file left by an ingester that has died is not shown."""
    path = progress_path(home)
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    pid = state.get("pid")
    if isinstance(pid, int):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
    return state
