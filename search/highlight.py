"""Snippets: an HTML-escaped excerpt around the query's matches, each match wrapped in <mark>.

Matching uses the field's own analyzer (so "refugees" in the text matches the query stem "refuge"),
but only on candidate words found first by one C-speed regex over the text, so a long body costs little.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape
from typing import Iterable, Optional

from .schema import build_schema

DEFAULT_SNIPPET_CHARS = 240
_CONTEXT_BEFORE = 60


_SCHEMA = build_schema()


@lru_cache(maxsize=200_000)
def _analyse(fieldname: str, word: str) -> Optional[str]:
    """The term a word becomes in a field ("refugees" -> "refuge" in a stemmed field), None for a stopword."""
    for token in _SCHEMA[fieldname].analyzer(word):
        return token.text
    return None


def find_matches(text: str, terms: Iterable[str], fieldname: str) -> list[tuple[int, int]]:
    """(start, end) of every word of `text` whose analysed form is a query term (or starts with a `x*` prefix)."""
    exact = {t for t in terms if not t.endswith("*")}
    prefixes = tuple(t[:-1].lower() for t in terms if t.endswith("*") and len(t) > 1)
    heads = {t[:3].lower() for t in exact if t} | {p[:3] for p in prefixes}
    if not heads:
        return []
    candidate = re.compile(r"\b(?:" + "|".join(re.escape(h) for h in sorted(heads)) + r")\w*", re.IGNORECASE)
    spans = []
    for m in candidate.finditer(text):
        word = m.group(0)
        lower = word.lower()
        if (prefixes and lower.startswith(prefixes)) or _analyse(fieldname, lower) in exact:
            spans.append((m.start(), m.end()))
    return spans


def snippet(text: str, spans: list[tuple[int, int]], max_chars: int = DEFAULT_SNIPPET_CHARS) -> str:
    """The excerpt of `text` around its first matches, escaped, with the matches in <mark>."""
    if not text:
        return ""
    if not spans:
        start, end = 0, min(len(text), max_chars)
    else:
        first = spans[0][0]
        start = max(0, first - _CONTEXT_BEFORE)
        end = min(len(text), start + max_chars)
        start = max(0, min(start, end - max_chars))
    if start > 0:
        space = text.find(" ", start, first if spans else end)
        start = space + 1 if space != -1 else start
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start else end
    parts = ["…" if start > 0 else ""]
    position = start
    for s, e in spans:
        if e <= start or s >= end:
            continue
        s, e = max(s, start), min(e, end)
        parts.append(escape(text[position:s], quote=False))
        parts.append("<mark>" + escape(text[s:e], quote=False) + "</mark>")
        position = e
    parts.append(escape(text[position:end], quote=False))
    if end < len(text):
        parts.append("…")
    return "".join(parts)


def best_snippet(
    fields: list[tuple[str, str]], terms: dict[str, set[str]], max_chars: int = DEFAULT_SNIPPET_CHARS
) -> str:
    """From (fieldname, text) in order of preference, the snippet of the first field with a match;
    the opening of the first non-empty field when none matches."""
    for fieldname, text in fields:
        wanted = terms.get(fieldname)
        if text and wanted:
            spans = find_matches(text, wanted, fieldname)
            if spans:
                return snippet(text, spans, max_chars)
    for _, text in fields:
        if text:
            return snippet(text, [], max_chars)
    return ""
