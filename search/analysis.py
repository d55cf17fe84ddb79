"""Text analysis in one pass: each article's words become index terms by its own language's rules.

`ArchiveAnalyzer` is the analyzer of every text field. A value to index starts with a marker naming the
article's analysis (`mark("de", text)`; search/languages.py says what each analysis does), so one field
holds articles of every language, each analysed as itself; a value without the marker is analysed as
English. The stemmed fields (headline, body, captions, credits) drop the language's stop words, fold
accents and stem; the name fields (source, place, byline, dateline) only fold and lower-case. Runs of
Han, kana or Hangul, written without spaces between words, are indexed as overlapping pairs of characters
(Lucene's CJK bigrams). Whoosh's own analyzers chain a tokenizer and filters as nested generators; here
the same work is one loop, with the positions Whoosh's `StopFilter` gives (the first kept word keeps its
place, the rest follow on).

`NewsAnalyzer` is the analyzer of indexes built under schema 5 (English rules for every article, no
folding): it stays so that such an index opens and keeps answering until `newsarchive reindex`.
`written_names` and `accent_variants` are what the index keeps beside the terms, for corrections and for
ranking the typed spelling first (search/schema.py).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from typing import Iterator, Optional

from whoosh import formats
from whoosh.analysis import STOP_WORDS, Token
from whoosh.analysis.acore import Composable
from whoosh.lang.porter import stem as porter_stem

from .languages import CJK, DEFAULT_LANGUAGE, analysis, fold, is_cjk_char, term_function

TOKEN_PATTERN = r"[\w\*]+(\.?[\w\*]+)*"  # whoosh.analysis.tokenizers.default_pattern
_WORDS = re.compile(r"[\w\*]+(?:\.?[\w\*]+)*", re.UNICODE)  # the same, without a group, for findall


class NewsAnalyzer(Composable):
    """Schema 5's analyzer: tokenize, lower-case, drop English stop words and (optionally) Porter-stem."""

    def __init__(self, stoplist=STOP_WORDS, minsize: int = 2, stemming: bool = True, cachesize: int = 100_000) -> None:
        self.stoplist = frozenset(stoplist or ())
        self.minsize = minsize if stoplist else 0
        self.stemming = stemming
        self.cachesize = cachesize
        self._setup()

    def _setup(self) -> None:
        self._pattern = re.compile(TOKEN_PATTERN, re.UNICODE)
        self._stem = lru_cache(maxsize=self.cachesize)(porter_stem) if self.stemming else None
        self.is_morph = self.stemming

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k not in ("_pattern", "_stem")}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._setup()

    def __eq__(self, other):
        return (
            other.__class__ is self.__class__
            and other.stoplist == self.stoplist
            and other.minsize == self.minsize
            and other.stemming == self.stemming
        )

    def __hash__(self):
        return hash((self.__class__, self.stoplist, self.minsize, self.stemming))

    def __repr__(self):
        return f"NewsAnalyzer(stop_words={len(self.stoplist)}, minsize={self.minsize}, stemming={self.stemming})"

    def has_morph(self) -> bool:
        return self.stemming

    def term_positions(self, value: str) -> dict[str, list[int]]:
        """Each term of `value` with its positions: what indexing with positions needs, without Token objects."""
        stem = self._stem
        stops = self.stoplist
        minsize = self.minsize
        terms: dict[str, list[int]] = {}
        pos = None
        for index, word in enumerate(_WORDS.findall(value)):
            word = word.lower()
            if len(word) < minsize or word in stops:
                continue
            pos = index if pos is None else pos + 1
            if stem is not None:
                word = stem(word)
            found = terms.get(word)
            if found is None:
                terms[word] = [pos]
            else:
                found.append(pos)
        return terms

    def terms(self, value: str) -> list[str]:
        """The terms of `value` in order (stop words dropped), as they take consecutive positions."""
        stem = self._stem
        stops = self.stoplist
        minsize = self.minsize
        out = []
        for word in _WORDS.findall(value):
            word = word.lower()
            if len(word) < minsize or word in stops:
                continue
            out.append(stem(word) if stem is not None else word)
        return out

    def __call__(
        self,
        value,
        positions=False,
        chars=False,
        keeporiginal=False,
        removestops=True,
        start_pos=0,
        start_char=0,
        tokenize=True,
        mode="",
        no_morph=False,
        **kwargs,
    ):
        assert isinstance(value, str), f"{value!r} is not text"
        nomorph = no_morph or kwargs.pop("nomorph", False)
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        stem = None if nomorph else self._stem
        stops = self.stoplist
        minsize = self.minsize
        if not tokenize:
            token.original = token.text = value
            token.boost = 1.0
            if positions:
                token.pos = start_pos
            if chars:
                token.startchar, token.endchar = start_char, start_char + len(value)
            yield token
            return
        pos = None
        for index, match in enumerate(self._pattern.finditer(value)):
            text = match.group(0).lower()
            if keeporiginal:
                token.original = match.group(0)
            token.boost = 1.0
            if chars:
                token.startchar = start_char + match.start()
                token.endchar = start_char + match.end()
            if len(text) < minsize or text in stops:
                if not removestops:  # a stop word kept in place (StopFilter does the same)
                    token.text = text
                    token.stopped = True
                    if positions:
                        token.pos = start_pos + index
                    yield token
                continue
            # StopFilter's renumbering: the first kept word keeps its place, the rest follow on.
            pos = start_pos + index if pos is None else pos + 1
            if positions:
                token.pos = pos
            token.stopped = False
            token.text = stem(text) if stem is not None else text
            yield token


MARK = "\ue000"  # a private-use character: `MARK key MARK text` names the analysis of the text after it


def mark(key: str, text: str) -> str:
    """`text` marked for indexing with the analysis `key` (a language's analysis_key)."""
    return f"{MARK}{key}{MARK}{text}"


def unmark(value: str) -> tuple[str, str]:
    """(analysis key, text) of a marked value; an unmarked one is DEFAULT_LANGUAGE's."""
    if value.startswith(MARK):
        end = value.find(MARK, 1)
        if end > 0:
            return value[1:end], value[end + 1 :]
    return DEFAULT_LANGUAGE, value


def tokens(text: str, bigrams: bool = True) -> list[str]:
    """The words of `text` in order, as `words` cuts them, without their places (faster)."""
    if not bigrams or text.isascii() or CJK.search(text) is None:
        return _WORDS.findall(text)
    return [word for word, _, _ in words(text)]


def word_counts(text: str, bigrams: bool = True) -> Counter:
    """How often each word of `text` (lower-cased, as `tokens` cuts them) occurs, in order of first
    occurrence. ASCII text is lower-cased whole and counted in C: the same words, its letters having no
    case that changes their length or kind."""
    if text.isascii():
        return Counter(_WORDS.findall(text.lower()))
    return Counter(word.lower() for word in tokens(text, bigrams))


def words(text: str, bigrams: bool = True) -> Iterator[tuple[str, int, int]]:
    """(word, start, end) of each word of `text` in order; a run of Han, kana or Hangul inside a word
    gives its overlapping pairs of characters instead (one character alone stays itself)."""
    for match in _WORDS.finditer(text):
        word = match.group(0)
        start = match.start()
        if not bigrams or word.isascii() or not any(is_cjk_char(c) for c in word):
            yield word, start, match.end()
            continue
        run_start = 0
        for i in range(1, len(word) + 1):
            if i < len(word) and is_cjk_char(word[i]) == is_cjk_char(word[run_start]):
                continue
            run = word[run_start:i]
            if not is_cjk_char(run[0]):
                yield run, start + run_start, start + i
            elif len(run) == 1:
                yield run, start + run_start, start + i
            else:
                for j in range(len(run) - 1):
                    yield run[j : j + 2], start + run_start + j, start + run_start + j + 2
            run_start = i


class ArchiveAnalyzer(Composable):
    """The analyzer of every text field: `stemming` fields analyse each value by the language its marker
    names (stop words, folding, stemming); the others fold and lower-case every word. See the module's
    docstring."""

    def __init__(self, stemming: bool = True) -> None:
        self.stemming = stemming
        self.is_morph = stemming

    def __eq__(self, other):
        return other.__class__ is self.__class__ and other.stemming == self.stemming

    def __hash__(self):
        return hash((self.__class__, self.stemming))

    def __repr__(self):
        return f"ArchiveAnalyzer(stemming={self.stemming})"

    def has_morph(self) -> bool:
        return self.stemming

    def term_of(self, key: str, word: str, no_morph: bool = False) -> Optional[str]:
        """The term `word` becomes in a value marked `key`, or None when it is not indexed (a stop word)."""
        lower = word.lower()
        if not self.stemming:
            return fold(lower)
        language = analysis(key)
        if no_morph:
            if not language.keeps(lower):
                return None
            return fold(lower) if language.folds else lower
        return language.term(lower)

    def _terms(self, value: str) -> list[Optional[str]]:
        """The term of each word of `value` in order, None for a word not indexed."""
        key, text = unmark(value)
        if not self.stemming:
            return [_folded(word.lower()) for word in tokens(text)]
        term = term_function(key)
        return [term(word.lower()) for word in tokens(text, analysis(key).bigrams)]

    def term_positions(self, value: str) -> dict[str, list[int]]:
        """Each term of `value` with its positions: what indexing with positions needs, without Token objects."""
        terms: dict[str, list[int]] = {}
        pos = None
        for index, term in enumerate(self._terms(value)):
            if term is None:
                continue
            pos = index if pos is None else pos + 1
            found = terms.get(term)
            if found is None:
                terms[term] = [pos]
            else:
                found.append(pos)
        return terms

    def terms(self, value: str) -> list[str]:
        """The terms of `value` in order (words not indexed left out), as they take consecutive positions."""
        return [term for term in self._terms(value) if term is not None]

    def __call__(
        self,
        value,
        positions=False,
        chars=False,
        keeporiginal=False,
        removestops=True,
        start_pos=0,
        start_char=0,
        tokenize=True,
        mode="",
        no_morph=False,
        **kwargs,
    ):
        assert isinstance(value, str), f"{value!r} is not text"
        nomorph = no_morph or kwargs.pop("nomorph", False)
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        key, text = unmark(value)
        offset = start_char + (len(value) - len(text))
        if not tokenize:
            token.original = token.text = text
            token.boost = 1.0
            if positions:
                token.pos = start_pos
            if chars:
                token.startchar, token.endchar = offset, offset + len(text)
            yield token
            return
        bigrams = analysis(key).bigrams if self.stemming else True
        pos = None
        for index, (word, start, end) in enumerate(words(text, bigrams)):
            term = self.term_of(key, word, no_morph=nomorph)
            if keeporiginal:
                token.original = word
            token.boost = 1.0
            if chars:
                token.startchar, token.endchar = offset + start, offset + end
            if term is None:
                if not removestops:  # a stop word kept in place (StopFilter does the same)
                    token.text = word.lower()
                    token.stopped = True
                    if positions:
                        token.pos = start_pos + index
                    yield token
                continue
            pos = start_pos + index if pos is None else pos + 1
            if positions:
                token.pos = pos
            token.stopped = False
            token.text = term
            yield token


_folded = lru_cache(maxsize=200_000)(fold)


# A word that may be a name ("Nordstrom", "S&P", "A320neo") after a letter, digit, comma, semicolon, closing
# bracket, per cent or dollar sign and one space: inside a sentence, not at its start. (Ingested text has
# its runs of spaces collapsed, so one space is what stands between words.)
_INSIDE_SENTENCE = re.compile(r"(?<=[\w,;)%$] )[^\W\d_][\w&]*")


def written_capitalised(text: str) -> tuple[Counter, Counter]:
    """How often each word (case-folded) is written capitalised and in lower case inside a sentence, where
    a capital marks a name rather than a sentence's start."""
    capitalised: Counter = Counter()
    lower: Counter = Counter()
    for word, count in Counter(_INSIDE_SENTENCE.findall(text)).items():
        (capitalised if word[0].isupper() else lower)[word.casefold()] += count
    return capitalised, lower


def written_names(text: str) -> set[str]:
    """The words `text` writes capitalised inside a sentence (names), folded. One regular expression (every
    capital letter of the Basic Multilingual Plane in one class, as Python's `re` has no class of
    capitals; ASCII capitals alone for ASCII text, twice as fast), then each distinct word folded."""
    pattern = _ASCII_CAPITALISED_INSIDE if text.isascii() else _CAPITALISED_INSIDE
    return {fold(word) for word in {found.casefold() for found in pattern.findall(text)}}


_CAPITALS = "".join(chr(c) for c in range(0x10000) if chr(c).isupper() and not 0xD800 <= c <= 0xDFFF)
_CAPITALISED_INSIDE = re.compile(r"(?<=[\w,;)%$] )[" + re.escape(_CAPITALS) + r"][\w&]*")
_ASCII_CAPITALISED_INSIDE = re.compile(r"(?<=[\w,;)%$] )[A-Z][\w&]*")


def accent_variants(text: str) -> set[str]:
    """`folded:written` for each word of `text` that folding changes ("quebec:québec"), in lower case: the
    spellings the index keeps so that the one typed can rank first."""
    if text.isascii():
        return set()
    found = set()
    for word in set(_NON_ASCII_WORD.findall(text)):
        lower = word.lower()
        folded = fold(lower)
        if folded != lower and folded.isascii():
            found.add(f"{folded}:{lower}")
    return found


_NON_ASCII_WORD = re.compile(r"\w*[^\W\x00-\x7f]\w*")
NAMES = "\ue001"  # in a value of the name field: the text before it is read for names, the names after it are given


class _SetAnalyzer(Composable):
    """An analyzer whose terms are a set worked out from the whole value (no positions): the base of the
    name and variant fields, whose values are texts read in the index writer's processes, not the
    ingester's."""

    def terms(self, value: str) -> set[str]:
        raise NotImplementedError

    def __eq__(self, other):
        return other.__class__ is self.__class__

    def __hash__(self):
        return hash(self.__class__)

    def __call__(self, value, positions=False, chars=False, mode="", **kwargs):
        token = Token(positions, chars, mode=mode, **kwargs)
        for term in sorted(self.terms(value)):
            token.text = term
            token.boost = 1.0
            token.stopped = False
            yield token


class NameAnalyzer(_SetAnalyzer):
    """The name field: the words written capitalised inside the text's sentences, and each word of the
    names given after NAMES (writers, photographers, places; separated by FACET separators), folded."""

    def terms(self, value: str) -> set[str]:
        text, _, given = value.partition(NAMES)
        found = written_names(text)
        found.update(fold(word.casefold()) for word in _NAME_PART.findall(given))
        return found


class VariantAnalyzer(_SetAnalyzer):
    """The variant field: `folded:written` for each word of the text that folding changes."""

    def terms(self, value: str) -> set[str]:
        return accent_variants(value)


_NAME_PART = re.compile(r"[^\W\d_][\w&]*")


class FastPositions(formats.Positions):
    """Whoosh's Positions format (same stored bytes), indexing through the analyzer's `term_positions`."""

    def word_values(self, value, analyzer, **kwargs):
        fast = getattr(analyzer, "term_positions", None)
        if fast is None or kwargs.get("no_morph") or kwargs.get("nomorph") or kwargs.get("tokenize") is False:
            yield from super().word_values(value, analyzer, **kwargs)
            return
        boost = self.field_boost
        encode = self.encode
        for word, positions in fast(value).items():
            yield word, len(positions), len(positions) * boost, encode(positions)
