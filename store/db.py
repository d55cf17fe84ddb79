"""Engines, sessions and migrations: SQLite in WAL mode with a busy timeout, any other SQLAlchemy URL as given."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, bindparam, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from .settings import Settings

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"


def make_engine(settings: Settings, *, writer: bool = False) -> Engine:
    """Create the engine for `settings.database_url`; SQLite gets WAL, foreign keys and a busy timeout.

    A `writer` engine starts SQLite transactions with BEGIN IMMEDIATE, so two ingesters queue on the
    write lock instead of failing when one upgrades a read snapshot to a write.
    """
    url = make_url(settings.database_url)
    if url.get_backend_name() == "sqlite":
        if url.database and url.database != ":memory:":
            Path(url.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": settings.sqlite_busy_timeout_ms / 1000})
        _configure_sqlite(engine, settings.sqlite_busy_timeout_ms, "BEGIN IMMEDIATE" if writer else "BEGIN")
        return engine
    if url.get_backend_name() == "postgresql":
        return create_engine(url, pool_pre_ping=True, connect_args=dict(KEEPALIVES))
    return create_engine(url, pool_pre_ping=True)


# TCP keepalives on every PostgreSQL connection, both ways: the client notices a server that is gone (a
# crashed primary, a cut network) within about 30 s instead of waiting on a dead socket, and the server
# notices a client that is gone (a machine that lost power) as soon, ending its session and so its
# advisory locks: another ingester then takes over its turn and its half-read file.
KEEPALIVES = {
    "keepalives": 1,
    "keepalives_idle": 10,
    "keepalives_interval": 5,
    "keepalives_count": 3,
    "options": "-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3",
}


def _configure_sqlite(engine: Engine, busy_timeout_ms: int, begin_sql: str) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        # Let SQLAlchemy issue BEGIN itself so a write transaction starts as one (pysqlite's own handling defers it).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn):
        conn.exec_driver_sql(begin_sql)


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


def alembic_config(settings: Settings) -> Config:
    """An Alembic config pointing at `migrations/` and at this archive's database."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("sqlalchemy.url", settings.database_url.replace("%", "%%"))
    cfg.attributes["settings"] = settings
    return cfg


# The advisory lock that makes PostgreSQL migrations one at a time ("nmig"): ingesters and web servers
# started together on a new database would otherwise race to create the same tables.
MIGRATE_KEY = 0x6E6D6967


def upgrade(settings: Settings, engine: Engine | None = None) -> None:
    """Apply every Alembic migration up to head (a no-op when the database is current); on PostgreSQL in one
    transaction that waits for any other process migrating the same database."""
    cfg = alembic_config(settings)
    postgres = make_url(settings.database_url).get_backend_name() == "postgresql"
    if engine is None and not postgres:
        command.upgrade(cfg, "head")
        return
    own = engine is None
    engine = engine or create_engine(settings.database_url)
    try:
        with engine.begin() as connection:
            if postgres:
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATE_KEY})
            cfg.attributes["connection"] = connection
            command.upgrade(cfg, "head")
    finally:
        if own:
            engine.dispose()


class DatabaseBehind(RuntimeError):
    """The database is not at the migrations' head: `newsarchive db upgrade` brings it there."""


def revisions(settings: Settings) -> tuple[Optional[str], str]:
    """(the database's Alembic revision, None for an empty database; the newest migration's), read only."""
    head = ScriptDirectory.from_config(alembic_config(settings)).get_current_head()
    url = make_url(settings.database_url)
    if url.get_backend_name() == "sqlite" and url.database not in (None, "", ":memory:"):
        if not Path(url.database).exists():
            return None, head  # connecting would create the file
    engine = create_engine(url)  # plain: no WAL switch or folder creation, nothing written
    try:
        with engine.connect() as connection:
            current = MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()
    return current, head


def require_current(settings: Settings) -> None:
    """Raise DatabaseBehind, saying what to run, unless the database is at the newest migration."""
    current, head = revisions(settings)
    if current != head:
        where = make_url(settings.database_url).render_as_string(hide_password=True)
        state = f"at revision {current}" if current else "empty (no migrations applied)"
        raise DatabaseBehind(
            f"the database at {where} is {state}; this newsarchive needs revision {head}: run `newsarchive db upgrade`"
        )


# The tables an ingest grows. After an ingest, their planner statistics are gathered again (ANALYZE) when
# stale by autovacuum's own default rule (changed by more than 50 rows plus a tenth of the rows counted at
# the last analysis): all of them when the run itself stored that many articles, and any whose change
# counters say so (runs too small to count add up there). The ingester does not rely on autovacuum, which
# may be off or behind after a bulk load: with the statistics of an empty table, PostgreSQL planned the hit
# page's places lookup at 1,000,000 articles as a parallel hash join, 10 ms instead of 0.2 ms
# (BENCHMARKS.md, "The two search backends").
GROWN_TABLES = ("articles", "article_places", "captions", "places", "sources", "story_keys")
_TABLES = text(
    """
    SELECT c.relname, greatest(c.reltuples, 0), coalesce(s.n_mod_since_analyze, 0) FROM pg_class c
    LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
    WHERE c.relname IN :tables AND c.relnamespace = 'public'::regnamespace AND c.relkind = 'r'
    """
).bindparams(bindparam("tables", expanding=True))


def _stale(changed: float, counted: float) -> bool:
    return changed > 50 + 0.1 * counted


def refresh_statistics(engine: Engine, stored_articles: int = 0) -> list[str]:
    """ANALYZE the grown tables whose planner statistics are stale after a run that stored
    `stored_articles` (PostgreSQL; SQLite plans without them here); returns their names."""
    if engine.dialect.name != "postgresql":
        return []
    with engine.connect() as conn:
        rows = {
            name: (counted, changed) for name, counted, changed in conn.execute(_TABLES, {"tables": list(GROWN_TABLES)})
        }
    if "articles" not in rows:
        return []
    everything = _stale(stored_articles, rows["articles"][0])
    stale = [name for name, (counted, changed) in rows.items() if everything or _stale(changed, counted)]
    if stale:
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            for table in sorted(stale):  # names from GROWN_TABLES only, never from input
                conn.execute(text(f'ANALYZE "{table}"'))
    return sorted(stale)
