"""Fixtures over a real SQLite file and a real Whoosh index under tmp_path; no mocks of our own storage."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ingest.db import make_engine, make_sessionmaker, upgrade
from ingest.pipeline import Ingester
from ingest.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
SEEDS = ROOT / "seeds"
SEED_FILE = SEEDS / "000_17250181ba4e98be.txt"
CORPUS = Path(os.environ.get("NEWSARCHIVE_CORPUS") or ROOT.parent / "shared" / "corpus")


def pytest_collection_modifyitems(config, items):
    if CORPUS.is_dir():
        return
    skip = pytest.mark.skip(reason=f"corpus not found at {CORPUS} (set NEWSARCHIVE_CORPUS)")
    for item in items:
        if "corpus" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def settings(tmp_path) -> Settings:
    """Settings for an archive under tmp_path, ignoring the caller's NEWSARCHIVE_* variables."""
    return Settings.from_env({}, home=tmp_path / "home")


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
