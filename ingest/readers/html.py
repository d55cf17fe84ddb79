"""HTML news pages: headline, body paragraphs, photo captions and credits, byline, date, source, URL, language.

Read in order of trust: JSON-LD (`NewsArticle`, `Article`... with `@graph`), OpenGraph and `article:` meta
tags, `<time datetime>`, figure/figcaption and caption/credit class names, then the page text. The body
is the main text trafilatura finds once the captions and the page furniture are out of the tree
(htmlbody); a sane JSON-LD `articleBody` stands in when the page text yields much less.
"""

from __future__ import annotations

import re
import warnings
from typing import Optional

import htmldate
import lxml.html
from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning

from .. import dates
from ..credits import find_agency
from ..errors import InputError
from ..extract import identify_language
from ..normalise import clean_text, collapse, split_paragraphs
from ..records import ArticleData, CaptionData
from .htmlbody import (
    join_split_body,
    largest_text_block,
    link_texts,
    main_text,
    prune,
    text_of_article_body,
    word_count,
    words,
)
from .htmlcaptions import extract_captions
from .htmlmeta import PageMeta, read_meta

# Below this many words of body text a page holds no article (a menu, a gallery, an error page).
MIN_BODY_WORDS = 25
# ... and at least this many of them must be text of its own, not the words of links (a menu, a site map).
MIN_OWN_WORDS = 25
# JSON-LD articleBody replaces the extracted text when the extraction has less than this share of its words.
ARTICLE_BODY_RATIO = 0.6
# Pages larger than this are cut before parsing (no news article is anywhere near it).
MAX_HTML_CHARS = 8_000_000


def _soup(html: str) -> BeautifulSoup:
    try:
        with warnings.catch_warnings():
            # An XHTML page (or XML with HTML in it) is read as HTML on purpose: the warning says nothing new.
            warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
            return BeautifulSoup(html, "lxml")
    except RecursionError:
        raise InputError("the HTML is nested too deeply to read") from None


def fragment_paragraphs(html: str) -> tuple[list[str], list[CaptionData]]:
    """Paragraphs and figure captions of an HTML fragment (a JSON record's `body_html`)."""
    soup = _soup(html)
    captions = extract_captions(soup)
    for tag in soup.find_all(["script", "style", "noscript", "template"]):
        tag.decompose()
    paragraphs = [t for t in (collapse(p.get_text(" ")) for p in soup.find_all("p")) if t]
    if not paragraphs:
        paragraphs = split_paragraphs(soup.get_text("\n"))
    return paragraphs, captions


def read_html(html: str) -> ArticleData:
    """Read an article page: headline, body, captions, byline, date, source, URL and language."""
    html = clean_text(html[:MAX_HTML_CHARS])
    soup = _soup(html)
    try:
        page = read_meta(soup)
        captions = extract_captions(soup.body or soup)
        prune(soup)
        join_split_body(soup)
        cleaned = str(soup)
        links = link_texts(soup)
    except RecursionError:
        raise InputError("the HTML is nested too deeply to read") from None
    del soup
    try:
        paragraphs = main_text(cleaned)
        paragraphs = _prefer_article_body(paragraphs, page)
        if words(paragraphs) < MIN_BODY_WORDS:
            paragraphs = main_text(cleaned, favor_precision=False) or paragraphs
    except RecursionError:
        raise InputError("the HTML is nested too deeply to read") from None
    headline = page.headline or ""
    paragraphs = _strip_headings(paragraphs, headline, page)
    caption_keys = {_key(c.text) for c in captions}
    paragraphs = [p for p in paragraphs if _key(p) not in caption_keys]
    if words(paragraphs) < MIN_BODY_WORDS or _own_words(paragraphs, links) < MIN_OWN_WORDS:
        # The last resort: the page's largest block of running text, when it is long enough to be a story.
        try:
            fallback = [p for p in largest_text_block(html) if _key(p) not in caption_keys]
        except RecursionError:
            fallback = []
        fallback = _strip_headings(fallback, headline, page)
        if words(fallback) < MIN_BODY_WORDS or _own_words(fallback, links) < MIN_OWN_WORDS:
            raise InputError(_no_article_reason(paragraphs, links))
        paragraphs = fallback
    article = ArticleData(headline=headline or _first_sentence(paragraphs), paragraphs=paragraphs, captions=captions)
    article.published = page.published or _date_from_markup(html, page.url)
    article.byline = page.byline[:500] if page.byline else None
    if page.source:
        agency = find_agency(page.source)
        article.source = agency.source if agency else page.source[:200]
    article.url = page.url
    article.language = _language(page.language, headline, paragraphs)
    return article


def _date_from_markup(html: str, url: Optional[str]):
    """The publication date htmldate finds in the page's markup or URL (no text search: a date the story
    mentions is not its own), for pages whose metadata states none."""

    try:
        tree = lxml.html.fromstring(html)
        found = htmldate.find_date(tree, url=url, extensive_search=False, original_date=True, outputformat="%Y-%m-%d")
    except Exception:  # htmldate on a page it cannot read; the date stays unknown (enrich may infer one)
        return None
    return dates.parse_date(found) if found else None


# The declared language gives way to the text's only on this much text and when detection is this sure.
LANGUAGE_CHECK_WORDS = 50
LANGUAGE_OVERRIDE_CONFIDENCE = 0.95


def _language(declared: Optional[str], headline: str, paragraphs: list[str]) -> Optional[str]:
    """The language the page declares, unless its text is plainly in another one (a site template's default
    `<html lang="en">` over a German post); None leaves detection to `enrich`."""
    if declared is None:
        return None
    text = headline + "\n" + "\n".join(paragraphs)
    if word_count(text) < LANGUAGE_CHECK_WORDS:
        return declared
    detected, confidence = identify_language(text, max_chars=5000)
    if detected and detected != declared and confidence >= LANGUAGE_OVERRIDE_CONFIDENCE:
        return detected
    return declared


def _own_words(paragraphs: list[str], links: list[str]) -> int:
    """Words of the body once the texts of the page's links are taken out of it."""
    text = "\n".join(paragraphs)
    for link in links:
        if link in text:
            text = text.replace(link, " ")
    return word_count(text)


def _prefer_article_body(paragraphs: list[str], page: PageMeta) -> list[str]:
    """The JSON-LD articleBody when it is sane (real prose, not a teaser cut short) and the page text gave
    much less of it; the extracted paragraphs otherwise."""
    if not page.article_body:
        return paragraphs
    candidate = text_of_article_body(clean_text(page.article_body))
    n = words(candidate)
    if n < MIN_BODY_WORDS or re.search(r"(?:\.\.\.|…|\[\.\.\.\])\s*$", candidate[-1] if candidate else ""):
        return paragraphs
    if words(paragraphs) < ARTICLE_BODY_RATIO * n:
        return candidate
    return paragraphs


def _strip_headings(paragraphs: list[str], headline: str, page: PageMeta) -> list[str]:
    """Drop the headline (and a title repeated above the story) from the top of the body."""
    titles = {_key(t) for t in (headline, page.h1, page.title_tag) if t}
    out = list(paragraphs)
    while out and _key(out[0]) in titles:
        out.pop(0)
    return [p for p in out if _key(p) not in titles or word_count(p) > 30]


def _key(text: str) -> str:
    return re.sub(r"\W+", " ", text).strip().casefold()


def _first_sentence(paragraphs: list[str]) -> str:
    first = paragraphs[0]
    m = re.match(r"(.{20,200}?[.!?])\s", first)
    return m.group(1) if m else first[:200]


def _no_article_reason(paragraphs: list[str], links: list[str]) -> str:
    n = words(paragraphs)
    if n == 0:
        return "no article text found in the HTML page"
    if n >= MIN_BODY_WORDS:
        return (
            f"no article text found in the HTML page (its {n} words of main text are the texts of links: "
            "a menu or an index page)"
        )
    return f"no article text found in the HTML page (only {n} words of text outside navigation and page furniture)"
