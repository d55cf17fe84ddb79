"""Crash safety: the ingester is killed (SIGKILL) at random points, again and again, over one inbox.

After every kill the archive answers searches, and everything the index finds is in SQL. The next run
picks up where the last left off. At the end every input file has been archived, counted as a duplicate
or quarantined exactly once, SQL and the index hold the same articles, no article is stored twice, and
searches count exactly what SQL holds.
"""

import gzip
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import time
import zipfile

import pytest
from sqlalchemy import func, select
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from search.index import ArchiveIndex
from search.request import SearchRequest
from store.db import make_engine, make_sessionmaker
from store.models import Article, IngestFile
from store.read import Archive

from .conftest import ROOT, SAMPLED_BACKENDS, cli_env, database, scaled

pytestmark = pytest.mark.slow
# Kills per run of the test (10 in CI, 5 in `make test`: see conftest.SCALE); NEWSARCHIVE_TEST_KILLS=100 for a
# longer soak. Each kill lands at a random point after the ingester has started (its imports take about a
# second), so each one cuts off real work.
KILLS = int(os.environ.get("NEWSARCHIVE_TEST_KILLS") or scaled(10))


@pytest.fixture(params=SAMPLED_BACKENDS)
def database_url(request):
    """Every backend in CI; the first (SQLite) alone in `make test`, where these are the slowest tests."""
    with database(request.param) as url:
        yield url


def fill_inbox(inbox, rng, round_no):
    """Text files, JSON Lines (plain and gzipped, parsed in worker processes), duplicates and junk."""
    r = f"r{round_no}-"
    expected_articles = 0
    for i in range(30):
        (inbox / f"{r}story-{i:02}.txt").write_text(
            f"Story {r}{i} headline\n\nParagraph one of story {r}{i} about the harbour.\n\n"
            f"Paragraph two of story {r}{i}.\n"
        )
        expected_articles += 1
    (inbox / f"{r}copy-of-story-03.txt").write_bytes((inbox / f"{r}story-03.txt").read_bytes())
    for f in range(scaled(30)):  # 12,000 articles a round in CI, 6,000 in `make test`
        lines = [
            json.dumps(
                {
                    "title": f"Feed {r}{f} item {n}",
                    "date": "2015-01-30",
                    "body": f"Item {n} of feed {r}{f}. "
                    + " ".join(rng.choice(["oil", "rail", "port", "bank"]) for _ in range(200)),
                }
            )
            for n in range(400)
        ]
        data = ("\n".join(lines) + "\n").encode()
        if f % 2:
            (inbox / f"{r}feed-{f}.jsonl.gz").write_bytes(gzip.compress(data))
        else:
            (inbox / f"{r}feed-{f}.jsonl").write_bytes(data)
        expected_articles += 400
    (inbox / f"{r}junk.bin").write_bytes(rng.randbytes(5000))
    (inbox / f"{r}broken.json").write_text('{"headline": "' + r + '", "body": ')
    return expected_articles


def run_ingest(settings, kill_after=None):
    process = subprocess.Popen(
        [sys.executable, "-m", "webapp.cli", "ingest", "--json"],
        env=cli_env(settings, NEWSARCHIVE_INGEST_WORKERS="2"),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    if kill_after is None:
        _, err = process.communicate(timeout=600)
        assert process.returncode == 0, err.decode(errors="replace")
        return False
    time.sleep(kill_after)
    if process.poll() is not None:
        process.communicate()
        return False
    os.killpg(process.pid, signal.SIGKILL)  # the ingester and its parser processes, mid-work
    process.wait()
    return True


def test_killed_ingesters_lose_nothing_and_double_nothing(migrated, inbox, seeded):
    rng = seeded

    expected_articles = 0
    originals = {}
    names = []
    rounds = 0
    kills = 0
    attempts = 0
    while kills < KILLS and attempts < 4 * KILLS:
        attempts += 1
        if not any(inbox.iterdir()):
            # A faster ingester (or machine) empties the inbox sooner: drop a fresh round of files, so the
            # number of kills that land mid-run does not depend on speed.
            expected_articles += fill_inbox(inbox, rng, rounds)
            rounds += 1
            originals.update({hashlib.sha256(p.read_bytes()).hexdigest(): p.name for p in inbox.iterdir()})
            names += [p.name for p in inbox.iterdir()]
        if run_ingest(migrated, kill_after=rng.uniform(1.0, 2.4)):
            kills += 1
            searches_agree_with_sql(migrated, exact=False)
    run_ingest(migrated)  # the last run goes to the end
    assert kills >= KILLS, f"only {kills} kills landed mid-run in {attempts} attempts"
    print(f"\n{kills} SIGKILLs landed mid-run in {attempts} attempts over {rounds} round(s) of files")
    names.sort()

    # Every input file is now in archive/ or failed/, exactly once, with its bytes intact.
    assert list(inbox.iterdir()) == []
    placed = [
        p
        for folder in (migrated.archive_dir, migrated.failed_dir)
        for p in folder.rglob("*")
        if p.is_file() and not p.name.endswith(".error.json")
    ]
    assert sorted(p.name for p in placed) == names
    assert {hashlib.sha256(p.read_bytes()).hexdigest() for p in placed} == set(originals)
    assert {p.name for p in migrated.failed_dir.iterdir() if not p.name.endswith(".error.json")} == {
        f"r{n}-{name}" for n in range(rounds) for name in ("junk.bin", "broken.json")
    }

    engine = make_engine(migrated)
    with make_sessionmaker(engine)() as s:
        rows = s.execute(select(IngestFile.path, IngestFile.status)).all()
        articles = s.scalar(select(func.count()).select_from(Article))
        pending = s.scalar(select(func.count()).select_from(Article).where(Article.indexed.is_(False)))
        distinct = s.scalar(select(func.count(func.distinct(Article.content_sha256))))
    engine.dispose()
    # One log row per file read: a killed run either committed its row or left nothing behind.
    assert sorted(os.path.basename(path) for path, _ in rows) == names
    statuses = dict((os.path.basename(p), st) for p, st in rows)
    for n in range(rounds):
        assert sorted([statuses[f"r{n}-copy-of-story-03.txt"], statuses[f"r{n}-story-03.txt"]]) == [
            "duplicate",
            "ingested",
        ]
    assert articles == distinct == expected_articles
    assert pending == 0
    index = ArchiveIndex(migrated.index_dir)
    assert index.doc_count() == articles
    assert sorted(int(i) for i in index.iter_ids()) == sorted(set(int(i) for i in index.iter_ids()))
    searches_agree_with_sql(migrated, exact=True)


def sql_ids(settings, word: str = "") -> set[int]:
    engine = make_engine(settings)
    with make_sessionmaker(engine)() as s:
        query = select(Article.id)
        if word:
            query = query.where(Article.body.contains(word))
        ids = set(s.scalars(query))
    engine.dispose()
    return ids


def searches_agree_with_sql(settings, exact: bool) -> None:
    """Searches answer (whatever a kill left behind, deleted index documents included), and every article
    the index finds is in SQL; with `exact`, the index finds exactly what SQL holds."""
    archive = Archive(settings)
    try:
        healthy, details = archive.health()
        assert healthy, details
        searcher = archive.searcher()
        for q, word in (("", ""), ("harbour", "harbour"), ("rail", "rail")):
            found = searcher.search(SearchRequest(q=q, per_page=100, collapse=False))
            ids = {int(doc_id) for doc_id, _ in found.page}
            in_sql = sql_ids(settings, word)
            assert ids <= in_sql, f"{q!r}: the index found articles SQL does not hold"
            assert found.total <= len(in_sql)
            if exact:
                assert found.total == len(in_sql), q
        assert archive.search(SearchRequest(q="story harbour", sort="newest"))["total"] >= 0
    finally:
        archive.close()


# The bad record in each big file: past the first slice of 200, before the end of the smallest file.
BAD_RECORD = 600


def big_file(fmt: str) -> tuple[str, bytes, int]:
    """(name, bytes, records with text) of a big file of one format, with one bad record in it."""
    body = "Record {n} of the slice test. " * 30
    if fmt == "jsonl":
        total = 3_000  # long enough to be cut off after the first slice of 200
        lines = [
            json.dumps({"title": f"Slice test {n}", "date": "2015-01-30", "body": body.format(n=n)})
            for n in range(total + 1)
        ]
        lines[BAD_RECORD] = "{broken"
        return "big.jsonl", ("\n".join(lines) + "\n").encode(), total
    if fmt == "zip":
        total = 3_000
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            for n in range(total + 1):
                text = (
                    b"\x00\x01\x02 not text" if n == BAD_RECORD else f"Slice test {n}\n\n{body.format(n=n)}\n".encode()
                )
                archive.writestr(f"day/{n}.txt", text)
        return "big.zip", out.getvalue(), total
    total = scaled(1_500)  # HTML pages take longer to read than records (750 in `make test`, still cut off)
    out = io.BytesIO()
    writer = WARCWriter(out, gzip=True)
    for n in range(total + 1):
        page = (
            f"<html><head><title>Slice test {n}</title></head><body><article><h1>Slice test {n}</h1>"
            f"<p>{body.format(n=n)}</p><p>{body.format(n=n + 1)}</p></article></body></html>"
        )
        kind = "text/html" if n != BAD_RECORD else "image/png"
        headers = StatusAndHeaders("200 OK", [("Content-Type", kind)], protocol="HTTP/1.1")
        writer.write_record(
            writer.create_warc_record(
                f"https://example.org/{n}", "response", payload=io.BytesIO(page.encode()), http_headers=headers
            )
        )
    return "big.warc.gz", out.getvalue(), total


@pytest.mark.parametrize("fmt", ["jsonl", "zip", "warc"])
def test_a_big_file_killed_part_way_is_finished_by_the_next_run_under_one_log_row(migrated, inbox, fmt):
    """Files of many records (JSON Lines, bundles, WARC) are stored a slice (a transaction) at a time: a kill
    after some slices keeps them, and the rerun stores the rest, every record once, under the same
    ingest-log row, with SQL = index."""
    name, data, TOTAL = big_file(fmt)
    (inbox / name).write_bytes(data)
    env = cli_env(migrated, NEWSARCHIVE_INGEST_WORKERS="1", NEWSARCHIVE_INGEST_BATCH_ARTICLES="200")
    process = subprocess.Popen(
        [sys.executable, "-m", "webapp.cli", "ingest", "--json"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    engine = make_engine(migrated)
    sessions = make_sessionmaker(engine)

    def stored() -> int:
        with sessions() as s:
            return s.scalar(select(func.count()).select_from(Article)) or 0

    deadline = time.monotonic() + 120
    while stored() == 0 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)  # the first slice is committed: kill now, well before the end of the file
    assert process.poll() is None, "the file was read before it could be cut off"
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    kept = stored()
    assert 0 < kept < TOTAL
    with sessions() as s:
        assert [r.status for r in s.scalars(select(IngestFile))] == ["ingesting"]

    result = subprocess.run(
        [sys.executable, "-m", "webapp.cli", "ingest", "--json"], env=env, cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["ingested"] == TOTAL and summary["duplicates"] == 0 and summary["skipped_records"] == 1
    with sessions() as s:
        rows = s.scalars(select(IngestFile)).all()
        assert [(r.status, r.articles_ingested, r.duplicates) for r in rows] == [("ingested", TOTAL, 0)]
        assert s.scalar(select(func.count(func.distinct(Article.content_sha256)))) == stored() == TOTAL
        assert s.scalar(select(func.count()).select_from(Article).where(Article.indexed.is_(False))) == 0
    engine.dispose()
    assert list(inbox.iterdir()) == [] and [p.name for p in migrated.archive_dir.iterdir()] == [name]
    searches_agree_with_sql(migrated, exact=True)
