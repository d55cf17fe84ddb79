"""The article's own headline, chosen by agreement between what the page says about itself and what it shows.

A page names its article in several places: the JSON-LD `headline`, `og:title` and `twitter:title`, other
title meta tags, the browser `<title>` (usually with the site's name: "Bridge to close | The Harbour
Times", "Forbes.com: ...", "FOXNews.com - ... - U.S. & World"), and the headings it shows (`<h1>`, elements
marked `itemprop="headline"` or named "headline", "entry-title"...). No single one is right everywhere:
meta tags can hold a site-wide title ("Financial News - Business News"), the `<title>` a short version
of the headline, the first `<h1>` the site's logo or a section label.

The rule, with no site-specific knowledge:
1. A heading the page shows that agrees with a metadata title (token-F1 0.8 with a whole title; else with a
   part of one of two or more words, "Headline | Site") is the headline, as the page shows it; of several,
   the one nearest before the article's first paragraph. A kicker run into it comes off when the most
   trusted title is the heading's end. A heading holding a whole title (with a date line after it) gives
   that title.
2. Else the `<h1>` (or heading marked as the headline) nearest before the article's first paragraph, of
   three or more words and not a link (another story's teaser): the metadata disagrees only because it
   holds a shorter or site-wide title. Where the article's place is unknown, a heading marked as the
   headline.
3. Else the metadata: a part two titles agree on ("Wilma Churns Waves Into Cuba" in `og:title` and in
   "FOXNews.com - Wilma Churns Waves Into Cuba - U.S. & World"), or one the article's text opens with. A
   page with only a browser title: its first `<h1>` of three or more words, else the title's longest part
   without the site's name or domain. Else None, and the reader takes the most trusted metadata title
   without the site's name (htmlmeta).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Optional

from bs4 import BeautifulSoup, Comment, NavigableString, Tag

from ..normalise import collapse
from .htmlnames import in_furniture, name_words

# A heading shown on the page agrees with a metadata title at this token-F1 or more.
AGREE_F1 = 0.8
# A heading this many characters of page text or fewer before the article's first paragraph is "above" it
# (room for a standfirst, a byline, a date line, a lead photo's caption).
ABOVE_BODY_CHARS = 3000
MIN_LEAD_WORDS = 3
MAX_HEADLINE_WORDS = 40
MAX_CANDIDATES = 400
HEADLINE_NAMES = {"headline", "hed", "headline1", "entrytitle", "storytitle", "articletitle", "posttitle"}
_TITLE_NAMES = {"title", "heading"}
_STORY_NAMES = {"entry", "story", "article", "post", "news"}
_SKIP = ("script", "style", "noscript", "template", "svg")
# Separators between a title's parts: "Headline | Site", "Site - Headline - Section", "Site.com: Headline".
_SEPARATOR = re.compile(r"\s+[|\-–—·•»:]+\s+|\s*\|\s*|\s+::\s+")
_DOMAIN_PREFIX = re.compile(
    r"^([\w-]+(?:\.[\w-]+)*\.(?:com|net|org|co\.uk|de|fr|it|es|ru|in|au|ca|info|tv))\s*[:|\-–]\s+", re.I
)
_DOMAIN = re.compile(r"^(?:www\.)?[\w-]+(?:\.[\w-]+)*\.[a-z]{2,6}$", re.I)


@dataclass
class Heading:
    text: str
    strong: bool  # an <h1>, or marked as the headline
    marked: bool  # marked as the headline (itemprop, or a class or id name)
    link: bool  # a link (another story's teaser) or inside one
    start: int  # where its text starts in the page's text (PageText)
    end: int


@dataclass
class PageText:
    """The page's visible text, collapsed and joined, and the headings in it."""

    text: str
    headings: list[Heading]

    def above(self, paragraphs: list[str]) -> list[Heading]:
        """The headings that end at most ABOVE_BODY_CHARS before the article's first paragraph (the first one
        found in the page's text that has a heading above it: a reading may start with the headline)."""
        for paragraph in paragraphs[:6]:
            probe = collapse(paragraph)[:60]
            if len(probe) < 30:
                continue
            at = self.text.find(probe)
            if at >= 0:
                found = [h for h in self.headings if 0 <= at - h.end <= ABOVE_BODY_CHARS]
                if found:
                    return found
        return []


def _tokens(text: Optional[str]) -> list[str]:
    return re.findall(r"\w+", (text or "").casefold())


def token_f1(a: Optional[str], b: Optional[str]) -> float:
    ta, tb = _tokens(a), _tokens(b)
    if not ta or not tb:
        return 0.0
    common = sum((Counter(ta) & Counter(tb)).values())
    if not common:
        return 0.0
    p, r = common / len(ta), common / len(tb)
    return 2 * p * r / (p + r)


def _key(text: str) -> str:
    return re.sub(r"\W+", "", text).casefold()


def title_parts(text: str, site: Optional[str] = None) -> list[str]:
    """The title and each of its separated parts that could be a headline (not the site's name or domain)."""
    text = collapse(text)
    m = _DOMAIN_PREFIX.match(text)
    if m:
        text = text[m.end() :]
    parts = [p.strip() for p in _SEPARATOR.split(text) if p.strip()]
    site_key = _key(site) if site else None
    kept = [p for p in parts if not _DOMAIN.match(p) and _key(p) != site_key]
    return list(dict.fromkeys([text, *kept] if len(parts) > 1 else [text]))


def page_text(soup: BeautifulSoup) -> PageText:
    """One walk over the page: its visible text and, with their places in it, the headings that could be its
    headline."""
    pieces: list[str] = []
    size = 0
    found: list[Heading] = []
    pending: list[tuple[Tag, int]] = []
    for node in soup.descendants:
        if isinstance(node, Tag):
            if node.name in _SKIP:
                continue
            if len(found) + len(pending) < MAX_CANDIDATES and _is_heading(node):
                pending.append((node, size))
            continue
        if isinstance(node, Comment) or not isinstance(node, NavigableString):
            continue
        if node.parent is not None and (node.parent.name in _SKIP or node.parent.name in ("title", "head")):
            continue
        piece = collapse(str(node))
        if piece:
            pieces.append(piece)
            size += len(piece) + 1
    for tag, start in pending:
        text = collapse(tag.get_text(" "))
        if not 1 <= len(text.split()) <= MAX_HEADLINE_WORDS:
            continue
        links = " ".join(collapse(a.get_text(" ")) for a in tag.find_all("a"))
        link = tag.name == "a" or tag.find_parent("a") is not None or bool(links) and _key(links) == _key(text)
        marked = _marked(tag) and not in_furniture(tag)
        found.append(Heading(text, tag.name == "h1" or marked, marked, link, start, start + len(text)))
    return PageText(" ".join(pieces), found)


def _marked(tag: Tag) -> bool:
    itemprop = tag.get("itemprop")
    if isinstance(itemprop, str) and "headline" in itemprop.lower().split():
        return True
    words = name_words(tag)
    joined = set(words) | {"".join(sorted(words))}
    return bool(HEADLINE_NAMES & joined) or (
        tag.name in ("h1", "h2", "h3") and bool(_TITLE_NAMES & words) and bool(_STORY_NAMES & words)
    )


_NAMING_ATTRS = ("class", "id", "itemprop")


def _is_heading(tag: Tag) -> bool:
    if tag.name in ("h1", "h2"):
        return True
    attrs = tag.attrs
    if not attrs or not any(a in attrs for a in _NAMING_ATTRS):
        return False  # (most tags: checked first, this walk visits every one)
    if tag.name in ("html", "body", "head", "title", "meta", "main", "article", "section", "script"):
        return False
    return _marked(tag)


def choose_headline(
    metas: Iterable[tuple[str, Optional[str]]], shown: PageText, paragraphs: list[str], site: Optional[str]
) -> Optional[str]:
    """The headline from the page's metadata titles (where, text) in order of trust, the headings it shows,
    and the article's paragraphs as read."""
    titles = [(where, collapse(text)) for where, text in metas if text and collapse(text)]
    site_key = _key(site) if site else None
    parts = [title_parts(text, site) for _, text in titles]
    every_part = [part for options in parts for part in options]
    usable = [h for h in shown.headings if not h.link and _key(h.text) != site_key]
    above = [h for h in shown.above(paragraphs) if h in usable]

    def nearest(found: list[Heading]) -> Heading:
        near = [h for h in found if h in above]
        return near[-1] if near else found[0]

    # 1. A heading agreeing with a metadata title; or holding one whole after a kicker or before a date line.
    # Agreeing with a whole title first; with a part of one ("Headline | Site") only if none does, and never
    # with a one-word part (a section's name: "Firefox" in "Firefox – Weniger Werbung, mehr Speed").
    wholes = [options[0] for options in parts]
    pieces = [p for p in every_part if len(p.split()) >= 2]
    agreeing = [h for h in usable if max((token_f1(h.text, p) for p in wholes), default=0.0) >= AGREE_F1] or [
        h for h in usable if max((token_f1(h.text, p) for p in pieces), default=0.0) >= AGREE_F1
    ]
    if agreeing:
        chosen = nearest(agreeing)
        # A kicker run into the heading ("Harbour Council votes..."): the most trusted title that is either the
        # whole heading or its end decides ("Bridge to close – at last" stays whole when a title says so).
        shown_words = _folded(chosen.text)
        for options in parts:
            if any(_folded(p) == shown_words for p in options):
                return chosen.text
            ends = [p for p in options if len(p.split()) >= MIN_LEAD_WORDS and shown_words.endswith(" " + _folded(p))]
            if ends:
                return ends[0]
        return chosen.text
    holding = {}
    for h in usable:
        inside = [p for p in every_part if len(p.split()) >= MIN_LEAD_WORDS and _folded(p) in _folded(h.text)]
        if inside:
            holding[id(h)] = max(inside, key=len)
    if holding:
        return holding[id(nearest([h for h in usable if id(h) in holding]))]
    # 2. The strong heading just above the article.
    lead = [h for h in above if h.strong and len(h.text.split()) >= MIN_LEAD_WORDS]
    if lead:
        return lead[-1].text
    if not above:
        # The article's place is unknown: a heading marked as the headline, by itemprop or class name.
        marked = [h for h in usable if h.marked and len(h.text.split()) >= MIN_LEAD_WORDS]
        if marked:
            return marked[0].text
    if not titles:
        return None
    # 3. The metadata: a part two titles agree on, or a part the article's text starts with; else None, and
    # the reader takes the most trusted title without the site's name (htmlmeta).
    for options in parts:
        for part in options[1:]:
            if sum(any(token_f1(part, other) >= AGREE_F1 for other in others) for others in parts) > 1:
                return part
    opening = [collapse(p) for p in paragraphs[:3]]
    scored = [(max((token_f1(part, text) for text in opening), default=0.0), part) for part in every_part]
    best_score, best_part = max(scored, default=(0.0, None))
    if best_score >= AGREE_F1:
        return best_part
    if all(where == "title" for where, _ in titles):
        # Only the browser title: the page's first <h1> that is not a link or a one- or two-word label
        # ("News", "Quicklinks"), else the title's longest part ("Site » Blog Archive » Headline") without
        # the site's name or domain ("Forbes.com: ...").
        h1 = next((h for h in usable if h.strong and not h.marked), None)
        if h1 is not None and len(h1.text.split()) >= MIN_LEAD_WORDS:
            return h1.text
        options = parts[0]
        if len(options) > 1:
            return max(options[1:], key=lambda p: len(p.split()))
        return h1.text if h1 is not None else options[0]
    return None


def _folded(text: str) -> str:
    return " ".join(_tokens(text))
