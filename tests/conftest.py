"""Fixtures over a real database and a real Whoosh index under tmp_path; no mocks of our own storage.

Every test that uses the `settings` fixture runs twice: on a SQLite file, and on its own fresh
PostgreSQL database (created before the test, dropped after). PostgreSQL comes from
NEWSARCHIVE_TEST_POSTGRES (default: the local server, trust auth); when it cannot be reached those
runs are skipped, unless NEWSARCHIVE_REQUIRE_POSTGRES is set (as in CI), which makes them fail.
NEWSARCHIVE_TEST_BACKENDS=sqlite (or postgresql) runs one backend only.
"""

from __future__ import annotations

import json
import os
import random
import uuid
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Iterator, Optional

import psycopg
import pytest
from sqlalchemy.engine import make_url

from ingest.pipeline import Ingester
from store.db import make_engine, make_sessionmaker, upgrade
from store.settings import Settings
from webapp import create_app

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"
SEED_FILE = SEEDS / "000_17250181ba4e98be.txt"
CORPUS = Path(os.environ.get("NEWSARCHIVE_CORPUS") or ROOT.parent / "shared" / "corpus")
POSTGRES_ADMIN_URL = os.environ.get("NEWSARCHIVE_TEST_POSTGRES") or "postgresql+psycopg://postgres@127.0.0.1:5432/test"
BACKENDS = [
    b.strip() for b in (os.environ.get("NEWSARCHIVE_TEST_BACKENDS") or "sqlite,postgresql").split(",") if b.strip()
]


@lru_cache(maxsize=1)
def postgres_problem() -> Optional[str]:
    """None when the test PostgreSQL server answers, else why not."""

    url = make_url(POSTGRES_ADMIN_URL)
    try:
        psycopg.connect(_libpq(url), connect_timeout=3).close()
    except Exception as exc:
        return f"PostgreSQL at {url.render_as_string(hide_password=True)} is unreachable: {exc}".strip()
    return None


def _libpq(url) -> str:
    parts = {"host": url.host, "port": url.port, "user": url.username, "password": url.password, "dbname": url.database}
    return " ".join(f"{k}={v}" for k, v in parts.items() if v not in (None, ""))


@contextmanager
def database(backend: str) -> Iterator[Optional[str]]:
    """A fresh empty database for one test: None means the default SQLite file under the archive home."""
    if backend == "sqlite":
        yield None
        return
    problem = postgres_problem()
    if problem:
        if os.environ.get("NEWSARCHIVE_REQUIRE_POSTGRES"):
            pytest.fail(problem)
        pytest.skip(problem)

    admin = make_url(POSTGRES_ADMIN_URL)
    name = f"newsarchive_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(_libpq(admin), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield admin.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(_libpq(admin), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def make_settings(home: Path, database_url: Optional[str], **overrides) -> Settings:
    if database_url:
        overrides["database_url"] = database_url
    return Settings.from_env({}, home=home, **overrides)


def cli_env(settings: Settings, **extra: str) -> dict[str, str]:
    """The environment that points the `newsarchive` command at this test's archive."""
    return dict(
        os.environ, NEWSARCHIVE_HOME=str(settings.home), NEWSARCHIVE_DATABASE_URL=settings.database_url, **extra
    )


def pytest_collection_modifyitems(config, items):
    if CORPUS.is_dir():
        return
    skip = pytest.mark.skip(reason=f"corpus not found at {CORPUS} (set NEWSARCHIVE_CORPUS)")
    for item in items:
        if "corpus" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def seeded(request) -> random.Random:
    """A random generator for a randomised test, its seed printed (shown when the test fails) and taken from
    NEWSARCHIVE_TEST_SEED when set, to replay a failure: `NEWSARCHIVE_TEST_SEED=123 pytest -k name`."""
    seed = int(os.environ.get("NEWSARCHIVE_TEST_SEED") or random.SystemRandom().randrange(2**32))
    print(f"{request.node.nodeid}: seed {seed} (replay with NEWSARCHIVE_TEST_SEED={seed})")
    return random.Random(seed)


@pytest.fixture(params=BACKENDS)
def database_url(request) -> Iterator[Optional[str]]:
    with database(request.param) as url:
        yield url


@pytest.fixture
def settings(tmp_path, database_url) -> Settings:
    """Settings for an archive under tmp_path, ignoring the caller's NEWSARCHIVE_* variables."""
    return make_settings(tmp_path / "home", database_url)


@pytest.fixture
def migrated(settings) -> Settings:
    upgrade(settings)
    return settings


@pytest.fixture
def ingester(migrated):
    with Ingester(migrated, workers=1) as ing:
        yield ing


@pytest.fixture
def sessions(migrated):
    engine = make_engine(migrated)
    yield make_sessionmaker(engine)
    engine.dispose()


@pytest.fixture
def inbox(migrated) -> Path:
    migrated.ensure_dirs()
    return migrated.inbox


# A small archive written for the tests: the seed plus stories with known sources, places, dates and credits.
SAMPLE_STORIES = [
    {
        "headline": "Refugee camp in Turkey grows as winter nears",
        "date": "2014-11-03",
        "source": "Reuters",
        "body": "SURUC, Turkey (Reuters) - The camp near the Syrian border took in 2,000 more refugees this week.\n\n"
        "Aid workers said tents were running short before winter.",
        "images": [{"caption": "Children queue for blankets at the camp.", "credit": "Reuters/Murad Sezer"}],
    },
    {
        "headline": "Oil prices fall on supply worries",
        "date": "2015-03-10",
        "source": "Reuters",
        "body": "LONDON (Reuters) - Oil prices fell on Tuesday as traders worried about rising supply.\n\n"
        "Brent crude slipped 2 percent in London trading.",
    },
    {
        "headline": "Kurdish fighters hold Kobani after months of siege",
        "date": "2015-02-02",
        "source": "The Associated Press",
        "body": "BEIRUT (AP) — Kurdish fighters said they held Kobani on Monday after a siege of four months.\n\n"
        "Activists in Syria said the fighting had moved to nearby villages.",
    },
    {
        "headline": "Markets in Tokyo close higher",
        "date": "2013-07-01",
        "source": "Kyodo",
        "body": "TOKYO — Shares in Tokyo closed higher on Monday, led by exporters, as the yen weakened against the dollar.",
    },
    {"headline": "Undated notes on the harbour", "body": "The harbour master kept notes on every ship that came in."},
]


@pytest.fixture
def sample_archive(migrated, tmp_path):
    """An archive holding the seed and SAMPLE_STORIES, ingested and indexed."""

    folder = tmp_path / "sample"
    folder.mkdir()
    (folder / "stories.json").write_text(json.dumps(SAMPLE_STORIES))
    with Ingester(migrated, workers=1) as ingester:
        summary = ingester.run([SEED_FILE, folder])
    assert summary.ingested == 1 + len(SAMPLE_STORIES), summary.as_dict()
    return migrated


@pytest.fixture
def app(sample_archive):

    app = create_app(sample_archive)
    app.config.update(TESTING=True)
    yield app
    app.extensions["newsarchive"].close()


@pytest.fixture
def client(app):
    return app.test_client()
