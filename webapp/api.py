"""The JSON API: /api/search (and its exports .csv and .jsonl), /api/facets/<name>, /api/articles/<id>,
/api/status, /api/openapi.json and /healthz."""

from __future__ import annotations

import csv
import io
import json

from flask import Blueprint, Response, jsonify, request, stream_with_context

from ingest.status import read_progress
from search.request import MAX_FACET_SIZE, BadRequest, parse_request
from search.schema import FACETS
from store.answers import EXPORT_FIELDS

from .auth import audit
from .context import get_archive, principal, request_searcher, visible
from .openapi import openapi_document
from .status import access_state, ingest_status, shown_path

bp = Blueprint("api", __name__)


def search_request():
    return parse_request(request.args.get, request.args.getlist)


@bp.get("/api/search")
def search():
    return jsonify(get_archive().search(search_request(), request_searcher(), visible()))


@bp.get("/api/facets/<name>")
def facet_values(name: str):
    if name not in FACETS:
        raise BadRequest("bad_parameter", f"no facet named {name[:40]!r}; the facets are {', '.join(FACETS)}")
    search = search_request()
    prefix = (request.args.get("prefix") or "").strip()
    if len(prefix) > 100 or "\x00" in prefix:
        raise BadRequest("bad_parameter", "prefix must be at most 100 characters, without NUL")
    size = search.facet_size if request.args.get("facet_size") else MAX_FACET_SIZE
    values = request_searcher().facet_values(search, name, prefix, size, visible())
    if name == "story":
        values = get_archive().label_stories({"story": values}, visible())["story"]
    return jsonify({"facet": name, "prefix": prefix, "values": values})


def export_options(archive) -> tuple[str, int]:
    """The export's `text` (snippet or body) and `limit` (at most NEWSARCHIVE_EXPORT_MAX_ROWS)."""
    text = (request.args.get("text") or "snippet").strip().lower()
    if text not in ("snippet", "body"):
        raise BadRequest("bad_parameter", f"text must be snippet or body, not {text[:40]!r}")
    cap = archive.settings.export_max_rows
    raw = (request.args.get("limit") or "").strip()
    if not raw:
        return text, cap
    if not raw.isdigit() or not 1 <= int(raw) <= cap:
        raise BadRequest("bad_parameter", f"limit must be a whole number from 1 to {cap}, not {raw[:40]!r}")
    return text, int(raw)


@bp.get("/api/search.csv")
def search_csv():
    archive = get_archive()
    text, limit = export_options(archive)
    total, rows = archive.export(search_request(), text, limit, visible())
    audit("export", "csv", f"{request.query_string.decode('utf-8', 'replace')[:1000]} ({total} hits)")
    return _download(csv_lines(rows, text), "text/csv; charset=utf-8", "newsarchive-search.csv", total)


@bp.get("/api/search.jsonl")
def search_jsonl():
    archive = get_archive()
    text, limit = export_options(archive)
    total, rows = archive.export(search_request(), text, limit, visible())
    audit("export", "jsonl", f"{request.query_string.decode('utf-8', 'replace')[:1000]} ({total} hits)")
    lines = (json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    return _download(lines, "application/x-ndjson; charset=utf-8", "newsarchive-search.jsonl", total)


def _download(lines, mimetype: str, filename: str, total: int) -> Response:
    response = Response(stream_with_context(lines), mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    response.headers["X-Total-Hits"] = str(total)
    return response


# A spreadsheet runs a cell that starts with one of these as a formula: such a cell gets a leading quote.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_lines(rows, text: str):
    """The export as CSV lines: a header, then one line per hit (places joined by "; ")."""
    header = [*EXPORT_FIELDS, text]
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    yield buffer.getvalue()
    for row in rows:
        buffer.seek(0)
        buffer.truncate()
        cells = []
        for key in header:
            value = row.get(key)
            if isinstance(value, list):
                value = "; ".join(value)
            value = "" if value is None else str(value)
            cells.append("'" + value if value.startswith(_FORMULA_START) else value)
        writer.writerow(cells)
        yield buffer.getvalue()


@bp.get("/api/articles/<int:article_id>")
def article(article_id: int):
    record = get_archive().article(article_id, visible())
    if record is None:
        return jsonify({"error": {"code": "not_found", "message": f"no article with id {article_id}"}}), 404
    return jsonify(record)


@bp.get("/api/articles/<int:article_id>/versions")
def versions(article_id: int):
    """Every stored version of the article (same identity from its source), which one is searched, and
    whether it was withdrawn."""
    history = get_archive().history(article_id, visible=visible())
    if history is None:
        return jsonify({"error": {"code": "not_found", "message": f"no article with id {article_id}"}}), 404
    return jsonify(history)


@bp.get("/api/articles/<int:article_id>/related")
def related(article_id: int):
    archive = get_archive()
    if archive.article(article_id, visible()) is None:
        return jsonify({"error": {"code": "not_found", "message": f"no article with id {article_id}"}}), 404
    limit = request.args.get("limit", "5")
    if not limit.isdigit() or not 1 <= int(limit) <= 50:
        raise BadRequest("bad_parameter", f"limit must be a whole number from 1 to 50, not {limit[:40]!r}")
    return jsonify({"id": article_id, "related": archive.related(article_id, int(limit), visible())})


@bp.get("/api/openapi.json")
def openapi():
    return jsonify(openapi_document())


@bp.get("/api/status")
def status():
    archive = get_archive()
    with archive.session() as session:
        answer = {**ingest_status(session, archive.settings), "access": access_state(archive.settings)}
    if archive.router.enabled:
        answer["database"] = archive.router.describe()
    return jsonify(answer)


@bp.get("/healthz")
def healthz():
    archive = get_archive()
    ok, details = archive.health()
    if not principal().admin:  # counts and file names are for admins; a load balancer needs only the status
        return jsonify({"status": "ok" if ok else "unavailable"}), 200 if ok else 503
    current = read_progress(archive.settings.home)  # the file being read now, if any (see /api/status)
    details["ingesting"] = shown_path(current["file"], archive.settings) if current else None
    if archive.router.enabled:
        details["database"] = archive.router.describe(with_urls=True)
    return jsonify({"status": "ok" if ok else "unavailable", **details}), 200 if ok else 503
