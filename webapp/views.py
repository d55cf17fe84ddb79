"""The HTML pages: the search page, results with facets, and the article page."""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Blueprint, abort, render_template, request

from search.request import BadRequest, SearchRequest, parse_request
from search.schema import FACETS

from .context import get_archive, request_searcher

bp = Blueprint("views", __name__)

FACET_TITLES = {"source": "Source", "credit": "Photographer", "place": "Place", "year": "Year"}


def link(search: SearchRequest, **changes) -> str:
    params = search.params(**changes)
    return "/search?" + urlencode(params) if params else "/search"


@bp.get("/")
def home():
    search = SearchRequest(per_page=1, facet_size=15)
    answer = get_archive().search(search, request_searcher())
    return render_template("index.html", answer=answer, search=search, link=link, titles=FACET_TITLES, facets=FACETS)


@bp.get("/search")
def search():
    try:
        search = parse_request(request.args.get, request.args.getlist)
        answer = get_archive().search(search, request_searcher())
    except BadRequest as exc:
        search = SearchRequest(q=(request.args.get("q") or "")[:1000])
        return render_template(
            "search.html", search=search, answer=None, error=exc.message, link=link, titles=FACET_TITLES, facets=FACETS
        ), 400
    pages = max(1, -(-answer["total"] // search.per_page))
    return render_template(
        "search.html",
        search=search,
        answer=answer,
        error=None,
        link=link,
        pages=pages,
        titles=FACET_TITLES,
        facets=FACETS,
    )


@bp.get("/articles/<int:article_id>")
def article(article_id: int):
    archive = get_archive()
    record = archive.article(article_id)
    if record is None:
        abort(404)
    return render_template("article.html", article=record, related=archive.related(article_id))
