"""The search backends' conformance matrix: modules that import these fixtures run on SQLite, on PostgreSQL,
and on PostgreSQL with the search index kept in it (`pgsearch`: NEWSARCHIVE_SEARCH_BACKEND=postgres), so
every answer they check is checked on both search backends.

`.ci/run` (NEWSARCHIVE_TEST_SCALE=1) runs every conformance module on all three; `make test`, to stay
within its time, runs the modules of its sample (`sampled_database_url`, `sampled_shared_migrated`) on
SQLite and `pgsearch` (PostgreSQL storage included) and the rest on SQLite and PostgreSQL only.
"""

from __future__ import annotations

from typing import Iterator, Optional

import pytest

from store.db import upgrade

from .conftest import BACKENDS, SCALE, database, make_settings

CONFORMANCE = BACKENDS + (["pgsearch"] if "postgresql" in BACKENDS else [])
# In `make test`, the sampled modules run on SQLite and on PostgreSQL with the index kept in it (which
# stores in PostgreSQL too), and the modules outside the sample as before (SQLite and PostgreSQL storage).
SAMPLE = CONFORMANCE if SCALE >= 1 else ["pgsearch" if b == "postgresql" else b for b in BACKENDS]
OUTSIDE_SAMPLE = CONFORMANCE if SCALE >= 1 else BACKENDS


@pytest.fixture(name="database_url", params=SAMPLE)
def sampled_database_url(request) -> Iterator[Optional[str]]:
    with database(request.param) as url:
        yield url


@pytest.fixture(name="database_url", params=OUTSIDE_SAMPLE)
def conformance_database_url(request) -> Iterator[Optional[str]]:
    with database(request.param) as url:
        yield url


def _shared(request, tmp_path_factory):
    with database(request.param) as url:
        settings = make_settings(tmp_path_factory.mktemp("shared") / "home", url)
        upgrade(settings)
        yield settings


@pytest.fixture(name="shared_migrated", scope="module", params=SAMPLE)
def sampled_shared_migrated(request, tmp_path_factory):
    """An empty migrated archive for one module's tests to fill once and then only read (each backend)."""
    yield from _shared(request, tmp_path_factory)


@pytest.fixture(name="shared_migrated", scope="module", params=OUTSIDE_SAMPLE)
def conformance_shared_migrated(request, tmp_path_factory):
    yield from _shared(request, tmp_path_factory)
