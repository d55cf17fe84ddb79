"""Corrections of misspelt words: close words of the archive's vocabulary, offered or answered (ArchiveSearcher's
job, search/query.py; step 5 of how a query is answered)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Optional

import numpy as np
from rapidfuzz import process
from rapidfuzz.distance import DamerauLevenshtein

from .languages import DEFAULT_LANGUAGE, LEGACY, analysis, analysis_key
from .matching import EMPTY
from .parse import ParsedQuery, Word, parse_query, word_query
from .schema import DEFAULT_FIELDS
from .timing import timed

# Close words weighed for a correction, at each edit distance: the most frequent in the spelling vocabulary.
SUGGEST_CANDIDATES = 8
# Corrections are looked for only for words this rare: at most this many articles, or this share of them.
SUGGEST_RARE_DOCS = 3
SUGGEST_RARE_SHARE = 0.0001
# A correction is answered automatically only when its word is held by this many times as many articles as
# any other word as close to what was typed. Chosen on the development half of bench/languages.py's
# misspellings: at 3, 5, 10 and 20, 9, 7, 6 and 2 of 195 were answered with another word than meant, while
# 174, 170, 167 and 163 were answered automatically (BENCHMARKS.md).
CERTAIN_RATIO = 20
# A word is a name in the archive when at least this share of the articles holding it write it as one
# (capitalised inside a sentence, or as a writer's, photographer's or place's name).
NAME_SHARE = 0.5

MAX_LANGUAGES = 1000  # more than there are language tags


class Corrections:
    """ArchiveSearcher's corrections and the word counts they weigh."""

    @timed("corrections")
    def suggest(
        self, parsed: ParsedQuery, filters: dict[str, np.ndarray], typed_all: Optional[int] = None
    ) -> tuple[Optional[str], int, bool]:
        """(a corrected query text, how many articles it finds with every word, whether the correction is
        near-certain), or (None, 0, False).

        Candidates are bare words of three or more letters with no digits (never stop words, numbers or
        URLs) that the archive holds in at most SUGGEST_RARE_DOCS articles (or SUGGEST_RARE_SHARE of it),
        or more when no headline or caption writes the word itself (it is held only by a word of its stem,
        as "migrantion" is by "migrant"). A word the archive holds (in any spelling: "Meheut" for
        "Méheut") is kept as typed when it was typed capitalised or the archive writes it as a name; one
        that headlines or captions write is never replaced by a word its articles' languages do not use
        ("gouvernement" in a French article is not a misspelt "government"). A word
        is replaced by the close word of the headline and caption vocabulary (one edit first; two for
        words of more than five letters when none is one edit away) that the most articles hold, when that
        is more than three times as many as hold the typed word; a word typed capitalised only by a name.
        The corrected query is kept only when it finds at least twice as many articles as the typed one,
        plus one. It is near-certain when every word it replaces was typed in lower case, is in no article
        and is one edit from its replacement, which CERTAIN_RATIO times as many articles hold as any other
        word one edit away.
        """
        if parsed.boolean is not None or not parsed.words:
            return None, 0, False
        spell_fields = [f for f in ("spell_headline", "spell_caption") if f in self.schema]
        replacements: dict[str, str] = {}
        certain = True
        rare = max(SUGGEST_RARE_DOCS, self.view.all_docs().size * SUGGEST_RARE_SHARE)
        shouting = parsed.text.isupper()  # a pasted all-caps headline: capitals say nothing of names
        for word in parsed.words:
            typed = word.text.lower()
            if len(typed) < 3 or not typed.isalpha():
                continue
            capitalised = word.text[:1].isupper() and not shouting
            own = self._holders(word).size
            written = any((f, word.plain) in self.searcher.reader() for f in spell_fields)
            if own and (capitalised or self._is_name(word.plain, own) or (own > rare and written)):
                continue  # a name the archive holds, or a word it writes this often, is meant as typed
            choice = self._best_correction(word, own, capitalised, written, parsed.keys, spell_fields)
            if choice is not None:
                best, distance, freq, runner_up = choice
                replacements[word.text] = best.capitalize() if capitalised else best
                # Near-certain: typed in lower case, in no article, one edit away, and no other word as far
                # away is nearly as common ("spiek": "spiel" or "spike"?).
                clear = runner_up * CERTAIN_RATIO <= freq
                certain = certain and not capitalised and not own and distance == 1 and clear
        if not replacements:
            return None, 0, False
        corrected = parsed.text
        for typed, better in replacements.items():
            corrected = re.sub(rf"(?<!\w){re.escape(typed)}(?!\w)", better, corrected)
        if corrected == parsed.text:
            return None, 0, False
        if typed_all is None:  # how many the typed words find together (known when the search just matched them)
            typed_all = self.count_all_words(parsed, filters)
        corrected_all = self.count_all_words(parse_query(corrected, parsed.keys), filters)
        if corrected_all >= 2 * typed_all + 1:
            return corrected, corrected_all, certain
        return None, 0, False

    def _best_correction(
        self, word: Word, own: int, capitalised: bool, written: bool, keys: tuple[str, ...], spell_fields: list[str]
    ) -> Optional[tuple[str, int, int, int]]:
        """(the close word held by the most articles, its edit distance, how many hold it, how many hold
        the next best other word at that distance) for `word`, held by `own` articles and `written` in the
        headline and caption vocabulary or not; None when no close word qualifies (see `suggest`).

        Close words: the vocabulary's words within one edit (two for words of more than five letters, as
        Elasticsearch's AUTO fuzziness: a short word two edits away is another word, "suruc" not "sure") by
        Damerau-Levenshtein distance (a swap of neighbouring letters is one edit), the first letter
        included, found by rapidfuzz over the whole vocabulary in C; the SUGGEST_CANDIDATES most frequent
        of each distance are weighed."""
        reader = self.searcher.reader()
        by_length = self.view.view.vocabulary_by_length(self.view.leaves(), tuple(spell_fields))
        limit = 1 if len(word.plain) <= 5 else 2
        close = []
        for length in range(len(word.plain) - limit, len(word.plain) + limit + 1):  # farther lengths are farther
            close += process.extract(
                word.plain,
                by_length.get(length, ()),
                scorer=DamerauLevenshtein.distance,
                score_cutoff=limit,
                limit=None,
            )
        for distance in range(1, limit + 1):
            candidates = [c for c, d, _ in close if d == distance]
            candidates.sort(key=lambda c: (-max(reader.frequency(f, c) for f in spell_fields), c))
            found: dict[str, int] = {}
            for candidate in candidates[:SUGGEST_CANDIDATES]:
                words = parse_query(candidate, keys).words
                held = self._holders(words[0]) if len(words) == 1 else EMPTY
                if held.size <= 3 * own:
                    continue
                if self._same_word(word.plain, candidate, self._languages_of(held).most_common(1)[0][0]):
                    continue
                if capitalised and not self._is_name(candidate, held.size):
                    continue  # a name is never replaced by a common word
                if written and own and not self._same_languages(word, held):
                    continue  # a word of another language is not a misspelling of this one
                found[candidate] = held.size
            if found:
                ranked = sorted(found.items(), key=lambda item: (-item[1], item[0]))
                return ranked[0][0], distance, ranked[0][1], ranked[1][1] if len(ranked) > 1 else 0
        return None

    @staticmethod
    def _same_word(typed: str, candidate: str, key: str) -> bool:
        """Whether the analysis `key` (that of most articles holding the candidate) reads two (folded)
        words as one term ("refugees", "refugee"): then the candidate is no correction. German reads
        "awesoem" as "awesome" (both "awesom"), English does not: the English articles holding "awesome"
        decide."""
        term = analysis(key).term
        found = term(typed)
        return found is not None and found == term(candidate)

    def _holders(self, word: Word) -> np.ndarray:
        """The articles holding a word (by the analyses of their own languages, or in their bylines) that this
        request may see: a word only hidden articles hold is neither kept as a name nor offered."""
        ids = self._evaluate(word_query(word))[0]
        return ids if self._visible is None else ids[self._visible[ids]]

    def _is_name(self, folded: str, holders: int) -> bool:
        """Whether the archive writes a (folded) word as a name in at least NAME_SHARE of the `holders`
        articles holding it."""
        if self.legacy or not holders:
            return False
        return self._doc_frequency(self.searcher.reader(), folded, ("name",)) >= NAME_SHARE * holders

    def _same_languages(self, word: Word, candidate_holders: np.ndarray) -> bool:
        """Whether articles of a language that the articles holding `word` are in hold the candidate."""
        ids = self._holders(word)
        if not ids.size:
            return True
        return bool(self._languages_of(ids).keys() & self._languages_of(candidate_holders).keys())

    def _languages_of(self, ids: np.ndarray) -> Counter:
        """How many of the articles `ids` each analysis indexed (at least one key, however few `ids`)."""
        if self.legacy:
            return Counter({LEGACY: max(1, ids.size)})
        counts = self.view.facet_counts("language", ids, MAX_LANGUAGES) if ids.size else []
        keys: Counter = Counter()
        for item in counts:
            keys[analysis_key(item["value"])] += item["count"]
        unknown = ids.size - sum(item["count"] for item in counts)
        if unknown or not keys:
            keys[DEFAULT_LANGUAGE] += max(1, unknown)  # articles of no known language are read as English
        return keys

    def _doc_frequency(self, reader, term: str, fields: tuple[str, ...] = DEFAULT_FIELDS) -> int:
        """In how many articles one of `fields` holds `term`, at most (the largest field's count)."""
        key = (fields[0] if len(fields) == 1 else "", term)
        found = self._frequencies.get(key)
        if found is None:
            # Live documents only (search/columns.py): the same however the segments were merged.
            frequency = getattr(self.searcher, "live_frequency", reader.doc_frequency)
            found = self._frequencies[key] = max(frequency(f, term) for f in fields)
        return found
