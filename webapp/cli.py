"""The `newsarchive` entry point: the ingest commands plus `serve`, which needs the web app."""

from __future__ import annotations

import signal
import subprocess
import sys

import click

from ingest.cli import _settings, _upgrade, cli


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=5000, show_default=True, type=click.IntRange(1, 65535), help="Port to listen on.")
@click.option("--threads", default=8, show_default=True, type=click.IntRange(1, 64), help="Request threads.")
@click.option("--watch", is_flag=True, help="Also ingest the inbox and keep watching it, in a separate process.")
def serve(host: str, port: int, threads: int, watch: bool) -> None:
    """Serve the web app and JSON API on a production WSGI server (waitress)."""
    import waitress

    from search.index import ArchiveIndex

    from . import create_app

    settings = _settings()
    _upgrade(settings)
    index = ArchiveIndex(settings.index_dir)
    if not index.exists():
        index.ensure()  # an empty archive serves an empty index rather than an error page
    watcher = None
    if watch:
        watcher = subprocess.Popen([sys.executable, "-m", "webapp.cli", "ingest", "--watch"])
    app = create_app(settings)
    click.echo(f"serving http://{host}:{port}/ (Ctrl-C to stop)", err=True)
    try:
        waitress.serve(app, host=host, port=port, threads=threads, ident="newsarchive", clear_untrusted_proxy_headers=True)
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
