"""Readers: pick the format from the content, split a file into units, and turn each unit into an article.

A unit is what one article comes from: a whole text, HTML or NITF file, one object of a JSON document, one
line of a JSON Lines file, one item of a feed, one text item of a NewsML-G2 document, one HTML page of a
WARC file, or any of these inside a member of a zip or tar bundle. `iter_units` only splits (cheap, in
order); `parse_unit` does the work and is a pure function of its input, so units can be parsed in worker
processes.
"""

from __future__ import annotations

import datetime as dt

from ..credits import source_for
from ..dates import parse_date
from ..enrich import enrich
from ..errors import InputError, RecordError
from ..folders import NONE, FolderDefaults
from ..normalise import decode_bytes
from ..records import ArticleData, CaptionData
from .feeds import read_feed_entry
from .html import read_html
from .jsonfmt import article_from_object, parse_json_line
from .newsxml import parse_xml, read_newsml_item, read_nitf
from .sniff import FORMATS, detect_format, sniff
from .text import read_text
from .units import STREAMED_FORMATS, Unit, iter_units, member_bytes
from .unpack import Limits, open_unpacked

__all__ = [
    "FORMATS",
    "STREAMED_FORMATS",
    "Limits",
    "Unit",
    "detect_format",
    "iter_units",
    "member_bytes",
    "open_unpacked",
    "parse_unit",
    "read_bytes",
    "sniff",
]


def parse_unit(unit: Unit, limits: Limits | None = None, defaults: FolderDefaults = NONE) -> ArticleData:
    """Turn one unit into an enriched article (with its folder's `defaults` for what it does not state);
    raise InputError with the reason when it holds none."""
    limits = limits or Limits()
    if unit.format == "jsonl-line":
        if len(unit.payload) > limits.max_record_bytes:
            raise InputError(
                f"the record is {len(unit.payload):_} bytes, over max_record_bytes={limits.max_record_bytes:_}"
            )
        text, _ = decode_bytes(unit.payload)
        article = article_from_object(parse_json_line(text))
    elif unit.format == "json-object":
        article = article_from_object(unit.payload)
    elif unit.format == "html":
        article = read_html(unit.payload)
    elif unit.format == "text":
        article = read_text(unit.payload)
    elif unit.format == "feed-entry":
        article = read_feed_entry(unit.payload)
    elif unit.format == "nitf":
        article = read_nitf(unit.payload)
    elif unit.format == "newsml-item":
        item, captions = unit.payload
        article = read_newsml_item(parse_xml(item), [CaptionData(**c) for c in captions])
    else:
        raise InputError(f"unknown format {unit.format!r}")
    article.source_line = unit.line
    article.source_member = unit.member
    meta = unit.meta or {}
    if meta.get("url") and not article.url:
        article.url = meta["url"]
    if meta.get("url") and meta.get("captured") and not article.identity:
        # A web archive's capture of a URL: a later capture of the same URL is a later version of the page.
        captured_at = parse_date(meta["captured"])
        article.identify(
            "url:" + meta["url"], version_time=captured_at if isinstance(captured_at, dt.datetime) else None
        )
    article = enrich(article, defaults)
    if not article.source and meta.get("feed_title"):
        article.source = source_for(meta["feed_title"])
    if article.published is None and meta.get("captured"):
        # A web archive's capture time: when the page was seen, so only an inferred publication date.
        captured = parse_date(meta["captured"])
        if captured is not None:
            article.published = captured.date() if isinstance(captured, dt.datetime) else captured
            article.date_inferred = True
    return article.prepare()


def read_bytes(data: bytes, name: str = "", limits: Limits | None = None) -> list[ArticleData]:
    """Every article in a file's bytes, for tests and one-off use; a bad record raises InputError."""
    limits = limits or Limits()
    stream, _ = open_unpacked(data, limits)
    articles = []
    for unit in iter_units(stream, sniff(stream, name), limits):
        if isinstance(unit, RecordError):
            raise InputError(f"line {unit.line}: {unit.reason}")
        articles.append(parse_unit(unit, limits))
    return articles
