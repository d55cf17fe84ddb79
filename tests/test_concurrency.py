"""Searching while another process ingests or reindexes: every request answered, none lost."""

import json
import random
import subprocess
import sys
import threading

import pytest

from ingest.pipeline import Ingester
from store.db import upgrade
from webapp import create_app

from .conftest import ROOT, SCALE, SEED_FILE, cli_env, make_settings, scaled, wait_for

WORDS = (
    "market harbour election storm river council bank school rail energy court budget strike port "
    "factory museum festival drought vaccine bridge satellite tariff merger ferry reactor"
).split()

pytestmark = pytest.mark.slow


def synthetic_feed(path, count, seed=1):
    rng = random.Random(seed)
    with open(path, "w") as f:
        for i in range(count):
            words = [rng.choice(WORDS) for _ in range(120)]
            f.write(
                json.dumps(
                    {
                        "title": f"Story {i} about the {rng.choice(WORDS)}",
                        "date": f"20{10 + i % 10}-0{1 + i % 9}-1{i % 10}",
                        "body": " ".join(words) + ".",
                    }
                )
                + "\n"
            )


def command(settings, *args):
    env = cli_env(settings, NEWSARCHIVE_INGEST_WORKERS="1")
    return subprocess.Popen(
        [sys.executable, "-m", "webapp.cli", *args],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def hammer(client, stop, answers, errors, params):
    while not stop.is_set():
        response = client.get("/api/search", query_string=params)
        if response.status_code != 200:
            errors.append((response.status_code, response.get_data(as_text=True)[:300]))
        else:
            answers.append(response.get_json()["total"])


@pytest.fixture
def settings(tmp_path, database_url):
    settings = make_settings(tmp_path / "home", database_url)
    upgrade(settings)
    with Ingester(settings, workers=1) as ingester:
        ingester.run([SEED_FILE])
    return settings


def test_searches_are_answered_while_another_process_ingests(settings, tmp_path):

    feed = tmp_path / "feed.jsonl"
    count = scaled(3000)  # 3,000 in CI, 1,500 in `make test`
    synthetic_feed(feed, count)
    app = create_app(settings)
    stop, answers, errors = threading.Event(), [], []
    threads = [
        threading.Thread(target=hammer, args=(app.test_client(), stop, answers, errors, {"q": "harbour OR kobani"}))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    try:
        ingest = command(settings, "ingest", str(feed), "--json")
        out, err = ingest.communicate(timeout=300)
        assert ingest.returncode == 0, err
        assert wait_for(lambda: answers and answers[-1] > count - 100), answers[-5:]  # a search saw the ingest land
    finally:
        stop.set()
        for t in threads:
            t.join()
    final = app.test_client().get("/api/search?q=harbour+OR+kobani").get_json()["total"]
    app.extensions["newsarchive"].close()
    assert errors == []
    assert json.loads(out)["ingested"] == count
    assert len(answers) > 20
    assert answers[0] == 1 and final > count - 100 and answers[-1] == final  # searches saw the ingest land


def test_reindex_while_searching_loses_no_request(settings, tmp_path):
    if settings.database_url.startswith("postgresql") and SCALE < 1:
        pytest.skip("on PostgreSQL in .ci/run (NEWSARCHIVE_TEST_SCALE=1): make test runs it on SQLite")

    feed = tmp_path / "feed.jsonl"
    synthetic_feed(feed, 2000, seed=2)
    with Ingester(settings, workers=1) as ingester:
        ingester.run([feed])
    app = create_app(settings)
    stop, answers, errors = threading.Event(), [], []
    threads = [
        threading.Thread(target=hammer, args=(app.test_client(), stop, answers, errors, {"q": "market", "per_page": 5}))
        for _ in range(4)
    ]
    for t in threads:
        t.start()
    try:
        before = len(answers)
        reindex = command(settings, "reindex")
        out, err = reindex.communicate(timeout=300)
        assert reindex.returncode == 0, err
        after = len(answers)
        assert wait_for(lambda: len(answers) > after + 10)  # searches go on after the swap too
        during = after - before
    finally:
        stop.set()
        for t in threads:
            t.join()
    app.extensions["newsarchive"].close()
    assert errors == []
    assert during > 10
    assert len(set(answers)) == 1  # every answer counted the same articles, before, during and after the swap
    generations = [p for p in (settings.index_dir).iterdir() if p.name.startswith("gen-")]
    assert len(generations) <= 2
