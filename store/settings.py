"""Settings: one table of every setting the archive reads, each with its type, default and meaning.

`Settings.from_env` parses and checks every value by that table, so a bad value stops the command with
the variable's name and what it must be; the README's settings table is made from it (`settings_table`)
and a test keeps the two the same.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Union
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

ENV_PREFIX = "NEWSARCHIVE_"
KINDS = ("path", "url", "urls", "int", "float", "bool", "str", "choice", "zone")
TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")

Default = Union[Any, Callable[[dict], Any]]  # a value, or made from the settings read before it


@dataclass(frozen=True)
class Setting:
    name: str  # the attribute; the environment variable is NEWSARCHIVE_ + NAME
    kind: str  # one of KINDS
    default: Default
    meaning: str
    shown_default: Optional[str] = None  # the default as the README shows it, when it is derived
    choices: tuple[str, ...] = ()  # for kind "choice"
    minimum: Optional[float] = None  # for kinds "int" and "float"

    @property
    def variable(self) -> str:
        return ENV_PREFIX + self.name.upper()

    def shown(self) -> str:
        if self.shown_default is not None:
            return self.shown_default
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        if isinstance(self.default, int):
            return f"{self.default:_}"
        return str(self.default)

    def parse(self, raw: str) -> Any:
        """The value of `raw` for this setting, or SettingsError saying what it must be."""
        text = raw.strip()
        if self.kind == "path":
            return Path(text).expanduser().resolve()
        if self.kind == "url":
            try:
                make_url(text)
            except ArgumentError:
                raise SettingsError(
                    f"{self.variable} must be a database URL such as postgresql+psycopg://user@host/db, not {raw!r}"
                ) from None
            return text
        if self.kind == "urls":
            urls = tuple(part.strip() for part in text.split(",") if part.strip())
            for url in urls:
                try:
                    make_url(url)
                except ArgumentError:
                    raise SettingsError(
                        f"{self.variable} must be database URLs separated by commas, such as "
                        f"postgresql+psycopg://user@replica1/db, not {url!r}"
                    ) from None
            return urls
        if self.kind in ("int", "float"):
            try:
                value = int(text.replace("_", "")) if self.kind == "int" else float(text.replace("_", ""))
            except ValueError:
                what = "a whole number" if self.kind == "int" else "a number"
                raise SettingsError(f"{self.variable} must be {what}, not {raw!r}") from None
            if self.minimum is not None and value < self.minimum:
                raise SettingsError(f"{self.variable} must be at least {self.minimum:g}, not {raw!r}")
            return value
        if self.kind == "bool":
            if text.lower() in TRUE_WORDS:
                return True
            if text.lower() in FALSE_WORDS:
                return False
            raise SettingsError(f"{self.variable} must be true or false, not {raw!r}")
        if self.kind == "zone":
            try:
                ZoneInfo(text)
            except (ZoneInfoNotFoundError, ValueError):
                raise SettingsError(
                    f"{self.variable} must be a time zone name such as UTC or Europe/London, not {raw!r}"
                ) from None
            return text
        if self.kind == "choice":
            if text not in self.choices:
                raise SettingsError(f"{self.variable} must be {_alternatives(self.choices)}, not {raw!r}")
            return text
        return text


def _alternatives(choices: tuple[str, ...]) -> str:
    return ", ".join(choices[:-1]) + " or " + choices[-1]


TABLE: tuple[Setting, ...] = (
    Setting("home", "path", "./instance", "data folder holding the defaults below, `archive/` and `failed/`"),
    Setting(
        "database_url",
        "url",
        lambda s: f"sqlite:///{s['home'] / 'newsarchive.sqlite'}",
        "any SQLAlchemy URL, e.g. `postgresql+psycopg://user@host/db`",
        shown_default="sqlite:///$NEWSARCHIVE_HOME/newsarchive.sqlite",
    ),
    Setting(
        "database_replica_urls",
        "urls",
        (),
        "PostgreSQL streaming replicas of that database, separated by commas: searches, article pages, exports "
        "and feeds read from them (round-robin), everything that writes goes to `NEWSARCHIVE_DATABASE_URL`",
        shown_default="(none)",
    ),
    Setting(
        "replica_max_lag_s",
        "float",
        5.0,
        "a replica further behind the primary than this many seconds is left out until it catches up "
        "(checked at most once a second); when no replica is usable the primary answers",
        minimum=0,
    ),
    Setting(
        "archive_dir",
        "path",
        lambda s: s["home"] / "archive",
        "where ingested files are kept (the article pages' original downloads); on several machines, a shared "
        "folder mounted at the same path on every ingester and web server",
        shown_default="$NEWSARCHIVE_HOME/archive",
    ),
    Setting(
        "index_dir",
        "path",
        lambda s: s["home"] / "index",
        "the Whoosh index (generations `gen-*` and the `current` link); with the `postgres` search backend, "
        "this machine's copy of the index kept in PostgreSQL (`pg-*`, rebuilt from it whenever missing)",
        shown_default="$NEWSARCHIVE_HOME/index",
    ),
    Setting(
        "inbox",
        "path",
        lambda s: s["home"] / "inbox",
        "the folder users drop files into",
        shown_default="$NEWSARCHIVE_HOME/inbox",
    ),
    Setting(
        "sources_file",
        "path",
        None,
        'your own source names, as JSON: `{"BBC News": ["BBC", "BBC Online"]}`; each name then stands for '
        "its canonical one, beside the built-in agencies (AP, Reuters, AFP, UPI, ...)",
        shown_default="(none)",
    ),
    Setting(
        "max_file_bytes",
        "int",
        50_000_000,
        "files up to this size are read into memory; a bigger JSON Lines, WARC, zip or tar file (plain or gzipped) "
        "is read as a stream, record by record; any other bigger file is quarantined",
        minimum=1,
    ),
    Setting(
        "max_unpacked_bytes",
        "int",
        1_000_000_000,
        "the members of a zip or tar bundle together may unpack to at most this much, and a gzip stream too "
        "unless it stays under 50 times its packed size (a bomb packs about 1,000 to 1)",
        minimum=1,
    ),
    Setting(
        "max_record_bytes",
        "int",
        5_000_000,
        "one JSON Lines record, WARC record or bundle member may be at most this long",
        minimum=1,
    ),
    Setting("watch_interval_ms", "int", 1000, "how often `--watch` looks at the inbox", minimum=1),
    Setting("settle_ms", "int", 2000, "a file must be unchanged this long before `--watch` reads it", minimum=0),
    Setting("ingest_batch_articles", "int", 500, "articles per SQL insert batch", minimum=1),
    Setting(
        "ingest_slice_s",
        "float",
        None,
        "how long one transaction of a file of many records lasts: at each, its articles so far become "
        "searchable and survive a kill; longer slices make fewer, larger index segments",
        shown_default="1 (`whoosh` backend) or 5 (`postgres`)",
        minimum=0.01,
    ),
    Setting("ingest_workers", "int", 0, "parser processes for big files; 0 means one per CPU", minimum=0),
    Setting(
        "ingest_nice",
        "int",
        5,
        "how much lower than the server's the CPU priority of `newsarchive ingest` (and its parser and index "
        "processes) is: searches keep answering while a big file is read; 0 leaves it as started",
        minimum=0,
    ),
    Setting("index_procs", "int", 2, "Whoosh writer processes for large index batches", minimum=1),
    Setting(
        "index_memory_mb",
        "int",
        768,
        "index writer memory for postings (shared by its processes) before it spills sorted runs to disk; "
        "merging spilled runs is slow in Whoosh, so this buys ingest speed (see `BENCHMARKS.md`)",
        minimum=16,
    ),
    Setting("sqlite_busy_timeout_ms", "int", 30_000, "how long SQLite waits for a lock", minimum=0),
    Setting(
        "search_cache_mb",
        "int",
        128,
        "decoded posting lists the server keeps between queries, and as much again of scored words, and a "
        "sixteenth of it of position blocks for phrase checks (per worker)",
        minimum=0,
    ),
    Setting(
        "search_answers",
        "int",
        32,
        "answers kept for their next pages and exports (per worker; keyed by the index's state, so an ingest "
        "makes them new; 0 keeps none)",
        minimum=0,
    ),
    Setting(
        "secret_key",
        "str",
        None,
        "signs the web server's session cookie (the CSRF token of its forms and, in `login` mode, the "
        "signed-in session's id); unset, a random key is made once and kept in `HOME/secret_key`",
    ),
    Setting(
        "access",
        "choice",
        "auto",
        "`open`: anyone who reaches the server reads and does everything (one person on their own machine); "
        "`login`: accounts, roles, API tokens and per-collection permissions; `auto`: `open` on a loopback "
        "address, and `serve` on any other address refuses to start until this is set",
        choices=("auto", "open", "login"),
    ),
    Setting("session_hours", "int", 168, "how long a sign-in lasts (`login` mode)", minimum=1),
    Setting(
        "https",
        "bool",
        False,
        "the server is reached over HTTPS (a TLS proxy in front of it): cookies are marked Secure "
        "(they are whenever the request itself came over HTTPS)",
    ),
    Setting(
        "proxies",
        "int",
        0,
        "how many reverse proxies (nginx, a load balancer) stand in front of the server: their "
        "X-Forwarded-For and X-Forwarded-Proto headers are then believed, so sign-in lockouts count the "
        "reader's address and cookies are Secure behind a TLS proxy; 0 believes none",
        minimum=0,
    ),
    Setting(
        "login_max_failures",
        "int",
        5,
        "failed sign-ins in a row that lock an account for `LOGIN_LOCKOUT_S`",
        minimum=1,
    ),
    Setting(
        "login_address_max_failures",
        "int",
        20,
        "failed sign-ins from one address within `LOGIN_LOCKOUT_S` that lock that address out as long",
        minimum=1,
    ),
    Setting("login_lockout_s", "int", 900, "how long a lockout lasts, in seconds", minimum=1),
    Setting(
        "login_failure_delay_ms",
        "int",
        500,
        "every failed sign-in is answered this much later (slows guessing)",
        minimum=0,
    ),
    Setting(
        "export_max_rows",
        "int",
        100_000,
        "the most hits one CSV or JSON Lines export of a search holds (`/api/search.csv`, `--format csv`)",
        minimum=1,
    ),
    Setting(
        "search_engine",
        "choice",
        "auto",
        "`numpy` (fast), `whoosh` (Whoosh's own matching, slower, the same answers) or `auto` "
        "(numpy on the tested Whoosh version)",
        choices=("auto", "numpy", "whoosh"),
    ),
    Setting(
        "search_backend",
        "choice",
        "whoosh",
        "where the search index lives: `whoosh` (a folder, `NEWSARCHIVE_INDEX_DIR`, written after each file's "
        "articles commit) or `postgres` (in the PostgreSQL database, written in the same transaction as the "
        "articles; each machine keeps a copy in `NEWSARCHIVE_INDEX_DIR`); needs a PostgreSQL database URL",
        choices=("whoosh", "postgres"),
    ),
    Setting(
        "time_zone",
        "zone",
        "UTC",
        "the time zone pages show times in (an IANA name such as `Europe/London`); the API's `published` "
        "keeps each article's own offset",
    ),
)


@dataclass(frozen=True)
class Settings:
    """Every setting the archive reads (see TABLE); paths are absolute once built by `from_env`."""

    home: Path
    database_url: str
    database_replica_urls: tuple[str, ...]
    replica_max_lag_s: float
    archive_dir: Path
    index_dir: Path
    inbox: Path
    sources_file: Optional[Path]
    # Limits, with their units in their names.
    max_file_bytes: int
    max_unpacked_bytes: int
    max_record_bytes: int
    watch_interval_ms: int
    settle_ms: int
    ingest_batch_articles: int
    ingest_slice_s: Optional[float]  # None: the search backend's own (ingest/transaction.py)
    ingest_workers: int  # parser processes; 0 means one per CPU
    ingest_nice: int  # added to the ingester's niceness (os.nice)
    index_procs: int
    index_memory_mb: int
    sqlite_busy_timeout_ms: int
    search_cache_mb: int
    search_answers: int
    secret_key: Optional[str]
    access: str  # auto, open or login (store/access.py)
    session_hours: int
    https: bool
    proxies: int  # trusted reverse proxies in front (werkzeug's ProxyFix)
    login_max_failures: int
    login_address_max_failures: int
    login_lockout_s: int
    login_failure_delay_ms: int
    export_max_rows: int
    search_engine: str  # auto, numpy or whoosh (search/engine.py)
    search_backend: str  # whoosh or postgres (store/pgindex.py)
    time_zone: str  # an IANA zone name: where pages show times (store/display.py)

    @property
    def login_required(self) -> bool:
        """Whether accounts and permissions are checked (`access` is `login`)."""
        return self.access == "login"

    @property
    def failed_dir(self) -> Path:
        return self.home / "failed"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> "Settings":
        """Settings from `NEWSARCHIVE_*` variables (an empty one counts as unset), with `overrides` (values
        of the right type, as tests and benchmarks give them) taking their place."""
        unknown = set(overrides) - {s.name for s in TABLE}
        if unknown:
            raise TypeError(f"unknown settings: {', '.join(sorted(unknown))}")
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for setting in TABLE:
            raw = env.get(setting.variable)
            if setting.name in overrides and overrides[setting.name] is not None:
                value = overrides[setting.name]
            elif raw not in (None, "") and raw.strip():
                value = setting.parse(raw)
            else:
                value = setting.default(values) if callable(setting.default) else setting.default
            if setting.kind == "path" and value is not None:
                value = Path(value).expanduser().resolve()
            values[setting.name] = value
        if values["search_backend"] == "postgres" and not str(values["database_url"]).startswith("postgresql"):
            raise SettingsError(
                "NEWSARCHIVE_SEARCH_BACKEND=postgres keeps the search index in PostgreSQL: set "
                "NEWSARCHIVE_DATABASE_URL to a PostgreSQL database (postgresql+psycopg://user@host/db), "
                "or NEWSARCHIVE_SEARCH_BACKEND=whoosh"
            )
        if values["database_replica_urls"]:
            not_pg = [
                u
                for u in values["database_replica_urls"] + (str(values["database_url"]),)
                if not u.startswith("postgresql")
            ]
            if not_pg:
                raise SettingsError(
                    "NEWSARCHIVE_DATABASE_REPLICA_URLS names streaming replicas of a PostgreSQL primary: "
                    "NEWSARCHIVE_DATABASE_URL and every replica URL must be postgresql+psycopg://... URLs"
                )
        return cls(**values)

    def ensure_dirs(self) -> None:
        """Create the data folders (home, inbox, archive, failed, index parent) if missing."""
        for path in (self.home, self.inbox, self.archive_dir, self.failed_dir, self.index_dir.parent):
            path.mkdir(parents=True, exist_ok=True)


class SettingsError(ValueError):
    """A setting has a value the archive cannot use."""


def settings_table() -> str:
    """The README's settings table, in Markdown, made from TABLE."""
    lines = ["| variable | type | default | meaning |", "| --- | --- | --- | --- |"]
    for s in TABLE:
        kind = "one of " + ", ".join(f"`{c}`" for c in s.choices) if s.kind == "choice" else s.kind
        lines.append(f"| `{s.variable}` | {kind} | `{s.shown()}` | {s.meaning} |")
    return "\n".join(lines)


if __name__ == "__main__":  # python -m store.settings: print the table for the README
    sys.stdout.write(settings_table() + "\n")
