"""One ingester at a time per archive home, across processes: dedup checks, file moves and the index feed
never race. Ingesters with homes of their own (on several machines) on one PostgreSQL archive take turns
to write (`take_turn`) and never read the same file at once (`FileClaims`)."""

from __future__ import annotations

import fcntl
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Optional

from sqlalchemy import Connection, Engine, text
from sqlalchemy.orm import Session

from store.pgindex import WRITE_TURN_KEY


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


# -- several ingesters on one PostgreSQL archive (separate homes, as on separate machines) -----------------


def take_turn(session: Session) -> None:
    """Wait until this ingester may write, for the rest of `session`'s transaction: on PostgreSQL every
    ingester's articles (duplicate checks, versions, story clusters, the index) are written one
    transaction at a time, as one ingester would write them; their files are read and parsed meanwhile.
    On SQLite, one machine's ingesters already take turns (the home's lock, BEGIN IMMEDIATE)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": WRITE_TURN_KEY})


class FileClaims:
    """Which files (by the SHA-256 of their bytes) this ingester is reading, held as PostgreSQL session
    advisory locks on a connection of its own: another ingester finding a file claimed leaves it alone (it
    is being read: the inbox is shared, or the same bytes came twice); a killed ingester's claims end with
    its connection, so whichever ingester comes next carries its half-read file on. No-op on SQLite."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine if engine.dialect.name == "postgresql" else None
        self._conn: Optional[Connection] = None

    @staticmethod
    def _key(sha: str) -> int:
        return int.from_bytes(bytes.fromhex(sha[:16]), "big", signed=True)

    def claim(self, sha: str) -> bool:
        """Claim the file; False when another ingester holds it."""
        if self.engine is None:
            return True
        if self._conn is None:
            self._conn = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        return bool(self._conn.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": self._key(sha)}).scalar())

    def release(self, sha: str) -> None:
        if self._conn is not None:
            try:
                self._conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": self._key(sha)})
            except Exception:  # the connection is gone, and the claim with it
                self.close()

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            except Exception:
                pass
            self._conn = None
