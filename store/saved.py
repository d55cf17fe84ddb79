"""Saved searches: a search kept by name, its new matches since it was last looked at, its Atom feed, and
the alerts `newsarchive alerts` prints.

Article ids grow in ingest order, so a saved search remembers the highest article id it has shown
(`seen_article_id` for the page, `alerted_article_id` for alerts) and "new" means stored after it. Both
start at the newest article the index holds when the search is saved.

A saved search belongs to its owner (in `login` mode; in `open` mode there is one user and no owner): only
they see, open, delete or share it; an editor may share their own with one group, whose members see it
read-only. Its matches are counted and listed with the reader's permissions (an alert or a feed with its
owner's), so a saved search never tells of an article its reader may not read.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from typing import Optional
from urllib.parse import parse_qsl, urlencode

from sqlalchemy import delete, or_, select, update

from search.request import BadRequest, SearchRequest, parse_request

from . import access
from .access import OPEN, Principal
from .models import SavedSearch, User
from .read import Archive
from .visible import Readable

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
    owner_id: Optional[int] = None
    shared_group: Optional[str] = None
    feed_secret: Optional[str] = None
    mine: bool = True  # the reader's own (else shared with one of their groups: read-only)


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


def _owned(owner: Principal):
    """The condition of the saved searches `owner` owns (every one, in open mode)."""
    return True if owner.open else SavedSearch.owner_id == owner.user_id


def _readable(owner: Principal):
    """The condition of the saved searches `owner` may see: their own, and those shared with their groups."""
    if owner.open:
        return True
    shared = SavedSearch.shared_group.in_(sorted(owner.groups)) if owner.groups else False
    return or_(SavedSearch.owner_id == owner.user_id, shared)


def save(archive: Archive, name: str, request: SearchRequest, owner: Principal = OPEN) -> int:
    name = " ".join(name.split())
    if not name:
        raise BadRequest("bad_parameter", "give the saved search a name")
    if len(name) > MAX_NAME_CHARS:
        raise BadRequest("bad_parameter", f"a saved search's name is at most {MAX_NAME_CHARS} characters")
    newest = newest_article(archive)
    with archive.sessions.begin() as session:
        mine = select(SavedSearch.id).where(_owned(owner))
        if session.scalar(mine.order_by(SavedSearch.id.desc()).offset(MAX_SAVED - 1).limit(1)):
            raise BadRequest("too_many", f"at most {MAX_SAVED} saved searches; delete some first")
        saved = SavedSearch(
            name=name,
            params=canonical_params(request),
            seen_article_id=newest,
            alerted_article_id=newest,
            owner_id=owner.user_id,
            feed_secret=secrets.token_urlsafe(24),
        )
        session.add(saved)
        session.flush()
        return saved.id


def listing(archive: Archive, owner: Principal = OPEN, visible: Optional[Readable] = None) -> list[Saved]:
    """The saved searches `owner` may see, oldest first, with how many matches (that `visible` lets through)
    were stored since they were last looked at."""
    with archive.sessions() as session:
        rows = session.scalars(select(SavedSearch).where(_readable(owner)).order_by(SavedSearch.id)).all()
    out = []
    searcher = archive.searcher()
    for row in rows:
        saved = _saved(row, owner)
        if saved.request is not None:
            saved.new = searcher.search(_since(saved.request, row.seen_article_id), visible).total
        out.append(saved)
    return out


def get(archive: Archive, saved_id: int, owner: Principal = OPEN) -> Optional[Saved]:
    """A saved search `owner` may see, or None."""
    with archive.sessions() as session:
        row = session.scalars(select(SavedSearch).where(SavedSearch.id == saved_id, _readable(owner))).first()
        return _saved(row, owner) if row is not None else None


def by_feed_secret(archive: Archive, saved_id: int, secret: str) -> Optional[tuple[Saved, Principal]]:
    """A saved search and its owner (whose permissions its feed reads with), when `secret` is its feed's."""
    with archive.sessions() as session:
        row = session.get(SavedSearch, saved_id)
        if row is None or not row.feed_secret or not access.same(secret, row.feed_secret):
            return None
        if row.owner_id is None:
            return _saved(row, OPEN), OPEN
        user = session.get(User, row.owner_id)
        if user is None or user.disabled:
            return None
        reader = access.principal_of(user, "feed")
        return _saved(row, reader), reader


def mark_seen(archive: Archive, saved_id: int, owner: Principal = OPEN) -> Optional[Saved]:
    """Mark every match stored so far as seen (of the owner's own; a shared one only opens); the saved
    search, or None when `owner` may see none such."""
    newest = newest_article(archive)
    with archive.sessions.begin() as session:
        row = session.scalars(select(SavedSearch).where(SavedSearch.id == saved_id, _readable(owner))).first()
        if row is None:
            return None
        saved = _saved(row, owner)
        if saved.mine:
            row.seen_article_id = max(row.seen_article_id, newest)
        return saved


def remove(archive: Archive, saved_id: int, owner: Principal = OPEN) -> bool:
    with archive.sessions.begin() as session:
        gone = delete(SavedSearch).where(SavedSearch.id == saved_id, _owned(owner))
        return session.execute(gone).rowcount > 0


def share(archive: Archive, saved_id: int, group: Optional[str], owner: Principal) -> bool:
    """Share an own saved search with one group (read-only for its members), or stop sharing it (None)."""
    if group is not None:
        group = access._check_name(group, "a group name")
    with archive.sessions.begin() as session:
        changed = update(SavedSearch).where(SavedSearch.id == saved_id, _owned(owner)).values(shared_group=group)
        return session.execute(changed).rowcount > 0


def newest_matches(
    archive: Archive, saved: Saved, limit: int = FEED_ENTRIES, after: int = 0, visible: Optional[Readable] = None
) -> list[dict]:
    """The saved search's matches (that `visible` lets through) stored after article `after`, the most
    recently stored first, as export rows (id, headline, published, source, byline, ..., snippet)."""
    if saved.request is None:
        return []
    _, rows = archive.export(_since(saved.request, after, sort="stored"), "snippet", limit, visible)
    return list(rows)


def alerts(archive: Archive) -> list[tuple[Saved, list[dict]]]:
    """For each saved search, its matches stored since the last run (oldest first), read with its owner's
    permissions; then marks them alerted, so each match is told once."""
    newest = newest_article(archive)
    with archive.sessions() as session:
        rows = session.scalars(select(SavedSearch).order_by(SavedSearch.id)).all()
        owners = {u.id: u for u in session.scalars(select(User))}
    out = []
    for row in rows:
        saved = _saved(row)
        user = owners.get(row.owner_id) if row.owner_id is not None else None
        if row.owner_id is not None and (user is None or user.disabled):
            continue
        reader = access.principal_of(user, "feed") if user is not None else OPEN
        visible = archive.visibility(reader) if archive.settings.login_required else None
        matches = newest_matches(archive, saved, ALERT_MAX, after=row.alerted_article_id, visible=visible)
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


def _saved(row: SavedSearch, reader: Principal = OPEN) -> Saved:
    try:
        request, problem = request_of(row.params), None
    except BadRequest as exc:
        request, problem = None, exc.message
    mine = reader.open or row.owner_id == reader.user_id
    return Saved(
        row.id,
        row.name,
        row.params,
        request,
        problem,
        owner_id=row.owner_id,
        shared_group=row.shared_group,
        feed_secret=row.feed_secret,
        mine=mine,
    )
