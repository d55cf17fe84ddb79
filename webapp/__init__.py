"""The Flask app: a search page for people and a JSON API for programs, both reading the archive."""

from __future__ import annotations

import functools
from typing import Optional
from urllib.parse import unquote_to_bytes

from flask import Flask, g, request
from werkzeug.exceptions import HTTPException

from search.index import IndexMissing
from search.request import BadRequest
from store.display import human_date
from store.read import Archive
from store.replicas import is_disconnect
from store.settings import Settings

from . import api, auth, saved, views
from .context import get_archive
from .errors import error_response as _error

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
}


# GET pages that show what their reader has just changed: read from the primary, never a replica behind it.
PRIMARY_READS = frozenset(
    {
        "auth.login_page",
        "auth.me",
        "auth.account",
        "auth.admin",
        "auth.api_audit",
        "auth.api_collections",
        "saved.listing",
        "saved.api_listing",
        "static",
    }
)


def _read_again_elsewhere(view):
    """A read that fails because its database connection did (a replica stopped, a network cut) is asked
    once more on another server: the router leaves the failed one out until it answers again."""

    @functools.wraps(view)
    def wrapper(*args, **kwargs):
        if "reader_token" not in g:
            return view(*args, **kwargs)
        try:
            return view(*args, **kwargs)
        except Exception as exc:
            if not is_disconnect(exc):
                raise
            archive = get_archive()
            failed = archive.engine
            archive.router.failed(failed, exc)
            archive.pin(archive.router.choose(avoid=failed))  # undone with the request's own pin
            for name in ("searcher", "visible"):
                g.pop(name, None)
            return view(*args, **kwargs)

    return wrapper


def _route_reads(app: Flask, archive: Archive) -> None:
    """Reads to a replica, once per request, asked again elsewhere when their connection breaks; then the
    access check (webapp/auth.py), itself a read."""

    @app.before_request
    def _choose_reader():
        # A read goes to a replica (store/replicas.py), the same one for the whole request; anything that
        # writes, or shows someone what they have just changed (their account, their saved searches), reads
        # from the primary.
        if request.method in ("GET", "HEAD") and request.endpoint not in PRIMARY_READS:
            g.reader_token = archive.pin()

    @app.teardown_request
    def _release_reader(_exc):
        token = g.pop("reader_token", None)
        if token is not None:
            try:
                archive.unpin(token)
            except ValueError:  # ended in another context (a streamed download): nothing to restore there
                pass

    # After the encoding check: who is asking, and may they; asked again on another server when the one
    # chosen for this request fails on the way, as is every read below.
    app.before_request(_read_again_elsewhere(auth.check_request))
    for endpoint, view in list(app.view_functions.items()):
        if endpoint != "static":
            app.view_functions[endpoint] = _read_again_elsewhere(view)


def create_app(settings: Optional[Settings] = None) -> Flask:
    """Build the app for `settings` (default: from the environment); the archive is opened here, once."""
    app = Flask(__name__)
    settings = settings or Settings.from_env()
    app.config.from_mapping(NEWSARCHIVE_SETTINGS=settings, JSON_SORT_KEYS=False)
    app.json.sort_keys = False
    app.json.ensure_ascii = False
    archive = Archive(settings)
    app.extensions["newsarchive"] = archive

    app.register_blueprint(api.bp)
    app.register_blueprint(views.bp)
    app.register_blueprint(saved.bp)
    app.register_blueprint(auth.bp)
    app.secret_key = saved.secret_key(settings)
    auth.configure(app, settings)
    app.jinja_env.filters["human_date"] = lambda value: human_date(value, settings.time_zone) if value else ""

    @app.after_request
    def _headers(response):
        for name, value in SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        if archive.router.enabled and "reader_token" in g:
            response.headers["X-Newsarchive-Read-From"] = archive.router.name_of(archive.engine)
        return response

    @app.before_request
    def _check_encoding():
        # Werkzeug reads bytes that are not UTF-8 (q=%FF) as U+FFFD; say so instead of searching for it.
        try:
            unquote_to_bytes(request.query_string.replace(b"+", b" ")).decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequest(
                "bad_encoding",
                "the address holds percent-encoded bytes that are not UTF-8 text (such as %FF); "
                "encode the query as UTF-8",
            ) from None

    _route_reads(app, archive)  # after the encoding check: then who is asking, and may they

    @app.errorhandler(BadRequest)
    def _bad_request(exc: BadRequest):
        return _error(400, exc.code, exc.message)

    @app.errorhandler(IndexMissing)
    def _no_index(exc: IndexMissing):
        return _error(503, "index_unavailable", str(exc))

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException):
        code = {403: "forbidden", 404: "not_found", 405: "method_not_allowed"}.get(exc.code or 500, "http_error")
        message = "there is nothing at this address" if exc.code == 404 else exc.description
        return _error(exc.code or 500, code, message)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception):
        if is_disconnect(exc):  # the database (the primary, for a write) is down or out of reach
            app.logger.error("database unavailable on %s: %s", request.path, exc)
            return _error(
                503,
                "database_unavailable",
                "the archive's database is not answering just now; searches may still work; try again shortly",
            )
        app.logger.exception("unexpected error on %s", request.path)
        return _error(500, "internal_error", "something went wrong on our side; the error has been logged")

    return app
