"""JSON and JSON Lines articles with the common field names, IPTC ninjs included."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any, Iterable, Optional

from search.languages import language_tag

from .. import dates
from ..credits import caption_from_parts, find_agency, split_caption
from ..errors import InputError
from ..normalise import clean_text, collapse, split_paragraphs
from ..records import ArticleData, CaptionData, PlaceData, Withdrawal, http_url
from .html import fragment_paragraphs

HEADLINE_KEYS = ("headline", "title", "hed", "head", "name")
BODY_KEYS = (
    "body",
    "text",
    "content",
    "body_text",
    "bodyText",
    "articleBody",
    "article",
    "story",
    "full_text",
    "fulltext",
)
HTML_BODY_KEYS = ("body_html", "bodyHtml", "html", "content_html", "contentHtml")
DATE_KEYS = (
    "published",
    "date",
    "published_at",
    "publishedAt",
    "datePublished",
    "pubDate",
    "pub_date",
    "publication_date",
    "firstcreated",
    "versioncreated",
    "created",
    "created_at",
    "dateCreated",
    "timestamp",
    "time",
    "datetime",
)
BYLINE_KEYS = ("byline", "author", "authors", "by", "creator", "writer")
URL_KEYS = ("url", "link", "canonical_url", "canonicalUrl", "web_url", "href", "uri")
SOURCE_KEYS = (
    "source",
    "publisher",
    "provider",
    "site_name",
    "siteName",
    "copyrightholder",
    "agency",
    "outlet",
    "feed",
)
CAPTION_KEYS = ("captions", "images", "photos", "pictures", "media", "image", "photo")
DATELINE_KEYS = ("dateline", "located")
LANGUAGE_KEYS = ("language", "lang", "inLanguage")
PLACE_KEYS = ("places", "place", "locations", "location")
WRAPPER_KEYS = ("articles", "items", "data", "results", "stories", "docs", "documents", "entries")


def parse_json_document(text: str) -> list[Any]:
    """Parse a whole JSON document into its article objects (an object, a list, or {"articles": [...]})."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise InputError("the JSON is nested too deeply to read") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from exc
    if isinstance(value, dict):
        for key in WRAPPER_KEYS:
            if isinstance(value.get(key), list) and not _first(value, HEADLINE_KEYS + BODY_KEYS):
                return value[key]
        return [value]
    if isinstance(value, list):
        return value
    raise InputError(f"the JSON holds a {type(value).__name__}, not an article object or a list of them")


def parse_json_line(line: str) -> Any:
    """Parse one line of a JSON Lines file; raise InputError with the reason when it is not an object."""
    try:
        value = json.loads(line)
    except RecursionError:
        raise InputError("the JSON is nested too deeply to read") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {exc.msg} at column {exc.colno}") from exc
    return value


def article_from_object(obj: Any) -> ArticleData:
    """Map one JSON object with common or ninjs field names to an ArticleData."""
    if not isinstance(obj, dict):
        raise InputError(f"expected an article object, found a JSON {_json_type(obj)}")
    headline = collapse(clean_text(_text(_first(obj, HEADLINE_KEYS)) or ""))
    paragraphs: list[str] = []
    captions: list[CaptionData] = []
    hints: list[str] = []
    body = _first(obj, BODY_KEYS)
    html_body = _first(obj, HTML_BODY_KEYS)
    if isinstance(body, list):
        blocks = [clean_text(_text(b) or "") for b in body]
        paragraphs = [p for block in blocks for p in split_paragraphs(block)]
    elif isinstance(body, str) and body.strip():
        if _looks_like_html(body):
            paragraphs, captions = _html_fragment(body)
        else:
            paragraphs = split_paragraphs(clean_text(body))
    elif isinstance(html_body, str) and html_body.strip():
        paragraphs, captions = _html_fragment(html_body)
    # Captions given in the body text (as in plain text files) are still captions.
    kept = []
    for paragraph in paragraphs:
        caption = split_caption(paragraph)
        if caption is None:
            kept.append(paragraph)
        else:
            captions.append(caption_from_parts(caption[0], caption[1]))
            if caption[2]:
                hints.append(caption[2])
    paragraphs = kept
    captions.extend(_captions(obj))
    withdrawal = Withdrawal(
        str(obj.get("pubstatus") or obj.get("pubStatus") or "").strip().lower() in WITHDRAWN_STATUSES,
        collapse(_text(obj.get("ednote") or obj.get("description_text") or "") or "") or None,
    )
    paragraphs = withdrawal.body(paragraphs, headline)
    if not headline and not paragraphs:
        raise InputError("the record has neither a headline nor body text")
    if not paragraphs:
        raise InputError("the record has a headline but no body text")
    article = ArticleData(headline=headline, paragraphs=paragraphs, captions=captions, source_hints=hints)
    for key in DATE_KEYS:
        if key in obj:
            value = dates.parse_date(obj[key])
            if value is not None:
                article.published = value
                break
    article.byline = _byline(_first(obj, BYLINE_KEYS))
    url = _text(_first(obj, URL_KEYS))
    if url and url.startswith(("http://", "https://")):
        article.url = url.strip()
    source = _name(_first(obj, SOURCE_KEYS))
    if source:
        agency = find_agency(source)
        article.source = agency.source if agency else collapse(source)[:200]
    dateline = _text(_first(obj, DATELINE_KEYS))
    if dateline:
        article.dateline = collapse(dateline)[:200]
    language = _text(_first(obj, LANGUAGE_KEYS))
    if language:
        article.language = language_tag(language)
    article.places = _places(_first(obj, PLACE_KEYS))
    uri = obj.get("uri")
    if isinstance(uri, str) and uri.strip():  # IPTC ninjs: the item's identity across its versions
        stamp = dates.parse_date(obj.get("versioncreated")) if obj.get("versioncreated") else None
        article.identify(
            "ninjs:" + uri.strip(),
            version=_version_number(obj.get("version")),
            version_time=stamp if isinstance(stamp, dt.datetime) else None,
            withdrawal=withdrawal,
        )
    return article


WITHDRAWN_STATUSES = ("canceled", "cancelled", "withdrawn", "killed")


def _version_number(value: Any) -> Optional[int]:
    try:
        number = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if 0 <= number < 2**31 else None


def _first(obj: dict, keys: Iterable[str]) -> Any:
    for key in keys:
        value = obj.get(key)
        if value not in (None, "", [], {}):
            return value
    return None


def _json_type(value: Any) -> str:
    return {list: "array", str: "string", int: "number", float: "number", bool: "boolean", type(None): "null"}.get(
        type(value), "value"
    )


def _text(value: Any) -> Optional[str]:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, dict):
        for key in ("text", "value", "name", "content", "#text", "@value", "href", "url"):
            if isinstance(value.get(key), str):
                return value[key]
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return "\n\n".join(value)
    return None


def _name(value: Any) -> Optional[str]:
    if isinstance(value, list):
        names = [n for n in (_name(v) for v in value) if n]
        return names[0] if names else None
    text = _text(value)
    return collapse(text) if text else None


def _byline(value: Any) -> Optional[str]:
    if isinstance(value, list):
        names = [n for n in (_name(v) for v in value) if n]
        text = ", ".join(dict.fromkeys(names))
    else:
        text = _name(value) or ""
    text = collapse(clean_text(text))
    if text.lower().startswith("by "):
        text = text[3:].strip()
    return text[:500] or None


def _captions(obj: dict) -> list[CaptionData]:
    found: list[CaptionData] = []
    value = _first(obj, CAPTION_KEYS)
    items = value if isinstance(value, list) else [value] if value else []
    associations = obj.get("associations")
    if isinstance(associations, dict):  # ninjs: {"featureimage": {"type": "picture", "description_text": ...}}
        items = items + [v for v in associations.values() if isinstance(v, dict)]
    for item in items[:200]:
        if isinstance(item, str):
            text, credit = item, None
            split = split_caption(item)
            if split:
                text, credit = split[0], split[1]
        elif isinstance(item, dict):
            if item.get("type") not in (None, "picture", "image", "photo", "graphic"):
                continue
            text = _text(
                item.get("caption")
                or item.get("description_text")
                or item.get("description")
                or item.get("alt")
                or item.get("text")
                or item.get("headline")
                or ""
            )
            credit = _text(item.get("credit") or item.get("copyright") or item.get("copyrightnotice") or "")
            photographer = _name(item.get("photographer") or item.get("byline") or item.get("author"))
            if text and not credit:
                split = split_caption(text)
                if split:
                    text, credit = split[0], split[1]
            if not text:
                continue
            caption = caption_from_parts(clean_text(text), collapse(credit) if credit else None)
            caption.image_url = http_url(item.get("url") or item.get("src") or item.get("href") or item.get("uri"))
            if photographer and not caption.photographer:
                caption.photographer = photographer
                if not caption.credit:
                    caption.credit = photographer
            found.append(caption)
            continue
        else:
            continue
        if text and text.strip():
            found.append(caption_from_parts(clean_text(text), credit))
    return found


def _places(value: Any) -> list[PlaceData]:
    items = value if isinstance(value, list) else [value] if value else []
    places = []
    for item in items[:50]:
        name = _name(item)
        if name and len(name) <= 200:
            places.append(PlaceData(collapse(name), "place"))
    return places


def _looks_like_html(text: str) -> bool:
    head = text[:2000].lower()
    return "<p>" in head or "<p " in head or "<br" in head or "<div" in head or "</" in head


def _html_fragment(html: str) -> tuple[list[str], list[CaptionData]]:
    return fragment_paragraphs(html)
