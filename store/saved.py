"""Saved searches: a search kept by name, its new matches since it was last looked at, its Atom feed, and
the alerts `newsarchive alerts` prints.

Article ids grow in ingest order, so a saved search remembers the highest article id it has shown
(`seen_article_id` for the page, `alerted_article_id` for alerts) and "new" means stored after it. Both
start at the newest article the index holds when the search is saved. These are the only rows the web
server writes (through POST forms with a CSRF token); everything else it does only reads.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional
from urllib.parse import parse_qsl, urlencode

from sqlalchemy import delete, select, update

from search.request import BadRequest, SearchRequest, parse_request

from .models import SavedSearch
from .read import Archive

MAX_NAME_CHARS = 200
MAX_SAVED = 1000
FEED_ENTRIES = 50  # newest matches in a saved search's Atom feed
ALERT_MAX = 1000  # new matches printed per saved search by one `newsarchive alerts` run


@dataclass
class Saved:
    id: int
    name: str
    params: str
    request: Optional[SearchRequest]  # None when the stored parameters no longer parse
    problem: Optional[str]
    new: int = 0


def request_of(params: str) -> SearchRequest:
    """The SearchRequest a stored query string stands for (BadRequest when it no longer parses)."""
    pairs = parse_qsl(params, keep_blank_values=False)
    first: dict[str, str] = {}
    for key, value in pairs:
        first.setdefault(key, value)
    return parse_request(first.get, lambda name: [v for k, v in pairs if k == name])


def canonical_params(request: SearchRequest) -> str:
    """The query string a saved search keeps: the search's query, filters and sort (no page)."""
    return urlencode([(k, v) for k, v in request.params(page=1) if k not in ("per_page", "after")])


def newest_article(archive: Archive) -> int:
    """The highest article id the index holds (0 when it holds none)."""
    return archive.searcher().newest_article()


def save(archive: Archive, name: str, request: SearchRequest) -> int:
    name = " ".join(name.split())
    if not name:
        raise BadRequest("bad_parameter", "give the saved search a name")
    if len(name) > MAX_NAME_CHARS:
        raise BadRequest("bad_parameter", f"a saved search's name is at most {MAX_NAME_CHARS} characters")
    newest = newest_article(archive)
    with archive.sessions.begin() as session:
        if session.scalar(select(SavedSearch.id).order_by(SavedSearch.id.desc()).offset(MAX_SAVED - 1).limit(1)):
            raise BadRequest("too_many", f"at most {MAX_SAVED} saved searches; delete some first")
        saved = SavedSearch(
            name=name, params=canonical_params(request), seen_article_id=newest, alerted_article_id=newest
        )
        session.add(saved)
        session.flush()
        return saved.id


def listing(archive: Archive) -> list[Saved]:
    """Every saved search, oldest first, with how many matches were stored since it was last looked at."""
    with archive.sessions() as session:
        rows = session.scalars(select(SavedSearch).order_by(SavedSearch.id)).all()
    out = []
    searcher = archive.searcher()
    for row in rows:
        saved = _saved(row)
        if saved.request is not None:
            saved.new = searcher.search(_since(saved.request, row.seen_article_id)).total
        out.append(saved)
    return out


def get(archive: Archive, saved_id: int) -> Optional[Saved]:
    with archive.sessions() as session:
        row = session.get(SavedSearch, saved_id)
        return _saved(row) if row is not None else None


def mark_seen(archive: Archive, saved_id: int) -> Optional[Saved]:
    """Mark every match stored so far as seen; the saved search, or None when there is none."""
    newest = newest_article(archive)
    with archive.sessions.begin() as session:
        row = session.get(SavedSearch, saved_id)
        if row is None:
            return None
        row.seen_article_id = max(row.seen_article_id, newest)
        return _saved(row)


def remove(archive: Archive, saved_id: int) -> bool:
    with archive.sessions.begin() as session:
        return session.execute(delete(SavedSearch).where(SavedSearch.id == saved_id)).rowcount > 0


def newest_matches(archive: Archive, saved: Saved, limit: int = FEED_ENTRIES, after: int = 0) -> list[dict]:
    """The saved search's matches stored after article `after`, the most recently stored first, as
    export rows (id, headline, published, source, byline, ..., snippet)."""
    if saved.request is None:
        return []
    _, rows = archive.export(_since(saved.request, after, sort="stored"), "snippet", limit)
    return list(rows)


def alerts(archive: Archive) -> list[tuple[Saved, list[dict]]]:
    """For each saved search, its matches stored since the last run (oldest first); then marks them
    alerted, so each match is told once."""
    newest = newest_article(archive)
    with archive.sessions() as session:
        rows = session.scalars(select(SavedSearch).order_by(SavedSearch.id)).all()
    out = []
    for row in rows:
        saved = _saved(row)
        matches = newest_matches(archive, saved, ALERT_MAX, after=row.alerted_article_id)
        # Articles indexed after `newest` was read wait for the next run, so none is told twice.
        out.append((saved, [m for m in reversed(matches) if m["id"] <= newest]))
        with archive.sessions.begin() as session:
            session.execute(
                update(SavedSearch)
                .where(SavedSearch.id == row.id, SavedSearch.alerted_article_id < newest)
                .values(alerted_article_id=newest)
            )
    return out


def _since(request: SearchRequest, after: int, sort: Optional[str] = None) -> SearchRequest:
    return replace(request, after=after, page=1, per_page=20, facet_size=0, sort=sort or request.sort)


def _saved(row: SavedSearch) -> Saved:
    try:
        request, problem = request_of(row.params), None
    except BadRequest as exc:
        request, problem = None, exc.message
    return Saved(row.id, row.name, row.params, request, problem)
