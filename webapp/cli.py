"""The `newsarchive` command: a thin wrapper over the library that turns errors into clear messages.

Only `db upgrade`, `ingest` and `reindex` change the database's schema (they apply the migrations first);
`search`, `stats` and `serve` read, and on a database behind the migrations they stop and say to run
`newsarchive db upgrade`.
"""

from __future__ import annotations

import getpass
import json
import logging
import re
import signal
import subprocess
import sys
from html import unescape
from pathlib import Path

import click
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from tqdm import tqdm

from ingest.errors import DatabaseUnavailable, position_name
from ingest.indexing import reindex as rebuild_index
from ingest.pipeline import FileResult, Ingester, RunSummary
from ingest.priority import lower_priority
from ingest.watch import watch as watch_inbox
from search.index import IndexBusy, IndexMissing
from search.request import EXCLUDE_PREFIX, BadRequest, parse_request
from search.schema import FACETS
from store import access
from store import saved as saved_searches
from store.db import DatabaseBehind, make_engine, make_sessionmaker, require_current, upgrade
from store.models import ROLES
from store.pgindex import open_index
from store.read import Archive
from store.settings import Settings, SettingsError
from store.stats import collect, searchable_count

from .api import csv_lines
from .auth import loopback
from .server import default_workers
from .server import serve as serve_app


def _settings() -> Settings:
    try:
        return Settings.from_env()
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from exc


def _safe_url(settings: Settings) -> str:
    return make_url(settings.database_url).render_as_string(hide_password=True)


def _upgrade(settings: Settings) -> None:
    """Apply the migrations (for the commands that write)."""
    try:
        upgrade(settings)
    except SQLAlchemyError as exc:
        reason = exc.orig if hasattr(exc, "orig") else exc
        raise click.ClickException(
            f"cannot reach or migrate the database at {_safe_url(settings)}: {exc.__class__.__name__}: {reason}"
        ) from exc


def _require_current(settings: Settings) -> None:
    """Stop with advice when the database is behind the migrations (for the commands that only read)."""
    try:
        require_current(settings)
    except DatabaseBehind as exc:
        raise click.ClickException(str(exc)) from exc
    except SQLAlchemyError as exc:
        reason = exc.orig if hasattr(exc, "orig") else exc
        raise click.ClickException(
            f"cannot reach the database at {_safe_url(settings)}: {exc.__class__.__name__}: {reason}"
        ) from exc


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """newsarchive: ingest news articles, search them, serve them."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")


# -- writing ---------------------------------------------------------------------------------------------


@cli.group()
def db() -> None:
    """Database commands."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Apply the Alembic migrations to the database."""
    settings = _settings()
    _upgrade(settings)
    click.echo(f"database at {_safe_url(settings)} is at the latest revision")


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--watch", is_flag=True, help="After ingesting, keep watching the inbox for new files.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--workers", type=click.IntRange(0, 64), default=None, help="Parser processes (default: one per CPU).")
def ingest(paths: tuple[Path, ...], watch: bool, as_json: bool, workers: int | None) -> None:
    """Ingest files or folders (default: the inbox); inbox files move to archive/ or failed/."""
    settings = _settings()
    lower_priority(settings)
    _upgrade(settings)
    try:
        ingester = Ingester(settings, workers=workers)
    except SettingsError as exc:
        raise click.ClickException(str(exc)) from exc
    with ingester:
        try:
            summary = ingester.run(paths, progress=not as_json and sys.stderr.isatty())
        except DatabaseUnavailable as exc:
            raise click.ClickException(str(exc)) from exc
        if as_json:
            click.echo(json.dumps(summary.as_dict(), ensure_ascii=False))
        else:
            _print_summary(summary)
        if watch:
            click.echo(f"watching {settings.inbox} (Ctrl-C to stop)", err=True)

            def report(result: FileResult) -> None:
                if as_json:
                    click.echo(json.dumps(result.as_dict(), ensure_ascii=False))
                else:
                    click.echo(file_line(result))

            try:
                watch_inbox(
                    ingester,
                    on_result=report,
                    on_error=lambda exc: click.echo(f"waiting for the database: {exc}", err=True),
                )
            except KeyboardInterrupt:
                pass


def _print_summary(summary: RunSummary) -> None:
    click.echo(
        f"ingested {summary.ingested} article(s), {summary.duplicates} duplicate(s), "
        f"{summary.failed_files} failed, {summary.skipped_records} bad record(s) skipped, "
        f"from {len(summary.files)} file(s)"
    )
    for result in summary.files:
        if result.status == "failed":
            click.echo(f"  failed: {result.path}: {result.reason}")
        for error in result.errors[:20]:
            click.echo(f"  {result.path} {position_name(result.format)} {error['line']}: {error['reason']}")
        if len(result.errors) > 20:
            click.echo(f"  {result.path}: {len(result.errors) - 20} more bad record(s); see the ingest log")


def file_line(result: FileResult) -> str:
    """The line `ingest --watch` prints for a file it read: what became of it."""
    if result.status in ("failed", "busy", "gone"):
        return f"{result.status}: {result.path}: {result.reason}"
    if result.status == "duplicate" and not result.articles and not result.duplicates:
        return f"duplicate: {result.path}: {result.reason}"
    skipped = f", {len(result.errors)} bad record(s) skipped" if result.errors else ""
    return (
        f"{result.status}: {result.path} ({result.articles} new article(s), {result.duplicates} already stored"
        f"{skipped})"
    )


@cli.command()
def reindex() -> None:
    """Rebuild the search index from the SQL store and swap it in atomically (a bar of articles on a
    terminal); searches keep answering from the old index meanwhile. With the postgres search backend an
    interrupted rebuild goes on where it stopped the next time."""
    settings = _settings()
    lower_priority(settings)
    _upgrade(settings)
    engine = make_engine(settings)
    sessions = make_sessionmaker(engine)
    try:
        with sessions() as session:
            total = searchable_count(session)
        with tqdm(total=total, unit="article", file=sys.stderr, disable=None, dynamic_ncols=True) as bar:
            count = rebuild_index(
                sessions,
                open_index(settings, engine),
                procs=settings.index_procs,
                memory_mb=settings.index_memory_mb,
                progress=lambda done: bar.update(done - bar.n),
            )
    except IndexBusy as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        engine.dispose()
    where = "the database (search backend postgres)" if settings.search_backend == "postgres" else settings.index_dir
    click.echo(f"reindexed {count} article(s) into {where}")


# -- reading ---------------------------------------------------------------------------------------------


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
def stats(as_json: bool) -> None:
    """Counts of articles, captions, sources, failed files, and the index's size."""
    settings = _settings()
    _require_current(settings)
    data = collect(settings)
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False))
        return
    servers = data.pop("database", None)
    for key, value in data.items():
        click.echo(f"{key}: {value}")
    if servers:
        primary = servers["primary"]
        click.echo(f"primary: {'up' if primary['up'] else 'DOWN'} ({primary['url']})")
        for replica in servers["replicas"]:
            state = "DOWN" if not replica["up"] else ("in use" if replica["usable"] else "left out")
            lag = "unknown" if replica.get("lag_s") is None else f"{replica['lag_s']:.1f} s"
            click.echo(f"{replica['name']}: {state}, {lag} behind ({replica['url']})")


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="One JSON object per saved search with its new matches.")
def alerts(as_json: bool) -> None:
    """Print the matches of every saved search stored since the last `alerts` run (for cron); each match
    is printed once. Saved searches are made on the search page ("Save this search")."""
    settings = _settings()
    _require_current(settings)
    archive = Archive(settings)
    try:
        found = saved_searches.alerts(archive)
    except IndexMissing as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        archive.close()
    for saved, matches in found:
        if as_json:
            click.echo(json.dumps({"id": saved.id, "name": saved.name, "params": saved.params, "new": matches}))
            continue
        if saved.problem:
            click.echo(f"{saved.name}: this saved search no longer works: {saved.problem}")
            continue
        click.echo(f"{saved.name}: {len(matches)} new")
        for match in matches:
            date = (match["published"] or "")[:10]
            click.echo(f"  [{match['id']}] {match['headline']} ({', '.join(filter(None, [match['source'], date]))})")


@cli.command("search")
@click.argument("query", nargs=-1)
@click.option(
    "--format",
    "output",
    type=click.Choice(["text", "json", "csv", "jsonl"]),
    default="text",
    show_default=True,
    help="text: hits for reading; json: the /api/search answer; csv, jsonl: every hit (export, up to --limit).",
)
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
@click.option(
    "--limit",
    "--per-page",
    "per_page",
    type=int,
    default=None,
    help="Hits per page (1-100, default 10); with csv or jsonl, the most hits to write (default: all, up to "
    "NEWSARCHIVE_EXPORT_MAX_ROWS).",
)
@click.option("--page", type=int, default=1, show_default=True, help="Page of hits, from 1.")
@click.option("--sort", default="relevance", show_default=True, help="relevance, newest or oldest.")
@click.option("--from", "date_from", default="", help="Earliest publication date, inclusive (2015-01-30 or 2015).")
@click.option("--to", "date_to", default="", help="Latest publication date, inclusive.")
@click.option("--source", multiple=True, help="Only this source (repeatable: any of them).")
@click.option("--credit", multiple=True, help="Only articles with this photo credit (repeatable).")
@click.option("--place", multiple=True, help="Only articles about this place (repeatable).")
@click.option("--year", multiple=True, help="Only articles of this year (repeatable).")
@click.option("--byline", multiple=True, help="Only articles by this writer (repeatable).")
@click.option("--dateline", multiple=True, help="Only articles with this dateline place (repeatable).")
@click.option("--language", multiple=True, help="Only articles in this language code, e.g. en (repeatable).")
@click.option("--story", multiple=True, help="Only the versions of this story (its id; repeatable).")
@click.option("--all-versions", is_flag=True, help="Every version of a story, not one hit per story.")
@click.option(
    "--exclude",
    multiple=True,
    metavar="FACET=VALUE",
    help="Leave out articles with this facet value, e.g. source=Reuters (repeatable).",
)
@click.option(
    "--text", "text", type=click.Choice(["snippet", "body"]), default="snippet", help="csv/jsonl: text column."
)
@click.option("--no-correct", is_flag=True, help="Answer the query as typed even when it finds nothing.")
def search_command(query: tuple[str, ...], output: str, as_json: bool, **options) -> None:
    """Search the archive exactly as /api/search does (quote phrases: 'source:"associated press"').

    With --format csv or jsonl, every hit is written in the order the pages show them (as
    /api/search.csv and /api/search.jsonl do)."""
    settings = _settings()
    output = "json" if as_json else output
    export = output in ("csv", "jsonl")
    params = {
        "q": " ".join(query).strip(),
        "per_page": str(20 if export else 10 if options["per_page"] is None else options["per_page"]),
        "page": str(options["page"]),
        "sort": options["sort"],
        "from": options["date_from"],
        "to": options["date_to"],
        "correct": "false" if options["no_correct"] else "true",
        "collapse": "false" if options["all_versions"] else "true",
    }
    filters = {facet: list(options[facet]) for facet in FACETS}
    for item in options["exclude"]:
        facet, sep, value = item.partition("=")
        if not sep or facet.strip() not in FACETS:
            raise click.BadParameter(
                f"{item!r}: write FACET=VALUE, FACET one of {', '.join(FACETS)}", param_hint="--exclude"
            )
        filters.setdefault(EXCLUDE_PREFIX + facet.strip(), []).append(value)
    try:
        request = parse_request(params.get, lambda name: filters.get(name, []))
    except BadRequest as exc:
        raise click.ClickException(exc.message) from exc
    _require_current(settings)
    archive = Archive(settings)
    try:
        if export:
            limit = options["per_page"]
            if limit is not None and limit < 1:
                raise click.BadParameter("must be at least 1", param_hint="--limit")
            _, rows = archive.export(request, options["text"], limit)
            lines = (
                csv_lines(rows, options["text"])
                if output == "csv"
                else (json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
            )
            for line in lines:
                click.echo(line, nl=False)
            return
        answer = archive.search(request)
    except (BadRequest, IndexMissing) as exc:
        raise click.ClickException(getattr(exc, "message", str(exc))) from exc
    finally:
        archive.close()
    if output == "json":
        click.echo(json.dumps(answer, ensure_ascii=False))
        return
    text = request.q
    for notice in answer["notices"]:
        click.echo(f"note: {notice}")
    pages = max(1, -(-answer["total"] // request.per_page))
    if answer["corrected"]:
        click.echo(f"no results for {text!r}; showing {answer['total']} result(s) for {answer['suggestion']!r}")
    else:
        click.echo(f"{answer['total']} result(s) for {text!r}" if text else f"{answer['total']} article(s)")
        if answer["suggestion"]:
            click.echo(f"did you mean: {answer['suggestion']}")
    if pages > 1:
        click.echo(f"page {request.page} of {pages:,} (--page N for another)")
    for hit in answer["hits"]:
        snippet = " ".join(unescape(re.sub(r"</?mark>", "", hit["snippet"])).split())  # one line a snippet
        versions = f" ({hit['versions']} versions)" if hit.get("versions", 1) > 1 else ""
        meta = " · ".join(
            filter(None, [hit["source"], hit.get("byline"), hit.get("dateline"), hit.get("published_display")])
        )
        click.echo(f"\n[{hit['id']}] {hit['headline']}{versions}\n    {meta}\n    {snippet}")
        caption = hit.get("caption_match")
        if caption and caption["snippet"] != hit["snippet"]:
            credit = f" ({caption['credit']})" if caption["credit"] else ""
            click.echo(f"    photo caption: {unescape(re.sub(r'</?mark>', '', caption['snippet']))}{credit}")


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=5000, show_default=True, type=click.IntRange(1, 65535), help="Port to listen on.")
@click.option(
    "--workers",
    default=None,
    type=click.IntRange(1, 64),
    help="Worker processes (default: one per core, %s here)." % default_workers(),
)
@click.option("--threads", default=4, show_default=True, type=click.IntRange(1, 64), help="Request threads per worker.")
@click.option("--watch", is_flag=True, help="Also ingest the inbox and keep watching it, in a separate process.")
def serve(host: str, port: int, workers: int | None, threads: int, watch: bool) -> None:
    """Serve the web app and JSON API on a production WSGI server (gunicorn); Ctrl-C stops it."""
    settings = _settings()
    _require_current(settings)
    mode = _access_mode(settings, host)
    watcher = None
    if watch:
        watcher = subprocess.Popen([sys.executable, "-m", "webapp.cli", "ingest", "--watch"])
    workers = workers or default_workers()
    click.echo(
        f"serving http://{host}:{port}/ with {workers} worker process(es) of {threads} threads (Ctrl-C to stop)",
        err=True,
    )
    click.echo(mode, err=True)
    try:
        serve_app(settings, host, port, workers, threads)
    finally:
        if watcher is not None:
            watcher.send_signal(signal.SIGINT)
            try:
                watcher.wait(10)
            except subprocess.TimeoutExpired:
                watcher.kill()


def _access_mode(settings: Settings, host: str) -> str:
    """The start-up line about who may read the archive; stops when open mode on a network is not explicit."""
    if settings.access == "login":
        engine = make_engine(settings)
        try:
            with make_sessionmaker(engine)() as session:
                admins = [u for u in access.users(session) if u.role == "admin" and not u.disabled]
        finally:
            engine.dispose()
        line = "access: login (accounts, roles and per-collection permissions; NEWSARCHIVE_ACCESS=login)"
        if not admins:
            line += "; no admin account yet: make one with `newsarchive users add NAME --role admin`"
        return line
    if settings.access == "auto" and not loopback(host):
        raise click.ClickException(
            f"{host} is reachable from other machines, and this archive is open (no accounts): set "
            "NEWSARCHIVE_ACCESS=login to require sign-in (make an admin first: `newsarchive users add NAME "
            "--role admin`), or NEWSARCHIVE_ACCESS=open to let everyone who can reach it read and do everything"
        )
    if loopback(host):
        return "access: open (only this machine can reach it; NEWSARCHIVE_ACCESS=login for accounts)"
    return (
        f"access: OPEN TO EVERYONE who can reach {host}:{{port}}: they read every article and may change saved "
        "searches (NEWSARCHIVE_ACCESS=open; set NEWSARCHIVE_ACCESS=login for accounts)"
    ).replace(":{port}", "")


# -- accounts, tokens, collections and the audit log (store/access.py) -----------------------------------


def _admin_session(settings: Settings):
    _require_current(settings)
    engine = make_engine(settings)
    return engine, make_sessionmaker(engine)


def _operator() -> access.Principal:
    """The audit log's actor for a command run on the server: the operating-system user."""
    try:
        name = getpass.getuser()
    except Exception:
        name = "unknown"
    return access.Principal(name=f"cli:{name}"[:100], via="cli")


def _change(action: str, target: str, work, detail: str | None = None):
    """Run `work(session)` in one transaction with its audit record; AccessError as a clear message."""
    settings = _settings()
    engine, sessions = _admin_session(settings)
    try:
        with sessions.begin() as session:
            result = work(session)
            access.record(session, _operator(), action, target, detail)
            return result
    except access.AccessError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        engine.dispose()


def _read(work):
    settings = _settings()
    engine, sessions = _admin_session(settings)
    try:
        with sessions() as session:
            return work(session)
    except access.AccessError as exc:
        raise click.ClickException(str(exc)) from exc
    finally:
        engine.dispose()


def _password(given: str | None) -> str:
    if given is not None:
        return given
    if not sys.stdin.isatty():
        line = sys.stdin.readline().rstrip("\n")
        if not line:
            raise click.ClickException("give the password on standard input (one line) or with --password")
        return line
    return click.prompt("Password", hide_input=True, confirmation_prompt=True)


@cli.group()
def users() -> None:
    """Accounts (login mode): add, list, change, disable."""


@users.command("add")
@click.argument("name")
@click.option("--role", type=click.Choice(ROLES), default="reader", show_default=True)
@click.option("--groups", default="", help="Comma-separated groups, e.g. wire-desk,photo.")
@click.option("--password", default=None, help="The password (else asked for, or read from standard input).")
def users_add(name: str, role: str, groups: str, password: str | None) -> None:
    """Add an account. The first admin adopts the saved searches made in open mode."""
    secret = _password(password)
    _change("user_add", f"user:{name}", lambda s: access.add_user(s, name, secret, role, groups.split(",")), role)
    click.echo(f"added {name} ({role})")


@users.command("list")
@click.option("--json", "as_json", is_flag=True)
def users_list(as_json: bool) -> None:
    """Every account with its role, groups and state."""
    rows = _read(
        lambda s: [
            {"name": u.name, "role": u.role, "groups": u.groups or "", "disabled": u.disabled} for u in access.users(s)
        ]
    )
    for row in rows:
        if as_json:
            click.echo(json.dumps(row))
        else:
            state = "disabled" if row["disabled"] else "active"
            click.echo(f"{row['name']}\t{row['role']}\t{row['groups'] or '-'}\t{state}")


@users.command("set")
@click.argument("name")
@click.option("--role", type=click.Choice(ROLES), default=None)
@click.option("--groups", default=None, help="Comma-separated groups (replaces the account's groups).")
def users_set(name: str, role: str | None, groups: str | None) -> None:
    """Change an account's role or groups (a new role signs it out)."""
    detail = ", ".join(filter(None, [f"role {role}" if role else "", f"groups {groups}" if groups is not None else ""]))
    split = groups.split(",") if groups is not None else None
    _change("user_set", f"user:{name}", lambda s: access.set_user(s, name, role=role, groups=split), detail)
    click.echo(f"changed {name}")


@users.command("disable")
@click.argument("name")
def users_disable(name: str) -> None:
    """Disable an account: its sign-ins end and its tokens stop working at once."""
    _change("user_disable", f"user:{name}", lambda s: access.set_user(s, name, disabled=True))
    click.echo(f"disabled {name}")


@users.command("enable")
@click.argument("name")
def users_enable(name: str) -> None:
    """Enable a disabled account again."""
    _change("user_enable", f"user:{name}", lambda s: access.set_user(s, name, disabled=False))
    click.echo(f"enabled {name}")


@users.command("passwd")
@click.argument("name")
@click.option("--password", default=None, help="The new password (else asked for, or read from standard input).")
def users_passwd(name: str, password: str | None) -> None:
    """Set an account's password (its sign-ins end; a lockout is lifted)."""
    secret = _password(password)
    _change("user_passwd", f"user:{name}", lambda s: access.set_user(s, name, password=secret))
    click.echo(f"changed the password of {name}")


@cli.group()
def tokens() -> None:
    """API tokens: create (shown once), list, revoke."""


@tokens.command("create")
@click.argument("user")
@click.option("--name", default="token", show_default=True, help="What the token is for.")
@click.option("--scope", type=click.Choice(access.SCOPES), default="read", show_default=True)
@click.option("--days", type=click.IntRange(1, 3650), default=90, show_default=True, help="Days until it expires.")
def tokens_create(user: str, name: str, scope: str, days: int) -> None:
    """Create a token for USER and print it (this once; only its hash is kept)."""
    raw = _change(
        "token_create",
        f"user:{user}",
        lambda s: access.create_token(s, access.find_user(s, user), name, scope, days),
        f"{scope}, {days} days",
    )
    click.echo(raw)


@tokens.command("list")
@click.option("--user", default=None, help="Only this user's tokens.")
@click.option("--json", "as_json", is_flag=True)
def tokens_list(user: str | None, as_json: bool) -> None:
    """Tokens, newest first (never their secrets)."""
    rows = _read(lambda s: access.tokens(s, access.find_user(s, user).id if user else None))
    for row in rows:
        if as_json:
            click.echo(json.dumps(row))
        else:
            click.echo(
                f"{row['id']}\t{row['user']}\t{row['name']}\t{row['prefix']}...\t{row['scope']}\t{row['state']}"
                f"\texpires {row['expires_at'] or 'never'}"
            )


@tokens.command("revoke")
@click.argument("token_id", type=int)
def tokens_revoke(token_id: int) -> None:
    """Revoke a token by its id (from `tokens list`): refused from the next request on."""
    if not _change("token_revoke", f"token:{token_id}", lambda s: access.revoke_token(s, token_id)):
        raise click.ClickException(f"there is no active token with id {token_id}")
    click.echo(f"revoked token {token_id}")


@cli.group()
def collections() -> None:
    """Collections and who may read them (no re-ingest, no reindex)."""


@collections.command("list")
@click.option("--json", "as_json", is_flag=True)
def collections_list(as_json: bool) -> None:
    """Every collection, who may read it, its source rules and its article count."""
    for row in _read(access.collections):
        if as_json:
            click.echo(json.dumps(row))
        else:
            sources = f"\tsources: {', '.join(row['sources'])}" if row["sources"] else ""
            click.echo(
                f"{row['name']}\t{row['articles']:,} articles\treadable by {', '.join(row['readable_by'])}{sources}"
            )


@collections.command("create")
@click.argument("name")
@click.option("--public", is_flag=True, help="Readable by everyone, signed in or not.")
@click.option(
    "--readable-by",
    "grants",
    multiple=True,
    help="role:reader (every signed-in user, the default), role:editor, group:NAME or user:NAME (repeatable).",
)
@click.option("--private", is_flag=True, help="Readable by admins only until granted.")
def collections_create(name: str, public: bool, grants: tuple[str, ...], private: bool) -> None:
    """Make a collection (readable by every signed-in user unless --readable-by or --private say otherwise)."""
    chosen = () if private else (grants or ("role:reader",))
    _change(
        "collection_create",
        f"collection:{name}",
        lambda s: access.create_collection(s, name, public, chosen),
        "public" if public else ", ".join(chosen) or "admins only",
    )
    click.echo(f"made collection {name}")


@collections.command("rename")
@click.argument("name")
@click.argument("new_name")
def collections_rename(name: str, new_name: str) -> None:
    """Rename a collection (its articles and permissions stay)."""
    _change("collection_rename", f"collection:{name}", lambda s: access.rename_collection(s, name, new_name), new_name)
    click.echo(f"renamed {name} to {new_name}")


@collections.command("public")
@click.argument("name")
@click.option("--off", is_flag=True, help="Make it readable by its grants only again.")
def collections_public(name: str, off: bool) -> None:
    """Make a collection readable by everyone (or, with --off, by its grants only)."""
    _change("collection_public", f"collection:{name}", lambda s: access.set_public(s, name, not off), str(not off))
    click.echo(f"{name} is {'not ' if off else ''}public")


@collections.command("grant")
@click.argument("name")
@click.argument("principal")
def collections_grant(name: str, principal: str) -> None:
    """Let PRINCIPAL read collection NAME: role:reader, role:editor, group:NAME or user:NAME."""
    _change("collection_grant", f"collection:{name}", lambda s: access.grant(s, name, principal), principal)
    click.echo(f"{principal} may read {name}")


@collections.command("revoke")
@click.argument("name")
@click.argument("principal")
def collections_revoke(name: str, principal: str) -> None:
    """Take away PRINCIPAL's grant to read collection NAME (role:reader makes it private to its other grants)."""
    if not _change("collection_revoke", f"collection:{name}", lambda s: access.revoke(s, name, principal), principal):
        raise click.ClickException(f"{principal} had no grant on {name}")
    click.echo(f"{principal} may no longer read {name} (by that grant)")


@collections.command("assign")
@click.argument("name")
@click.option("--source", default=None, help="Move this source's articles, and store its later articles here.")
@click.option("--ids", default="", help="Move these article ids (comma-separated).")
def collections_assign(name: str, source: str | None, ids: str) -> None:
    """Move articles into collection NAME (no re-ingest, no reindex)."""
    try:
        wanted = [int(i) for i in ids.split(",") if i.strip()]
    except ValueError:
        raise click.ClickException("--ids takes article ids separated by commas, e.g. 12,15,40") from None
    if source is None and not wanted:
        raise click.ClickException("say what to move: --source NAME or --ids 1,2,3")
    detail = f"source {source}" if source else f"{len(wanted)} ids"
    moved = _change(
        "collection_assign", f"collection:{name}", lambda s: access.assign(s, name, source=source, ids=wanted), detail
    )
    click.echo(f"moved {moved:,} articles to {name}" + (f"; later {source} articles go there too" if source else ""))


@cli.command()
@click.option("--limit", type=click.IntRange(1, 100_000), default=50, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def audit(limit: int, as_json: bool) -> None:
    """The audit log, newest first: exports, original downloads, and changes of accounts, tokens and permissions."""
    for event in _read(lambda s: access.audit_events(s, limit)):
        if as_json:
            click.echo(json.dumps(event))
        else:
            who = event["actor"] or "(open mode)"
            rest = " ".join(filter(None, [event["target"], event["detail"]]))
            click.echo(f"{event['at']}\t{who}\t{event['address'] or '-'}\t{event['action']}\t{rest}")


def main() -> None:
    cli(prog_name="newsarchive")


if __name__ == "__main__":
    main()
