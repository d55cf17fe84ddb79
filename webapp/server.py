"""`newsarchive serve`: the app on gunicorn, one worker process per core, each with a few request threads.

Search is NumPy and Python: a request holds the GIL for most of its time, so threads of one process take
turns on one core. Worker processes share nothing but the archive's files (the SQL store, the index
directory, the secret key file); each opens its own searcher and caches, so every core answers requests.
A worker is started (and restarted, should it die) by gunicorn's arbiter, which also stops them cleanly.
"""

from __future__ import annotations

import os
from typing import Optional

from gunicorn.app.base import BaseApplication

from store.settings import Settings

from . import create_app


def default_workers() -> int:
    """One worker process per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def bind_address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class ArchiveServer(BaseApplication):
    """gunicorn, configured here rather than from its command line; each worker builds the app itself
    (nothing opened in the arbiter is shared across a fork)."""

    def __init__(self, settings: Settings, host: str, port: int, workers: int, threads: int) -> None:
        self.settings = settings
        self.options = {
            "bind": bind_address(host, port),
            "workers": workers,
            "threads": threads,
            "worker_class": "gthread",
            "proc_name": "newsarchive",
            "preload_app": False,
            "timeout": 120,  # a worker silent this long is restarted (an export streams well within it)
            "graceful_timeout": 10,
            "keepalive": 5,
            "accesslog": None,
            "errorlog": "-",
            "loglevel": "warning",
            # X-Forwarded-* headers are believed only from a proxy on this machine (gunicorn's default).
        }
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self):
        return create_app(self.settings)


def serve(settings: Settings, host: str, port: int, workers: Optional[int], threads: int) -> None:
    ArchiveServer(settings, host, port, workers or default_workers(), threads).run()
