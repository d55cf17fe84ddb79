"""What a request reads from: the app's one Archive, this request's searcher, who is asking, and what they
may see."""

from __future__ import annotations

from typing import Optional

from flask import current_app, g

from store.access import OPEN, Principal
from store.read import Archive
from store.visible import Readable


def get_archive() -> Archive:
    return current_app.extensions["newsarchive"]


def request_searcher():
    """The searcher for this request: one per request, reused from this thread's last request when current."""
    if "searcher" not in g:
        g.searcher = get_archive().searcher()
    return g.searcher


def principal() -> Principal:
    """Who is asking (webapp/auth.py sets it before every request; everyone, in open mode)."""
    return g.get("principal", OPEN)


def visible() -> Optional[Readable]:
    """What this request may see (None: everything), worked out once per request."""
    if "visible" not in g:
        g.visible = get_archive().visibility(principal())
    return g.visible
