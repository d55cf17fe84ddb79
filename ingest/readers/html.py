"""HTML news pages: headline, body paragraphs, photo captions and credits, byline, date, source, URL, language.

Read in order of trust: JSON-LD (`NewsArticle`, `Article`... with `@graph`), OpenGraph and `article:` meta
tags, `<time datetime>`, figure/figcaption and caption/credit class names, then the page text. The body
is the main text trafilatura finds once the captions and the page furniture are out of the tree
(htmlbody); a sane JSON-LD `articleBody` stands in when the page text yields much less; when neither is
an article, trafilatura on the whole page, readability-lxml and the largest text block are tried in turn.
The date and the author also take trafilatura's own metadata reading (htmldate on the markup and URL, its
author rules) into account.
"""

from __future__ import annotations

import datetime as dt
import html as _html
import re
import warnings
from typing import Optional
from urllib.parse import urlsplit

import htmldate
from bs4 import BeautifulSoup, XMLParsedAsHTMLWarning
from htmldate.utils import load_html

from .. import dates
from ..credits import caption_from_parts, find_agency
from ..enrich import identify_language
from ..errors import InputError
from ..normalise import clean_text, collapse, split_paragraphs
from ..records import ArticleData, CaptionData
from .htmlbody import (
    join_split_body,
    largest_text_block,
    link_texts,
    main_text,
    prune,
    readable_text,
    text_of_article_body,
    word_count,
    words,
)
from .htmlcaptions import caption_from_text, extract_captions, is_caption_text, same_photo
from .htmlmeta import PageMeta, read_meta
from .htmltitle import choose_headline

# Below this many words of body text a page holds no article (a menu, a gallery, an error page).
MIN_BODY_WORDS = 25
# ... and at least this many of them must be text of its own, not the words of links (a menu, a site map).
MIN_OWN_WORDS = 25
# A reading under this many words gets a second opinion (`read_html`), which wins with this many times the words.
SHORT_READING_WORDS = 150
SECOND_OPINION_RATIO = 3

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
    html = _EARLY_END_TAGS.sub("", clean_text(html[:MAX_HTML_CHARS]))
    soup = _soup(html)
    try:
        page = read_meta(soup)
        captions = extract_captions(soup.body or soup, page.url)
        prune(soup)
        join_split_body(soup)
        cleaned = str(soup)
        links = link_texts(soup)
    except RecursionError:
        raise InputError("the HTML is nested too deeply to read") from None
    del soup
    caption_keys = {_key(c.text) for c in captions}
    try:
        paragraphs = main_text(cleaned)
        paragraphs = _prefer_article_body(paragraphs, page)
        if words(paragraphs) < MIN_BODY_WORDS:
            paragraphs = main_text(cleaned, favor_precision=False) or paragraphs
        if words(paragraphs) < SHORT_READING_WORDS:
            # A short reading may be what the pruning and trafilatura's precision mode left of a page whose
            # text they took for furniture (a cookie notice, teasers of other stories, a share bar kept
            # instead). A second opinion: trafilatura in recall mode on the page as it came. It wins when it
            # finds at least three times the words and they read as an article (not a menu's link texts).
            alternative = [p for p in _whole_page_text(html) if _key(p) not in caption_keys]
            if words(alternative) >= SECOND_OPINION_RATIO * max(words(paragraphs), 1) and _is_article(
                alternative, links
            ):
                paragraphs = alternative
    except RecursionError:
        raise InputError("the HTML is nested too deeply to read") from None
    chosen = choose_headline(page.titles, page.shown, paragraphs, page.source) if page.shown else None
    headline = chosen or page.headline or ""
    paragraphs = _strip_headings(paragraphs, headline, page)
    paragraphs = [p for p in paragraphs if _key(p) not in caption_keys]
    if not _is_article(paragraphs, links):
        paragraphs = _fallback(html, links, keep=lambda p: _key(p) not in caption_keys) or paragraphs
        paragraphs = _strip_headings(paragraphs, headline, page)
        if not _is_article(paragraphs, links):
            raise InputError(_no_article_reason(paragraphs, links))
    if page.image_caption:
        captions = captions + _metadata_caption(
            page.image_caption, (headline, page.title_tag), page.description, paragraphs, captions
        )
    article = ArticleData(headline=headline or _first_sentence(paragraphs), paragraphs=paragraphs, captions=captions)
    tree = _tree(html)
    reading = _trafilatura_metadata(tree, page.url)
    article.published, article.date_inferred = _publication_date(html, tree, page, reading)
    byline = _byline(page, reading)
    article.byline = byline[:500] if byline else None
    if page.source:
        agency = find_agency(page.source)
        article.source = agency.source if agency else page.source[:200]
    article.url = page.url
    article.language = _language(page.language, headline, paragraphs)
    return article


# `</body>` and `</html>` end nothing in a browser (HTML's parsing rules put what follows them back in the
# body), but lxml drops what follows them: a page that pastes a whole ad document into itself would lose
# its story after the ad's end tags.
_EARLY_END_TAGS = re.compile(r"</(?:body|html)\s*>", re.I)


def _is_article(paragraphs: list[str], links: list[str]) -> bool:
    return words(paragraphs) >= MIN_BODY_WORDS and _own_words(paragraphs, links) >= MIN_OWN_WORDS


def _fallback(html: str, links: list[str], keep) -> list[str]:
    """When the pruned page gives no article: trafilatura on the whole page as it came (the pruning may have
    taken the story with a block named like furniture), then readability's choice of block, then the page's
    largest block of running text. The first that reads as an article wins; [] when none does."""
    for extract in (_whole_page_text, readable_text, largest_text_block):
        try:
            candidate = [p for p in extract(html) if keep(p)]
        except RecursionError:
            continue
        if _is_article(candidate, links):
            return candidate
    return []


def _whole_page_text(html: str) -> list[str]:
    return main_text(html, favor_precision=False)


def _tree(html: str):
    try:
        return load_html(html)  # htmldate's loader: unlike lxml's, it reads a page with an XML declaration
    except Exception:  # lxml refusing a page: what needs the tree answers nothing
        return None


def _trafilatura_metadata(tree, url: Optional[str]):
    """trafilatura's own reading of the page's metadata (meta tags, JSON-LD, author markup, htmldate in its
    extensive mode, as trafilatura itself runs it), or None."""
    if tree is None:
        return None
    from trafilatura.metadata import extract_metadata  # noqa: PLC0415 (as main_text: only pages import it)

    try:
        # It reads the tree only (htmldate and the author rules work on copies of it).
        return extract_metadata(tree, default_url=url, extensive=True)
    except Exception:  # trafilatura failing on a page: our own reading stands alone
        return None


def _publication_date(html: str, tree, page: PageMeta, reading) -> tuple[Optional[dt.date | dt.datetime], bool]:
    """The page's publication date and whether it was inferred.

    htmldate reads the markup and the URL (its `original_date` rules prefer the first publication over an
    update), in its extensive mode as trafilatura runs it (every element, and dates written out in words,
    such as a visible `<time>` that says "3 de mayo de 2022" beside a UTC timestamp of the evening before
    in Buenos Aires); on the html-metadata set its day was right more often than the page's JSON-LD and meta
    tags when the two disagreed (21 against 14 of 38 pages), so its day wins, and the metadata's time is
    kept when the days agree. A date that only its search of the page's text found (the markup and a fast
    reading state none) is marked inferred: a date a story mentions is not always its own.
    """
    markup = _day(getattr(reading, "date", None))
    if markup is not None and _copyright_day(markup, html):
        markup = None
    if markup is not None:
        if page.published is not None and page.published.isoformat()[:10] == markup.isoformat():
            return page.published, False
        if page.published is None and _htmldate(tree, page.url, extensive=False) is None:
            return markup, True  # only htmldate's search of the page's text found it
        return markup, False
    if page.published is not None:
        return page.published, False
    if reading is not None:
        return None, False  # trafilatura's reading ran htmldate's extensive search already and found nothing
    found = _htmldate(tree, page.url, extensive=True)
    if found is not None and _copyright_day(found, html):
        found = None
    return found, found is not None


def _copyright_day(day: dt.date, html: str) -> bool:
    """htmldate's last resort: the footer's copyright year as 1 January, not a date of the story."""
    return (day.month, day.day) == (1, 1) and str(day.year) in _copyright_years(html)


def _day(value: Optional[str]) -> Optional[dt.date]:
    parsed = dates.parse_date(value) if value else None
    return parsed.date() if isinstance(parsed, dt.datetime) else parsed


def _byline(page: PageMeta, reading) -> Optional[str]:
    """The page's byline without the site's own name in it ("Rob Picheta, CNN" -> "Rob Picheta"; a byline
    that is only the site's name is none); when the page's own markup names no person, trafilatura's
    reading of the author (its rules for author markup and its blacklist)."""
    sites = {_key(name) for name in (page.source, getattr(reading, "sitename", None)) if name}
    for url in (page.url, getattr(reading, "url", None)):
        host = urlsplit(url).hostname if url else None
        if host:
            host = host.removeprefix("www.")
            sites |= {_key(host), _key(host.rsplit(".", 1)[0])}
    sites.discard("")
    for candidate in (page.byline, getattr(reading, "author", None)):
        if not candidate:
            continue
        candidate = _html.unescape(candidate)
        parts = [p for p in _BYLINE_PARTS.split(candidate) if p.strip()]
        kept = [p for p in parts if _key(p) not in sites]
        if kept:
            return candidate if len(kept) == len(parts) else ", ".join(p.strip() for p in kept)
    return None


_BYLINE_PARTS = re.compile(r"\s*[,;|/]\s*|\s+[-–]\s+")


def _htmldate(tree, url: Optional[str], *, extensive: bool) -> Optional[dt.date]:
    if tree is None:
        return None
    try:
        found = htmldate.find_date(
            tree,
            url=url,
            extensive_search=extensive,
            original_date=True,
            outputformat="%Y-%m-%d",
            max_date=dt.date.today().isoformat(),
        )
    except Exception:  # htmldate on a page it cannot read: no date from it
        return None
    return _day(found)


_COPYRIGHT = re.compile(r"(?:©|&copy;|\(c\)|copyright)[^0-9<]{0,30}(?:(?:19|20)\d\d\s*[-–]\s*)?((?:19|20)\d\d)", re.I)


def _copyright_years(html: str) -> set[str]:
    return set(_COPYRIGHT.findall(html))


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


# A metadata caption shorter than this is a label ("image", "press shot"), not a description.
MIN_METADATA_CAPTION_WORDS = 4


def _metadata_caption(
    found: tuple[str, Optional[str], Optional[str]],
    titles: tuple[Optional[str], ...],
    description: Optional[str],
    paragraphs: list[str],
    shown: list[CaptionData],
) -> list[CaptionData]:
    """The lead photo's caption from the page's metadata, when the page does not show it: a description of
    four words or more that is not the headline, the page's own description or title (a site's sharing text
    set as every picture's `og:image:alt`), the article's opening or a caption already found."""
    text, credit, address = found
    text = clean_text(text).strip()
    if len(text.split()) < MIN_METADATA_CAPTION_WORDS:
        return []
    key = _key(text)
    if any(key == _key(t) for t in titles if t) or _same_text(key, _key(description or "")):
        return []
    if any(_key(p).startswith(key) for p in paragraphs[:2]):
        return []
    caption = caption_from_parts(text, credit) if credit else caption_from_text(text)
    # the caption's own words, without a credit and a press photo's terms of use after it
    words = set(key.split()) & set(_key(caption.text).split()) or set(key.split())
    if any(len(words & set(_key(c.text).split())) >= len(words) / 2 for c in shown):
        return []
    if shown and (not address or any(c.image_url and same_photo(address, c.image_url) for c in shown)):
        return []  # the page shows this photo's caption (worded for sharing here), or may
    if not is_caption_text(caption.text):
        return []
    caption.image_url = address
    return [caption]


def _same_text(a: str, b: str) -> bool:
    """One text is the other, or begins it (a description cut short for sharing)."""
    return bool(a and b) and (a == b or a.startswith(b) or b.startswith(a))


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
