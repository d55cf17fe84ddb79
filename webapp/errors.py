"""Error answers: JSON for the API (and /healthz, feeds), the error page for people."""

from __future__ import annotations

from flask import jsonify, render_template, request


def wants_json() -> bool:
    return request.path.startswith("/api/") or request.path == "/healthz" or request.path.endswith(".atom")


def error_response(status: int, code: str, message: str):
    if wants_json():
        return jsonify({"error": {"code": code, "message": message}}), status
    return render_template("error.html", status=status, code=code, message=message), status
