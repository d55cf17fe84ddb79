"""What a request reads from: the app's one Archive and this request's searcher."""

from __future__ import annotations

from flask import current_app, g

from store.read import Archive


def get_archive() -> Archive:
    return current_app.extensions["newsarchive"]


def request_searcher():
    """The searcher for this request: one per request, reused from this thread's last request when current."""
    if "searcher" not in g:
        g.searcher = get_archive().searcher()
    return g.searcher
