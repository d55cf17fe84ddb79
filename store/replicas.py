"""Reading from PostgreSQL streaming replicas: NEWSARCHIVE_DATABASE_REPLICA_URLS.

The primary (NEWSARCHIVE_DATABASE_URL) takes every write: ingest, saved searches, accounts, the audit log.
Reads that may lag by a moment (searches, article pages, exports, feeds, status) go to a replica, spread
round-robin across those that are usable. A replica is usable when it answers and lags the primary by at
most NEWSARCHIVE_REPLICA_MAX_LAG_S; when none is, the primary answers; when the primary is down too, a
replica that answers does, however far behind (an old answer beats none).

The lag of each replica is checked at most once a second per process, by the request that finds the last
check stale (the others go on with the last result, without waiting):

- on the primary, `pg_current_wal_lsn()`: how far the primary's write-ahead log has got, kept with the
  time of the check (the last ten minutes of them);
- on each replica, `pg_last_wal_replay_lsn()`: how far it has replayed.

A replica that has replayed the primary's newest position is 0 s behind, however long ago the primary last
wrote (an idle primary is not lag). Otherwise it is behind by at most the time since the primary was at a
position the replica has replayed (to the second of the checks). With the primary unreachable (or the
replica further behind than the kept positions), its lag is the age of the last transaction it replayed
(`pg_last_xact_replay_timestamp()`). A replica that has been promoted (no longer in recovery) counts as 0 s
behind.

A request pins one server for all its reads (`Archive.reading`), so rows, index state and counts in one
answer come from one consistent place; a read that fails on a broken connection marks that server down and
is asked again once on another (webapp/__init__.py).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Optional

from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from .db import KEEPALIVES

CHECK_EVERY_S = 1.0
POSITIONS_KEPT = 600  # the primary's log positions of the last checks (about ten minutes of them)
CONNECT_TIMEOUT_S = 2


def replica_engine(url: str) -> Engine:
    """An engine for a replica: a short connect timeout, so a machine that is gone costs seconds, not
    minutes, and keepalives both ways (store/db.py)."""
    return create_engine(url, pool_pre_ping=True, connect_args={**KEEPALIVES, "connect_timeout": CONNECT_TIMEOUT_S})


def shown_url(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


@dataclass
class Server:
    """One database server as the router last saw it."""

    name: str  # "primary" or "replica N"
    url: str  # without its password
    engine: Engine
    up: Optional[bool] = None  # None until first checked
    lag_s: Optional[float] = None  # replicas: seconds behind the primary (None when unknown)
    in_recovery: Optional[bool] = None
    error: Optional[str] = None
    checked_at: float = 0.0  # time.monotonic() of the last check
    failed_at: float = field(default=-1e9)  # a request's connection broke here (monotonic)

    def describe(self, max_lag_s: float, with_url: bool) -> dict:
        shown = {"name": self.name, "url": self.url} if with_url else {"name": self.name}
        shown["up"] = bool(self.up)
        if self.name != "primary":
            shown["lag_s"] = None if self.lag_s is None else round(self.lag_s, 3)
            shown["usable"] = bool(self.up) and self.lag_s is not None and self.lag_s <= max_lag_s
            if self.in_recovery is False:
                shown["promoted"] = True
        if self.error and with_url:  # the error names the server's address: for admins only
            shown["error"] = self.error
        return shown


class Router:
    """Chooses the server a read goes to: a usable replica (round-robin), else the primary, else any replica
    that answers. With no replicas configured, always the primary, and nothing is checked."""

    def __init__(self, primary: Engine, replica_urls: tuple[str, ...] = (), max_lag_s: float = 5.0) -> None:
        self.primary = Server("primary", primary.url.render_as_string(hide_password=True), primary)
        self.replicas = [
            # The primary named among the replicas shares the reads (checked as one: never behind itself).
            Server("primary", self.primary.url, primary)
            if make_url(url) == primary.url
            else Server(f"replica {i}", shown_url(url), replica_engine(url))
            for i, url in enumerate(replica_urls, 1)
        ]
        self.max_lag_s = max_lag_s
        self._turn = itertools.count()
        self._checking = threading.Lock()
        self._checked_at = -1e9
        self._positions: deque[tuple[float, int]] = deque(maxlen=POSITIONS_KEPT)  # (monotonic, primary LSN)

    @property
    def enabled(self) -> bool:
        return bool(self.replicas)

    def close(self) -> None:
        for server in self.replicas:
            if server.engine is not self.primary.engine:
                server.engine.dispose()

    # -- choosing ------------------------------------------------------------------------------------

    def choose(self, avoid: Optional[Engine] = None) -> Engine:
        """The engine this request's reads go to (never `avoid`, the one that just failed, when another can
        answer)."""
        if not self.replicas:
            return self.primary.engine
        self.refresh()
        candidates = [s for s in self.replicas if self._usable(s) and s.engine is not avoid]
        if candidates:
            return candidates[next(self._turn) % len(candidates)].engine
        if self.primary.up is not False and self.primary.engine is not avoid:
            return self.primary.engine
        # The primary is down (or just failed): a replica that answers, however far behind.
        answering = [s for s in self.replicas if s.up and s.engine is not avoid and not self._recently_failed(s)]
        if answering:
            return min(answering, key=lambda s: s.lag_s if s.lag_s is not None else float("inf")).engine
        return self.primary.engine  # nothing answers: the request fails with the primary's error

    def _recently_failed(self, server: Server) -> bool:
        return time.monotonic() - server.failed_at < CHECK_EVERY_S

    def _usable(self, server: Server) -> bool:
        return (
            bool(server.up)
            and server.lag_s is not None
            and server.lag_s <= self.max_lag_s
            and not self._recently_failed(server)
        )

    def failed(self, engine: Engine, error: BaseException) -> None:
        """A request's connection to `engine` broke: leave that server out until it has been checked again."""
        for server in [self.primary, *self.replicas]:
            if server.engine is engine:
                server.up = False
                server.failed_at = time.monotonic()
                server.error = _short(error)
                engine.dispose()  # its pooled connections are as broken as the one that failed

    def name_of(self, engine: Engine) -> str:
        """ "primary" or "replica N": which server `engine` is."""
        for server in [self.primary, *self.replicas]:
            if server.engine is engine:
                return server.name
        return "primary"

    # -- checking ------------------------------------------------------------------------------------

    def refresh(self, force: bool = False) -> None:
        """Check the primary and every replica, when the last check is a second old (or `force`). Only one
        thread checks at a time; the others go on with the last result."""
        if not force and time.monotonic() - self._checked_at < CHECK_EVERY_S:
            return
        if not self._checking.acquire(blocking=force):
            return
        try:
            if not force and time.monotonic() - self._checked_at < CHECK_EVERY_S:
                return
            primary_lsn = self._check_primary()
            for server in self.replicas:
                self._check_replica(server, primary_lsn)
            self._checked_at = time.monotonic()
        finally:
            self._checking.release()

    def _check_primary(self) -> Optional[str]:
        server = self.primary
        server.checked_at = time.monotonic()
        try:
            with server.engine.connect() as conn:
                lsn = conn.execute(text("SELECT pg_current_wal_lsn()::text")).scalar_one()
        except Exception as exc:
            server.up, server.error = False, _short(exc)
            return None
        server.up, server.error = True, None
        # Where the primary's log was, and when: a replica that has replayed a position is at most as far
        # behind as the time since the primary was there.
        self._positions.append((server.checked_at, _lsn(lsn)))
        return lsn

    def _check_replica(self, server: Server, primary_lsn: Optional[str]) -> None:
        server.checked_at = time.monotonic()
        try:
            with server.engine.connect() as conn:
                in_recovery, replayed, age = conn.execute(
                    text(
                        "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text,"
                        " EXTRACT(EPOCH FROM clock_timestamp() - pg_last_xact_replay_timestamp())"
                    )
                ).one()
        except Exception as exc:
            server.up, server.lag_s, server.error = False, None, _short(exc)
            return
        server.up, server.error, server.in_recovery = True, None, in_recovery
        if not in_recovery:
            server.lag_s = 0.0  # promoted: it is a primary of its own
            return
        # Two upper bounds of the lag, the tighter kept: the time since the primary was at a position this
        # replica has replayed, and the age of the last transaction it replayed (the only one left when the
        # primary is unreachable; far too high after an idle spell, when the first does better).
        bounds = [float(age)] if age is not None else []
        since = self._replayed_since(_lsn(replayed)) if primary_lsn is not None else None
        if since is not None:
            bounds.append(since)
        server.lag_s = min(bounds) if bounds else None

    def _replayed_since(self, replayed: Optional[int]) -> Optional[float]:
        """Seconds since the primary was last at a position the replica has replayed (0 when it has replayed
        the newest sample): the replica lacks at most what the primary wrote since. None when even the
        oldest sample is ahead of it."""
        if replayed is None:
            return None
        now = time.monotonic()
        for at, position in reversed(self._positions):
            if position <= replayed:
                return 0.0 if at == self._positions[-1][0] else now - at
        return None

    def describe(self, with_urls: bool = False) -> dict:
        """Every server as checked now, for /status, /api/status, /healthz and `newsarchive stats` (the
        addresses only for admins)."""
        self.refresh(force=True)
        return {
            "primary": self.primary.describe(self.max_lag_s, with_urls),
            "replicas": [s.describe(self.max_lag_s, with_urls) for s in self.replicas],
            "max_lag_s": self.max_lag_s,
        }


def _lsn(text_form: Optional[str]) -> Optional[int]:
    """A PostgreSQL log position ("16/B374D848") as a number, to compare."""
    if not text_form:
        return None
    high, _, low = text_form.partition("/")
    return (int(high, 16) << 32) | int(low, 16)


def _short(error: BaseException) -> str:
    first = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return f"{type(error).__name__}: {first}"[:300]


# SQLSTATE classes of a server that is gone or going: connection exceptions, and an operator's shutdown.
_GONE_STATES = ("08", "57P")


def is_disconnect(error: BaseException) -> bool:
    """Whether `error` is a database connection that failed or broke (a server down, restarting or out of
    reach), not a statement that failed on a working one (a deadlock, a constraint): a read may be asked
    again elsewhere, and an ingest must stop and keep its files."""
    if isinstance(error, DBAPIError) and error.connection_invalidated:
        return True
    if not isinstance(error, (OperationalError, InterfaceError)):
        return False
    state = getattr(error.orig, "sqlstate", "") if error.orig is not None else ""
    if state is None:
        return True  # psycopg: failed on the client's side (refused, timed out, closed): no server answered
    return bool(state) and state.startswith(_GONE_STATES)
