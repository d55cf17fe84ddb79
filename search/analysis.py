"""Text analysis in one pass: the tokens of Whoosh's StemmingAnalyzer (or StandardAnalyzer), made faster.

Whoosh's analyzers chain a tokenizer and three filters as nested generators, so every word of every
article passes through four generator frames and a dozen attribute writes. `NewsAnalyzer` does the same
work in one loop: the same token pattern, lower-casing, stop words with positions renumbered like
`StopFilter`, and the same Porter stemmer behind a cache. Tests check that both produce identical tokens.
"""

from __future__ import annotations

import re
from functools import lru_cache

from whoosh import formats
from whoosh.analysis import STOP_WORDS, Token
from whoosh.analysis.acore import Composable
from whoosh.lang.porter import stem as porter_stem

TOKEN_PATTERN = r"[\w\*]+(\.?[\w\*]+)*"  # whoosh.analysis.tokenizers.default_pattern
_WORDS = re.compile(r"[\w\*]+(?:\.?[\w\*]+)*", re.UNICODE)  # the same, without a group, for findall


class NewsAnalyzer(Composable):
    """Tokenize, lower-case, drop stop words and (optionally) stem, in one loop."""

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


class FastPositions(formats.Positions):
    """Whoosh's Positions format (same stored bytes), indexing through `NewsAnalyzer.term_positions`."""

    def word_values(self, value, analyzer, **kwargs):
        fast = getattr(analyzer, "term_positions", None)
        if fast is None or kwargs.get("no_morph") or kwargs.get("nomorph") or kwargs.get("tokenize") is False:
            yield from super().word_values(value, analyzer, **kwargs)
            return
        boost = self.field_boost
        encode = self.encode
        for word, positions in fast(value).items():
            yield word, len(positions), len(positions) * boost, encode(positions)
