"""HTML news pages: headline, body paragraphs, photo captions and credits, byline, date, source, URL, language.

Read in order of trust: JSON-LD (`NewsArticle`, `Article`... with `@graph`), OpenGraph and `article:` meta
tags, `<time datetime>`, figure/figcaption and caption/credit class names, then the page text. The body
is the main text trafilatura finds once the captions and the page furniture are out of the tree
(htmlbody); a sane JSON-LD `articleBody` stands in when the page text yields much less.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup

from ..credits import find_agency
from ..normalise import clean_text, collapse
from ..records import ArticleData, CaptionData, InputError
from .htmlbody import main_text, prune, text_of_article_body, word_count, words
from .htmlcaptions import extract_captions
from .htmlmeta import PageMeta, read_meta

# Below this many words of body text a page holds no article (a menu, a gallery, an error page).
MIN_BODY_WORDS = 25
# ... and at least one paragraph must read as prose (this many words and a sentence end), not as a row of links.
MIN_PROSE_PARAGRAPH_WORDS = 10
# JSON-LD articleBody replaces the extracted text when the extraction has less than this share of its words.
ARTICLE_BODY_RATIO = 0.6
# Pages larger than this are cut before parsing (no news article is anywhere near it).
MAX_HTML_CHARS = 8_000_000


def _soup(html: str) -> BeautifulSoup:
    try:
        return BeautifulSoup(html, "lxml")
    except RecursionError:
        raise InputError("the HTML is nested too deeply to read")


def fragment_paragraphs(html: str) -> tuple[list[str], list[CaptionData]]:
    """Paragraphs and figure captions of an HTML fragment (a JSON record's `body_html`)."""
    soup = _soup(html)
    captions = extract_captions(soup)
    for tag in soup.find_all(["script", "style", "noscript", "template"]):
        tag.decompose()
    paragraphs = [t for t in (collapse(p.get_text(" ")) for p in soup.find_all("p")) if t]
    if not paragraphs:
        from ..normalise import split_paragraphs

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
        cleaned = str(soup)
    except RecursionError:
        raise InputError("the HTML is nested too deeply to read")
    del soup
    paragraphs = main_text(cleaned)
    paragraphs = _prefer_article_body(paragraphs, page)
    if words(paragraphs) < MIN_BODY_WORDS:
        paragraphs = main_text(cleaned, favor_precision=False) or paragraphs
    headline = page.headline or ""
    paragraphs = _strip_headings(paragraphs, headline, page)
    caption_keys = {_key(c.text) for c in captions}
    paragraphs = [p for p in paragraphs if _key(p) not in caption_keys]
    if words(paragraphs) < MIN_BODY_WORDS or not any(_is_prose(p) for p in paragraphs):
        raise InputError(_no_article_reason(paragraphs))
    article = ArticleData(headline=headline or _first_sentence(paragraphs), paragraphs=paragraphs, captions=captions)
    article.published = page.published
    article.byline = page.byline[:500] if page.byline else None
    if page.source:
        agency = find_agency(page.source)
        article.source = agency.source if agency else page.source[:200]
    article.url = page.url
    article.language = page.language
    return article


# A sentence end: . ! ? (and the CJK full stops) followed by a space, a quote or the end of the text.
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f\u061f\u0964](?:[\"'\u201d\u2019)\]]*)(?:\s|$)")


def _is_prose(paragraph: str) -> bool:
    """A paragraph that reads as running text: long enough and holding a sentence end (a row of menu links
    or a list of section names has neither)."""
    return word_count(paragraph) >= MIN_PROSE_PARAGRAPH_WORDS and _SENTENCE_END.search(paragraph) is not None


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


def _no_article_reason(paragraphs: list[str]) -> str:
    n = words(paragraphs)
    if n == 0:
        return "no article text found in the HTML page"
    return f"no article text found in the HTML page (only {n} words of text outside navigation and page furniture)"
