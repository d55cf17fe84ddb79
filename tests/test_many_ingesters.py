"""Several ingesters, each with a home of its own (as on separate machines), writing one PostgreSQL archive
(with the index kept in it) at once: every article stored once, one searched version of each, story
clusters as one ingester makes them, nothing lost when one is killed (ingest/lock.py, migration 0010).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func, select

from store.db import make_engine, make_sessionmaker, upgrade
from store.models import Article, IngestFile

from .conftest import SCALE, cli_env, database, make_settings, postgres_problem, scaled, wait_for

TOWNS = ["Harwich", "Dover", "Oban", "Whitby", "Tenby", "Cromer", "Padstow", "Ullapool", "Mallaig", "Looe"]
WORDS = (
    "council harbour ferry storm bridge vote budget school hospital road rail port market fishing boat crew "
    "weather flood tide pier lifeboat museum festival library mayor police court"
).split()


def _records(seed: int, stories: int) -> list[dict]:
    """Stories as a wire sends them: each in one to three versions (the same uri), some retold by a second
    outlet in nearly the same words (a story cluster of two identities), all on a few days."""
    rng = random.Random(seed)
    out = []
    for n in range(stories):
        town = TOWNS[n % len(TOWNS)]
        words = [rng.choice(WORDS) for _ in range(60)]
        body = f"{town} story {n}: " + " ".join(words) + "."
        day = f"2024-03-{1 + n % 5:02d}"
        for version in range(1, rng.choice((1, 2, 3)) + 1):
            text = body + (
                f" Update {version}: " + " ".join(rng.choice(WORDS) for _ in range(8)) if version > 1 else ""
            )
            out.append(
                {
                    "uri": f"urn:test:{n}",
                    "version": str(version),
                    "headline": f"{town} {words[0]} {words[1]} story {n}",
                    "body_text": text,
                    "versioncreated": f"{day}T{8 + version:02d}:00:00Z",
                }
            )
        if n % 4 == 0:  # the same story from another outlet, in nearly the same words
            out.append(
                {
                    "uri": f"urn:other:{n}",
                    "headline": f"{town} {words[0]} {words[1]} story {n}",
                    "body_text": body + " Reported by a second outlet.",
                    "versioncreated": f"{day}T12:00:00Z",
                }
            )
    return out


def _write(folder: Path, records: list[dict], per_file: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for start in range(0, len(records), per_file):
        path = folder / f"part-{start // per_file:03d}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records[start : start + per_file]), encoding="utf-8")
        paths.append(path)
    return paths


def _ingest(settings, paths: list[Path]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "webapp.cli", "ingest", "--json", *map(str, paths)],
        env=cli_env(settings, NEWSARCHIVE_INGEST_WORKERS="1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _stored(settings) -> tuple[list[tuple], dict[str, set]]:
    """(id, identity, version, status, file path, line) of every article in id order, and the story
    clusters as sets of content hashes."""
    engine = make_engine(settings)
    try:
        with make_sessionmaker(engine)() as session:
            rows = session.execute(
                select(
                    Article.id,
                    Article.identity,
                    Article.version,
                    Article.status,
                    IngestFile.path,
                    Article.source_line,
                    Article.content_sha256,
                    func.coalesce(Article.story_id, Article.id),
                )
                .join(IngestFile, IngestFile.id == Article.ingest_file_id)
                .order_by(Article.id)
            ).all()
    finally:
        engine.dispose()
    clusters: dict = {}
    for row in rows:
        clusters.setdefault(row[7], set()).add(row[6])
    return [tuple(r[:6]) for r in rows], {frozenset(c) for c in clusters.values()}


def _partition(settings) -> set:
    return _stored(settings)[1]


@pytest.mark.skipif(bool(postgres_problem()), reason=str(postgres_problem()))
@pytest.mark.skipif(SCALE < 1, reason="runs in .ci/run; tests/test_backends.py runs two ingesters at once here")
def test_two_ingesters_given_the_same_articles_in_different_orders_store_each_once(tmp_path):
    records = _records(7, scaled(160))
    with database("pgsearch") as url, database("pgsearch") as alone_url:
        machines = [make_settings(tmp_path / name, url) for name in ("one", "two")]
        upgrade(machines[0])
        # Each ingester is given every record, in files of its own (other bytes: no file is known to the
        # other), in another order: one from the first story on, the other from the last.
        feeds = [
            _write(tmp_path / "feed-one", records, 23),
            _write(tmp_path / "feed-two", list(reversed(records)), 31),
        ]
        processes = [_ingest(settings, paths) for settings, paths in zip(machines, feeds, strict=True)]
        for process in processes:
            out, err = process.communicate(timeout=600)
            assert process.returncode == 0, err.decode()
            summary = json.loads(out.decode().splitlines()[-1])
            assert summary["failed"] == 0, summary

        rows, clusters = _stored(machines[0])
        distinct = {json.dumps(r, sort_keys=True) for r in records}
        assert len(rows) == len(distinct)  # every article once
        versions: dict[str, list[tuple[int, str]]] = {}
        for _, identity, version, status, _, _ in rows:
            versions.setdefault(identity, []).append((version or 0, status))
        assert len(versions) == len({r["uri"] for r in records})
        for identity, stored in versions.items():  # one searched version of each article: its newest
            assert [v for v, status in stored if status == "usable"] == [max(v for v, _ in stored)], identity

        # One ingester given the articles in the order the two stored them makes the same story clusters.
        by_file: dict[str, list[str]] = {}
        order = []
        for _, _, _, _, path, line in rows:
            lines = by_file.setdefault(path, Path(path).read_text(encoding="utf-8").splitlines())
            order.append(json.loads(lines[line - 1]))
        alone = make_settings(tmp_path / "alone", alone_url)
        upgrade(alone)
        single = _ingest(alone, _write(tmp_path / "feed-alone", order, len(order)))
        _, err = single.communicate(timeout=600)
        assert single.returncode == 0, err.decode()
        assert _partition(alone) == clusters
        assert any(len(c) > 1 for c in clusters)  # versions and retellings did cluster


@pytest.mark.skipif(bool(postgres_problem()), reason=str(postgres_problem()))
@pytest.mark.skipif(
    SCALE < 1, reason="killed ingesters run in .ci/run (NEWSARCHIVE_TEST_SCALE=1); tests/test_crash.py kills them here"
)
def test_a_killed_ingesters_file_is_finished_by_another_machine(tmp_path):
    records = _records(11, scaled(1200))
    with database("pgsearch") as url:
        # Both machines read one inbox and keep originals in one folder (shared folders).
        shared_inbox, shared_archive = tmp_path / "shared-inbox", tmp_path / "shared-archive"
        machines = [
            make_settings(tmp_path / name, url, inbox=shared_inbox, archive_dir=shared_archive)
            for name in ("one", "two")
        ]
        upgrade(machines[0])
        (big,) = _write(shared_inbox, records, len(records))
        first = subprocess.Popen(
            [sys.executable, "-m", "webapp.cli", "ingest"],
            env=cli_env(
                machines[0],
                NEWSARCHIVE_INGEST_WORKERS="2",  # parser processes, which must not outlive it (ingest/parsing.py)
                NEWSARCHIVE_INGEST_BATCH_ARTICLES="50",
                NEWSARCHIVE_INGEST_SLICE_S="0.2",  # many slices: the kill comes part way through the file
            ),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        engine = make_engine(machines[0])
        try:

            def stored() -> int:
                with make_sessionmaker(engine)() as session:
                    return session.scalar(select(func.count()).select_from(Article)) or 0

            assert wait_for(lambda: stored() > 0 or first.poll() is not None, timeout=120)
            if first.poll() is None:
                os.kill(first.pid, signal.SIGKILL)  # part way through, between two slices or in one
            first.wait(30)
            part_way = stored()
            assert 0 < part_way < len(records), "the first ingester was to be killed part way through the file"
            time.sleep(0.2)
            second = _ingest(machines[1], [])
            out, err = second.communicate(timeout=600)
            assert second.returncode == 0, err.decode()
        finally:
            engine.dispose()
        rows, _ = _stored(machines[1])
        distinct = {json.dumps(r, sort_keys=True) for r in records}
        assert len(rows) == len(distinct), (part_way, first.returncode, first.stderr.read()[-2000:], out[-2000:])
        assert not big.exists() and not any(m.failed_dir.exists() and any(m.failed_dir.iterdir()) for m in machines)
        assert [p.name for p in shared_archive.rglob("*.jsonl")] == [big.name]
        engine = make_engine(machines[1])
        try:
            with make_sessionmaker(engine)() as session:
                assert session.scalars(select(IngestFile.status)).all() == ["ingested"]
        finally:
            engine.dispose()
