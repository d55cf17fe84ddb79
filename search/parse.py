"""Reading what people type into a search box: bare words, "phrases", AND/OR/NOT, -word, field:term, wildcards, URLs.

The rules (the README's "Query language" section says the same for users):
- Bare words are analysed once, with the analyzer every default field shares (lower-cased, stop words
  dropped, Porter-stemmed), and each searches the headline, body, captions and credits, with the field
  weights below. A stop word ("the", "of") is never a required term. Bare words are what the searcher
  may relax from "all words" to "most words" (search/query.py).
- `"a phrase"`, `field:term`, `field:"a phrase"`, `+word` and wildcards (`kob*`, `wom?n`) are required
  and never relaxed; `-word` (or `-"phrase"`, `-field:term`) excludes. A `?` is a wildcard only inside a
  word: at a word's end ("is the dollar falling?") it is a question mark. Wildcards match the indexed
  (stemmed) words, so `refug*` finds "refugees" and `ref?gees` does not (it is indexed as "refuge").
- `AND`, `OR` and `NOT` in capitals, with brackets, make a boolean query that is taken exactly as written
  (AND binds tighter than OR; words side by side are AND'ed). In a query with no lower-case letter at all
  (a pasted all-caps headline) they are ordinary words.
- A URL finds the article stored with that URL; when none is, its path's words are searched instead.
- Nothing a user types is an error: unbalanced quotes and brackets are read literally, an unknown
  `field:` is read as words, a wildcard with fewer than two letters before it is read as the word.
  What was read differently from how it was typed is listed in `notices`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional, Union

from whoosh import query

from .schema import DEFAULT_FIELDS, normalise_url, plain_analyzer, stemming_analyzer

# Query-time weights of the default fields (each field's BM25 score is multiplied by its weight). The
# headline's was chosen on the judged development questions of bench/relevance (BENCHMARKS.md, "Search
# relevance"): Whoosh gives each field its own idf, so a word is worth more in a short field than in the
# body, and a weight under 1 evens that out. The judged collection has no captions or credits; they are
# short fields like the headline and get its weight by that analogy, not by measurement.
FIELD_WEIGHTS = {"headline": 0.5, "caption": 0.5, "body": 1.0, "credit": 0.5}
# What a user may write before a colon, and the index field it names.
FIELD_NAMES = {
    "headline": "headline",
    "title": "headline",
    "hed": "headline",
    "body": "body",
    "text": "body",
    "caption": "caption",
    "captions": "caption",
    "photo": "caption",
    "credit": "credit",
    "credits": "credit",
    "photographer": "credit",
    "source": "source",
    "agency": "source",
    "place": "place",
    "places": "place",
    "location": "place",
    "byline": "byline",
    "author": "byline",
    "by": "byline",
    "dateline": "dateline",
    "year": "year_facet",
    "url": "url",
}
PUBLIC_FIELDS = ("headline", "body", "caption", "credit", "source", "place", "byline", "dateline", "year", "url")
MIN_WILDCARD_PREFIX = 2
_STEMMED = stemming_analyzer()
_PLAIN = plain_analyzer()
_ANALYZERS = {
    "headline": _STEMMED,
    "body": _STEMMED,
    "caption": _STEMMED,
    "credit": _STEMMED,
    "source": _PLAIN,
    "place": _PLAIN,
    "byline": _PLAIN,
    "dateline": _PLAIN,
}
_CHUNK = re.compile(r'[^\s"()]+')
# A URL: with a scheme, starting www., or a host name with a dot followed by a path ("bbc.co.uk/news/...").
_URL = re.compile(r"^(?:(?:https?|ftp)://|www\.)\S+\.\S+|^(?:[a-z0-9-]+\.)+[a-z]{2,}/\S*", re.IGNORECASE)
_FIELD = re.compile(r"^([A-Za-z_]\w*):(.*)$", re.DOTALL)
_WILD = re.compile(r"\*|\?(?=\w)")  # a wildcard: "*" anywhere, "?" inside a word (at its end, a question mark)
_URL_NOISE = {"html", "htm", "shtml", "php", "asp", "aspx", "jsp", "cfm", "stm", "index", "www"}


@dataclass(frozen=True)
class Word:
    """A bare word as typed and as the index holds it."""

    text: str
    term: str


@dataclass(frozen=True)
class ParsedQuery:
    """A query as the searcher runs it."""

    text: str
    words: tuple[Word, ...] = ()  # bare words: all required first, relaxed to "most" when few match
    runs: tuple[tuple[str, ...], ...] = ()  # runs of two or more neighbouring bare words, as typed
    required: tuple[query.Query, ...] = ()  # phrases, field terms, +words, wildcards
    excluded: tuple[query.Query, ...] = ()
    url: Optional[str] = None  # normalised, when the query names a URL
    url_words: tuple[Word, ...] = ()  # the URL's words, searched when no article has that URL
    boolean: Optional[query.Query] = None  # the whole query, when it used AND/OR/NOT
    ignored: tuple[str, ...] = ()  # words too common to search
    notices: tuple[str, ...] = ()

    @property
    def is_empty(self) -> bool:
        return not (self.words or self.required or self.url or self.boolean)

    def terms_by_field(self) -> dict[str, set[str]]:
        """field -> the index terms this query looks for (prefix patterns as `x*`), for snippets."""
        out: dict[str, set[str]] = {}
        queries = [self.boolean] if self.boolean is not None else list(self.required)
        queries += [word_query(w.term) for w in self.words + self.url_words]
        for q in queries:
            for fieldname, text in q.iter_all_terms(phrases=True):
                if isinstance(text, bytes):
                    text = text.decode("utf-8", "replace")
                out.setdefault(fieldname, set()).add(text)
            for leaf in q.leaves() if q.is_leaf() is False else [q]:
                if isinstance(leaf, (query.Prefix, query.Wildcard)):
                    out.setdefault(leaf.fieldname, set()).add(re.split(r"[*?]", leaf.text)[0] + "*")
        return out


def word_query(term: str) -> query.Query:
    """One analysed word searched in every default field, each with its weight."""
    return query.Or([query.Term(f, term, boost=FIELD_WEIGHTS[f]) for f in DEFAULT_FIELDS])


def analyse(text: str, fieldname: str = "body") -> list[str]:
    """The index terms of `text` in a field ("Refugees of Kobani" -> ["refuge", "kobani"] in the body)."""
    return [t.text for t in _ANALYZERS[fieldname](text)]


def analysed_terms(text: str) -> list[str]:
    """Every index term of `text` as the default fields hold it, in order (a long text, fast)."""
    return _STEMMED.terms(text)


@lru_cache(maxsize=4096)
def parse_query(text: str) -> ParsedQuery:
    """Read what a user typed (never raises for any text)."""
    return _Parser(text).parse()


# -- the parser ----------------------------------------------------------------------------------------


@dataclass
class _Chunk:
    """One lexical unit: a word-ish chunk or a phrase, with its sign and field."""

    text: str
    phrase: bool = False
    sign: str = ""  # "+", "-" or ""
    fieldname: Optional[str] = None  # an index field name


@dataclass
class _Op:
    name: str  # AND, OR, NOT, (, )


_Token = Union[_Chunk, _Op]


@dataclass
class _Parser:
    text: str
    notices: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    def parse(self) -> ParsedQuery:
        tokens = self._lex(self.text)
        if any(isinstance(t, _Op) and t.name in ("AND", "OR", "NOT") for t in tokens):
            return self._parse_boolean(tokens)
        return self._parse_plain([t for t in tokens if isinstance(t, _Chunk)])

    # -- lexing --------------------------------------------------------------------------------------

    def _lex(self, text: str) -> list[_Token]:
        operators = bool(re.search(r"[a-z]", text))  # an all-caps query reads AND/OR/NOT as words
        quotes = [i for i, c in enumerate(text) if c == '"']
        unmatched = quotes[-1] if len(quotes) % 2 else None  # an odd quote out: the last one is read literally
        tokens: list[_Token] = []
        pos, n = 0, len(text)
        while pos < n:
            c = text[pos]
            if c.isspace():
                pos += 1
            elif c == '"':
                if pos == unmatched:
                    self.notices.append("an unmatched quote was ignored")
                    pos += 1
                    continue
                close = text.index('"', pos + 1)
                tokens.append(_Chunk(text[pos + 1 : close], phrase=True))
                pos = close + 1
            elif c in "()":
                tokens.append(_Op(c))
                pos += 1
            else:
                end = _CHUNK.match(text, pos).end()
                piece = text[pos:end]
                phrase = self._prefixed_phrase(text, piece, end, unmatched)
                if phrase is not None:
                    tokens.append(phrase[0])
                    pos = phrase[1]
                    continue
                pos = end
                if operators and piece in ("AND", "OR", "NOT", "&&", "||"):
                    tokens.append(_Op({"&&": "AND", "||": "OR"}.get(piece, piece)))
                    continue
                sign = ""
                if piece[0] in "+-" and len(piece) > 1 and piece[1] not in "+-":
                    sign, piece = piece[0], piece[1:]
                elif not re.search(r"\w", piece):
                    continue  # punctuation alone ("-", "&", "|")
                chunk = self._chunk(piece, sign)
                if chunk is not None:
                    tokens.append(chunk)
        return tokens

    @staticmethod
    def _prefixed_phrase(text: str, piece: str, end: int, unmatched: Optional[int]) -> Optional[tuple[_Chunk, int]]:
        """`-"a phrase"`, `+"a phrase"` or `field:"a phrase"`: the phrase chunk and where it ends, else None."""
        if end >= len(text) or text[end] != '"' or end == unmatched:
            return None
        sign, prefix = "", piece
        if prefix[:1] in ("+", "-"):
            sign, prefix = prefix[0], prefix[1:]
        m = re.fullmatch(r"([A-Za-z_]\w*):", prefix)
        if prefix and not (m and m.group(1).lower() in FIELD_NAMES):
            return None
        close = text.index('"', end + 1)
        fieldname = FIELD_NAMES[m.group(1).lower()] if m else None
        return _Chunk(text[end + 1 : close], phrase=True, sign=sign, fieldname=fieldname), close + 1

    def _chunk(self, piece: str, sign: str) -> Optional[_Chunk]:
        """A chunk of text as a word, a URL or a field clause; None for a `field:` with nothing after it."""
        if _URL.match(piece):
            return _Chunk(piece, sign=sign, fieldname="url")
        m = _FIELD.match(piece)
        if m:
            name, value = m.group(1).lower(), m.group(2)
            if name in FIELD_NAMES:
                if not value:
                    return None
                return _Chunk(value, sign=sign, fieldname=FIELD_NAMES[name])
            if name not in ("http", "https", "ftp", "mailto"):
                self.notices.append(
                    f"{m.group(1)}: is not a field, so it was searched as words (fields: {', '.join(PUBLIC_FIELDS)})"
                )
            return _Chunk(f"{m.group(1)} {value}", sign=sign)
        return _Chunk(piece, sign=sign)

    # -- building queries ----------------------------------------------------------------------------

    def _words(self, text: str) -> list[Word]:
        terms = analyse(text)
        if not terms and re.search(r"\w", text):
            self.ignored.append(text)
        return [Word(text, t) for t in terms]

    def _wildcard(self, chunk: _Chunk, fieldname: Optional[str]) -> Optional[query.Query]:
        """A query for a chunk holding * or ?, or None when it is read as a plain word instead."""
        pattern = chunk.text.lower().strip(".,;:!?")
        head = re.split(r"[*?]", pattern)[0]
        if len(re.findall(r"\w", head)) < MIN_WILDCARD_PREFIX:
            self.notices.append(
                f"{chunk.text!r} was searched as a word: a wildcard needs at least "
                f"{MIN_WILDCARD_PREFIX} letters before * or ?"
            )
            return None
        # Expansions are scored by BM25F like words, but without field weights: Whoosh drops the boost of a
        # wildcard that expands to a single word, so a weight would count only sometimes.
        fields = [fieldname] if fieldname else list(DEFAULT_FIELDS)
        if re.fullmatch(r"[^*?]+\*", pattern):
            parts = [query.Prefix(f, head, constantscore=False) for f in fields]
        else:
            parts = [query.Wildcard(f, pattern, constantscore=False) for f in fields]
        return parts[0] if len(parts) == 1 else query.Or(parts)

    def _field_query(self, chunk: _Chunk) -> Optional[query.Query]:
        """The query for `field:value` or `field:"a phrase"`."""
        name = chunk.fieldname
        if name == "url":
            return query.Term("url", normalise_url(chunk.text))
        if name == "year_facet":
            if re.fullmatch(r"\d{4}", chunk.text.strip()):
                return query.Term("year_facet", chunk.text.strip())
            self.notices.append(f"year:{chunk.text} was ignored: a year has four digits, like year:2015")
            return None
        if not chunk.phrase and _WILD.search(chunk.text):
            wild = self._wildcard(chunk, name)
            if wild is not None:
                return wild
        terms = analyse(chunk.text.replace("*", " ").replace("?", " "), name)
        if not terms:
            self.ignored.append(chunk.text)
            return None
        if len(terms) == 1:
            return query.Term(name, terms[0])
        return query.Phrase(name, terms)

    def _phrase_query(self, text: str) -> Optional[query.Query]:
        terms = analyse(text)
        if not terms:
            if re.search(r"\w", text):
                self.ignored.append(text)
            return None
        if len(terms) == 1:
            return word_query(terms[0])
        return query.Or([query.Phrase(f, terms, boost=FIELD_WEIGHTS[f]) for f in DEFAULT_FIELDS])

    def _required_query(self, chunk: _Chunk) -> Optional[query.Query]:
        """A chunk as one required query (all its words), whatever its kind."""
        if chunk.fieldname:
            return self._field_query(chunk)
        if chunk.phrase:
            return self._phrase_query(chunk.text)
        if _WILD.search(chunk.text):
            wild = self._wildcard(chunk, None)
            if wild is not None:
                return wild
        words = self._words(chunk.text.replace("*", " ").replace("?", " "))
        return _and([word_query(w.term) for w in words])

    # -- plain queries (no operators) ------------------------------------------------------------------

    def _parse_plain(self, chunks: list[_Chunk]) -> ParsedQuery:
        words: dict[str, Word] = {}
        runs: list[list[str]] = [[]]  # runs of neighbouring bare words, as typed
        required: list[query.Query] = []
        excluded: list[query.Query] = []
        url = None
        url_words: list[Word] = []
        for chunk in chunks:
            if chunk.sign == "-":
                q = self._required_query(chunk)
                if q is not None:
                    excluded.append(q)
            elif chunk.fieldname == "url" and not chunk.sign and url is None and _URL.match(chunk.text):
                url = normalise_url(chunk.text)
                url_words = self._url_words(chunk.text)
            elif chunk.sign == "+" or chunk.phrase or chunk.fieldname or _WILD.search(chunk.text):
                q = self._required_query(chunk)
                if q is not None:
                    required.append(q)
            else:
                for word in self._words(chunk.text):
                    words.setdefault(word.term, word)
                    runs[-1].append(word.term)
                continue
            runs.append([])  # anything but a bare word breaks a run
        runs_of_two = tuple(tuple(run) for run in runs if len(run) >= 2)
        if not words and not required and not url and self.ignored:
            self.notices.append("every word of the query is too common to search: " + ", ".join(self.ignored))
        return ParsedQuery(
            self.text,
            tuple(words.values()),
            runs_of_two,
            tuple(required),
            tuple(excluded),
            url,
            tuple(url_words),
            None,
            tuple(self.ignored),
            tuple(dict.fromkeys(self.notices)),
        )

    def _url_words(self, text: str) -> list[Word]:
        path = re.sub(r"^(?:(?:https?|ftp)://)?[^/]*", "", text, flags=re.IGNORECASE)
        pieces = [p for p in re.split(r"[^A-Za-z]+", path) if len(p) > 1 and p.lower() not in _URL_NOISE]
        out: dict[str, Word] = {}
        for piece in pieces:
            for term in analyse(piece):
                out.setdefault(term, Word(piece, term))
        return list(out.values())

    # -- boolean queries -----------------------------------------------------------------------------

    def _parse_boolean(self, tokens: list[_Token]) -> ParsedQuery:
        self._tokens = tokens
        self._pos = 0
        tree = self._or()
        while self._pos < len(self._tokens):  # a stray ")" or operator: skip it and read on
            self._pos += 1
            more = self._or()
            tree = _and([tree, more])
        if tree is None:
            return ParsedQuery(self.text, ignored=tuple(self.ignored), notices=tuple(self.notices))
        return ParsedQuery(
            self.text, boolean=tree, ignored=tuple(self.ignored), notices=tuple(dict.fromkeys(self.notices))
        )

    def _peek(self) -> Optional[_Token]:
        return self._tokens[self._pos] if self._pos < len(self._tokens) else None

    def _is_op(self, *names: str) -> bool:
        token = self._peek()
        return isinstance(token, _Op) and token.name in names

    def _or(self) -> Optional[query.Query]:
        parts = [self._and_expr()]
        while self._is_op("OR"):
            self._pos += 1
            parts.append(self._and_expr())
        kept = [p for p in parts if p is not None]
        if not kept:
            return None
        return kept[0] if len(kept) == 1 else query.Or(kept)

    def _and_expr(self) -> Optional[query.Query]:
        parts: list[query.Query] = []
        negatives: list[query.Query] = []
        while True:
            token = self._peek()
            if token is None or (isinstance(token, _Op) and token.name in ("OR", ")")):
                break
            if isinstance(token, _Op) and token.name == "AND":
                self._pos += 1
                continue
            negate = False
            while self._is_op("NOT"):
                self._pos += 1
                negate = not negate
            unit = self._unit()
            if unit is None:
                continue
            q, sign = unit
            if negate != (sign == "-"):
                negatives.append(q)
            else:
                parts.append(q)
        # Exclusions are Not children of an And, as Whoosh's own parser builds them; never AndNot, whose
        # matcher in Whoosh 2.7.5 lets the first document through unchecked.
        return _and(parts + [query.Not(n) for n in negatives])

    def _unit(self) -> Optional[tuple[query.Query, str]]:
        token = self._peek()
        if token is None:
            return None
        self._pos += 1
        if isinstance(token, _Op):
            if token.name == "(":
                inner = self._or()
                if self._is_op(")"):
                    self._pos += 1
                return (inner, "") if inner is not None else None
            return None  # a stray ")" or a NOT with nothing after it
        q = self._required_query(token)
        return (q, token.sign) if q is not None else None


def _and(parts: list[Optional[query.Query]]) -> Optional[query.Query]:
    kept = [p for p in parts if p is not None]
    if not kept:
        return None
    return kept[0] if len(kept) == 1 else query.And(kept)
