"""The JSON API: /api/search, /api/articles/<id>, /api/openapi.json and /healthz."""

from __future__ import annotations

from flask import Blueprint, jsonify, request

from search.request import parse_request

from .context import get_archive, request_searcher
from .openapi import openapi_document

bp = Blueprint("api", __name__)


def search_request():
    return parse_request(request.args.get, request.args.getlist)


@bp.get("/api/search")
def search():
    return jsonify(get_archive().search(search_request(), request_searcher()))


@bp.get("/api/articles/<int:article_id>")
def article(article_id: int):
    record = get_archive().article(article_id)
    if record is None:
        return jsonify({"error": {"code": "not_found", "message": f"no article with id {article_id}"}}), 404
    return jsonify(record)


@bp.get("/api/openapi.json")
def openapi():
    return jsonify(openapi_document())


@bp.get("/healthz")
def healthz():
    ok, details = get_archive().health()
    return jsonify({"status": "ok" if ok else "unavailable", **details}), 200 if ok else 503
