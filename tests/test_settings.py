from pathlib import Path

import pytest

from store.settings import Settings, SettingsError, documented_settings


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


def test_every_setting_is_documented_in_the_readme():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    for name, _default in documented_settings():
        assert f"`{name}`" in readme, f"{name} is not in the README's settings table"
