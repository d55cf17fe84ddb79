"""Fixtures over a real database and a real Whoosh index under tmp_path; no mocks of our own storage.

Every test that uses the `settings` fixture runs twice: on a SQLite file, and on its own fresh
PostgreSQL database (created before the test, dropped after). The search-conformance modules (see
tests/backends.py) add a third: PostgreSQL with the index kept in it (NEWSARCHIVE_SEARCH_BACKEND=postgres,
backend name `pgsearch`). PostgreSQL comes from
NEWSARCHIVE_TEST_POSTGRES (default: the local server, trust auth); when it cannot be reached those
runs are skipped, unless NEWSARCHIVE_REQUIRE_POSTGRES is set (as in CI), which makes them fail.
NEWSARCHIVE_TEST_BACKENDS=sqlite (or postgresql) runs one backend only.

Archives that tests only read are built once per module and backend (`shared_migrated`, `shared_sample`
behind `app` and `client`, the research archive) and checked unchanged when the module ends; a test that
writes takes its own (`sample_archive`, `own_app`, `own_client`). `make test` runs the suite with
pytest-xdist, one process per core; randomised tests print their seed (`seeded`).
"""

from __future__ import annotations

import json
import os
import random
import time
import uuid
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Iterator, Optional

import psycopg
import pytest
from sqlalchemy import func, select
from sqlalchemy.engine import make_url

from ingest.pipeline import Ingester
from store.db import make_engine, make_sessionmaker, upgrade
from store.models import Base
from store.pgindex import open_index
from store.settings import Settings
from webapp import create_app

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"
SEED_FILE = SEEDS / "000_17250181ba4e98be.txt"
CORPUS = Path(os.environ.get("NEWSARCHIVE_CORPUS") or ROOT.parent / "shared" / "corpus")
POSTGRES_ADMIN_URL = os.environ.get("NEWSARCHIVE_TEST_POSTGRES") or "postgresql+psycopg://postgres@127.0.0.1:5432/test"
# How much of each sampled test runs (killed ingesters, generated requests and query trees): `make test` on a
# machine runs half (NEWSARCHIVE_TEST_SCALE=0.5, its default) to stay quick; `.ci/run` runs all of it (1).
SCALE = float(os.environ.get("NEWSARCHIVE_TEST_SCALE") or 0.5)


def scaled(count: int) -> int:
    """`count` samples at the suite's SCALE (at least one)."""
    return max(1, round(count * SCALE))


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


# The search backend of each test database made by `database("pgsearch")`, for make_settings.
SEARCH_BACKEND_OF: dict[str, str] = {}


@contextmanager
def database(backend: str) -> Iterator[Optional[str]]:
    """A fresh empty database for one test: None means the default SQLite file under the archive home.
    `pgsearch` is PostgreSQL whose settings (make_settings) keep the search index in it."""
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
    url = admin.set(database=name).render_as_string(hide_password=False)
    if backend == "pgsearch":
        SEARCH_BACKEND_OF[url] = "postgres"
    try:
        yield url
    finally:
        SEARCH_BACKEND_OF.pop(url, None)
        with psycopg.connect(_libpq(admin), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def wait_for(condition, timeout: float = 30.0, every: float = 0.02) -> bool:
    """Poll `condition` until it holds, for at most `timeout` seconds; whether it came to hold."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(every)
    return False


def make_settings(home: Path, database_url: Optional[str], **overrides) -> Settings:
    if database_url:
        overrides["database_url"] = database_url
        overrides.setdefault("search_backend", SEARCH_BACKEND_OF.get(database_url, "whoosh"))
    return Settings.from_env({}, home=home, **overrides)


def cli_env(settings: Settings, **extra: str) -> dict[str, str]:
    """The environment that points the `newsarchive` command at this test's archive."""
    # Ingest at the test's own priority: a CliRunner ingest runs in the test process itself, and a lowered
    # one would slow the suite's ingest subprocesses beside the other worker (tests/test_cli.py checks it).
    extra.setdefault("NEWSARCHIVE_INGEST_NICE", "0")
    return dict(
        os.environ,
        NEWSARCHIVE_HOME=str(settings.home),
        NEWSARCHIVE_DATABASE_URL=settings.database_url,
        NEWSARCHIVE_SEARCH_BACKEND=settings.search_backend,
        NEWSARCHIVE_INBOX=str(settings.inbox),
        NEWSARCHIVE_ARCHIVE_DIR=str(settings.archive_dir),
        **extra,
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


# The slowest process-level tests (killed ingesters) run on every backend in CI (SCALE 1) and on the first
# one in `make test`; a module opts in by overriding `database_url` with `sampled_database_url`.
SAMPLED_BACKENDS = BACKENDS if SCALE >= 1 else BACKENDS[:1]


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


def ingest_into(settings: Settings, paths, expected: Optional[int] = None):
    """Ingest `paths` into the archive (one worker); with `expected`, check that many articles were stored."""
    with Ingester(settings, workers=1) as ingester:
        summary = ingester.run([Path(p) for p in paths])
    if expected is not None:
        assert summary.ingested == expected, summary.as_dict()
    return summary


@contextmanager
def served(settings: Settings) -> Iterator:
    """The Flask app over an archive, in testing mode, closed afterwards."""
    app = create_app(settings)
    app.config.update(TESTING=True)
    try:
        yield app
    finally:
        app.extensions["newsarchive"].close()


def fingerprint(settings: Settings) -> dict[str, int]:
    """The number of rows in every table and of documents in the index: what a read-only test leaves alone."""
    engine = make_engine(settings)
    try:
        with engine.connect() as connection:
            rows = {
                table.name: connection.scalar(select(func.count()).select_from(table))
                for table in Base.metadata.sorted_tables
                if not table.name.startswith("search_index_")  # the index's own files: counted by documents below
            }
    finally:
        engine.dispose()
    rows["index documents"] = open_index(settings).doc_count()
    return rows


@contextmanager
def shared_read_only(settings: Settings) -> Iterator[Settings]:
    """An archive the tests of a module share: it must be the same when the module ends as when it began,
    so a test that writes cannot pass by leaning on, or leaving changes for, another test."""
    before = fingerprint(settings)
    yield settings
    assert fingerprint(settings) == before, "a test changed an archive its module shares: give it its own"


@pytest.fixture(scope="module", params=BACKENDS)
def shared_migrated(request, tmp_path_factory) -> Iterator[Settings]:
    """An empty migrated archive for one module's tests to fill once and then only read (each backend)."""
    with database(request.param) as url:
        settings = make_settings(tmp_path_factory.mktemp("shared") / "home", url)
        upgrade(settings)
        yield settings


def write_sample(folder: Path) -> list[Path]:
    """The files of the sample archive: the seed and SAMPLE_STORIES."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "stories.json").write_text(json.dumps(SAMPLE_STORIES))
    return [SEED_FILE, folder]


@pytest.fixture
def sample_archive(migrated, tmp_path) -> Settings:
    """A test's own archive holding the seed and SAMPLE_STORIES, ingested and indexed: for tests that change it."""
    ingest_into(migrated, write_sample(tmp_path / "sample"), expected=1 + len(SAMPLE_STORIES))
    return migrated


@pytest.fixture
def own_app(sample_archive):
    with served(sample_archive) as app:
        yield app


@pytest.fixture
def own_client(own_app):
    return own_app.test_client()


@pytest.fixture(scope="module")
def shared_sample(shared_migrated, tmp_path_factory):
    """The sample archive, built once per module and backend, served to tests that only read it."""
    files = write_sample(tmp_path_factory.mktemp("sample"))
    ingest_into(shared_migrated, files, expected=1 + len(SAMPLE_STORIES))
    with shared_read_only(shared_migrated), served(shared_migrated) as app:
        yield app


@pytest.fixture
def app(shared_sample):
    """The app over the shared sample archive (read only: a test that writes uses own_app)."""
    return shared_sample


@pytest.fixture
def client(shared_sample):
    """A fresh test client (no cookies) over the shared sample archive (read only: writers use own_client)."""
    return shared_sample.test_client()
