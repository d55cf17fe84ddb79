"""The HTML pages: the search page, results with facets, and the article page."""

from __future__ import annotations

from urllib.parse import urlencode

from flask import Blueprint, abort, render_template, request

from search.request import BadRequest, SearchRequest, parse_request
from search.schema import FACETS
from store.saved import canonical_params

from .context import get_archive, request_searcher

bp = Blueprint("views", __name__)

FACET_TITLES = {
    "source": "Source",
    "credit": "Photographer",
    "place": "Place",
    "year": "Year",
    "byline": "Writer",
    "dateline": "Dateline",
    "language": "Language",
    "story": "Stories with versions",
}
CHART_WIDTH, CHART_HEIGHT = 600, 80  # the histogram's drawing units (it scales to the column's width)


def link(search: SearchRequest, **changes) -> str:
    params = search.params(**changes)
    return "/search?" + urlencode(params) if params else "/search"


def export_link(search: SearchRequest, kind: str) -> str:
    """The download of every hit of `search` (its query, filters and sort; not its page)."""
    params = [(k, v) for k, v in search.params(page=1) if k not in ("per_page", "interval")]
    return f"/api/search.{kind}" + ("?" + urlencode(params) if params else "")


def chart(search: SearchRequest, histogram: dict | None) -> dict | None:
    """The date histogram as SVG bars, each a link that narrows the search to its dates."""
    buckets = (histogram or {}).get("buckets") or []
    if len(buckets) < 2:
        return None
    top = max(b["count"] for b in buckets) or 1
    step = CHART_WIDTH / len(buckets)
    gap = step * 0.15 if step > 3 else 0
    bars = []
    for i, bucket in enumerate(buckets):
        count = bucket["count"]
        bars.append(
            {
                "x": round(i * step, 2),
                "width": round(step - gap, 2),
                "height": round(CHART_HEIGHT * count / top, 2) if count else 0,
                "href": link(search, page=1, **{"from": bucket["from"], "to": bucket["to"]}),
                "label": f"{bucket['key']}: {count:,} hit{'' if count == 1 else 's'}",
            }
        )
    return {
        "bars": bars,
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        "interval": histogram["interval"],
        "first": buckets[0]["key"],
        "last": buckets[-1]["key"],
        "undated": histogram.get("undated", 0),
    }


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
        chart=chart(search, answer.get("histogram")),
        export=lambda kind: export_link(search, kind),
        saved_params=canonical_params(search),
    )


@bp.get("/articles/<int:article_id>")
def article(article_id: int):
    archive = get_archive()
    record = archive.article(article_id)
    if record is None:
        abort(404)
    return render_template(
        "article.html", article=record, related=archive.related(article_id), versions=archive.versions(article_id)
    )
