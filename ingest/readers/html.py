"""HTML news pages: metadata from JSON-LD and meta tags, body paragraphs, figure captions and credits."""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Optional

from bs4 import BeautifulSoup, Tag

from .. import dates
from ..credits import caption_from_parts, find_agency, is_credit, split_caption
from ..normalise import clean_text, collapse
from ..records import ArticleData, CaptionData, InputError

ARTICLE_TYPES = {"newsarticle", "article", "reportagenewsarticle", "analysisnewsarticle", "blogposting",
                 "opinionnewsarticle", "backgroundnewsarticle", "reviewnewsarticle", "liveblogposting", "report"}
MIN_WORDS_WITHOUT_HEADLINE = 20
_DROP_TAGS = ("script", "style", "noscript", "template", "svg", "iframe", "form", "button", "select", "input", "nav",
              "footer", "aside", "header")
_CREDIT_CLASS = re.compile(r"credit|copyright|byline|photographer|source|attribution", re.I)
_CAPTION_CLASS = re.compile(r"caption", re.I)


def _soup(html: str) -> BeautifulSoup:
    try:
        return BeautifulSoup(html, "lxml")
    except RecursionError:
        raise InputError("the HTML is nested too deeply to read")


def fragment_paragraphs(html: str) -> tuple[list[str], list[CaptionData]]:
    """Paragraphs and figure captions of an HTML fragment (a JSON record's `body_html`)."""
    soup = _soup(html)
    captions = _figure_captions(soup)
    return _paragraphs(soup), captions


def read_html(html: str) -> ArticleData:
    """Read an article page: headline, body, captions, byline, date, source, URL and language."""
    soup = _soup(clean_text(html))
    ld = _json_ld_article(soup)
    meta = _meta(soup)
    headline = collapse(_str(ld.get("headline")) or meta.get("og:title") or meta.get("twitter:title") or "")
    h1 = soup.find("h1")
    if h1 is not None and not headline:
        headline = collapse(h1.get_text(" "))
    if not headline and soup.title is not None:
        headline = collapse(soup.title.get_text(" "))
    captions = _figure_captions(soup)
    body_root = soup.find("article") or soup.body or soup
    paragraphs = _paragraphs(body_root)
    if len(" ".join(paragraphs)) < 200 and body_root is not soup:
        paragraphs = _paragraphs(soup)
    article_body = _str(ld.get("articleBody"))
    if article_body and len(article_body) > 1.2 * len(" ".join(paragraphs)):
        from ..normalise import split_paragraphs

        paragraphs = split_paragraphs(clean_text(article_body))
    caption_texts = {c.text for c in captions}
    paragraphs = [p for p in paragraphs if p not in caption_texts and collapse(p) != headline]
    words = sum(len(p.split()) for p in paragraphs)
    if not paragraphs or (not headline and words < MIN_WORDS_WITHOUT_HEADLINE):
        raise InputError("no article text found in the HTML page")
    article = ArticleData(headline=headline, paragraphs=paragraphs, captions=captions)
    published = dates.parse_date(_str(ld.get("datePublished")) or meta.get("article:published_time")
                                 or meta.get("og:published_time") or meta.get("pubdate") or meta.get("date")
                                 or meta.get("dc.date") or meta.get("publish-date") or _time_datetime(soup))
    article.published = published
    author = ld.get("author") or meta.get("author") or meta.get("article:author")
    article.byline = _person_names(author)
    publisher = ld.get("publisher")
    source = (_str(publisher.get("name")) if isinstance(publisher, dict) else _str(publisher)) or meta.get("og:site_name")
    if source:
        agency = find_agency(source)
        article.source = agency.source if agency else collapse(source)[:200]
    url = _canonical(soup) or meta.get("og:url") or _str(ld.get("url"))
    if url and url.startswith(("http://", "https://")):
        article.url = url
    lang = (soup.html.get("lang") if soup.html is not None else None) or _str(ld.get("inLanguage")) or meta.get("og:locale")
    if isinstance(lang, str) and 2 <= len(lang) <= 16:
        article.language = lang.split("-")[0].split("_")[0].lower()
    return article


def _str(value: Any) -> Optional[str]:
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, list) and value:
        return _str(value[0])
    if isinstance(value, dict):
        return _str(value.get("name") or value.get("@value"))
    return None


def _json_ld_article(soup: BeautifulSoup) -> dict:
    for script in soup.find_all("script", attrs={"type": re.compile(r"ld\+json", re.I)}):
        try:
            data = json.loads(script.string or script.get_text() or "")
        except (ValueError, RecursionError):
            continue
        for obj in _walk_ld(data):
            types = obj.get("@type")
            types = types if isinstance(types, list) else [types]
            if any(isinstance(t, str) and t.lower() in ARTICLE_TYPES for t in types):
                return obj
    return {}


def _walk_ld(data: Any, depth: int = 0) -> Iterable[dict]:
    if depth > 5:
        return
    if isinstance(data, list):
        for item in data:
            yield from _walk_ld(item, depth + 1)
    elif isinstance(data, dict):
        yield data
        if "@graph" in data:
            yield from _walk_ld(data["@graph"], depth + 1)
        if isinstance(data.get("mainEntity"), dict):
            yield from _walk_ld(data["mainEntity"], depth + 1)


def _meta(soup: BeautifulSoup) -> dict[str, str]:
    found: dict[str, str] = {}
    for tag in soup.find_all("meta"):
        key = tag.get("property") or tag.get("name") or tag.get("itemprop")
        content = tag.get("content")
        if isinstance(key, str) and isinstance(content, str) and content.strip():
            found.setdefault(key.strip().lower(), content.strip())
    return found


def _time_datetime(soup: BeautifulSoup) -> Optional[str]:
    tag = soup.find("time", attrs={"datetime": True})
    return tag.get("datetime") if tag is not None else None


def _canonical(soup: BeautifulSoup) -> Optional[str]:
    link = soup.find("link", rel=lambda r: r and "canonical" in r)
    href = link.get("href") if link is not None else None
    return href.strip() if isinstance(href, str) else None


def _person_names(value: Any) -> Optional[str]:
    if isinstance(value, list):
        names = [n for n in (_person_names(v) for v in value) if n]
        return ", ".join(dict.fromkeys(names)) or None
    if isinstance(value, dict):
        return _str(value.get("name"))
    if isinstance(value, str) and value.strip() and not value.startswith("http"):
        text = collapse(value)
        return text[3:] if text.lower().startswith("by ") else text
    return None


def _figure_captions(soup: BeautifulSoup | Tag) -> list[CaptionData]:
    captions: list[CaptionData] = []
    for node in soup.find_all(["figcaption"]) + soup.find_all(class_=_CAPTION_CLASS):
        if not isinstance(node, Tag) or node.find_parent("figcaption") is not None:
            continue
        if node.name != "figcaption" and node.find_parent(class_=_CAPTION_CLASS) is not None:
            continue
        credit_nodes = [n for n in node.find_all(class_=_CREDIT_CLASS)]
        credit = collapse(" ".join(n.get_text(" ") for n in credit_nodes)) or None
        for n in credit_nodes:
            n.extract()
        text = collapse(node.get_text(" "))
        if credit is None:
            split = split_caption(text)
            if split:
                text, credit = split[0], split[1]
        if credit and not is_credit(credit) and len(credit) > 100:
            credit = None
        if text or credit:
            caption = caption_from_parts(text, credit)
            if caption.text and all(c.text != caption.text for c in captions):
                captions.append(caption)
        node.decompose()
    return captions


def _paragraphs(root: BeautifulSoup | Tag) -> list[str]:
    for tag in root.find_all(_DROP_TAGS):
        tag.decompose()
    paragraphs = []
    for p in root.find_all("p"):
        text = collapse(p.get_text(" "))
        if text:
            paragraphs.append(text)
    if not paragraphs:
        text = root.get_text("\n")
        from ..normalise import split_paragraphs

        paragraphs = split_paragraphs(text)
    return paragraphs
