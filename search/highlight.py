"""Snippets: an HTML-escaped excerpt around the query's matches, each match wrapped in <mark>.

Matching uses the field's own analysis in the article's language (so "refugees" in the text matches the
query stem "refuge", and "Québec" matches "quebec"), but only on candidate words found first by one
C-speed regex over the text (folded, when folding keeps its length), so a long body costs little. The
mark is on the word as the article writes it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from html import escape
from typing import Iterable, Optional

from .analysis import words
from .languages import CJK, DEFAULT_LANGUAGE, LEGACY, analysis, fold, is_cjk_char
from .schema import NAME_FIELDS

DEFAULT_SNIPPET_CHARS = 240
_CONTEXT_BEFORE = 60


@lru_cache(maxsize=200_000)
def _analyse(fieldname: str, key: str, word: str) -> Optional[str]:
    """The term a lower-cased word becomes in a field of an article of analysis `key` ("refugees" ->
    "refuge" in a stemmed field), None for a stop word."""
    if fieldname in NAME_FIELDS:
        return word if key == LEGACY else fold(word)
    return analysis(key).term(word)


def find_matches(text: str, terms: Iterable[str], fieldname: str, key: str = DEFAULT_LANGUAGE) -> list[tuple[int, int]]:
    """(start, end) of every word of `text` whose analysed form (in an article of analysis `key`) is a
    query term, or starts with a `x*` prefix."""
    terms = list(terms)
    exact = {t for t in terms if not t.endswith("*")}
    prefixes = tuple(t[:-1].lower() for t in terms if t.endswith("*") and len(t) > 1)
    heads = {t[:3].lower() for t in exact if t} | {p[:3] for p in prefixes}
    if not heads:
        return []
    folding = key != LEGACY
    searched = fold(text) if folding else text
    if len(searched) != len(text):
        searched = text  # a letter folded into two ("ß" -> "ss"): read every word of the original instead
        candidate = re.compile(r"\w+")
    else:
        # A word starts at a word boundary; a pair of Han or kana characters anywhere in its run.
        starts = [rf"\b{re.escape(h)}" if not is_cjk_char(h[0]) else re.escape(h) for h in sorted(heads)]
        candidate = re.compile(r"(?:" + "|".join(starts) + r")\w*", re.IGNORECASE)
    spans: list[tuple[int, int]] = []
    bigrams = analysis(key).bigrams
    for m in candidate.finditer(searched):
        chunk = text[m.start() : m.end()]
        found = words(chunk, bigrams) if bigrams and CJK.search(chunk) else ((chunk, 0, len(chunk)),)
        for word, start, end in found:
            lower = word.lower()
            form = fold(lower) if folding else lower
            if (prefixes and form.startswith(prefixes)) or _analyse(fieldname, key, lower) in exact:
                start, end = m.start() + start, m.start() + end
                if spans and start <= spans[-1][1]:  # overlapping pairs of characters: one mark
                    spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
                else:
                    spans.append((start, end))
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
    fields: list[tuple[str, str]],
    terms: dict[str, set[str]],
    max_chars: int = DEFAULT_SNIPPET_CHARS,
    key: str = DEFAULT_LANGUAGE,
) -> str:
    """From (fieldname, text) in order of preference, the snippet of the first field with a match (words
    read by the analysis `key`, the article's); the opening of the first non-empty field when none matches."""
    for fieldname, text in fields:
        wanted = terms.get(fieldname)
        if text and wanted:
            spans = find_matches(text, wanted, fieldname, key)
            if spans:
                return snippet(text, spans, max_chars)
    for _, text in fields:
        if text:
            return snippet(text, [], max_chars)
    return ""
