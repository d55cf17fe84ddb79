"""The ingester's CPU priority: below the server's, so searches keep answering while a big file is read."""

from __future__ import annotations

import os

from store.settings import Settings


def lower_priority(settings: Settings) -> None:
    """Lower this process's CPU priority by NEWSARCHIVE_INGEST_NICE (the processes it starts inherit it);
    where the system refuses, it runs as started."""
    if settings.ingest_nice:
        try:
            os.nice(settings.ingest_nice)
        except (AttributeError, OSError):
            pass
