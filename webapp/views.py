"""The HTML pages: the search page, results with facets (and each facet's full list), the article page
with its original file, and the ingest status page."""

from __future__ import annotations

import io
import mimetypes
from pathlib import Path
from typing import Optional
from urllib.parse import urlencode

from flask import Blueprint, abort, render_template, request, send_file

from ingest.readers import Limits, member_bytes
from search.request import MAX_FACET_SIZE, MAX_PAGE, PER_PAGE_CHOICES, BadRequest, SearchRequest, parse_request
from search.schema import FACETS
from store.display import human_date
from store.saved import canonical_params

from .auth import audit
from .context import get_archive, request_searcher, visible
from .status import access_state, ingest_status

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


def page_numbers(current: int, pages: int) -> list[Optional[int]]:
    """The page links to show: the first, the last, and two either side of the current page; None for a gap."""
    shown = sorted({1, pages, *range(max(1, current - 2), min(pages, current + 2) + 1)})
    out: list[Optional[int]] = []
    for number in shown:
        if out and number - out[-1] > 1:
            out.append(None)
        out.append(number)
    return out


@bp.get("/")
def home():
    search = SearchRequest(per_page=1, facet_size=15)
    answer = get_archive().search(search, request_searcher(), visible())
    return render_template("index.html", answer=answer, search=search, link=link, titles=FACET_TITLES, facets=FACETS)


@bp.get("/search")
def search():
    try:
        search = parse_request(request.args.get, request.args.getlist)
        answer = get_archive().search(search, request_searcher(), visible())
    except BadRequest as exc:
        search = SearchRequest(q=(request.args.get("q") or "")[:1000])
        return render_template(
            "search.html", search=search, answer=None, error=exc.message, link=link, titles=FACET_TITLES, facets=FACETS
        ), 400
    pages = min(max(1, -(-answer["total"] // search.per_page)), MAX_PAGE)
    return render_template(
        "search.html",
        search=search,
        answer=answer,
        error=None,
        link=link,
        pages=pages,
        page_numbers=page_numbers(search.page, pages),
        per_page_choices=sorted({*PER_PAGE_CHOICES, search.per_page}),
        titles=FACET_TITLES,
        facets=FACETS,
        chart=chart(search, answer.get("histogram")),
        export=lambda kind: export_link(search, kind),
        saved_params=canonical_params(search),
    )


@bp.get("/articles/<int:article_id>")
def article(article_id: int):
    archive = get_archive()
    seen = visible()
    record = archive.article(article_id, seen)
    if record is None:
        abort(404)
    original = original_file(record) if archive.original_shared(record, seen) else None
    return render_template(
        "article.html",
        article=record,
        related=archive.related(article_id, visible=seen),
        versions=archive.versions(article_id, visible=seen),
        history=archive.history(article_id, visible=seen),
        original=_original_label(original, record.get("source_member")),
        ingested=human_date(record["ingested_at"].replace("Z", "+00:00"), archive.settings.time_zone),
    )


def _original_label(original: Optional[Path], member: Optional[str]) -> Optional[dict]:
    """What the article page says of the original download: the file's name and size, or the member's
    name and its bundle's name."""
    if original is None:
        return None
    if member:
        return {"name": member.rsplit("!/", 1)[-1].rsplit("/", 1)[-1], "bundle": original.name, "member": member}
    return {"name": original.name, "bytes": original.stat().st_size}


def original_file(record: dict) -> Optional[Path]:
    """The stored original of an article (its path from SQL, never from the request), when it is still
    a regular file."""
    path = Path(record["original_file"])
    try:
        return path if path.is_file() and not path.is_symlink() else None
    except OSError:
        return None


@bp.get("/articles/<int:article_id>/original")
def original(article_id: int):
    """The original file an article was read from, as a download (never shown inline: it may be HTML)."""
    archive = get_archive()
    seen = visible()
    record = archive.article(article_id, seen)
    path = original_file(record) if record is not None and archive.original_shared(record, seen) else None
    if path is None:
        abort(404)  # no such article for this reader, or its file also holds articles they may not read
    audit("original", f"article:{article_id}", record.get("source_member") or path.name)
    member = record.get("source_member")
    if member:
        # Read from a zip or tar bundle: the member itself, found by the label stored at ingest.
        settings = archive.settings
        data = member_bytes(path, member, Limits(settings.max_unpacked_bytes, settings.max_record_bytes))
        if data is None:
            abort(404)
        name = member.rsplit("!/", 1)[-1].rsplit("/", 1)[-1] or "member"
        mimetype = mimetypes.guess_type(name)[0] or "application/octet-stream"
        return send_file(io.BytesIO(data), mimetype=mimetype, as_attachment=True, download_name=name, max_age=0)
    mimetype = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return send_file(path, mimetype=mimetype, as_attachment=True, download_name=path.name, max_age=0)


@bp.get("/facets/<name>")
def facet_page(name: str):
    """Every value of one facet for the current search (up to MAX_FACET_SIZE), narrowed by a prefix."""
    if name not in FACETS:
        abort(404)
    search = parse_request(request.args.get, request.args.getlist)
    prefix = (request.args.get("prefix") or "").strip()
    if len(prefix) > 100 or "\x00" in prefix:
        raise BadRequest("bad_parameter", "prefix must be at most 100 characters, without NUL")
    values = request_searcher().facet_values(search, name, prefix, MAX_FACET_SIZE, visible())
    if name == "story":
        values = get_archive().label_stories({"story": values}, visible())["story"]
    return render_template(
        "facet.html",
        search=search,
        name=name,
        title=FACET_TITLES[name],
        prefix=prefix,
        values=values,
        limit=MAX_FACET_SIZE,
        link=link,
        hidden=[(k, v) for k, v in search.params(page=1) if k != "prefix"],
    )


@bp.get("/status")
def status():
    archive = get_archive()
    with archive.session() as session:
        state = ingest_status(session, archive.settings)
    servers = archive.router.describe() if archive.router.enabled else None
    return render_template("status.html", status=state, access=access_state(archive.settings), servers=servers)
