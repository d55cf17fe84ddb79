"""The Whoosh schema: searchable text fields with boosts, and exact facet and sort fields."""

from __future__ import annotations

from whoosh import analysis, columns
from whoosh.fields import COLUMN, ID, KEYWORD, NUMERIC, TEXT, Schema

from .analysis import FastPositions, NewsAnalyzer

# Facet values are joined with this separator inside one field value, so a value may hold commas.
FACET_SEPARATOR = "\x1f"
FACETS = ("source", "credit", "place", "year")
MISSING_TS = 2**63 - 1  # the date column's value for an undated article (sorts last)
TEXT_FIELDS = ("headline", "body", "caption", "credit", "source", "place", "byline", "dateline")


def _facet_field() -> KEYWORD:
    field = KEYWORD(stored=False, scorable=False, sortable=False)
    field.analyzer = analysis.RegexTokenizer(expression=r"[^" + FACET_SEPARATOR + r"]+")
    return field


def _fast(field: TEXT) -> TEXT:
    field.format = FastPositions(field_boost=field.format.field_boost)
    return field


def build_schema() -> Schema:
    """The archive's schema: headline weighs more than captions, captions more than body."""
    stemmed = NewsAnalyzer()  # the tokens of analysis.StemmingAnalyzer(), in one pass
    plain = NewsAnalyzer(stoplist=None, stemming=False)  # those of analysis.StandardAnalyzer(stoplist=None)
    return Schema(
        id=ID(stored=True, unique=True),
        # spelling=True also indexes the unstemmed words, the vocabulary of "did you mean".
        headline=_fast(TEXT(analyzer=stemmed, field_boost=3.0, spelling=True)),
        body=_fast(TEXT(analyzer=stemmed)),
        caption=_fast(TEXT(analyzer=stemmed, field_boost=1.5, spelling=True)),
        credit=_fast(TEXT(analyzer=plain, phrase=True)),
        source=_fast(TEXT(analyzer=plain, phrase=True)),
        place=_fast(TEXT(analyzer=plain, phrase=True)),
        byline=_fast(TEXT(analyzer=plain, phrase=True)),
        dateline=_fast(TEXT(analyzer=plain, phrase=True)),
        # Exact values for facets and filters.
        source_facet=_facet_field(),
        credit_facet=_facet_field(),
        place_facet=_facet_field(),
        year_facet=_facet_field(),
        # Calendar day as yyyymmdd for from/to filters (signed: Whoosh ranges on unsigned fields are
        # wrong; shift_step 8 indexes 4 terms per document instead of 8), and the UTC instant for sorting
        # by date, kept as a column only (sorting reads it per segment, no query searches it).
        day=NUMERIC(int, bits=32, shift_step=8),
        published_ts=COLUMN(columns.NumericColumn("q", default=MISSING_TS)),
    )
