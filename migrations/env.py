"""Alembic environment: the URL comes from the archive's settings, the target is `ingest.models.Base.metadata`."""

from alembic import context

from store.db import make_engine
from store.models import Base
from store.settings import Settings

config = context.config
target_metadata = Base.metadata


def _settings() -> Settings:
    settings = config.attributes.get("settings")
    if settings is None:  # run by the `alembic` command line: take the environment's settings
        settings = Settings.from_env()
    return settings


def run_migrations_offline() -> None:
    context.configure(
        url=_settings().database_url,
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def _run(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = make_engine(_settings(), writer=True)
    try:
        with engine.connect() as connection:
            _run(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
