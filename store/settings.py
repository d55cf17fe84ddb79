"""Settings: read once from the environment, with the defaults of SPEC.md kept in code."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

ENV_PREFIX = "NEWSARCHIVE_"


@dataclass(frozen=True)
class Settings:
    """Every setting the archive reads; paths are absolute once built by `from_env`."""

    home: Path
    database_url: str
    index_dir: Path
    inbox: Path
    # Limits, with their units in their names.
    max_file_bytes: int = 50_000_000
    max_unpacked_bytes: int = 1_000_000_000
    max_record_bytes: int = 5_000_000
    watch_interval_ms: int = 1000
    settle_ms: int = 2000
    ingest_batch_articles: int = 500
    ingest_workers: int = 0  # parser processes; 0 means one per CPU
    index_procs: int = 2
    index_memory_mb: int = 768
    sqlite_busy_timeout_ms: int = 30_000
    search_cache_mb: int = 128
    search_engine: str = "auto"  # auto, numpy or whoosh (search/engine.py)

    @property
    def archive_dir(self) -> Path:
        return self.home / "archive"

    @property
    def failed_dir(self) -> Path:
        return self.home / "failed"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides) -> "Settings":
        """Build settings from `NEWSARCHIVE_*` variables (an empty one counts as unset), then apply overrides."""
        env = os.environ if environ is None else environ

        def get(name: str) -> str | None:
            value = env.get(ENV_PREFIX + name.upper())
            return value if value not in (None, "") else None

        home = Path(overrides.pop("home", None) or get("home") or "./instance").expanduser().resolve()
        database_url = (
            overrides.pop("database_url", None) or get("database_url") or (f"sqlite:///{home / 'newsarchive.sqlite'}")
        )
        index_dir = Path(overrides.pop("index_dir", None) or get("index_dir") or home / "index").expanduser().resolve()
        inbox = Path(overrides.pop("inbox", None) or get("inbox") or home / "inbox").expanduser().resolve()

        numbers = {}
        for f in dataclasses.fields(cls):
            if f.type in ("int",) and f.name not in overrides:
                raw = get(f.name)
                if raw is not None:
                    try:
                        numbers[f.name] = int(raw.replace("_", ""))
                    except ValueError:
                        raise SettingsError(f"{ENV_PREFIX}{f.name.upper()} must be a whole number, not {raw!r}")
        engine = overrides.pop("search_engine", None) or get("search_engine") or "auto"
        if engine not in ("auto", "numpy", "whoosh"):
            raise SettingsError(f"{ENV_PREFIX}SEARCH_ENGINE must be auto, numpy or whoosh, not {engine!r}")
        return cls(
            home=home,
            database_url=database_url,
            index_dir=index_dir,
            inbox=inbox,
            search_engine=engine,
            **numbers,
            **overrides,
        )

    def ensure_dirs(self) -> None:
        """Create the data folders (home, inbox, archive, failed, index parent) if missing."""
        for path in (self.home, self.inbox, self.archive_dir, self.failed_dir, self.index_dir.parent):
            path.mkdir(parents=True, exist_ok=True)


class SettingsError(ValueError):
    """A setting has a value the archive cannot use."""


def documented_settings() -> list[tuple[str, str]]:
    """Every environment variable the archive reads, with its default, for the README and its test."""
    rows = [
        ("NEWSARCHIVE_HOME", "./instance"),
        ("NEWSARCHIVE_DATABASE_URL", "sqlite:///$NEWSARCHIVE_HOME/newsarchive.sqlite"),
        ("NEWSARCHIVE_INDEX_DIR", "$NEWSARCHIVE_HOME/index"),
        ("NEWSARCHIVE_INBOX", "$NEWSARCHIVE_HOME/inbox"),
    ]
    for f in dataclasses.fields(Settings):
        if f.type == "int":
            rows.append((ENV_PREFIX + f.name.upper(), f"{f.default:_}"))
        elif f.type == "str" and f.name != "database_url":
            rows.append((ENV_PREFIX + f.name.upper(), f.default))
    return rows
