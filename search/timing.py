"""Where a search's time goes: named stages timed only while a caller records them (bench/profile.py).

    with recording() as times:
        archive.search(request)
    times  # {"match": 0.0041, "facets": 0.0012, ...} seconds

Stages are exclusive: a stage entered inside another pauses the outer one, so the stages of one request add
up to the time spent inside any of them. Outside `recording()` a stage costs one context-variable read.
"""

from __future__ import annotations

import functools
import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator, Optional, TypeVar

F = TypeVar("F", bound=Callable)

# Names in the order a request meets them (the profile table's columns).
STAGES = (
    "searcher",  # the thread's searcher, reopened when the index changed
    "parse",
    "filters",  # facet and date filter masks
    "match",  # every word's postings, scores, counts
    "spelling",  # where the archive has accented spellings: which articles write the word as typed
    "phrase",  # the typed words as a run among the best articles
    "feedback",  # relaxed answers: re-scored with the best articles' telling words
    "order",  # the page's hits in rank or date order
    "collapse",  # one hit per story
    "facets",
    "histogram",
    "corrections",
    "sql",  # the page's rows read from the store
    "snippets",
)


class _Recorder:
    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self.stack: list[list] = []  # [name, started] of the stages entered, innermost last


_current: ContextVar[Optional[_Recorder]] = ContextVar("search_stage_times", default=None)


@contextmanager
def recording() -> Iterator[dict[str, float]]:
    """Record the stages run inside the block (this thread or task only) into the dict yielded."""
    recorder = _Recorder()
    token = _current.set(recorder)
    try:
        yield recorder.times
    finally:
        _current.reset(token)


@contextmanager
def stage(name: str) -> Iterator[None]:
    recorder = _current.get()
    if recorder is None:
        yield
        return
    now = time.perf_counter()
    if recorder.stack:  # pause the enclosing stage
        outer = recorder.stack[-1]
        recorder.times[outer[0]] = recorder.times.get(outer[0], 0.0) + now - outer[1]
    entry = [name, now]
    recorder.stack.append(entry)
    try:
        yield
    finally:
        done = time.perf_counter()
        recorder.stack.pop()
        recorder.times[name] = recorder.times.get(name, 0.0) + done - entry[1]
        if recorder.stack:  # the enclosing stage runs again from here
            recorder.stack[-1][1] = done


def timed(name: str) -> Callable[[F], F]:
    """A function's calls timed as the stage `name`."""

    def wrap(function: F) -> F:
        @functools.wraps(function)
        def run(*args, **kwargs):
            if _current.get() is None:
                return function(*args, **kwargs)
            with stage(name):
                return function(*args, **kwargs)

        return run  # type: ignore[return-value]

    return wrap
