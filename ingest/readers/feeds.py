"""RSS 0.9x/1.0/2.0, Atom 0.3/1.0 and Media RSS feeds: each item (entry) is one article.

feedparser reads the feed (every dialect, declared and undeclared encodings, the date forms feeds use,
ill-formed XML in its loose mode; it never fetches anything when given bytes). It folds Media RSS's
`media:description` into the entry's content, so the picture captions are read a second time with lxml
(entity expansion and network off), item by item, and a content equal to a picture's description is not
taken for the body.

An item gives: title as headline, `content:encoded` (or Atom content) else description/summary as body,
read by the HTML body rules (so figures inside it become captions), link as url, guid/id, published (else
updated) date, author (else `dc:creator`), categories, `media:content`/`media:thumbnail`/`media:group`
descriptions with `media:credit` as captions with credits. The feed's own title is the articles' source
when nothing nearer (the item's `<source>`, a dateline's agency, the folder's defaults) says one.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, Optional

import feedparser
from bs4 import BeautifulSoup
from lxml import etree

from search.languages import language_tag

from .. import dates
from ..credits import caption_from_parts
from ..errors import InputError
from ..normalise import clean_text, collapse
from ..records import ArticleData, http_url
from .html import fragment_paragraphs
from .newsxml import text_of

MEDIA_NS = "http://search.yahoo.com/mrss/"


def feed_entries(data: bytes) -> list[dict[str, Any]]:
    """The items of a feed as plain dicts (picklable, for the parser processes), in feed order."""
    try:
        parsed = feedparser.parse(data, sanitize_html=False, resolve_relative_uris=False)
    except Exception as exc:  # feedparser on hostile bytes (seen: UnicodeDecodeError from its encoding sniffing)
        raise InputError(f"the feed cannot be read: {type(exc).__name__}: {exc}") from None
    entries = parsed.get("entries") or []
    if not entries:
        if parsed.get("bozo") and not parsed.get("feed"):
            raise InputError(f"the feed cannot be read: {parsed.get('bozo_exception')}")
        raise InputError("the feed has no items")
    media = _media_captions(data)
    feed = parsed.get("feed") or {}
    feed_title = collapse(_plain(feed.get("title") or ""))
    feed_language = feed.get("language") or None
    result = []
    for position, entry in enumerate(entries):
        captions = media[position] if position < len(media) and len(media) == len(entries) else []
        if not captions:
            captions = _feedparser_captions(entry)
        described = {collapse(_plain(c["text"])) for c in captions}
        bodies = [
            c.get("value") or ""
            for c in entry.get("content") or []
            if collapse(_plain(c.get("value") or "")) not in described
        ]
        body = max(bodies, key=len) if bodies else ""
        summary = entry.get("summary") or ""
        if collapse(_plain(summary)) in described:
            summary = ""
        if len(_plain(summary)) > len(_plain(body)):
            body = summary
        source = entry.get("source") or {}
        result.append(
            {
                "title": entry.get("title") or "",
                "body": body,
                "link": entry.get("link") or None,
                "guid": entry.get("id") or None,
                "updated": dict.get(entry, "updated") or None,
                # dict.get: feedparser's own get maps a missing "updated" to "published" with a warning
                "published": dict.get(entry, "published") or dict.get(entry, "created") or dict.get(entry, "updated"),
                "author": entry.get("author") or None,
                "tags": [t.get("term") for t in entry.get("tags") or [] if t.get("term")],
                "captions": captions,
                "source": (source.get("title") if isinstance(source, dict) else None) or None,
                "language": (entry.get("title_detail") or {}).get("language") or feed_language,
                "feed_title": feed_title or None,
            }
        )
    return result


def read_feed_entry(entry: dict[str, Any]) -> ArticleData:
    """One feed item as an article."""
    body = entry.get("body") or ""
    paragraphs, captions = fragment_paragraphs(body) if body.strip() else ([], [])
    headline = collapse(_plain(entry.get("title") or ""))
    if not headline and not paragraphs:
        raise InputError("the feed item has neither a title nor text")
    if not headline:
        headline = " ".join(" ".join(paragraphs).split()[:12])
    seen = {collapse(c.text) for c in captions}
    for caption in entry.get("captions") or []:
        text = collapse(_plain(caption["text"]))
        if text and text not in seen:
            seen.add(text)
            captions.append(caption_from_parts(text, caption.get("credit")))
            captions[-1].image_url = http_url(caption.get("image_url"))
    article = ArticleData(headline=headline, paragraphs=paragraphs, captions=captions)
    article.url = entry.get("link") or (entry.get("guid") if _is_url(entry.get("guid")) else None)
    article.byline = collapse(entry["author"]) if entry.get("author") else None
    if entry.get("published"):
        article.published = dates.parse_date(entry["published"])
    if entry.get("source"):
        article.source = collapse(entry["source"])
    identity = entry.get("guid") or entry.get("link")
    if identity:  # an item's guid (else its link) names it across the feed's later editions
        updated = dates.parse_date(entry["updated"]) if entry.get("updated") else None
        article.identify("guid:" + identity.strip(), version_time=updated if isinstance(updated, dt.datetime) else None)
    language = entry.get("language")
    if language:
        article.language = language_tag(str(language))
    return article


def _is_url(value: Optional[str]) -> bool:
    return bool(value) and value.startswith(("http://", "https://"))


def _plain(html: str) -> str:
    """Text of a title or caption that may carry markup or entities."""
    if "<" not in html and "&" not in html:
        return html
    return BeautifulSoup(html, "lxml").get_text(" ")


def _feedparser_captions(entry: dict) -> list[dict]:
    """Media RSS credits as feedparser gives them (without descriptions): used when lxml could not read
    the feed item by item."""
    credits = [c.get("content") for c in entry.get("media_credit") or [] if c.get("content")]
    title = entry.get("media_title")
    if title and credits:
        return [{"text": title, "credit": credits[0]}]
    return []


def _media_captions(data: bytes) -> list[list[dict]]:
    """For each item of the feed, in order, its pictures' descriptions and credits (Media RSS); an empty
    list when the feed is not well-formed XML."""
    try:
        root = _parse_with_namespaces(data)
    except InputError:
        return []
    items = [e for e in root.iter() if isinstance(e.tag, str) and etree.QName(e).localname in ("item", "entry")]
    result = []
    for item in items:
        captions: list[dict] = []
        seen: set[str] = set()
        shared = _media_text(item, "description"), _media_text(item, "credit")
        for holder in [*item.iter(f"{{{MEDIA_NS}}}content"), *item.iter(f"{{{MEDIA_NS}}}thumbnail")]:
            medium = holder.get("medium") or holder.get("type") or "image"
            if not medium.startswith("image"):
                continue
            group = holder.getparent()
            description = _media_text(holder, "description") or _media_text(group, "description") or shared[0]
            credit = _media_text(holder, "credit") or _media_text(group, "credit") or shared[1]
            if description and description not in seen:
                seen.add(description)
                # A feed declared Latin-1 but written in UTF-8 reads as "Â©": repaired as the body is.
                captions.append(
                    {
                        "text": clean_text(description),
                        "credit": clean_text(credit) if credit else None,
                        "image_url": http_url(holder.get("url")),
                    }
                )
        result.append(captions)
    return result


def _media_text(element: Optional[etree._Element], name: str) -> str:
    if element is None:
        return ""
    found = element.find(f"{{{MEDIA_NS}}}{name}")
    return text_of(found) if found is not None else ""


def _parse_with_namespaces(data: bytes) -> etree._Element:
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
    try:
        root = etree.fromstring(data.lstrip(), parser)
    except etree.XMLSyntaxError as exc:
        raise InputError(str(exc)) from None
    if root is None:
        raise InputError("empty")
    return root
