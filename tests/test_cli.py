"""The `newsarchive` command line, run in-process with click's runner against a real archive."""

import json
import subprocess
import sys

from click.testing import CliRunner
from sqlalchemy import inspect, text

from ingest.inbox import discover
from ingest.pipeline import Ingester
from search.index import VERSION_FILE, ArchiveIndex
from store.db import make_engine
from webapp.cli import cli, file_line

from .conftest import ROOT, SEED_FILE, cli_env, make_settings


def run(settings, *args):
    return CliRunner().invoke(cli, list(args), env=cli_env(settings), catch_exceptions=False)


def test_ingest_json_summary_and_stats(settings):
    result = run(settings, "ingest", str(SEED_FILE), "--json")
    assert result.exit_code == 0
    summary = json.loads(result.output)
    assert (summary["ingested"], summary["duplicates"], summary["failed"]) == (1, 0, 0)
    assert summary["files"][0]["path"] == str(SEED_FILE)

    stats = json.loads(run(settings, "stats", "--json").output)
    assert stats["articles"] == 1 and stats["captions"] == 3 and stats["index_documents"] == 1
    assert stats["index_ok"] is True


def test_ingest_of_the_inbox_by_default_with_a_text_summary(settings):
    home = settings.home
    (home / "inbox").mkdir(parents=True)
    (home / "inbox" / "good.txt").write_text("Title\n\nSome body text here.\n")
    (home / "inbox" / "bad.json").write_text("{broken")
    result = run(settings, "ingest")
    assert result.exit_code == 0  # quarantined files do not fail the run
    assert "ingested 1 article(s), 0 duplicate(s), 1 failed, 0 bad record(s) skipped, from 2 file(s)" in result.output
    assert "bad.json: invalid JSON" in result.output
    assert (home / "failed" / "bad.json.error.json").exists()


def test_the_summary_counts_the_bad_records_a_file_skipped(settings, tmp_path):
    lines = tmp_path / "wire.jsonl"
    lines.write_text(
        '{"headline": "Bridge to close", "body": "The council voted to close the bridge."}\n'
        "{broken\n"
        '{"headline": "Only a headline"}\n'
        '{"headline": "Ferry to open", "body": "A ferry will replace the bridge next spring."}\n'
    )
    result = run(settings, "ingest", str(lines))
    assert "ingested 2 article(s), 0 duplicate(s), 0 failed, 2 bad record(s) skipped, from 1 file(s)" in result.output
    assert "wire.jsonl line 2:" in result.output and "wire.jsonl line 3:" in result.output


def test_db_upgrade_and_reindex(settings):
    assert "latest revision" in run(settings, "db", "upgrade").output
    run(settings, "ingest", str(SEED_FILE))
    result = run(settings, "reindex")
    assert result.exit_code == 0 and "reindexed 1 article(s)" in result.output


def test_an_unreachable_database_is_a_clear_error_not_a_traceback(tmp_path):
    result = CliRunner().invoke(
        cli,
        ["ingest", str(SEED_FILE)],
        env={
            "NEWSARCHIVE_HOME": str(tmp_path),
            "NEWSARCHIVE_DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/none",
        },
    )
    assert result.exit_code == 1
    assert "cannot reach or migrate the database" in result.output
    assert "Traceback" not in result.output


def test_a_bad_setting_is_a_clear_error(tmp_path):
    result = CliRunner().invoke(
        cli, ["stats"], env={"NEWSARCHIVE_HOME": str(tmp_path), "NEWSARCHIVE_SETTLE_MS": "soon"}
    )
    assert result.exit_code == 1 and "NEWSARCHIVE_SETTLE_MS must be a whole number" in result.output


def test_search_json_prints_what_the_api_returns(app, client):
    settings = app.extensions["newsarchive"].settings
    for q in ("kobani", 'source:"associated press"', "oil OR harbour"):
        printed = json.loads(run(settings, "search", q, "--json", "--limit", "20").output)
        served = client.get("/api/search", query_string={"q": q}).get_json()
        printed.pop("took_ms"), served.pop("took_ms")
        assert printed == served


def test_search_text_output_and_errors(app):
    settings = app.extensions["newsarchive"].settings
    result = run(settings, "search", "kobanni")
    assert "no results for 'kobanni'; showing 2 result(s) for 'kobani'" in result.output
    result = run(settings, "search", "foo:bar")
    assert "foo: is not a field, so it was searched as words" in result.output
    result = CliRunner().invoke(cli, ["search", "x" * 1001], env=cli_env(settings))
    assert result.exit_code == 1 and "the limit is 1000" in result.output


def test_search_with_a_filter_sort_and_paging_prints_what_a_reader_needs(app):
    settings = app.extensions["newsarchive"].settings
    result = run(settings, "search", "--source", "Reuters", "--sort", "newest", "--per-page", "1")
    lines = result.output.splitlines()
    assert lines[0] == "2 article(s)" and lines[1] == "page 1 of 2 (--page N for another)"
    assert "Oil prices fall on supply worries" in lines[3] and lines[4].strip() == "Reuters · LONDON · 10 Mar 2015"
    second = run(settings, "search", "--source", "Reuters", "--sort", "newest", "--per-page", "1", "--page", "2")
    assert "Refugee camp in Turkey grows as winter nears" in second.output and "page 2 of 2" in second.output
    caption = run(settings, "search", "kobani", "refugee")
    assert "photo caption: Syrian refugee children" in caption.output and "(AP Photo/Emrah Gurel)" in caption.output


def test_stats_reports_a_damaged_index_and_reindex_repairs_it(settings):
    run(settings, "ingest", str(SEED_FILE))

    for path in ArchiveIndex(settings.index_dir).current_path().iterdir():
        path.write_bytes(b"not an index")
    stats = json.loads(run(settings, "stats", "--json").output)
    assert stats["index_ok"] is False and "reindex" in stats["index_error"]
    assert "reindexed 1 article(s)" in run(settings, "reindex").output
    stats = json.loads(run(settings, "stats", "--json").output)
    assert stats["index_ok"] is True and stats["index_documents"] == stats["articles"] == 1


def test_an_index_built_by_an_older_schema_is_rebuilt_by_the_next_ingest(settings):
    run(settings, "ingest", str(SEED_FILE))

    (ArchiveIndex(settings.index_dir).current_path() / VERSION_FILE).write_text("1\n")
    stats = json.loads(run(settings, "stats", "--json").output)
    assert stats["index_ok"] is False and "another version" in stats["index_error"]
    run(settings, "ingest", str(SEED_FILE))  # a duplicate: nothing new, but the index is rebuilt from SQL
    stats = json.loads(run(settings, "stats", "--json").output)
    assert stats["index_ok"] is True and stats["index_documents"] == 1
    assert json.loads(run(settings, "search", "kobani", "--json").output)["total"] == 1


def _tables(settings):
    engine = make_engine(settings)
    try:
        return sorted(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_read_only_commands_never_migrate_and_say_what_to_run(settings):
    # A database that exists but has no migrations applied (an older install would be at an older revision).
    engine = make_engine(settings)
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE unrelated (id INTEGER PRIMARY KEY)"))
    engine.dispose()
    for args in (["search", "kobani"], ["stats"]):
        result = run(settings, *args)
        assert result.exit_code == 1, args
        assert "run `newsarchive db upgrade`" in result.output
        assert "Traceback" not in result.output
    assert _tables(settings) == ["unrelated"]  # nothing was created or migrated
    assert run(settings, "db", "upgrade").exit_code == 0
    assert "alembic_version" in _tables(settings)
    assert run(settings, "stats").exit_code == 0


def test_read_only_commands_do_not_create_a_missing_sqlite_database(tmp_path):
    env = {"NEWSARCHIVE_HOME": str(tmp_path / "home"), "NEWSARCHIVE_DATABASE_URL": ""}
    result = CliRunner().invoke(cli, ["stats"], env=env)
    assert result.exit_code == 1 and "empty (no migrations applied)" in result.output
    assert not (tmp_path / "home" / "newsarchive.sqlite").exists()


def test_the_watch_log_line_says_what_became_of_each_file(tmp_path):
    settings = make_settings(tmp_path / "home", None)
    run(settings, "db", "upgrade")
    wire = tmp_path / "wire.jsonl"
    wire.write_text('{"headline": "Harbour", "body": "Ship came into the harbour with grain on Tuesday."}\n{oops\n')
    with Ingester(settings, workers=1) as ingester:
        lines = [
            file_line(ingester.ingest_file(next(discover([path], settings.inbox))))
            for path in (wire, wire, SEED_FILE, SEED_FILE)
        ]
    assert lines[0].endswith("wire.jsonl (1 new article(s), 0 already stored, 1 bad record(s) skipped)")
    assert lines[1].startswith("duplicate: ") and "the same bytes were ingested before" in lines[1]
    assert lines[2].endswith("(1 new article(s), 0 already stored)")


def test_ingest_runs_at_a_lower_cpu_priority_than_the_server(settings):
    """`newsarchive ingest` lowers its own priority by NEWSARCHIVE_INGEST_NICE (its workers inherit it), so
    searches keep the CPU while a big file is read: the priority is read back in a real process."""
    probe = (
        "import os; from store.settings import Settings; from ingest.priority import lower_priority; "
        "before = os.nice(0); lower_priority(Settings.from_env()); print(os.nice(0) - before)"
    )
    for nice, expected in (("7", "7"), ("0", "0")):
        done = subprocess.run(
            [sys.executable, "-c", probe],
            env=cli_env(settings, NEWSARCHIVE_INGEST_NICE=nice),
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout.strip() == expected
