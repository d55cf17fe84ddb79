import pytest
from alembic import command
from sqlalchemy import inspect

from store.db import alembic_config, make_engine, upgrade


def test_upgrade_head_on_an_empty_database_matches_the_models(settings):
    upgrade(settings)
    # `alembic check` fails when the models and the migrated schema differ.
    command.check(alembic_config(settings))
    tables = set(inspect(make_engine(settings)).get_table_names())
    assert {"articles", "captions", "sources", "places", "article_places", "ingest_files"} <= tables


def test_upgrade_twice_is_harmless(settings):
    upgrade(settings)
    upgrade(settings)


def test_sqlite_runs_in_wal_mode(migrated):
    if not migrated.database_url.startswith("sqlite"):
        pytest.skip("a SQLite setting")
    engine = make_engine(migrated)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
