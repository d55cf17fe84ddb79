"""Who is asking, and whether they may: every request gets a principal (store/access.py) and every route a
rule (RULES); a route without a rule answers 403 and tests/test_access.py fails.

Rules:
- PUBLIC: anyone (the sign-in page, the health check, the API's description, static files).
- READ: anyone; what they see is limited to the collections they may read. An anonymous visitor of an
  archive with no public collection is sent to sign in (pages) or told to (the API: 401).
- SIGNED_IN: a signed-in user or a user's token (their own saved searches, their tokens).
- FEED: a saved search's Atom feed: its owner signed in, or the per-feed secret in the address.
- EDITOR, ADMIN: those roles and above. A `read` token never reaches an ADMIN route.
- WRITE_*: a form or API call that changes something: also a CSRF token (forms: a hidden field; JSON: the
  X-CSRF-Token header) unless it comes with a bearer token, which a browser never sends on its own.

In `open` mode every request is everyone's (Principal OPEN) and every rule passes.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import secrets
import time
from typing import Optional
from urllib.parse import urlsplit

from flask import Blueprint, abort, g, jsonify, redirect, render_template, request, session, url_for
from flask.sessions import SecureCookieSessionInterface
from sqlalchemy import select
from werkzeug.middleware.proxy_fix import ProxyFix

from search.request import BadRequest
from store import access
from store.access import ANONYMOUS, OPEN, AccessError, Principal
from store.models import Article, User
from store.replicas import is_disconnect

from .context import get_archive, principal, visible
from .errors import error_response, wants_json

bp = Blueprint("auth", __name__)

PUBLIC, READ, SIGNED_IN, FEED, EDITOR, ADMIN = "public", "read", "signed_in", "feed", "editor", "admin"
WRITE_SIGNED_IN, WRITE_EDITOR, WRITE_ADMIN, WRITE_PUBLIC = "write_signed_in", "write_editor", "write_admin", "write"

# Every route's rule, by endpoint. A new route without one is refused (and fails the authorisation test).
RULES: dict[str, str] = {
    "static": PUBLIC,
    "api.openapi": PUBLIC,
    "api.healthz": PUBLIC,  # details (counts, the file being read) for admins only
    "auth.login_page": PUBLIC,
    "auth.login": WRITE_PUBLIC,
    "auth.logout": WRITE_PUBLIC,
    "views.home": READ,
    "views.search": READ,
    "views.article": READ,
    "views.original": READ,
    "views.facet_page": READ,
    "api.search": READ,
    "api.facet_values": READ,
    "api.search_csv": READ,
    "api.search_jsonl": READ,
    "api.article": READ,
    "api.versions": READ,
    "api.related": READ,
    "auth.me": PUBLIC,
    "saved.listing": SIGNED_IN,
    "saved.api_listing": SIGNED_IN,
    "saved.save": WRITE_SIGNED_IN,
    "saved.open_saved": WRITE_SIGNED_IN,
    "saved.delete": WRITE_SIGNED_IN,
    "saved.share": WRITE_EDITOR,
    "saved.feed": FEED,
    "auth.account": SIGNED_IN,
    "auth.create_token": WRITE_SIGNED_IN,
    "auth.revoke_token": WRITE_SIGNED_IN,
    "auth.api_collections": READ,
    "auth.assign": WRITE_EDITOR,
    "auth.admin": ADMIN,
    "auth.api_audit": ADMIN,
    "views.status": ADMIN,
    "api.status": ADMIN,
}
WRITES = (WRITE_PUBLIC, WRITE_SIGNED_IN, WRITE_EDITOR, WRITE_ADMIN)
NEEDS = {
    SIGNED_IN: "signed_in",
    WRITE_SIGNED_IN: "signed_in",
    EDITOR: "editor",
    WRITE_EDITOR: "editor",
    ADMIN: "admin",
    WRITE_ADMIN: "admin",
}


def configure(app, settings) -> None:
    """The app's sessions, cookies and proxies, and what its templates know of who is asking."""
    if settings.proxies:
        n = settings.proxies
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n, x_port=n)
    app.session_interface = CookieSessions()
    app.config.update(
        SESSION_COOKIE_NAME="newsarchive_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=settings.https,
        PERMANENT_SESSION_LIFETIME=dt.timedelta(hours=settings.session_hours),
    )
    app.jinja_env.globals.update(csrf_token=csrf_token, principal=principal, login_mode=settings.login_required)

    @app.after_request
    def _private(response):
        # Answers depend on who asked: no shared cache may keep one for another reader.
        if settings.login_required:
            response.headers.setdefault("Cache-Control", "private, no-cache")
            response.vary.add("Cookie")
            response.vary.add("Authorization")
        return response


class CookieSessions(SecureCookieSessionInterface):
    """Flask's signed cookie session, marked Secure when the request came over HTTPS or NEWSARCHIVE_HTTPS is set."""

    def get_cookie_secure(self, app) -> bool:
        return bool(app.config.get("SESSION_COOKIE_SECURE")) or request.is_secure


def loopback(host: str) -> bool:
    """Whether `host` (an address or name to listen on) is only reachable from this machine."""
    if host in ("localhost", "localhost.localdomain", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def client_address() -> str:
    return (request.remote_addr or "unknown")[:64]


def _unauthorised(message: str):
    if not wants_json() and request.method == "GET":
        return redirect(url_for("auth.login_page", next=request.full_path.rstrip("?")), code=303)
    response = jsonify({"error": {"code": "unauthorised", "message": message}})
    response.headers["WWW-Authenticate"] = 'Bearer realm="newsarchive"'
    return response, 401


def _forbidden(message: str):
    return error_response(403, "forbidden", message)


def resolve_principal() -> Principal:
    """The principal of this request: a bearer token, else the session cookie's sign-in, else nobody."""
    archive = get_archive()
    header = request.headers.get("Authorization", "")
    if header:
        kind, _, raw = header.partition(" ")
        if kind.lower() != "bearer" or not raw.strip():
            raise _Refused(_unauthorised("send an API token as `Authorization: Bearer na_...`"))
        try:
            with archive.write_sessions.begin() as db:  # it notes when the token was last used
                found = access.token_principal(db, raw.strip())
        except Exception as exc:
            if not (archive.router.enabled and is_disconnect(exc)):
                raise
            # The primary is down: the token is checked on this request's replica, its use not noted.
            with archive.sessions() as db:
                found = access.token_principal(db, raw.strip(), touch=False)
        if found is None:
            raise _Refused(_unauthorised("this API token is unknown, expired or revoked"))
        return found
    sid = session.get("sid")
    if sid:
        with archive.sessions() as db:
            found = access.session_principal(db, sid)
        if found is not None:
            return found
        session.pop("sid", None)  # ended elsewhere (signed out, disabled, expired)
    return ANONYMOUS


class _Refused(Exception):
    def __init__(self, response) -> None:
        self.response = response


def check_request():
    """Before every request: who is asking, and whether the route's rule lets them (else the answer)."""
    settings = get_archive().settings
    if request.endpoint is None:
        return None  # no such route: a 404 follows
    rule = RULES.get(request.endpoint)
    if rule is None:
        return _forbidden("this address has no access rule yet, so it is closed")
    if not settings.login_required:
        g.principal = OPEN
        if rule in WRITES and request.endpoint != "auth.login":
            check_csrf()
        return None
    if request.endpoint == "static":
        return None  # a stylesheet or icon: nobody to look up
    try:
        g.principal = who = resolve_principal()
    except _Refused as refused:
        return refused.response
    if who.via == "token" and rule in WRITES and who.scope != "admin":
        return _forbidden("a read token cannot change anything; use an admin token or sign in")
    need = NEEDS.get(rule)
    if rule == READ and not who.signed_in and not visible().readable:
        return _unauthorised("sign in (or send an API token) to read this archive")
    if rule == FEED:
        return None  # the feed checks its owner or its secret itself
    if need is not None:
        if not who.signed_in:
            return _unauthorised("sign in (or send an API token) first")
        if need == "admin" and not who.admin:
            return _forbidden("only an admin may use this (an admin's read token may not)")
        if need == "editor" and not who.at_least("editor"):
            return _forbidden("only an editor or an admin may do this")
    if rule in WRITES and who.via != "token":
        check_csrf()  # a browser's request: its form (or X-CSRF-Token) must carry the session's token
    return None


# -- CSRF -------------------------------------------------------------------------------------------------


def csrf_token() -> str:
    """This browser session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(32)
    return token


def check_csrf() -> None:
    sent = request.form.get("csrf_token", "") or request.headers.get("X-CSRF-Token", "")
    kept = session.get("csrf", "")
    if not kept or not access.same(sent, kept):
        raise BadRequest(
            "bad_csrf_token", "this form has expired or was sent from another site: reload the page and try again"
        )


# -- signing in and out -----------------------------------------------------------------------------------


def _safe_next(target: Optional[str]) -> str:
    """Where to go after signing in: a path on this site only (never another site)."""
    target = (target or "").strip()
    parts = urlsplit(target)
    if not target.startswith("/") or target.startswith("//") or parts.scheme or parts.netloc or "\\" in target:
        return "/"
    return target


@bp.get("/login")
def login_page():
    settings = get_archive().settings
    return render_template(
        "login.html",
        open_mode=not settings.login_required,
        next=_safe_next(request.args.get("next")),
        error=None,
        name="",
        search=None,
    )


@bp.post("/login")
def login():
    archive = get_archive()
    settings = archive.settings
    if not settings.login_required:
        return redirect("/", code=303)
    name = (request.form.get("name") or "").strip()[:100]
    password = request.form.get("password") or ""
    target = _safe_next(request.form.get("next"))
    with archive.sessions.begin() as db:
        result = access.login(db, name, password, client_address(), settings)
        if result.user is not None:
            access.end_session(db, session.get("sid", ""))  # a sign-in over another ends the one before
            raw = access.start_session(db, result.user, settings.session_hours)
            access.record(db, access.principal_of(result.user, "session"), "login", address=client_address())
    if result.user is None:
        if settings.login_failure_delay_ms:
            time.sleep(settings.login_failure_delay_ms / 1000)
        status = 429 if result.locked else 401
        return render_template(
            "login.html", open_mode=False, next=target, error=result.message, name=name, search=None
        ), status
    # A new session for the signed-in user: nothing of the anonymous one (its CSRF token included) carries over.
    session.clear()
    session.permanent = True
    session["sid"] = raw
    csrf_token()
    return redirect(target, code=303)


@bp.post("/logout")
def logout():
    archive = get_archive()
    sid = session.get("sid")
    if sid:
        with archive.sessions.begin() as db:
            access.end_session(db, sid)
    session.clear()
    return redirect("/login" if archive.settings.login_required else "/", code=303)


@bp.get("/api/me")
def me():
    who = principal()
    return jsonify(
        {
            "mode": "login" if get_archive().settings.login_required else "open",
            "user": who.name,
            "role": "admin" if who.open else who.role,
            "groups": sorted(who.groups),
            "via": who.via,
            "scope": who.scope,
        }
    )


# -- a user's own tokens ----------------------------------------------------------------------------------


def _own_user(db):
    who = principal()
    if who.open or who.user_id is None:
        raise BadRequest("no_account", "tokens belong to accounts: this archive is open (NEWSARCHIVE_ACCESS=open)")
    user = db.get(User, who.user_id)
    if user is None:
        abort(404)
    return user


@bp.get("/account")
def account():
    archive = get_archive()
    who = principal()
    own = []
    if who.user_id is not None:
        with archive.sessions() as db:
            own = access.tokens(db, who.user_id)
    return render_template("account.html", who=who, tokens=own, new_token=None, search=None, error=None)


@bp.post("/account/tokens")
def create_token():
    archive = get_archive()
    name = request.form.get("name") or "token"
    scope = request.form.get("scope") or "read"
    days_text = (request.form.get("days") or "90").strip()
    if not days_text.isdigit():
        raise BadRequest("bad_parameter", "days must be a whole number from 1 to 3,650")
    with archive.sessions.begin() as db:
        user = _own_user(db)
        try:
            raw = access.create_token(db, user, name, scope, int(days_text))
        except AccessError as exc:
            raise BadRequest("bad_parameter", str(exc)) from None
        access.record(
            db, principal(), "token_create", f"user:{user.name}", f"{scope}, {days_text} days", client_address()
        )
    with archive.sessions() as db:
        own = access.tokens(db, principal().user_id)
    # Shown once, on this page only; never stored but as a hash.
    response = render_template("account.html", who=principal(), tokens=own, new_token=raw, search=None, error=None)
    return response, 201, {"Cache-Control": "no-store"}


@bp.post("/account/tokens/<int:token_id>/revoke")
def revoke_token(token_id: int):
    archive = get_archive()
    who = principal()
    with archive.sessions.begin() as db:
        user = _own_user(db)
        if not access.revoke_token(db, token_id, None if who.admin else user.id):
            abort(404)
        access.record(db, who, "token_revoke", f"token:{token_id}", address=client_address())
    return redirect("/account", code=303)


# -- collections, for editors and admins -----------------------------------------------------------------


@bp.get("/api/collections")
def api_collections():
    """The collections this principal may read (every one, with its grants, for an admin)."""
    archive = get_archive()
    with archive.sessions() as db:
        listed = access.collections(db)
    seen = visible()
    if seen is not None:
        listed = [
            {"id": c["id"], "name": c["name"], "public": c["public"], "articles": c["articles"]}
            for c in listed
            if c["id"] in seen.readable
        ]
    return jsonify({"collections": listed})


@bp.post("/api/collections/<name>/articles")
def assign(name: str):
    """Move articles (`ids`) or a source's articles (`source`) into collection `name`: for editors, among
    the articles and collections they may read."""
    archive = get_archive()
    body = request.get_json(silent=True) or {}
    ids = body.get("ids") or []
    source = body.get("source")
    if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids) or len(ids) > 10_000:
        raise BadRequest("bad_parameter", "ids must be a list of at most 10,000 article ids")
    if source is not None and (not isinstance(source, str) or not source.strip()):
        raise BadRequest("bad_parameter", "source must be a source's name")
    seen = visible()
    with archive.sessions.begin() as db:
        try:
            target = access.find_collection(db, name)
        except AccessError:
            abort(404)
        if seen is not None and target.id not in seen.readable:
            abort(404)
        if seen is not None and ids:
            # Only articles this editor may read move; the others stay hidden (and unmentioned).
            ids = [
                i
                for (i,) in db.execute(
                    select(Article.id).where(Article.id.in_(ids), Article.collection_id.in_(sorted(seen.readable)))
                )
            ]
        if source is not None and not principal().admin:
            raise BadRequest("forbidden", "only an admin moves a whole source (it may hold articles you cannot read)")
        try:
            moved = access.assign(db, target.name, source=source, ids=ids)
        except AccessError as exc:
            raise BadRequest("bad_parameter", str(exc)) from None
        detail = f"source {source}" if source else f"{len(ids)} ids"
        access.record(db, principal(), "collection_assign", f"collection:{target.name}", detail, client_address())
    return jsonify({"collection": target.name, "moved": moved})


# -- admin ------------------------------------------------------------------------------------------------


@bp.get("/admin")
def admin():
    archive = get_archive()
    with archive.sessions() as db:
        return render_template(
            "admin.html",
            users=access.users(db),
            collections=access.collections(db),
            tokens=access.tokens(db),
            events=access.audit_events(db, 100),
            search=None,
        )


@bp.get("/api/audit")
def api_audit():
    limit = request.args.get("limit", "200")
    before = request.args.get("before", "")
    if not limit.isdigit() or not 1 <= int(limit) <= 1000:
        raise BadRequest("bad_parameter", "limit must be a whole number from 1 to 1000")
    if before and not before.isdigit():
        raise BadRequest("bad_parameter", "before must be an event id")
    with get_archive().sessions() as db:
        return jsonify({"events": access.audit_events(db, int(limit), int(before) if before else None)})


def audit(action: str, target: Optional[str] = None, detail: Optional[str] = None) -> None:
    """Record what the current principal did (exports, originals) in the audit log (login mode: in open
    mode there is one user, and the web server writes nothing but saved searches). With the primary down,
    this fails, and with it the request: what is audited is not served unaudited."""
    archive = get_archive()
    if not archive.settings.login_required:
        return
    with archive.write_sessions.begin() as db:  # the primary, also when this request reads a replica
        access.record(db, principal(), action, target, detail, client_address())
