"""A folder's `.newsarchive.json` defaults and the user's source table, through a real ingest."""

import json

from click.testing import CliRunner
from sqlalchemy import select

from ingest.credits import use_source_table
from ingest.pipeline import Ingester
from store.models import Article
from webapp.cli import cli

from .conftest import cli_env, make_settings

STORY = "A headline about the council\n\nThe council met on Monday to discuss the budget for next year.\n"


def stored(sessions):
    with sessions() as s:
        rows = s.scalars(select(Article).order_by(Article.original_file)).unique().all()
        return {r.original_file.rsplit("/", 2)[-2] + "/" + r.original_file.rsplit("/", 1)[-1]: r for r in rows}


def test_folder_defaults_fill_what_files_do_not_say_and_nearer_folders_win(ingester, inbox, sessions):
    (inbox / "bbc" / "sport").mkdir(parents=True)
    (inbox / "bbc" / ".newsarchive.json").write_text(
        json.dumps({"source": "BBC News", "language": "en", "timezone": "America/New_York"})
    )
    (inbox / "bbc" / "sport" / ".newsarchive.json").write_text(json.dumps({"source": "BBC Sport"}))
    (inbox / "bbc" / "one.txt").write_text(STORY)
    (inbox / "bbc" / "sport" / "two.txt").write_text(STORY.replace("council", "club"))
    own = {"title": "Markets", "body": "Stocks rose on Friday in heavy trading.", "source": "Reuters"}
    own["published"] = "2015-01-30T10:00:00"
    (inbox / "bbc" / "three.json").write_text(json.dumps(own))
    summary = ingester.run()
    assert (summary.ingested, summary.failed) == (3, 0)
    rows = stored(sessions)
    assert rows["bbc/one.txt"].source.name == "BBC News" and rows["bbc/one.txt"].language == "en"
    assert rows["sport/two.txt"].source.name == "BBC Sport" and rows["sport/two.txt"].language == "en"
    assert rows["bbc/three.json"].source.name == "Reuters"  # the file's own word wins
    assert rows["bbc/three.json"].published == "2015-01-30T10:00:00-05:00"  # the folder's time zone
    # The defaults files are settings, not articles: never read as one, never moved.
    assert (inbox / "bbc" / ".newsarchive.json").exists() and len(summary.files) == 3


def test_a_broken_defaults_file_quarantines_its_files_with_the_reason_and_no_others(ingester, inbox, sessions):
    (inbox / "bad").mkdir()
    (inbox / "good").mkdir()
    (inbox / "bad" / ".newsarchive.json").write_text('{"source": "X", "colour": "blue"}')
    (inbox / "bad" / "a.txt").write_text(STORY)
    (inbox / "good" / "b.txt").write_text(STORY.replace("council", "board"))
    summary = ingester.run()
    by_name = {r.path.rsplit("/", 1)[-1]: r for r in summary.files}
    assert by_name["b.txt"].status == "ingested"
    assert by_name["a.txt"].status == "failed"
    assert "unknown keys colour" in by_name["a.txt"].reason and ".newsarchive.json" in by_name["a.txt"].reason
    assert (ingester.settings.failed_dir / "bad" / "a.txt").exists()


def test_the_users_source_table_gives_one_name_per_source(tmp_path, database_url, sessions):
    table = tmp_path / "sources.json"
    table.write_text(json.dumps({"BBC News": ["BBC", "BBC Online"]}))
    settings = make_settings(tmp_path / "home", database_url, sources_file=table)
    folder = tmp_path / "in"
    folder.mkdir()
    for i, source in enumerate(["BBC Online", "bbc", "Reuter", "Associated Press", "Hollywood Reporter"]):
        item = {"title": f"Story {i}", "body": f"Story number {i} happened on a day.", "source": source}
        (folder / f"{i}.json").write_text(json.dumps(item))
    try:
        with Ingester(settings, workers=1) as ingester:
            assert ingester.run([folder]).ingested == 5
    finally:
        use_source_table({})
    names = [r.source.name for r in stored(sessions).values()]
    assert names == ["BBC News", "BBC News", "Reuters", "The Associated Press", "Hollywood Reporter"]


def test_a_bad_sources_file_stops_the_ingest_with_its_reason(settings, tmp_path):
    bad = tmp_path / "sources.json"
    bad.write_text('{"BBC News": "BBC"}')
    result = CliRunner().invoke(cli, ["ingest"], env=cli_env(settings, NEWSARCHIVE_SOURCES_FILE=str(bad)))
    assert result.exit_code == 1
    assert (
        "NEWSARCHIVE_SOURCES_FILE: the sources file" in result.output and "must map each source name" in result.output
    )
