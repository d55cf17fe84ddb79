import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text

from store.db import alembic_config, make_engine, revisions, upgrade
from store.models import Base


def test_upgrade_head_on_an_empty_database_matches_the_models(settings):
    upgrade(settings)
    # `alembic check` fails when the models and the migrated schema differ.
    command.check(alembic_config(settings))
    tables = set(inspect(make_engine(settings)).get_table_names())
    assert {"articles", "captions", "sources", "places", "article_places", "ingest_files"} <= tables


def test_upgrade_twice_keeps_the_data_and_stays_at_head(settings):
    upgrade(settings)
    engine = make_engine(settings)
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO sources (name) VALUES ('Reuters')"))
    upgrade(settings)
    current, head = revisions(settings)
    assert current == head is not None
    with engine.connect() as connection:
        assert connection.execute(text("SELECT name FROM sources")).scalars().all() == ["Reuters"]
    engine.dispose()


def test_the_migrated_schema_is_the_models_schema(settings):
    upgrade(settings)
    engine = make_engine(settings)
    with engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    engine.dispose()
    assert differences == []


def test_sqlite_runs_in_wal_mode(migrated):
    if not migrated.database_url.startswith("sqlite"):
        pytest.skip("a SQLite setting")
    engine = make_engine(migrated)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"


def test_stored_language_tags_are_rewritten_in_one_form(settings):
    """Revision 0007: tags as each reader cut them ("pt-br", "EN_us", "iw") become one form; a value that
    is no tag becomes unknown."""
    command.upgrade(alembic_config(settings), "0006")
    engine = make_engine(settings)
    with engine.begin() as connection:
        for n, tag in enumerate(["pt-br", "EN_us", "iw", "de", "English", None]):
            connection.execute(
                text(
                    "INSERT INTO articles (headline, body, date_inferred, language, content_sha256, original_file, "
                    "ingested_at, indexed) VALUES ('h', 'b', false, :tag, :sha, 'f', '2026-12-05 00:00:00', false)"
                ),
                {"tag": tag, "sha": f"{n:064d}"},
            )
    upgrade(settings)
    with engine.connect() as connection:
        stored = connection.execute(text("SELECT language FROM articles ORDER BY id")).scalars().all()
    engine.dispose()
    assert stored == ["pt", "en", "he", "de", None, None]
