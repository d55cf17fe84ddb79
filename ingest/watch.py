"""Watching the inbox: each file is read once it has stopped changing, small files first, and small files
dropped while a big one is read are read between two of its slices and made searchable then."""

from __future__ import annotations

import logging
import time

from .errors import DatabaseUnavailable
from .inbox import InputFile, discover, settled, unique_files
from .indexing import IndexFeeder
from .pipeline import Ingester, commit_index, stops_with_database

log = logging.getLogger(__name__)
DOWN_RETRY_S = 2.0  # while the database is down, how often the watcher tries again
LARGE_FILE_BYTES = 1_000_000  # in a watch batch, the index is committed before a file this big is read


def watch(ingester: Ingester, *, stop=None, on_result=None, on_pass=None, on_error=None) -> None:
    """Ingest the inbox, then keep watching it: each file is read once it has stopped changing.

    `stop` is a threading.Event (or anything with is_set) that ends the loop; `on_result` is called with
    each FileResult, `on_pass` after each look at the inbox, and `on_error` when the database stops
    answering (the watcher waits for it, its files untouched, and goes on when it answers again).
    """
    settings = ingester.settings
    waiting = False  # the database stopped answering and has not answered since (said once)
    seen: dict = {}
    interval = settings.watch_interval_ms / 1000
    handled: set = set()  # files read in this batch, by the loop or between the slices of a big file

    def ready_files() -> list[InputFile]:
        now = time.time_ns()
        return [
            f
            for f in unique_files(discover([settings.inbox], settings.inbox))
            if f.path not in handled
            and (f.path.is_symlink() or settled(f.path, seen, settings.settle_ms * 1_000_000, now))
        ]

    def read(f: InputFile, feeder: IndexFeeder) -> None:
        handled.add(f.path)
        result = ingester.ingest_file(f, feeder=feeder)
        seen.pop(f.path, None)
        if on_result is not None:
            on_result(result)

    while stop is None or not stop.is_set():
        handled.clear()
        ready = ready_files()
        if ready:
            # Small files first, and their index committed before a large file starts: a large file holds
            # the index writer until it is read, and what was dropped beside it should not wait for it.
            ready.sort(key=size_or_zero)
            feeder = ingester.feeder()

            def between_slices(feeder=feeder) -> None:
                # Small files dropped while a big one is read: stored and made searchable between two of its
                # slices (the index commit also makes the big file's stored slices searchable).
                small = [f for f in ready_files() if size_or_zero(f) < LARGE_FILE_BYTES]
                for f in small:
                    read(f, feeder)
                if small:
                    feeder.commit()

            try:
                _read_all(ingester, ready, read, feeder, between_slices, handled)
                waiting = False
            except DatabaseUnavailable as exc:
                # The primary is down: keep every file where it is and look again, more slowly, until it
                # answers (or a promoted replica does, once NEWSARCHIVE_DATABASE_URL names it).
                if not waiting:
                    waiting = True
                    log.error("%s; waiting for it to answer again", exc)
                    if on_error is not None:
                        on_error(exc)
                if _pause(stop, DOWN_RETRY_S):
                    break
                continue
        if on_pass is not None:
            on_pass()
        if _pause(stop, interval):
            break


def _pause(stop, seconds: float) -> bool:
    """Wait `seconds`; whether `stop` was set meanwhile."""
    if stop is not None:
        return bool(stop.wait(seconds))
    time.sleep(seconds)
    return False


def _read_all(ingester: Ingester, ready: list[InputFile], read, feeder: IndexFeeder, between_slices, handled) -> None:
    """Read one look's files (sorted small first; those in `handled` were read between slices already), the
    index committed before each large one."""
    kept = "unread files stay in the inbox"
    with stops_with_database(ingester.settings, "while the inbox was read", kept), ingester.lock.held():
        ingester.between_slices = between_slices
        try:
            for f in ready:
                if f.path in handled:
                    continue
                if size_or_zero(f) >= LARGE_FILE_BYTES:
                    feeder.commit()
                read(f, feeder)
        finally:
            ingester.between_slices = None
            commit_index(feeder, ingester.settings)
        ingester.sync_index()


def size_or_zero(f: InputFile) -> int:
    try:
        return f.path.lstat().st_size
    except OSError:
        return 0
