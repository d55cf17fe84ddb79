"""One ingester at a time per archive home, across processes: dedup checks, file moves and the index feed
never race."""

from __future__ import annotations

import fcntl
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


class IngestLock:
    """The archive home's ingest lock (an flock on `HOME/.ingest.lock`), re-entrant within one ingester;
    taken before the index's sync lock, never after it."""

    def __init__(self, home: Path) -> None:
        self.path = home / ".ingest.lock"
        self._depth = 0

    @contextmanager
    def held(self) -> Iterator[None]:
        """Hold the lock for the block (again, when this ingester holds it already)."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        with open(self.path, "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            self._depth = 1
            try:
                yield
            finally:
                self._depth = 0
                fcntl.flock(handle, fcntl.LOCK_UN)
