import re
from pathlib import Path

import pytest

from store.settings import TABLE, Setting, Settings, SettingsError, settings_table


def test_defaults_follow_the_spec(tmp_path):
    s = Settings.from_env({"NEWSARCHIVE_HOME": str(tmp_path / "h")})
    assert s.home == tmp_path / "h"
    assert s.database_url == f"sqlite:///{tmp_path / 'h' / 'newsarchive.sqlite'}"
    assert s.index_dir == tmp_path / "h" / "index"
    assert s.inbox == tmp_path / "h" / "inbox"
    assert s.archive_dir == tmp_path / "h" / "archive"
    assert s.failed_dir == tmp_path / "h" / "failed"


def test_home_defaults_to_instance_in_the_working_folder(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert Settings.from_env({}).home == tmp_path / "instance"


def test_an_empty_variable_counts_as_unset(tmp_path):
    s = Settings.from_env({"NEWSARCHIVE_HOME": str(tmp_path), "NEWSARCHIVE_INBOX": "", "NEWSARCHIVE_DATABASE_URL": ""})
    assert s.inbox == tmp_path / "inbox"
    assert s.database_url.startswith("sqlite:///")


def test_explicit_paths_and_limits(tmp_path):
    s = Settings.from_env(
        {
            "NEWSARCHIVE_HOME": str(tmp_path),
            "NEWSARCHIVE_INBOX": str(tmp_path / "drop"),
            "NEWSARCHIVE_INDEX_DIR": str(tmp_path / "ix"),
            "NEWSARCHIVE_DATABASE_URL": "postgresql+psycopg://localhost/test",
            "NEWSARCHIVE_MAX_FILE_BYTES": "1_000",
        }
    )
    assert s.inbox == tmp_path / "drop" and s.index_dir == tmp_path / "ix"
    assert s.database_url == "postgresql+psycopg://localhost/test"
    assert s.max_file_bytes == 1000


def test_a_bad_number_is_a_clear_error(tmp_path):
    with pytest.raises(SettingsError, match="NEWSARCHIVE_MAX_FILE_BYTES must be a whole number"):
        Settings.from_env({"NEWSARCHIVE_HOME": str(tmp_path), "NEWSARCHIVE_MAX_FILE_BYTES": "lots"})


def test_the_readme_settings_table_is_the_settings_table():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    block = re.search(r"<!-- settings table:[^\n]*-->\n(.*?)\n<!-- end of settings table -->", readme, re.S)
    assert block, "the README has no settings table between its markers"
    assert block.group(1) == settings_table(), "regenerate it: python -m store.settings"


def test_the_table_and_the_settings_class_name_the_same_settings():
    assert [s.name for s in TABLE] == list(Settings.__dataclass_fields__)


@pytest.mark.parametrize(
    "variable, raw, message",
    [
        ("NEWSARCHIVE_INDEX_PROCS", "0", "NEWSARCHIVE_INDEX_PROCS must be at least 1, not '0'"),
        ("NEWSARCHIVE_SETTLE_MS", "-5", "NEWSARCHIVE_SETTLE_MS must be at least 0"),
        ("NEWSARCHIVE_SEARCH_ENGINE", "fast", "NEWSARCHIVE_SEARCH_ENGINE must be auto, numpy or whoosh, not 'fast'"),
        ("NEWSARCHIVE_DATABASE_URL", "not a url", "NEWSARCHIVE_DATABASE_URL must be a database URL"),
        ("NEWSARCHIVE_SEARCH_CACHE_MB", "1.5", "NEWSARCHIVE_SEARCH_CACHE_MB must be a whole number, not '1.5'"),
        ("NEWSARCHIVE_SEARCH_BACKEND", "solr", "NEWSARCHIVE_SEARCH_BACKEND must be whoosh or postgres, not 'solr'"),
        # The index kept in the database needs a PostgreSQL database (the default is a SQLite file).
        ("NEWSARCHIVE_SEARCH_BACKEND", "postgres", "set NEWSARCHIVE_DATABASE_URL to a PostgreSQL database"),
    ],
)
def test_every_bad_value_names_its_variable_and_what_it_must_be(tmp_path, variable, raw, message):
    with pytest.raises(SettingsError, match=re.escape(message)):
        Settings.from_env({"NEWSARCHIVE_HOME": str(tmp_path), variable: raw})


def test_values_of_every_kind_are_parsed(tmp_path):
    assert Setting("x", "float", 1.0, "").parse(" 2.5 ") == 2.5
    assert Setting("x", "float", 1.0, "", minimum=0).parse("1_000.5") == 1000.5
    with pytest.raises(SettingsError, match="NEWSARCHIVE_X must be a number, not 'fast'"):
        Setting("x", "float", 1.0, "").parse("fast")
    for raw, value in [("true", True), ("YES", True), ("1", True), ("off", False), ("0", False), ("false", False)]:
        assert Setting("x", "bool", False, "").parse(raw) is value
    with pytest.raises(SettingsError, match="NEWSARCHIVE_X must be true or false, not 'maybe'"):
        Setting("x", "bool", False, "").parse("maybe")
    assert Setting("x", "path", ".", "").parse("~/data") == Path("~/data").expanduser().resolve()
    assert Setting("x", "str", "", "").parse(" Europe/London ") == "Europe/London"
    s = Settings.from_env({"NEWSARCHIVE_HOME": str(tmp_path), "NEWSARCHIVE_SEARCH_ENGINE": "whoosh"})
    assert s.search_engine == "whoosh" and isinstance(s.index_procs, int)


def test_an_unknown_override_is_refused(tmp_path):
    with pytest.raises(TypeError, match="unknown settings: colour"):
        Settings.from_env({}, home=tmp_path, colour="blue")
