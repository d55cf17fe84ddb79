"""The index's shape: the Whoosh schema and `IndexDocument`, the one record that becomes a Whoosh document.

This module alone knows the field names, the facet separator and how dates are encoded in the index.
Field weights are applied when a query is built (search/parse.py), not here, so they can be tuned
without rebuilding the index.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Optional
from urllib.parse import urlsplit

from whoosh import analysis, columns, formats
from whoosh.fields import COLUMN, ID, KEYWORD, NUMERIC, TEXT, Schema

from .analysis import NAMES, ArchiveAnalyzer, FastPositions, NameAnalyzer, VariantAnalyzer, mark
from .languages import analysis_key

# Bumped whenever the schema or the way documents are written changes: an index built under another
# version is rebuilt from SQL by the next `newsarchive ingest` or `newsarchive reindex`. An index of a
# version in READABLE_VERSIONS keeps answering meanwhile (with a notice), by the rules it was built with.
SCHEMA_VERSION = 6
READABLE_VERSIONS = (5, 6)

# Facet values are joined with this separator inside one field value, so a value may hold commas.
FACET_SEPARATOR = "\x1f"
FACETS = ("source", "credit", "place", "year", "byline", "dateline", "language", "story")
# Facets read from a numeric column rather than a facet field: the story (one value per article).
COLUMN_FACETS = ("story",)
# Bare words search these fields, all with the same analysis (so a stop word is dropped from every one),
# and the byline (names: folded and lower-cased only).
DEFAULT_FIELDS = ("headline", "body", "caption", "credit")
NAME_FIELDS = ("source", "place", "byline", "dateline")
# Fields a query can name (`caption:refugee`); the last four keep stop words, for exact names.
TEXT_FIELDS = ("headline", "body", "caption", "credit", "source", "place", "byline", "dateline")
MISSING_TS = 2**63 - 1  # the date column's value for an undated article (sorts last)
MISSING_DAY = 0  # the day column's value for an undated article
_EPOCH = dt.datetime(1970, 1, 1)


def stemming_analyzer() -> ArchiveAnalyzer:
    """Each article's words by its language's rules (stop words, folding, stemming): every default field."""
    return ArchiveAnalyzer(stemming=True)


def plain_analyzer() -> ArchiveAnalyzer:
    """Words folded and lower-cased, nothing dropped or stemmed: names (sources, places, bylines, datelines)."""
    return ArchiveAnalyzer(stemming=False)


def _facet_field() -> KEYWORD:
    facet = KEYWORD(stored=False, scorable=False, sortable=False)
    facet.analyzer = analysis.RegexTokenizer(expression=r"[^" + FACET_SEPARATOR + r"]+")
    return facet


def _set_field(analyzer) -> KEYWORD:
    """A field of terms worked out from a whole text (no positions, not scored): names, spellings."""
    field = KEYWORD(stored=False, scorable=False, sortable=False)
    field.analyzer = analyzer
    field.format = formats.Existence()  # which articles hold a term is all that is read
    return field


def _fast(text_field: TEXT) -> TEXT:
    text_field.format = FastPositions(field_boost=text_field.format.field_boost)
    return text_field


def build_schema() -> Schema:
    """The archive's schema: the searchable text, the exact facet values, the URL, and the date columns."""
    stemmed = stemming_analyzer()
    plain = plain_analyzer()
    return Schema(
        id=ID(stored=True, unique=True),
        # spelling=True also indexes the unstemmed words, the vocabulary of "did you mean".
        headline=_fast(TEXT(analyzer=stemmed, spelling=True)),
        body=_fast(TEXT(analyzer=stemmed)),
        caption=_fast(TEXT(analyzer=stemmed, spelling=True)),
        credit=_fast(TEXT(analyzer=stemmed)),
        source=_fast(TEXT(analyzer=plain, phrase=True)),
        place=_fast(TEXT(analyzer=plain, phrase=True)),
        byline=_fast(TEXT(analyzer=plain, phrase=True)),
        dateline=_fast(TEXT(analyzer=plain, phrase=True)),
        url=ID(),
        # The analysis each article was indexed with (search/languages.py: "en", "de", ..., "plain").
        analysis=_facet_field(),
        # Words the article writes as names (capitalised inside its sentences, its writers, photographers
        # and places), folded: a correction never turns a name into a common word. Worked out from the text
        # by the field's analyzer, in the index writer's processes.
        name=_set_field(NameAnalyzer()),
        # "folded:written" for each word with an accent ("quebec:québec"): the spelling typed ranks first.
        variant=_set_field(VariantAnalyzer()),
        # Exact values for facets and filters.
        source_facet=_facet_field(),
        credit_facet=_facet_field(),
        place_facet=_facet_field(),
        year_facet=_facet_field(),
        byline_facet=_facet_field(),
        dateline_facet=_facet_field(),
        language_facet=_facet_field(),
        # The article's own calendar day as yyyymmdd: indexed for Whoosh's range queries (signed, since
        # Whoosh ranges on unsigned fields are wrong; shift_step 8 indexes 4 terms per document instead of
        # 8), and as a column (day_column) that the date filters read as one array. The UTC instant, a
        # column only, orders results by date.
        day=NUMERIC(int, bits=32, shift_step=8),
        day_column=COLUMN(columns.NumericColumn("i", default=MISSING_DAY)),
        published_ts=COLUMN(columns.NumericColumn("q", default=MISSING_TS)),
        # The SQL article id, which grows in ingest order: "stored since" filters and the newest-stored order.
        article_num=COLUMN(columns.NumericColumn("i", default=0)),
        # The story (ingest/stories.py): the id of its first article; results show one hit per story.
        story_num=COLUMN(columns.NumericColumn("i", default=0)),
    )


def day_number(day: dt.date) -> int:
    """A calendar day as the index stores it: yyyymmdd."""
    return day.year * 10000 + day.month * 100 + day.day


def timestamp(instant: dt.datetime) -> int:
    """A naive UTC datetime as the index's sort key: whole seconds since 1970."""
    return int((instant - _EPOCH).total_seconds())


def normalise_url(url: str) -> str:
    """A URL as the index matches it: no scheme, no `www.`, no fragment, no trailing slash, host in lower case."""
    text = url.strip()
    if not re.match(r"^[a-z][a-z0-9+.-]*://", text, re.IGNORECASE):
        text = "http://" + text
    try:
        parts = urlsplit(text)
    except ValueError:
        return url.strip().lower()
    host = (parts.hostname or "").lower()
    if host.startswith("www."):
        host = host[4:]
    path = parts.path.rstrip("/")
    query = f"?{parts.query}" if parts.query else ""
    return f"{host}{path}{query}"


# Between the writers of a shared byline: "Jane Doe and John Roe", "Jane Doe & John Roe", "Doe; Roe".
_BYLINE_JOINS = re.compile(r"\s*(?:;|&|\band\b|\bund\b|\bet\b)\s*", re.IGNORECASE)


def byline_names(byline: str) -> list[str]:
    """The writers a byline names, each a value of the byline facet ("Jane Doe and John Roe" gives two).
    Commas are left alone: "Jane Doe, Jr." and "Jane Doe, Washington" are one writer."""
    names = [name.strip(" ,;") for name in _BYLINE_JOINS.split(byline)]
    return list(dict.fromkeys(name for name in names if name))


@dataclass(frozen=True)
class CaptionFields:
    text: str
    credit: Optional[str] = None
    photographer: Optional[str] = None
    agency: Optional[str] = None

    @property
    def facet_value(self) -> Optional[str]:
        """What the caption adds to the credit facet: the photographer, else the agency, else the credit text."""
        return self.photographer or self.agency or self.credit or None


@dataclass(frozen=True)
class IndexDocument:
    """One article as the index holds it; `fields()` is the Whoosh document."""

    id: int
    headline: str
    body: str
    captions: tuple[CaptionFields, ...] = ()
    source: Optional[str] = None
    places: tuple[str, ...] = ()
    byline: Optional[str] = None
    dateline: Optional[str] = None
    url: Optional[str] = None
    day: Optional[dt.date] = None
    published_utc: Optional[dt.datetime] = None
    language: Optional[str] = None
    story: Optional[int] = None  # the story's id; None: a story of its own

    @property
    def analysis(self) -> str:
        """The analysis the article's text is indexed with: its language's (search/languages.py)."""
        return analysis_key(self.language)

    def fields(self) -> dict:
        key = self.analysis
        captions = "\n".join(c.text for c in self.captions)
        doc: dict = {
            "id": str(self.id),
            "article_num": self.id,
            "headline": mark(key, self.headline or ""),
            "body": mark(key, self.body or ""),
            "analysis": key,
        }
        given = []
        if self.captions:
            doc["caption"] = mark(key, captions)
            credits = [c.credit for c in self.captions if c.credit]
            photographers = [c.photographer for c in self.captions if c.photographer]
            if credits or photographers:
                doc["credit"] = mark(key, "\n".join(dict.fromkeys(credits + photographers)))
            facet = list(dict.fromkeys(v for c in self.captions if (v := c.facet_value)))
            if facet:
                doc["credit_facet"] = FACET_SEPARATOR.join(facet)
            given += photographers
        if self.source:
            doc["source"] = self.source
            doc["source_facet"] = self.source
        if self.places:
            doc["place"] = "\n".join(self.places)
            doc["place_facet"] = FACET_SEPARATOR.join(self.places)
        if self.byline:
            doc["byline"] = self.byline
            writers = byline_names(self.byline)
            if writers:
                doc["byline_facet"] = FACET_SEPARATOR.join(writers)
            given += writers
        given += self.places
        doc["name"] = f"{self.body or ''}\n{captions}{NAMES}{FACET_SEPARATOR.join(given)}"
        doc["variant"] = f"{self.headline or ''}\n{self.body or ''}\n{captions}\n{self.byline or ''}"
        if self.dateline:
            doc["dateline"] = self.dateline
            doc["dateline_facet"] = self.dateline.strip()
        if self.language:
            doc["language_facet"] = self.language
        story = self.story or self.id
        doc["story_num"] = story
        if self.url:
            doc["url"] = normalise_url(self.url)
        if self.day is not None:
            doc["day"] = doc["day_column"] = day_number(self.day)
            doc["year_facet"] = str(self.day.year)
        if self.published_utc is not None:
            doc["published_ts"] = timestamp(self.published_utc)
        return doc
