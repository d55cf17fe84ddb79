"""The two search backends give the same answers: one multi-version archive is ingested the same way into
a SQLite archive with its Whoosh folder and into a PostgreSQL archive keeping its index in the database
(NEWSARCHIVE_SEARCH_BACKEND=postgres), and generated requests (words, pairs, pasted headlines, questions,
phrases, operators, fields, wildcards, misspellings, facets, dates, sorts, pages, collapsed or not) must
get the same totals, facet counts, histograms, corrections and notices, and the same hits in the same
order (scores equal but for float noise)."""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import subprocess
import sys

import pytest

from ingest.pipeline import Ingester
from store.db import upgrade

from .builders import FIRST, OTHER_OUTLET, SAME_DAY_OTHER_STORY, UNDATED, WEEKS_LATER, WRITE_THROUGH, stories
from .conftest import SAMPLE_STORIES, SEED_FILE, cli_env, database, make_settings, postgres_problem, scaled, served

# The files of each ingest run, in order: every run is a commit (or several) of each backend's index, and
# later versions of the steelmaker story replace earlier ones (deleted documents in older segments).
RUNS = [
    {"generated.json": stories()},
    {"sample.json": SAMPLE_STORIES, "first.json": [FIRST]},
    {"through.json": [WRITE_THROUGH, SAME_DAY_OTHER_STORY]},
    {"later.json": [OTHER_OUTLET, WEEKS_LATER, UNDATED]},
]


def _build(settings, folder) -> None:
    upgrade(settings)
    for n, files in enumerate(RUNS):
        run = folder / f"run{n}"
        run.mkdir(parents=True)
        for name, items in files.items():
            (run / name).write_text(json.dumps(items), encoding="utf-8")
        if n == 0:
            shutil.copy(SEED_FILE, run / SEED_FILE.name)
        with Ingester(settings, workers=1) as ingester:
            summary = ingester.run([run])
        assert not summary.failed, summary.as_dict()


@pytest.fixture(scope="module")
def apps(tmp_path_factory):
    if postgres_problem():
        pytest.skip(postgres_problem())
    root = tmp_path_factory.mktemp("backends")
    whoosh_settings = make_settings(root / "whoosh", None)
    _build(whoosh_settings, root / "whoosh-files")
    with database("pgsearch") as url:
        pg_settings = make_settings(root / "postgres", url)
        assert pg_settings.search_backend == "postgres"
        _build(pg_settings, root / "postgres-files")
        with served(whoosh_settings) as whoosh_app, served(pg_settings) as pg_app:
            yield whoosh_app, pg_app


def _vocabulary() -> tuple[list[str], list[str]]:
    texts = [s["headline"] + " " + s["body"] for s in stories() + SAMPLE_STORIES]
    texts += [s["headline"] + " " + s["body"] for s in (FIRST, WRITE_THROUGH, OTHER_OUTLET)]
    texts.append(SEED_FILE.read_text(encoding="utf-8"))
    words = sorted({w for t in texts for w in re.findall(r"[^\W\d_]{3,}", t)})
    headlines = [s["headline"] for s in stories()[:20] + SAMPLE_STORIES] + [FIRST["headline"]]
    return words, headlines


def random_request(rng: random.Random, words: list[str], headlines: list[str]) -> dict:
    kind = rng.choice(["word", "pair", "words", "pasted", "question", "phrase", "ops", "field", "wild", "typo", "none"])
    w = lambda: rng.choice(words)  # noqa: E731
    q = {
        "word": lambda: w(),
        "pair": lambda: f"{w()} {w()}",
        "words": lambda: " ".join(w() for _ in range(rng.randint(3, 6))),
        "pasted": lambda: rng.choice(headlines),
        "question": lambda: f"what did {w()} say about {w().lower()}?",
        "phrase": lambda: f'"{" ".join(rng.choice(headlines).split()[:3])}"',
        "ops": lambda: rng.choice([f"{w()} OR {w()}", f"{w()} AND NOT {w()}", f"{w()} -{w()}", f"+{w()} {w()}"]),
        "field": lambda: rng.choice([f"headline:{w()}", f"caption:{w()}", "byline:curtin", "place:nairobi"]),
        "wild": lambda: f"{w()[:3]}*",
        "typo": lambda: (lambda x: x[:2] + x[3:])(w().lower()),
        "none": lambda: "",
    }[kind]()
    params = {
        "q": q,
        "sort": rng.choice(["relevance", "relevance", "newest", "oldest"]),
        "per_page": rng.choice([5, 10, 20]),
        "page": rng.choice([1, 1, 2]),
    }
    if rng.random() < 0.3:
        params["source"] = rng.choice(["Reuters", "BBC News", "The Associated Press"])
    if rng.random() < 0.15:
        params["not_source"] = "Reuters"
    if rng.random() < 0.2:
        params["language"] = rng.choice(["en", "fr", "de"])
    if rng.random() < 0.2:
        params["from"] = f"{rng.randint(2004, 2016)}-01-01"
    if rng.random() < 0.3:
        params["collapse"] = rng.choice(["true", "false"])
    return params


def test_generated_requests_answer_the_same_on_both_backends(apps, seeded):
    whoosh_app, pg_app = apps
    words, headlines = _vocabulary()
    ours, theirs = whoosh_app.test_client(), pg_app.test_client()
    kinds = {"hits": 0, "relaxed": 0, "suggested": 0}
    for _ in range(scaled(300)):
        params = random_request(seeded, words, headlines)
        a = ours.get("/api/search", query_string=params)
        b = theirs.get("/api/search", query_string=params)
        context = f"request {params}"
        assert a.status_code == b.status_code, context
        a, b = a.get_json(), b.get_json()
        if "hits" not in a:
            assert a == b, context
            continue
        for key in ("total", "match", "suggestion", "corrected", "notices", "facets", "histogram"):
            assert a.get(key) == b.get(key), f"{context}: {key}"
        # The same hits in the same order (ties go by article id, not by how either index laid out its
        # segments), with the same scores but for float noise.
        assert [h["id"] for h in a["hits"]] == [h["id"] for h in b["hits"]], context
        for x, y in zip(a["hits"], b["hits"], strict=True):
            assert math.isclose(x["score"], y["score"], rel_tol=1e-6, abs_tol=1e-4), context
        kinds["hits"] += bool(a["hits"])
        kinds["relaxed"] += a["match"] == "most"
        kinds["suggested"] += a.get("suggestion") is not None
    # The comparison saw answers of every kind, not only empty ones.
    assert kinds["hits"] > scaled(150) and kinds["relaxed"] > 0 and kinds["suggested"] > 0, kinds


def test_article_pages_related_and_exports_are_the_same_on_both_backends(apps):
    whoosh_app, pg_app = apps
    ours, theirs = whoosh_app.test_client(), pg_app.test_client()
    listing = ours.get("/api/search", query_string={"per_page": 100}).get_json()
    assert listing["total"] == theirs.get("/api/search", query_string={"per_page": 100}).get_json()["total"]
    for hit in listing["hits"][:40]:
        for url in (f"/api/articles/{hit['id']}", f"/api/articles/{hit['id']}/related"):
            assert _same_record(ours.get(url).get_json()) == _same_record(theirs.get(url).get_json()), url
    for q in ("steelmaker", "flood report", ""):
        a = ours.get("/api/search.csv", query_string={"q": q}).get_data(as_text=True)
        b = theirs.get("/api/search.csv", query_string={"q": q}).get_data(as_text=True)
        assert a == b and a.count("\n") > 1, q


def _same_record(record: dict) -> dict:
    """A record without what differs between two archives of the same files: when and from where."""
    return {k: v for k, v in record.items() if k not in ("ingested_at", "original_file")}


def test_ingesters_on_two_machines_share_the_index_in_the_database(tmp_path):
    """Two ingesters with homes of their own (as on two machines) write one PostgreSQL archive at once:
    they take turns at the index, every article is indexed once, and a web server on either machine (and a
    third with no copy yet) finds every article."""
    if postgres_problem():
        pytest.skip(postgres_problem())
    with database("pgsearch") as url:
        machines = [make_settings(tmp_path / name, url) for name in ("one", "two", "three")]
        upgrade(machines[0])
        processes = []
        for n, settings in enumerate(machines[:2]):
            folder = tmp_path / f"feed{n}"
            folder.mkdir()
            for part in range(6):
                records = [
                    {
                        "headline": f"Machine {n} dispatch {part}-{i}",
                        "date": f"2011-0{part + 1}-1{i % 9}",
                        "body": f"Dispatch {n}-{part}-{i} reports the harbour of town{n}x{part}x{i} reopened.",
                    }
                    for i in range(20)
                ]
                (folder / f"part{part}.json").write_text(json.dumps(records), encoding="utf-8")
            processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "webapp.cli", "ingest", str(folder)],
                    env=cli_env(settings),
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                )
            )
        for process in processes:
            out, err = process.communicate(timeout=300)
            assert process.returncode == 0, err.decode()
        for settings in machines:
            with served(settings) as app:
                client = app.test_client()
                answer = client.get(
                    "/api/search", query_string={"q": "dispatch", "per_page": 1, "collapse": "false"}
                ).get_json()
                assert answer["total"] == 240
                for n in range(2):
                    found = client.get("/api/search", query_string={"q": f"town{n}x5x19"}).get_json()
                    assert [h["headline"] for h in found["hits"]] == [f"Machine {n} dispatch 5-19"]
                health = client.get("/healthz").get_json()
                assert health["articles"] == health["index_documents"] == 240
