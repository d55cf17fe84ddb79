"""Saved searches in the browser: save the current search, list them with their new matches, open, delete,
share with a group (editors), and each one's Atom feed; GET /api/saved lists them as JSON.

Each belongs to whoever saved it (webapp/auth.py: SIGNED_IN; in open mode, to the one user). The forms
that change state are POSTs whose CSRF token auth.check_request checks before they run. A feed is read by
its owner signed in, or by a feed reader with the secret in the feed's address (`?key=`), with the
owner's permissions.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Blueprint, Response, abort, jsonify, redirect, render_template, request

from search.request import BadRequest
from store import saved as saved_searches

from .context import get_archive, principal, visible

bp = Blueprint("saved", __name__)


def secret_key(settings) -> str:
    """NEWSARCHIVE_SECRET_KEY, else a random key made once and kept in HOME/secret_key (owner-only)."""
    if settings.secret_key:
        return settings.secret_key
    path = Path(settings.home) / "secret_key"
    try:
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_urlsafe(48)
    try:
        with open(path, "x", encoding="ascii", opener=lambda p, f: os.open(p, f, 0o600)) as handle:
            handle.write(key)
        return key
    except FileExistsError:  # another process made it first
        return path.read_text(encoding="ascii").strip()


def feed_link(saved) -> str:
    """A saved search's feed address, with its secret (so a feed reader, which cannot sign in, can read it)."""
    return f"/saved/{saved.id}.atom?key={saved.feed_secret}" if saved.feed_secret else f"/saved/{saved.id}.atom"


@bp.post("/saved")
def save():
    params = request.form.get("params", "")
    search = saved_searches.request_of(params)
    name = request.form.get("name", "") or search.q or "All articles"
    saved_searches.save(get_archive(), name, search, principal())
    return redirect("/saved", code=303)


@bp.get("/saved")
def listing():
    saved = saved_searches.listing(get_archive(), principal(), visible())
    return render_template("saved.html", saved=saved, search=None, feed_link=feed_link)


@bp.post("/saved/<int:saved_id>/open")
def open_saved(saved_id: int):
    saved = saved_searches.mark_seen(get_archive(), saved_id, principal())
    if saved is None:
        abort(404)
    return redirect("/search?" + saved.params if saved.params else "/search", code=303)


@bp.post("/saved/<int:saved_id>/delete")
def delete(saved_id: int):
    if not saved_searches.remove(get_archive(), saved_id, principal()):
        abort(404)
    return redirect("/saved", code=303)


@bp.post("/saved/<int:saved_id>/share")
def share(saved_id: int):
    """Share an own saved search with one group (editors and admins), or stop (an empty group)."""
    group = (request.form.get("group") or "").strip() or None
    try:
        if not saved_searches.share(get_archive(), saved_id, group, principal()):
            abort(404)
    except ValueError as exc:
        raise BadRequest("bad_parameter", str(exc)) from None
    return redirect("/saved", code=303)


@bp.get("/saved/<int:saved_id>.atom")
def feed(saved_id: int):
    archive = get_archive()
    key = request.args.get("key", "")
    who = principal()
    if key:
        found = saved_searches.by_feed_secret(archive, saved_id, key)
        if found is None:
            abort(404)
        saved, reader = found
        seen = archive.visibility(reader) if archive.settings.login_required else None
    else:
        saved = saved_searches.get(archive, saved_id, who) if who.signed_in else None
        if saved is None:
            abort(404)
        seen = visible()
    entries = saved_searches.newest_matches(archive, saved, visible=seen)
    stored = archive.ingested_at([entry["id"] for entry in entries])
    base = request.url_root.rstrip("/")
    updated = max(stored.values(), default=None)
    xml = render_template(
        "saved.atom.xml",
        saved=saved,
        entries=entries,
        stored=stored,
        updated=updated,
        base=base,
        search_url=f"{base}/search?{saved.params}" if saved.params else f"{base}/search",
    )
    return Response(xml, mimetype="application/atom+xml")


@bp.get("/api/saved")
def api_listing():
    return jsonify(
        {
            "saved": [
                {
                    "id": s.id,
                    "name": s.name,
                    "params": s.params,
                    "new": s.new,
                    "problem": s.problem,
                    "feed": feed_link(s) if s.mine else f"/saved/{s.id}.atom",
                    "mine": s.mine,
                    "shared_group": s.shared_group,
                }
                for s in saved_searches.listing(get_archive(), principal(), visible())
            ]
        }
    )
