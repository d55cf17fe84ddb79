"""Reading what people type into a search box: bare words, "phrases", AND/OR/NOT, -word, field:term, wildcards, URLs.

The rules (the README's "Query language" section says the same for users):
- Bare words are analysed by the rules of every language the archive holds (search/languages.py:
  lower-cased, that language's stop words dropped, accents folded, stemmed), and each searches the
  headline, body, captions and credits for any of the terms it gives, and the byline for the word as
  names are kept (folded), with the field weights below. An article need not hold a word that is a stop
  word in its own language ("die" in a German article) beside a word it does hold, so a stop word is never
  a required term where it is one. Bare words are what the searcher may relax from "all words" to "most
  words" (search/query.py).
- Which languages: those of the archive's articles, or of the `language` filter; an index built before
  languages were analysed apart is read by its own rules (LEGACY) until it is rebuilt.
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
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional, Union

from whoosh import query

from .analysis import tokens, word_counts
from .analysis import words as split_words
from .languages import DEFAULT_LANGUAGE, LEGACY, analysis, fold, term_function
from .schema import DEFAULT_FIELDS, NAME_FIELDS, normalise_url

# Query-time weights of the default fields (each field's BM25 score is multiplied by its weight). The
# headline's was chosen on the judged development questions of bench/relevance (BENCHMARKS.md, "Search
# relevance"): Whoosh gives each field its own idf, so a word is worth more in a short field than in the
# body, and a weight under 1 evens that out. The judged collection has no captions or credits; they are
# short fields like the headline and get its weight by that analogy, not by measurement.
FIELD_WEIGHTS = {"headline": 0.5, "caption": 0.5, "body": 1.0, "credit": 0.5}
# The byline's weight for bare words: a reporter's name finds their articles, below an article about that
# person (whose name stands in its headline or text). A byline is two or three words, so BM25 gives a
# word there a lot; this weight keeps it under a mention in the body (tests/test_languages.py).
BYLINE_WEIGHT = 0.2
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
_CHUNK = re.compile(r'[^\s"()]+')
# A URL: with a scheme, starting www., or a host name with a dot followed by a path ("bbc.co.uk/news/...").
_URL = re.compile(r"^(?:(?:https?|ftp)://|www\.)\S+\.\S+|^(?:[a-z0-9-]+\.)+[a-z]{2,}/\S*", re.IGNORECASE)
_FIELD = re.compile(r"^([A-Za-z_]\w*):(.*)$", re.DOTALL)
_WILD = re.compile(r"\*|\?(?=\w)")  # a wildcard: "*" anywhere, "?" inside a word (at its end, a question mark)
_URL_NOISE = {"html", "htm", "shtml", "php", "asp", "aspx", "jsp", "cfm", "stm", "index", "www"}


@dataclass(frozen=True)
class Word:
    """A bare word as typed and as the index holds it: the terms the default fields hold it as (one per
    analysis that keeps it; several when languages stem it apart), each looked for in the articles of the
    analyses that give it (a Finnish stem of an English word is no match in an English article), the form
    name fields hold it in, and the analyses in which it is a stop word (their articles need not hold it)."""

    text: str
    terms: tuple[str, ...]
    plain: str = ""
    stopped: tuple[str, ...] = ()
    # For each term, the analyses that read the word as it: the articles it is looked for in (empty: all).
    scopes: tuple[tuple[str, ...], ...] = ()
    # A stop word of one of its analyses, or of English's longer list (languages.FUNCTION_WORDS): never
    # ranked as a rare word (search/matching.py), unless typed in capitals ("WHO").
    function_word: bool = False

    @property
    def term(self) -> str:
        """The word's first term: what names it among the query's words."""
        return self.terms[0]


@dataclass(frozen=True)
class ParsedQuery:
    """A query as the searcher runs it."""

    text: str
    words: tuple[Word, ...] = ()  # bare words: all required first, relaxed to "most" when few match
    # Runs of two or more neighbouring bare words, as typed: for each run, its terms in order by each
    # analysis (distinct sequences only).
    runs: tuple[tuple[tuple[str, ...], ...], ...] = ()
    required: tuple[query.Query, ...] = ()  # phrases, field terms, +words, wildcards
    excluded: tuple[query.Query, ...] = ()
    url: Optional[str] = None  # normalised, when the query names a URL
    url_words: tuple[Word, ...] = ()  # the URL's words, searched when no article has that URL
    boolean: Optional[query.Query] = None  # the whole query, when it used AND/OR/NOT
    ignored: tuple[str, ...] = ()  # words too common to search
    notices: tuple[str, ...] = ()
    keys: tuple[str, ...] = (DEFAULT_LANGUAGE,)  # the analyses the query was read by

    @property
    def is_empty(self) -> bool:
        return not (self.words or self.required or self.url or self.boolean)

    def terms_by_field(self) -> dict[str, set[str]]:
        """field -> the index terms this query looks for (prefix patterns as `x*`), for snippets."""
        out: dict[str, set[str]] = {}
        queries = [self.boolean] if self.boolean is not None else list(self.required)
        queries += [word_query(w) for w in self.words + self.url_words]
        for q in queries:
            for fieldname, text in q.iter_all_terms(phrases=True):
                if isinstance(text, bytes):
                    text = text.decode("utf-8", "replace")
                out.setdefault(fieldname, set()).add(text)
            for leaf in q.leaves() if q.is_leaf() is False else [q]:
                if isinstance(leaf, (query.Prefix, query.Wildcard)):
                    out.setdefault(leaf.fieldname, set()).add(re.split(r"[*?]", leaf.text)[0] + "*")
        return out


def word_query(word: Word) -> query.Query:
    """One bare word: each of its terms in every default field, each with its weight, in the articles of
    the analyses that give that term; and the word in the byline. (Articles of an analysis in which it is a
    stop word need not hold it: the searcher counts them as holding it beside a word they do hold,
    search/query.py.)"""
    parts: list[query.Query] = []
    for n, term in enumerate(word.terms):
        fields = [query.Term(f, term, boost=FIELD_WEIGHTS[f]) for f in DEFAULT_FIELDS]
        parts.append(scoped(query.Or(fields), word.scopes[n] if n < len(word.scopes) else ()))
    if word.plain:
        parts.append(query.Term("byline", word.plain, boost=BYLINE_WEIGHT))
    return query.Or(parts)


def scoped(q: query.Query, keys: tuple[str, ...]) -> query.Query:
    """`q` among the articles of the analyses `keys` only (scored by `q` alone); `q` itself for no keys."""
    return query.Require(q, analyses_query(keys)) if keys else q


def analyses_query(keys: tuple[str, ...]) -> query.Query:
    """Every article indexed with one of the analyses `keys`."""
    return query.Or([query.Term("analysis", key) for key in keys])


def term_query(term: str) -> query.Query:
    """One index term (already analysed) searched in every default field, each with its weight."""
    return query.Or([query.Term(f, term, boost=FIELD_WEIGHTS[f]) for f in DEFAULT_FIELDS])


def analyse(text: str, fieldname: str = "body", key: str = DEFAULT_LANGUAGE) -> list[str]:
    """The index terms of `text` in a field, by the analysis `key` ("Refugees of Kobani" -> ["refuge",
    "kobani"] in the body of an English article)."""
    if fieldname in NAME_FIELDS:
        return [fold(word.lower()) for word, _, _ in split_words(text)]
    return analysed_terms(text, key)


def analysed_terms(text: str, key: str = DEFAULT_LANGUAGE) -> list[str]:
    """Every index term of `text` as the default fields hold it in an article of analysis `key`, in order."""
    term = term_function(key)
    found = (term(word.lower()) for word in tokens(text, analysis(key).bigrams))
    return [t for t in found if t is not None]


def term_counts(text: str, key: str = DEFAULT_LANGUAGE) -> Counter:
    """How often each index term of `text` occurs (as analysed_terms gives them, in order of first
    occurrence), each distinct word analysed once."""
    term = term_function(key)
    counts: Counter = Counter()
    for word, count in word_counts(text, analysis(key).bigrams).items():
        found = term(word)
        if found is not None:
            counts[found] += count
    return counts


@lru_cache(maxsize=4096)
def parse_query(text: str, keys: tuple[str, ...] = (DEFAULT_LANGUAGE,)) -> ParsedQuery:
    """Read what a user typed (never raises for any text), by the analyses `keys` (those of the archive's
    articles, in a fixed order)."""
    return _Parser(text, keys or (DEFAULT_LANGUAGE,)).parse()


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
class _Lexer:
    """Cuts what was typed into chunks (words, phrases, field clauses, URLs, with their signs) and operators;
    what it reads differently from how it was typed goes into `notices`."""

    notices: list[str]

    def lex(self, text: str) -> list[_Token]:
        """The query's chunks and operators, in order."""
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
                # A sign stands at the start of a word; a hyphen after a bracket joins ("(BTC)-Futures").
                after_bracket = pos - len(piece) > 0 and text[pos - len(piece) - 1] == ")"
                if piece[0] in "+-" and len(piece) > 1 and piece[1] not in "+-" and not after_bracket:
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


@dataclass
class _Reading:
    """How a query's words become index terms: by each of the analyses `keys` (search/languages.py), each
    reading looked for among its own analysis's articles; a text of stop words alone is noted in
    `ignored`."""

    keys: tuple[str, ...]
    ignored: list[str]

    @property
    def folds(self) -> bool:
        return LEGACY not in self.keys

    def lowers(self, text: str) -> list[str]:
        """The words of `text` as the tokenizer cuts them, lower-cased."""
        return [word.lower() for word, _, _ in split_words(text, self.folds)]

    def plain(self, lower: str) -> str:
        return fold(lower) if self.folds else lower

    def words(self, text: str, note_ignored: bool = True) -> list[Word]:
        """The bare words of `text`, each as typed with its terms; a text of stop words alone is noted as
        ignored."""
        found = []
        for typed, _, _ in split_words(text, self.folds):
            lower = typed.lower()
            by_key = {key: analysis(key).term(lower) for key in self.keys}
            scopes = self.scopes(by_key)
            if scopes:
                stopped = tuple(k for k, t in by_key.items() if t is None)
                function = bool(stopped) or any(lower in analysis(k).function_words for k in by_key)
                found.append(Word(typed, tuple(scopes), self.plain(lower), stopped, tuple(scopes.values()), function))
        if not found and note_ignored and re.search(r"\w", text):
            self.ignored.append(text)
        return found

    def scopes(self, by_key: dict) -> dict:
        """Each distinct reading (a term, or a sequence of terms) of the analyses' readings `by_key` (None
        where one drops it), with the analyses giving it: () when all of them do."""
        scopes: dict = {}
        for key, reading in by_key.items():
            if reading:
                scopes.setdefault(reading, []).append(key)
        return {r: () if len(keys) == len(self.keys) else tuple(keys) for r, keys in scopes.items()}

    def sequences(self, lowers: list[str]) -> dict[tuple[str, ...], tuple[str, ...]]:
        """The distinct term sequences of words by each analysis (stop words left out), each with the
        analyses giving it (() when all do)."""
        by_key = {}
        for key in self.keys:
            term = analysis(key).term
            by_key[key] = tuple(t for t in (term(lower) for lower in lowers) if t is not None)
        return self.scopes(by_key)

    def stemmed_query(self, text: str, fields: list[str], weighted: bool) -> Optional[query.Query]:
        """`text` as a phrase (a term when one word) in each of `fields`, by each analysis among its own
        articles; None when it has no word any analysis keeps."""
        sequences = self.sequences(self.lowers(text))
        if not sequences:
            if re.search(r"\w", text):
                self.ignored.append(text)
            return None
        parts = []
        for sequence, keys in sequences.items():
            alternatives = []
            for f in fields:
                boost = FIELD_WEIGHTS[f] if weighted else 1.0
                if len(sequence) == 1:
                    alternatives.append(query.Term(f, sequence[0], boost=boost))
                else:
                    alternatives.append(query.Phrase(f, list(sequence), boost=boost))
            parts.append(scoped(alternatives[0] if len(alternatives) == 1 else query.Or(alternatives), keys))
        return parts[0] if len(parts) == 1 else query.Or(parts)


@dataclass
class _Parser:
    text: str
    keys: tuple[str, ...] = (DEFAULT_LANGUAGE,)
    notices: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.lexer = _Lexer(self.notices)
        self.reading = _Reading(self.keys, self.ignored)

    def parse(self) -> ParsedQuery:
        tokens = self.lexer.lex(self.text)
        if any(isinstance(t, _Op) and t.name in ("AND", "OR", "NOT") for t in tokens):
            return self._parse_boolean(tokens)
        return self._parse_plain([t for t in tokens if isinstance(t, _Chunk)])

    # -- building queries ----------------------------------------------------------------------------

    def _wildcard(self, chunk: _Chunk, fieldname: Optional[str]) -> Optional[query.Query]:
        """A query for a chunk holding * or ?, or None when it is read as a plain word instead."""
        pattern = self.reading.plain(chunk.text.lower().strip(".,;:!?"))
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
            if fieldname is None and re.search(r"\w\*\w", pattern):
                # A star inside a word is also the word as written: German's gender star ("Kund*innen").
                literal = _and([word_query(w) for w in self.reading.words(chunk.text, note_ignored=False)])
                parts += [literal] if literal is not None else []
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
        text = chunk.text.replace("*", " ").replace("?", " ")
        if name not in NAME_FIELDS:
            return self.reading.stemmed_query(text, [name], weighted=False)
        terms = [self.reading.plain(lower) for lower in self.reading.lowers(text)]
        if not terms:
            self.ignored.append(chunk.text)
            return None
        if len(terms) == 1:
            return query.Term(name, terms[0])
        return query.Phrase(name, terms)

    def _phrase_query(self, text: str) -> Optional[query.Query]:
        words = self.reading.words(text) if len(self.reading.lowers(text)) == 1 else None
        if words:
            return word_query(words[0])
        if words is not None:
            return None
        return self.reading.stemmed_query(text, list(DEFAULT_FIELDS), weighted=True)

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
        words = self.reading.words(chunk.text.replace("*", " ").replace("?", " "))
        return _and([word_query(w) for w in words])

    # -- plain queries (no operators) ------------------------------------------------------------------

    def _parse_plain(self, chunks: list[_Chunk]) -> ParsedQuery:
        words: dict[str, Word] = {}
        runs: list[list[str]] = [[]]  # runs of neighbouring bare words, as typed (lower-cased)
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
                for word in self.reading.words(chunk.text):
                    words.setdefault(word.term, word)
                runs[-1].extend(self.reading.lowers(chunk.text))
                continue
            runs.append([])  # anything but a bare word breaks a run
        runs_of_two = tuple(
            alternatives
            for run in runs
            if (alternatives := tuple(seq for seq in self.reading.sequences(run) if len(seq) >= 2))
        )
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
            self.keys,
        )

    def _url_words(self, text: str) -> list[Word]:
        path = re.sub(r"^(?:(?:https?|ftp)://)?[^/]*", "", text, flags=re.IGNORECASE)
        pieces = [p for p in re.split(r"[^A-Za-z]+", path) if len(p) > 1 and p.lower() not in _URL_NOISE]
        out: dict[str, Word] = {}
        for piece in pieces:
            for word in self.reading.words(piece, note_ignored=False):
                out.setdefault(word.term, word)
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
            return ParsedQuery(self.text, ignored=tuple(self.ignored), notices=tuple(self.notices), keys=self.keys)
        return ParsedQuery(
            self.text,
            boolean=tree,
            ignored=tuple(self.ignored),
            notices=tuple(dict.fromkeys(self.notices)),
            keys=self.keys,
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
