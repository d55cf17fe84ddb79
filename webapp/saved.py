"""Saved searches in the browser: save the current search, list them with their new matches, open, delete,
and each one's Atom feed; GET /api/saved lists them as JSON.

The forms that change state are POSTs carrying a CSRF token (kept in the signed session cookie, compared
in constant time); these are the only requests that write.
"""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path

from flask import Blueprint, Response, abort, jsonify, redirect, render_template, request, session

from search.request import BadRequest
from store import saved as saved_searches

from .context import get_archive

bp = Blueprint("saved", __name__)


def csrf_token() -> str:
    """This browser session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(32)
    return token


def check_csrf() -> None:
    sent = request.form.get("csrf_token", "")
    kept = session.get("csrf", "")
    if not kept or not hmac.compare_digest(sent.encode(), kept.encode()):
        raise BadRequest(
            "bad_csrf_token", "this form has expired or was sent from another site: reload the page and try again"
        )


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


@bp.post("/saved")
def save():
    check_csrf()
    params = request.form.get("params", "")
    search = saved_searches.request_of(params)
    name = request.form.get("name", "") or search.q or "All articles"
    saved_searches.save(get_archive(), name, search)
    return redirect("/saved", code=303)


@bp.get("/saved")
def listing():
    return render_template("saved.html", saved=saved_searches.listing(get_archive()), search=None)


@bp.post("/saved/<int:saved_id>/open")
def open_saved(saved_id: int):
    check_csrf()
    saved = saved_searches.mark_seen(get_archive(), saved_id)
    if saved is None:
        abort(404)
    return redirect("/search?" + saved.params if saved.params else "/search", code=303)


@bp.post("/saved/<int:saved_id>/delete")
def delete(saved_id: int):
    check_csrf()
    if not saved_searches.remove(get_archive(), saved_id):
        abort(404)
    return redirect("/saved", code=303)


@bp.get("/saved/<int:saved_id>.atom")
def feed(saved_id: int):
    archive = get_archive()
    saved = saved_searches.get(archive, saved_id)
    if saved is None:
        abort(404)
    entries = saved_searches.newest_matches(archive, saved)
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
                    "feed": f"/saved/{s.id}.atom",
                }
                for s in saved_searches.listing(get_archive())
            ]
        }
    )
