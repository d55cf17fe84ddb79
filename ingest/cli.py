"""The `newsarchive` command: a thin wrapper over the library that turns errors into clear messages."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import click

from .settings import Settings, SettingsError


def _settings() -> Settings:
    try:
        return Settings.from_env()
    except SettingsError as exc:
        raise click.ClickException(str(exc))


def _upgrade(settings: Settings) -> None:
    from sqlalchemy.exc import SQLAlchemyError

    from .db import upgrade

    try:
        upgrade(settings)
    except SQLAlchemyError as exc:
        raise click.ClickException(f"cannot reach or migrate the database at {_safe_url(settings)}: {exc.__class__.__name__}: {exc.orig if hasattr(exc, 'orig') else exc}")


def _safe_url(settings: Settings) -> str:
    from sqlalchemy.engine import make_url

    return make_url(settings.database_url).render_as_string(hide_password=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def cli() -> None:
    """newsarchive: ingest news articles, search them, serve them."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--watch", is_flag=True, help="After ingesting, keep watching the inbox for new files.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--workers", type=click.IntRange(0, 64), default=None, help="Parser processes (default: one per CPU).")
def ingest(paths: tuple[Path, ...], watch: bool, as_json: bool, workers: int | None) -> None:
    """Ingest files or folders (default: the inbox); inbox files move to archive/ or failed/."""
    from .pipeline import Ingester, watch as watch_inbox

    settings = _settings()
    _upgrade(settings)
    with Ingester(settings, workers=workers) as ingester:
        summary = ingester.run(paths, progress=not as_json and sys.stderr.isatty())
        if as_json:
            click.echo(json.dumps(summary.as_dict(), ensure_ascii=False))
        else:
            _print_summary(summary)
        if watch:
            click.echo(f"watching {settings.inbox} (Ctrl-C to stop)", err=True)

            def report(result):
                if as_json:
                    click.echo(json.dumps(result.as_dict(), ensure_ascii=False))
                else:
                    _print_result(result)

            try:
                watch_inbox(ingester, on_result=report)
            except KeyboardInterrupt:
                pass


def _print_summary(summary) -> None:
    click.echo(f"ingested {summary.ingested} article(s), {summary.duplicates} duplicate(s), "
               f"{summary.failed} failed, from {len(summary.files)} file(s)")
    for result in summary.files:
        if result.status == "failed":
            click.echo(f"  failed: {result.path}: {result.reason}")
        for error in result.errors[:20]:
            click.echo(f"  {result.path} line {error['line']}: {error['reason']}")
        if len(result.errors) > 20:
            click.echo(f"  {result.path}: {len(result.errors) - 20} more bad record(s); see the ingest log")


def _print_result(result) -> None:
    if result.status == "failed":
        click.echo(f"failed: {result.path}: {result.reason}")
    else:
        click.echo(f"{result.status}: {result.path} ({result.articles} new, {result.duplicates} duplicate)")


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
@click.option("--json", "as_json", is_flag=True, help="Print the counts as JSON.")
def stats(as_json: bool) -> None:
    """Counts of articles, captions, sources, failed files, and the index's size."""
    from .stats import collect

    settings = _settings()
    _upgrade(settings)
    data = collect(settings)
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False))
        return
    for key, value in data.items():
        click.echo(f"{key}: {value}")


@cli.command()
def reindex() -> None:
    """Rebuild the search index from the SQL store and swap it in atomically."""
    from .db import make_engine, make_sessionmaker
    from .indexing import reindex as rebuild
    from search.index import ArchiveIndex

    settings = _settings()
    _upgrade(settings)
    engine = make_engine(settings)
    try:
        count = rebuild(make_sessionmaker(engine), ArchiveIndex(settings.index_dir), procs=settings.index_procs,
                        memory_mb=settings.index_memory_mb)
    finally:
        engine.dispose()
    click.echo(f"reindexed {count} article(s) into {settings.index_dir}")


@cli.command("search")
@click.argument("query", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON API's response object.")
@click.option("--limit", type=click.IntRange(1, 100), default=10, show_default=True, help="Hits to show.")
def search_command(query: tuple[str, ...], as_json: bool, limit: int) -> None:
    """Search the archive, as /api/search does (quote phrases: 'source:"associated press"')."""
    import re

    from search.index import IndexMissing
    from search.request import MAX_QUERY_CHARS, BadRequest, SearchRequest

    from .archive import Archive

    settings = _settings()
    _upgrade(settings)
    text = " ".join(query).strip()
    if len(text) > MAX_QUERY_CHARS:
        raise click.ClickException(f"the query is {len(text)} characters long; the limit is {MAX_QUERY_CHARS}")
    archive = Archive(settings)
    try:
        answer = archive.search(SearchRequest(q=text, per_page=limit))
    except (BadRequest, IndexMissing) as exc:
        raise click.ClickException(getattr(exc, "message", str(exc)))
    finally:
        archive.close()
    if as_json:
        click.echo(json.dumps(answer, ensure_ascii=False))
        return
    for notice in answer["notices"]:
        click.echo(f"note: {notice}")
    if answer["corrected"]:
        click.echo(f"no results for {text!r}; showing {answer['total']} result(s) for {answer['suggestion']!r}")
    else:
        click.echo(f"{answer['total']} result(s) for {text!r}" if text else f"{answer['total']} article(s)")
        if answer["suggestion"]:
            click.echo(f"did you mean: {answer['suggestion']}")
    for hit in answer["hits"]:
        snippet = re.sub(r"</?mark>", "", hit["snippet"])
        from html import unescape

        click.echo(f"\n[{hit['id']}] {hit['headline']}\n    {hit['source'] or ''} {hit['published'] or ''}\n    {unescape(snippet)}")


def main() -> None:
    cli(prog_name="newsarchive")


if __name__ == "__main__":
    main()
