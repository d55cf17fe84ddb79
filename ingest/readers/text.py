"""Plain text in the seed's layout: a headline line, then paragraphs separated by blank lines, captions among them."""

from __future__ import annotations

import re
from typing import Optional

from .. import dates
from ..credits import caption_from_parts, split_caption
from ..errors import InputError
from ..normalise import clean_text, collapse, split_paragraphs
from ..records import ArticleData

MAX_HEADLINE_CHARS = 300
_NAME = r"[A-Z][\w.'’-]*(?:\s+(?:[A-Z][\w.'’-]*|de|van|von|der|da|al|bin))*"
# "By Jane Doe", "BY JANE DOE and JOHN ROE", "By Jane Doe, Associated Press": capitalised names only.
_BYLINE = re.compile(r"^(?:By|BY|by)\s+(?P<name>" + _NAME + r"(?:(?:\s*,\s*|\s+and\s+|\s*&\s*)" + _NAME + r")*)$")
_LABELLED_DATE = re.compile(
    r"^(?:published|posted|updated|date|dated|first published)\s*(?:on|:)?\s*(?P<date>.{6,60})$", re.I
)


def read_text(text: str) -> ArticleData:
    """Split plain text into headline, body paragraphs and captions; header lines give byline and date."""
    text = clean_text(text)
    lines = text.split("\n")
    index = next((i for i, line in enumerate(lines) if line.strip()), None)
    if index is None:
        raise InputError("the file is empty (no text)")
    headline = collapse(lines[index])
    rest = "\n".join(lines[index + 1 :])
    if len(headline) > MAX_HEADLINE_CHARS:
        # One long first line is a paragraph, not a headline: take its first sentence as the headline.
        rest = lines[index] + "\n\n" + rest
        headline = _first_sentence(headline)
    byline, published, rest = _header(rest)
    article = ArticleData(headline=headline, paragraphs=[], byline=byline, published=published)
    for paragraph in split_paragraphs(rest):
        caption = split_caption(paragraph)
        if caption is None:
            article.paragraphs.append(paragraph)
            continue
        caption_text, credit, source = caption
        article.captions.append(caption_from_parts(caption_text, credit))
        if source:
            article.source_hints.append(source)
    if not article.paragraphs and not article.captions:
        raise InputError("the file has a headline but no body text")
    return article


def _first_sentence(text: str) -> str:
    m = re.match(r"(.{20,200}?[.!?])(?:\s|$)", text)
    return m.group(1) if m else text[:200].rsplit(" ", 1)[0] + "…"


def _header(rest: str) -> tuple[Optional[str], Optional[object], str]:
    """Byline and date lines just under the headline ("By Jane Doe", "Published: 30 January 2015")."""
    byline = None
    published = None
    lines = rest.split("\n")
    consumed = 0
    for i, line in enumerate(lines[:8]):
        stripped = collapse(line)
        if not stripped:
            consumed = i + 1
            continue
        if len(stripped) > 120:
            break
        m = _BYLINE.match(stripped)
        if m and byline is None and not stripped.endswith("."):
            byline = m.group("name").strip(" ,")
            consumed = i + 1
            continue
        m = _LABELLED_DATE.match(stripped)
        value = dates.parse_date(m.group("date")) if m else dates.parse_date(stripped) if len(stripped) <= 40 else None
        if value is not None and published is None:
            published = value
            consumed = i + 1
            continue
        break
    if consumed:
        rest = "\n".join(lines[consumed:])
    return byline, published, rest
