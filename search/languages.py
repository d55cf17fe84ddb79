"""Languages: one form for language tags, accent folding, and each language's analysis (stop words, stemmer).

- `language_tag` is the one place a language tag from a file, a page, a feed, a folder default or the
  detector is normalised: BCP 47 through `langcodes` ("pt_BR", "pt-br", "por" all give "pt"; "iw" gives
  "he"), cut to its language subtag, which is what the language facet and filter hold.
- `fold` takes the accents off Latin letters and spells the letters that have no accent to take off
  ("ø", "ł", "đ", "ß", "æ", "œ", "ı", "þ") in ASCII, through `anyascii`; other scripts (Cyrillic, Greek,
  Arabic, Han, ...) are left as they are, so each keeps its own stemmer and nothing is transliterated
  into another language's words.
- `Analysis` is how one language's words become index terms: lower-cased, that language's stop words
  dropped, folded, then stemmed by that language's Snowball stemmer (PyStemmer, the C implementation)
  when there is one, and folded again (the Turkish stemmer writes "suruc" as "suruç"). Folding comes
  before stemming, as PostgreSQL's `unaccent` comes before its stemmers, so a word and its unaccented
  spelling always give the same term ("Québec" and "Quebec", "Suruç" and "Suruc"). The price: a suffix
  that a stemmer knows only with its accent is not taken off (Portuguese "eleição" and "eleições" stay
  two terms), while one written the same either way is ("élections" and "élection" are one). English
  keeps the original Porter stemmer and Whoosh's short English stop list, as the archive always had.
  A language without a stemmer is folded and lower-cased, not stemmed.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional

import langcodes
import Stemmer
from anyascii import anyascii
from whoosh.analysis import STOP_WORDS
from whoosh.lang.porter import stem as porter_stem
from whoosh.lang.stopwords import stoplists

# Snowball stemmers (PyStemmer's algorithm names) by ISO 639-1 code.
SNOWBALL = {
    "ar": "arabic", "ca": "catalan", "cs": "czech", "da": "danish", "de": "german", "el": "greek",
    "eo": "esperanto", "es": "spanish", "et": "estonian", "eu": "basque", "fa": "persian", "fi": "finnish",
    "fr": "french", "ga": "irish", "hi": "hindi", "hu": "hungarian", "hy": "armenian", "id": "indonesian",
    "it": "italian", "lt": "lithuanian", "nb": "norwegian", "ne": "nepali", "nl": "dutch", "nn": "norwegian",
    "no": "norwegian", "pl": "polish", "pt": "portuguese", "ro": "romanian", "ru": "russian", "sr": "serbian",
    "sv": "swedish", "ta": "tamil", "tr": "turkish", "yi": "yiddish",
}  # fmt: skip
# Norwegian's written forms share one stemmer and one stop list.
_SAME_ANALYSIS = {"nb": "no", "nn": "no"}
DEFAULT_LANGUAGE = "en"  # how an article whose language is unknown (too short or mixed to tell) is analysed
PLAIN = "plain"  # the analysis of a language with no stemmer: folded and lower-cased only
LEGACY = "legacy"  # the one analysis of an index built before languages were analysed apart (schema 5)
MIN_WORD_CHARS = 2  # shorter words (but a Han, kana or Hangul character) are not indexed by stemmed fields


def language_tag(value: object) -> Optional[str]:
    """A language tag in its one stored form, the language subtag of BCP 47 ("pt-BR" -> "pt", "en_US" ->
    "en", "iw" -> "he", "eng" -> "en"); None for anything that is not a language tag ("und", "", "English")."""
    if not isinstance(value, str):
        return None
    text = value.strip().replace("_", "-")
    if not text or len(text) > 35:
        return None
    try:
        language = langcodes.Language.get(langcodes.standardize_tag(text, macro=True)).language
    except (ValueError, LookupError):
        return None
    if not language or language in ("und", "zxx", "mul", "mis") or not language.isalpha():
        return None
    return language.lower()


def analysis_key(language: Optional[str]) -> str:
    """The analysis an article in `language` (a stored tag, or None) is indexed with: its own language's
    when it has a stemmer, PLAIN when it has none, English when the language is unknown."""
    tag = language_tag(language) if language else None
    if tag is None:
        return DEFAULT_LANGUAGE
    tag = _SAME_ANALYSIS.get(tag, tag)
    return tag if tag == "en" or tag in SNOWBALL else PLAIN


# -- folding -------------------------------------------------------------------------------------------


class _FoldTable(dict):
    """str.translate's table, filled on first sight of each character: a Latin letter (by its Unicode
    name) becomes anyascii's ASCII spelling in lower case, a combining accent is dropped, anything else
    stays (None from __missing__ would delete it, so the character itself is returned)."""

    def __missing__(self, code: int) -> str:
        char = chr(code)
        if 0x300 <= code <= 0x36F:  # combining diacritical marks, left over where no precomposed letter exists
            folded = ""
        elif "LATIN" in unicodedata.name(char, ""):
            folded = anyascii(char).lower() or char
        else:
            folded = char
        self[code] = folded
        return folded


_FOLD = _FoldTable()


def fold(text: str) -> str:
    """`text` with its Latin letters' accents taken off ("Québec" -> "Quebec", "Łódź" -> "Lodz", "ß" ->
    "ss"; Latin letters come out in lower case); other scripts unchanged."""
    return text if text.isascii() else text.translate(_FOLD)


# -- analyses ------------------------------------------------------------------------------------------

_local = threading.local()


def _snowball(algorithm: str) -> Callable[[str], str]:
    """A stem function for one Snowball algorithm. PyStemmer's objects are not thread-safe: each thread
    gets its own, behind one shared cache."""

    def stem(word: str) -> str:
        stemmers = getattr(_local, "stemmers", None)
        if stemmers is None:
            stemmers = _local.stemmers = {}
        stemmer = stemmers.get(algorithm)
        if stemmer is None:
            stemmer = stemmers[algorithm] = Stemmer.Stemmer(algorithm)
        return stemmer.stemWord(word)

    return lru_cache(maxsize=100_000)(stem)


@dataclass(frozen=True, eq=False)
class Analysis:
    """How one language's words become index terms (see the module's docstring)."""

    key: str
    stoplist: frozenset[str]
    stem: Optional[Callable[[str], str]]
    folds: bool = True  # False only for LEGACY
    bigrams: bool = True  # Han, kana and Hangul runs indexed as overlapping pairs (False only for LEGACY)
    # Words the index keeps that are a language's function words all the same (see FUNCTION_WORDS).
    function_words: frozenset[str] = frozenset()

    def keeps(self, lower: str) -> bool:
        """Whether a lower-cased word is indexed: not a stop word, and not too short."""
        return lower not in self.stoplist and (len(lower) >= MIN_WORD_CHARS or _is_cjk(lower))

    def term(self, lower: str) -> Optional[str]:
        """The term a lower-cased word becomes, or None for a stop word or a word too short to index."""
        if lower in self.stoplist or (len(lower) < MIN_WORD_CHARS and not _is_cjk(lower)):
            return None
        if self.folds and not lower.isascii():
            lower = lower.translate(_FOLD)
        if self.stem is None:
            return lower
        stemmed = self.stem(lower)
        # A stemmer may write a letter back ("suruc" -> "suruç" in Turkish): the term is folded again.
        return stemmed.translate(_FOLD) if self.folds and not stemmed.isascii() else stemmed


# English keeps Whoosh's short stop list in the index (phrases such as "what happened" stay searchable, and
# indexes built before languages existed stay valid); the rest of the Snowball stop list every other
# language's index drops ("what", "who", "did", "how", "was") are its function words all the same: a
# question's "who" is never the rare word it asks about, even in an archive where few articles hold it.
FUNCTION_WORDS = frozenset(stoplists.get("en", ())) - frozenset(STOP_WORDS)


@lru_cache(maxsize=None)
def analysis(key: str) -> Analysis:
    """The analysis named by `key` (an analysis_key, PLAIN or LEGACY)."""
    if key == LEGACY:
        return Analysis(LEGACY, frozenset(STOP_WORDS), lru_cache(maxsize=100_000)(porter_stem), False, False)
    if key == "en":
        return Analysis(
            "en", frozenset(STOP_WORDS), lru_cache(maxsize=100_000)(porter_stem), function_words=FUNCTION_WORDS
        )
    if key in SNOWBALL:
        return Analysis(key, frozenset(stoplists.get(key, ())), _snowball(SNOWBALL[key]))
    return Analysis(PLAIN, frozenset(), None)


@lru_cache(maxsize=None)
def term_function(key: str) -> Callable[[str], Optional[str]]:
    """`analysis(key).term` behind a cache of 200,000 words: the hot path of indexing and of reading
    articles' text (relevance feedback, related articles)."""
    return lru_cache(maxsize=200_000)(analysis(key).term)


# Han, Hiragana, Katakana and Hangul, as is_cjk_char tells them apart, for a whole text at once.
CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002fa1f]")


def _is_cjk(text: str) -> bool:
    return CJK.search(text) is not None


def is_cjk_char(char: str) -> bool:
    """Han, Hiragana, Katakana or Hangul: scripts written without spaces between words (Korean with them,
    but its words are long runs), indexed as overlapping pairs of characters."""
    code = ord(char)
    return (
        0x3040 <= code <= 0x30FF  # Hiragana, Katakana
        or 0x3400 <= code <= 0x4DBF  # Han extension A
        or 0x4E00 <= code <= 0x9FFF  # Han
        or 0xAC00 <= code <= 0xD7AF  # Hangul syllables
        or 0xF900 <= code <= 0xFAFF  # Han compatibility
        or 0x20000 <= code <= 0x2FA1F  # Han extensions B-F
    )
