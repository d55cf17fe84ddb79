"""The `newsarchive` command line, run in-process with click's runner against a real archive."""

import json

from click.testing import CliRunner

from ingest.cli import cli

from .conftest import SEED_FILE


def run(home, *args):
    result = CliRunner().invoke(cli, list(args), env={"NEWSARCHIVE_HOME": str(home)}, catch_exceptions=False)
    return result


def test_ingest_json_summary_and_stats(tmp_path):
    home = tmp_path / "home"
    result = run(home, "ingest", str(SEED_FILE), "--json")
    assert result.exit_code == 0
    summary = json.loads(result.output)
    assert (summary["ingested"], summary["duplicates"], summary["failed"]) == (1, 0, 0)
    assert summary["files"][0]["path"] == str(SEED_FILE)

    stats = json.loads(run(home, "stats", "--json").output)
    assert stats["articles"] == 1 and stats["captions"] == 3 and stats["index_documents"] == 1
    assert stats["index_ok"] is True


def test_ingest_of_the_inbox_by_default_with_a_text_summary(tmp_path):
    home = tmp_path / "home"
    (home / "inbox").mkdir(parents=True)
    (home / "inbox" / "good.txt").write_text("Title\n\nSome body text here.\n")
    (home / "inbox" / "bad.json").write_text("{broken")
    result = run(home, "ingest")
    assert result.exit_code == 0  # quarantined files do not fail the run
    assert "ingested 1 article(s), 0 duplicate(s), 1 failed, from 2 file(s)" in result.output
    assert "bad.json: invalid JSON" in result.output
    assert (home / "failed" / "bad.json.error.json").exists()


def test_db_upgrade_and_reindex(tmp_path):
    home = tmp_path / "home"
    assert "latest revision" in run(home, "db", "upgrade").output
    run(home, "ingest", str(SEED_FILE))
    result = run(home, "reindex")
    assert result.exit_code == 0 and "reindexed 1 article(s)" in result.output


def test_an_unreachable_database_is_a_clear_error_not_a_traceback(tmp_path):
    result = CliRunner().invoke(cli, ["ingest", str(SEED_FILE)], env={
        "NEWSARCHIVE_HOME": str(tmp_path), "NEWSARCHIVE_DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/none"})
    assert result.exit_code == 1
    assert "cannot reach or migrate the database" in result.output
    assert "Traceback" not in result.output


def test_a_bad_setting_is_a_clear_error(tmp_path):
    result = CliRunner().invoke(cli, ["stats"], env={"NEWSARCHIVE_HOME": str(tmp_path), "NEWSARCHIVE_SETTLE_MS": "soon"})
    assert result.exit_code == 1 and "NEWSARCHIVE_SETTLE_MS must be a whole number" in result.output


def test_search_json_prints_what_the_api_returns(app, client):
    home = app.extensions["newsarchive"].settings.home
    for q in ("kobani", 'source:"associated press"', "oil OR harbour"):
        printed = json.loads(run(home, "search", q, "--json", "--limit", "20").output)
        served = client.get("/api/search", query_string={"q": q}).get_json()
        printed.pop("took_ms"), served.pop("took_ms")
        assert printed == served


def test_search_text_output_and_errors(app):
    home = app.extensions["newsarchive"].settings.home
    result = run(home, "search", "kobanni")
    assert "0 result(s) for 'kobanni'" in result.output and "did you mean: kobani" in result.output
    result = CliRunner().invoke(cli, ["search", "foo:bar"], env={"NEWSARCHIVE_HOME": str(home)})
    assert result.exit_code == 1 and "unknown field 'foo'" in result.output
