"""The inbox pipeline end to end: real files, a real SQLite store, a real Whoosh index."""

import gzip
import io
import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from ingest import pipeline
from ingest.inbox import display_path
from ingest.pipeline import Ingester
from search.request import SearchRequest
from store.db import upgrade
from store.models import Article, IngestFile
from store.read import Archive

from .conftest import SEED_FILE, make_settings, scaled

GOOD = (
    "Harbour reopens after storm\n\nThe harbour reopened on Monday after a week of repairs.\n\nShips queued outside.\n"
)


def count(sessions, model, *where):
    with sessions() as s:
        return s.scalar(select(func.count()).select_from(model).where(*where))


def test_an_inbox_file_is_stored_indexed_and_moved_to_archive(ingester, inbox, sessions):
    (inbox / "story.txt").write_text(GOOD)
    summary = ingester.run()
    assert (summary.ingested, summary.duplicates, summary.failed) == (1, 0, 0)
    assert not (inbox / "story.txt").exists()
    archived = ingester.settings.archive_dir / "story.txt"
    assert archived.read_text() == GOOD
    with sessions() as s:
        article = s.scalars(select(Article)).one()
        assert article.original_file == str(archived)
        assert article.indexed is True
        row = s.scalars(select(IngestFile)).one()
        assert (row.status, row.path, row.stored_path, row.articles_ingested) == (
            "ingested",
            str(inbox / "story.txt"),
            str(archived),
            1,
        )
    assert ingester.index.doc_count() == 1


def test_the_same_bytes_twice_are_a_duplicate_and_still_archived(ingester, inbox, sessions):
    (inbox / "a.txt").write_text(GOOD)
    ingester.run()
    (inbox / "a.txt").write_text(GOOD)
    (inbox / "b.txt").write_text(GOOD.replace("Monday", "Monday "))  # other bytes, same normalised story
    summary = ingester.run()
    assert (summary.ingested, summary.duplicates, summary.failed) == (0, 2, 0)
    assert sorted(p.name for p in ingester.settings.archive_dir.iterdir()) == ["a.txt", "a~1.txt", "b.txt"]
    assert count(sessions, Article) == 1
    assert count(sessions, IngestFile) == 3


def test_json_lines_keep_good_lines_and_report_bad_ones(ingester, inbox, sessions):
    lines = [
        json.dumps({"title": "One", "body": "First story body."}),
        "{not json",
        json.dumps({"title": "Two", "body": "Second story body."}),
        json.dumps([1, 2]),
        json.dumps({"title": "Headline only"}),
        json.dumps({"title": "One", "body": "First story body."}),
    ]
    (inbox / "feed.jsonl").write_text("\n".join(lines) + "\n")
    summary = ingester.run()
    assert (summary.ingested, summary.duplicates, summary.failed) == (2, 1, 3)
    [result] = summary.files
    assert result.status == "ingested"
    assert [e["line"] for e in result.errors] == [2, 4, 5]
    assert "invalid JSON" in result.errors[0]["reason"]
    assert (ingester.settings.archive_dir / "feed.jsonl").exists()
    with sessions() as s:
        row = s.scalars(select(IngestFile)).one()
        assert [e["line"] for e in row.errors] == [2, 4, 5]
        assert [a.source_line for a in s.scalars(select(Article).order_by(Article.id))] == [1, 3]


def test_gzipped_json_lines_are_read(ingester, inbox):
    lines = "\n".join(json.dumps({"title": f"Story {i}", "body": f"Body number {i} of the feed."}) for i in range(200))
    (inbox / "feed.jsonl.gz").write_bytes(gzip.compress(lines.encode()))
    summary = Ingester(ingester.settings, workers=2).run()
    assert (summary.ingested, summary.failed) == (200, 0)


def test_a_truncated_gzip_keeps_the_lines_before_the_break(ingester, inbox):
    lines = "\n".join(json.dumps({"title": f"Story {i}", "body": f"Body number {i} " * 50}) for i in range(300))
    packed = gzip.compress(lines.encode())
    (inbox / "cut.jsonl.gz").write_bytes(packed[: len(packed) // 2])
    summary = ingester.run()
    [result] = summary.files
    assert result.status == "ingested" and 0 < result.articles < 300
    assert "truncated" in result.errors[-1]["reason"]


def junk_files(inbox: Path) -> dict[str, str]:
    """Writes each kind of junk into the inbox; returns name -> a word its quarantine reason must contain."""
    (inbox / "empty.txt").write_bytes(b"")
    (inbox / "random.bin").write_bytes(os.urandom(4096))
    (inbox / "nul.txt").write_bytes(b"Headline\n\nBody\x00with\x00NULs\x00" * 100)
    (inbox / "truncated.json").write_text('{"headline": "Cut off", "body": "The story was cut o')
    with open(inbox / "huge.txt", "wb") as f:
        f.truncate(60_000_000)
    (inbox / "nested.html").write_text(
        "<html><body>" + "<div>" * scaled(200_000) + "deep" + "</div>" * scaled(200_000) + "</body></html>"
    )
    (inbox / "passwd.txt").symlink_to("/etc/passwd")
    os.mkfifo(inbox / "pipe.txt")
    return {
        "empty.txt": "empty",
        "random.bin": "binary",
        "nul.txt": "NUL",
        "truncated.json": "invalid JSON",
        "huge.txt": "max_file_bytes",
        "nested.html": "",
        "passwd.txt": "symbolic link",
        "pipe.txt": "not a regular file",
    }


def test_junk_is_quarantined_with_reasons_and_good_files_beside_it_are_ingested(ingester, inbox, sessions):
    expected = junk_files(inbox)
    odd_names = ["weird name ü.txt", "new\nline.txt", "-rf.txt", "x" * 200 + ".txt"]
    for name in odd_names:
        (inbox / name).write_text(GOOD.replace("Monday", name.replace("\n", " ")[:50]))
    os.makedirs(inbox / "sub" / "deeper")
    (inbox / "sub" / "deeper" / "nested-story.txt").write_text(GOOD.replace("Monday", "Tuesday"))
    raw_name = os.fsencode(str(inbox)) + b"/bad-\xff-name.txt"
    with open(raw_name, "w") as f:
        f.write(GOOD.replace("Monday", "Wednesday"))

    summary = ingester.run()
    failed_dir = ingester.settings.failed_dir
    by_name = {Path(r.path).name: r for r in summary.files}
    for name, word in expected.items():
        result = by_name[name]
        assert result.status == "failed", name
        assert word in result.reason, (name, result.reason)
        error = json.loads((failed_dir / (name + ".error.json")).read_text())
        assert error["reason"] == result.reason
        assert os.path.lexists(failed_dir / name), name
    assert os.readlink(failed_dir / "passwd.txt") == "/etc/passwd"  # the link moved, its target untouched
    assert summary.ingested == len(odd_names) + 2
    archive = ingester.settings.archive_dir
    for name in odd_names:
        assert (archive / name).exists(), name
    assert (archive / "sub" / "deeper" / "nested-story.txt").exists()
    assert os.path.exists(os.fsencode(str(archive)) + b"/bad-\xff-name.txt")
    assert list(inbox.rglob("*.txt")) == []
    assert count(sessions, IngestFile) == len(summary.files) == len(expected) + len(odd_names) + 2


def test_files_outside_the_inbox_are_read_in_place(ingester, tmp_path, sessions):
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "a.txt").write_text(GOOD)
    (folder / "junk.bin").write_bytes(os.urandom(1000))
    summary = ingester.run([folder])
    assert (summary.ingested, summary.failed) == (1, 1)
    assert (folder / "a.txt").read_text() == GOOD and (folder / "junk.bin").exists()
    assert not list(ingester.settings.failed_dir.iterdir()) and not list(ingester.settings.archive_dir.iterdir())


def test_a_crash_between_commit_and_move_is_finished_by_the_next_run(migrated, inbox, sessions):
    (inbox / "story.txt").write_text(GOOD)

    def crash(source, destination):
        raise KeyboardInterrupt  # the process dies after the commit, before the move

    with Ingester(migrated, workers=1, move=crash) as ingester:
        with pytest.raises(KeyboardInterrupt):
            ingester.run()
    assert (inbox / "story.txt").exists()
    with Ingester(migrated, workers=1) as ingester:
        summary = ingester.run()
    assert summary.files[0].status == "ingested"
    assert (migrated.archive_dir / "story.txt").exists() and not (inbox / "story.txt").exists()
    assert count(sessions, IngestFile) == 1 and count(sessions, Article) == 1


def test_the_ingest_log_keeps_one_row_per_file_read(ingester, sessions):
    ingester.run([SEED_FILE])
    ingester.run([SEED_FILE])
    with sessions() as s:
        rows = s.scalars(select(IngestFile).order_by(IngestFile.id)).all()
    assert [r.status for r in rows] == ["ingested", "duplicate"]
    assert rows[1].reason.startswith("the same bytes were ingested before")


def test_display_path_keeps_undecodable_names_storable():
    assert display_path(os.fsdecode(b"/tmp/a\xffb.txt")) == "/tmp/a\\xffb.txt"


def test_a_deleted_or_damaged_index_is_rebuilt_by_the_next_ingest(ingester, inbox, sessions):

    (inbox / "a.txt").write_text(GOOD)
    ingester.run()
    shutil.rmtree(ingester.settings.index_dir)
    (inbox / "b.txt").write_text(GOOD.replace("harbour", "airport"))
    ingester.run()
    assert ingester.index.doc_count() == 2
    # Damage the live generation's files: the next run starts a fresh generation from SQL.
    for path in ingester.index.current_path().iterdir():
        path.write_bytes(b"garbage")
    (inbox / "c.txt").write_text(GOOD.replace("harbour", "station"))
    ingester.run()
    assert ingester.index.doc_count() == 3


def test_a_link_to_a_folder_outside_the_inbox_is_not_followed(ingester, inbox, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private.txt").write_text(GOOD)
    (inbox / "linked").symlink_to(outside, target_is_directory=True)
    summary = ingester.run()
    [result] = summary.files
    assert result.status == "failed" and "symbolic link" in result.reason
    assert summary.ingested == 0
    assert (outside / "private.txt").read_text() == GOOD  # untouched, never read
    assert os.path.islink(ingester.settings.failed_dir / "linked")


def test_json_lines_past_max_file_bytes_are_read_as_a_stream(tmp_path, database_url, sessions):
    settings = make_settings(tmp_path / "home", database_url, max_file_bytes=20_000, max_record_bytes=2_000)
    folder = tmp_path / "bulk"
    folder.mkdir()
    lines = [json.dumps({"title": f"Story {i}", "body": f"Story number {i} is about the harbour."}) for i in range(600)]
    lines.insert(300, json.dumps({"title": "Too long", "body": "word " * 1000}))  # over max_record_bytes
    (folder / "big.jsonl").write_text("\n".join(lines) + "\n")
    with gzip.open(folder / "big2.jsonl.gz", "wt") as f:  # random words, so the gzip file is over the limit too
        f.write("\n".join(line.replace("Story", f"Tale {os.urandom(30).hex()}") for line in lines) + "\n")
    page = "<html><body><h1>Big page</h1>" + "<p>The harbour was busy today.</p>" * 1000 + "</body></html>"
    (folder / "big.html").write_text(page)
    assert (folder / "big.jsonl").stat().st_size > 20_000 and (folder / "big.html").stat().st_size > 20_000
    with Ingester(settings, workers=1) as ingester:
        summary = ingester.run([folder])
    by_name = {r.path.rsplit("/", 1)[-1]: r for r in summary.files}
    assert by_name["big.jsonl"].status == "ingested" and by_name["big.jsonl"].articles == 600
    assert by_name["big.jsonl"].errors == [{"line": 301, "reason": "the record is over max_record_bytes=2_000 bytes"}]
    assert (folder / "big2.jsonl.gz").stat().st_size > 20_000 and by_name["big2.jsonl.gz"].articles == 600
    assert by_name["big.html"].status == "failed" and "only JSON Lines" in by_name["big.html"].reason
    assert count(sessions, Article) == 1200
    with sessions() as s:
        row = s.scalars(select(IngestFile).where(IngestFile.path.endswith("big.jsonl"))).one()
        assert row.size_bytes == (folder / "big.jsonl").stat().st_size


@pytest.mark.parametrize("max_file_bytes", [50_000_000, 2_000], ids=["in-memory", "streamed"])
def test_a_record_repeated_batches_later_in_one_file_is_a_duplicate(tmp_path, database_url, sessions, max_file_bytes):
    """Batches of 10: the repeats of record 0 come in the third batch and the last one, of record 15 in
    the same batch as itself; the file's earlier batches are found in SQL, not in a list kept in memory."""
    settings = make_settings(tmp_path / "home", database_url, ingest_batch_articles=10, max_file_bytes=max_file_bytes)
    stories = [{"title": f"Story {i}", "body": f"Story number {i} is about the harbour."} for i in range(40)]
    stories.insert(25, dict(stories[0]))
    stories.insert(17, dict(stories[15]))
    stories.append(dict(stories[0]))
    path = tmp_path / "repeats.jsonl"
    path.write_text("".join(json.dumps(story) + "\n" for story in stories))
    with Ingester(settings, workers=1) as ingester:
        summary = ingester.run([path])
    assert (summary.ingested, summary.duplicates) == (40, 3), summary.as_dict()
    assert count(sessions, Article) == 40


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_file_read_as_a_stream_shows_its_progress_in_bytes_on_a_terminal(tmp_path, database_url, monkeypatch):
    settings = make_settings(tmp_path / "home", database_url, max_file_bytes=20_000, ingest_batch_articles=50)
    upgrade(settings)
    lines = [json.dumps({"title": f"Story {i}", "body": f"Story number {i} is about the harbour."}) for i in range(400)]
    big = tmp_path / "big.jsonl"
    big.write_text("\n".join(lines) + "\n{broken\n")
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with Ingester(settings, workers=1) as ingester:
        summary = ingester.run([big], progress=True)
    assert summary.ingested == 400 and summary.skipped_records == 1
    shown = terminal.getvalue()
    size_kb = f"{big.stat().st_size / 1000:.1f}k"
    assert "big.jsonl" in shown and f"{size_kb}/{size_kb}" in shown, shown[-500:]
    assert "articles=400" in shown and "skipped=1" in shown


def test_a_big_run_ends_its_parser_processes_before_the_last_index_commit(tmp_path, database_url, monkeypatch):
    """The last commit of a big run (and the segment merge it may start) is where its memory peaks: the
    parser processes are ended first, and the next big file forks new ones. A small run keeps them."""
    monkeypatch.setattr(pipeline, "RELEASE_POOL_DOCS", 150)
    settings = make_settings(tmp_path / "home", database_url)
    upgrade(settings)
    folder = tmp_path / "bulk"
    folder.mkdir()
    for name, count_ in (("small.jsonl", 100), ("big.jsonl", 200), ("next.jsonl", 200)):
        lines = [
            json.dumps({"title": f"{name} story {i}", "body": f"Story {i} of {name} is about the harbour."})
            for i in range(count_)
        ]
        (folder / name).write_text("\n".join(lines) + "\n")
    with Ingester(settings, workers=2) as ingester:
        assert ingester.run([folder / "small.jsonl"]).ingested == 100
        assert ingester.parsers.running  # 100 documents: under the mark, the workers stay for the next file
        assert ingester.run([folder / "big.jsonl"]).ingested == 200
        assert not ingester.parsers.running
        assert ingester.run([folder / "next.jsonl"]).ingested == 200  # parsed by new workers
    archive = Archive(settings)
    try:
        assert archive.search(SearchRequest(q="harbour", per_page=1))["total"] == 500
    finally:
        archive.close()


def test_an_ingest_leaves_fresh_planner_statistics_on_postgresql(ingester, tmp_path, sessions):
    if ingester.engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL plans by per-table statistics; SQLite here plans without them")
    lines = [
        json.dumps(
            {"title": f"Harbour report {n}", "body": f"The harbour of Suruc reopened, report {n}.", "source": "Wire"}
        )
        for n in range(120)
    ]
    (tmp_path / "feed.jsonl").write_text("\n".join(lines) + "\n")
    assert ingester.run([tmp_path / "feed.jsonl"]).ingested == 120
    with sessions() as s:
        analysed = s.execute(
            text(
                "SELECT last_analyze IS NOT NULL, c.reltuples FROM pg_stat_user_tables t JOIN pg_class c ON c.oid = t.relid WHERE t.relname = 'articles'"
            )
        ).one()
    assert analysed[0] and analysed[1] == 120  # the planner knows the table's size, not an empty table's
