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


# A small archive written for the tests: the seed plus stories with known sources, places, dates and credits.
SAMPLE_STORIES = [
    {"headline": "Refugee camp in Turkey grows as winter nears", "date": "2014-11-03", "source": "Reuters",
     "body": "SURUC, Turkey (Reuters) - The camp near the Syrian border took in 2,000 more refugees this week.\n\n"
             "Aid workers said tents were running short before winter.",
     "images": [{"caption": "Children queue for blankets at the camp.", "credit": "Reuters/Murad Sezer"}]},
    {"headline": "Oil prices fall on supply worries", "date": "2015-03-10", "source": "Reuters",
     "body": "LONDON (Reuters) - Oil prices fell on Tuesday as traders worried about rising supply.\n\n"
             "Brent crude slipped 2 percent in London trading."},
    {"headline": "Kurdish fighters hold Kobani after months of siege", "date": "2015-02-02",
     "source": "The Associated Press",
     "body": "BEIRUT (AP) — Kurdish fighters said they held Kobani on Monday after a siege of four months.\n\n"
             "Activists in Syria said the fighting had moved to nearby villages."},
    {"headline": "Markets in Tokyo close higher", "date": "2013-07-01", "source": "Kyodo",
     "body": "TOKYO — Shares in Tokyo closed higher on Monday, led by exporters, as the yen weakened against the dollar."},
    {"headline": "Undated notes on the harbour", "body": "The harbour master kept notes on every ship that came in."},
]


@pytest.fixture
def sample_archive(migrated, tmp_path):
    """An archive holding the seed and SAMPLE_STORIES, ingested and indexed."""
    import json

    folder = tmp_path / "sample"
    folder.mkdir()
    (folder / "stories.json").write_text(json.dumps(SAMPLE_STORIES))
    with Ingester(migrated, workers=1) as ingester:
        summary = ingester.run([SEED_FILE, folder])
    assert summary.ingested == 1 + len(SAMPLE_STORIES), summary.as_dict()
    return migrated


@pytest.fixture
def app(sample_archive):
    from webapp import create_app

    app = create_app(sample_archive)
    app.config.update(TESTING=True)
    yield app
    app.extensions["newsarchive"].close()


@pytest.fixture
def client(app):
    return app.test_client()
