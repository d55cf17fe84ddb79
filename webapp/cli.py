"""The `newsarchive` command: a thin wrapper over the library that turns errors into clear messages.

Only `db upgrade`, `ingest` and `reindex` change the database's schema (they apply the migrations first);
`search`, `stats` and `serve` read, and on a database behind the migrations they stop and say to run
`newsarchive db upgrade`.
"""

from __future__ import annotations

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

from ingest.errors import position_name
from ingest.indexing import reindex as rebuild_index
from ingest.pipeline import FileResult, Ingester, RunSummary
from ingest.priority import lower_priority
from ingest.watch import watch as watch_inbox
from search.index import ArchiveIndex, IndexMissing
from search.request import EXCLUDE_PREFIX, BadRequest, parse_request
from search.schema import FACETS
from store import saved as saved_searches
from store.db import DatabaseBehind, make_engine, make_sessionmaker, require_current, upgrade
from store.read import Archive
from store.settings import Settings, SettingsError
from store.stats import collect, searchable_count

from .api import csv_lines
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
        summary = ingester.run(paths, progress=not as_json and sys.stderr.isatty())
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
                watch_inbox(ingester, on_result=report)
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
    if result.status == "failed":
        return f"failed: {result.path}: {result.reason}"
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
    terminal); searches keep answering from the old index meanwhile."""
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
                ArchiveIndex(settings.index_dir),
                procs=settings.index_procs,
                memory_mb=settings.index_memory_mb,
                progress=lambda done: bar.update(done - bar.n),
            )
    finally:
        engine.dispose()
    click.echo(f"reindexed {count} article(s) into {settings.index_dir}")


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
    for key, value in data.items():
        click.echo(f"{key}: {value}")


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
    watcher = None
    if watch:
        watcher = subprocess.Popen([sys.executable, "-m", "webapp.cli", "ingest", "--watch"])
    workers = workers or default_workers()
    click.echo(
        f"serving http://{host}:{port}/ with {workers} worker process(es) of {threads} threads (Ctrl-C to stop)",
        err=True,
    )
    try:
        serve_app(settings, host, port, workers, threads)
    finally:
        if watcher is not None:
            watcher.send_signal(signal.SIGINT)
            try:
                watcher.wait(10)
            except subprocess.TimeoutExpired:
                watcher.kill()


def main() -> None:
    cli(prog_name="newsarchive")


if __name__ == "__main__":
    main()
