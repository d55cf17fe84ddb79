"""Matching a parsed query against the index (ArchiveSearcher's first job, search/query.py): every bare
word ("all"), else most of them, ranked by how many they match, by the typed words in a row, by how an
article writes them (accents as typed first), then BM25F; the masks of facet filters, dates and who may
see what."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
from whoosh import query

from .languages import fold
from .parse import ParsedQuery, Word, analyses_query, word_query
from .request import SearchRequest
from .schema import FACETS, day_number
from .timing import timed

# In a relaxed ("most") answer, articles are ranked by how many of the words they match, then by BM25F.
# Words found in more than this share of the archive's articles are left out of that count (they still
# score): a question's "what", "did" or "said" should not lift an article above one that holds its rarer,
# telling words. Chosen on the judged development questions (bench/relevance.py --tune; BENCHMARKS.md).
TIER_MAX_SHARE = 0.0
# A typed name that at most this many articles hold (fewer than a page: "Suruc", "Jalalabad") is what a
# question asks about: in a relaxed answer, the articles holding the rarest such name come first, then those
# holding the next rarest, before the order by score. A question's common words ("what is happening",
# "latest news about") otherwise outscore a name that stands once in a long caption. A name: a word that at
# least NAME_SHARE of the articles holding it write capitalised inside a sentence, or (TYPED_NAMES) that was
# typed capitalised after the query's first word; never a function word ("who", "is") unless typed in
# capitals ("WHO"). Rare words that are no names ("digitise", "unreleased") do not count: in a long question
# they are often words the relevant articles put otherwise.
RARE_HOLDERS = 10
NAME_SHARE = 0.5
TYPED_NAMES = True
# In a relaxed answer, the articles that hold every word (fewer than a page of them) come first.
ALL_WORDS_FIRST = True
# Articles holding the typed words in a row come before the rest (a pasted headline or sentence finds its
# article): checked with Whoosh's phrase matching among this many of the best articles holding every word.
PHRASE_CHECK_DOCS = 100
PHRASE_FIELDS = ("headline", "body", "caption")
EMPTY = np.empty(0, dtype=np.int64)
ACCESS = "access"  # the filter of the documents a request may see (not a facet's name)
MATCH_ALL = "all"  # every bare word (and every required part) matched
MATCH_MOST = "most"  # relaxed: articles matching more of the words first
MATCH_URL = "url"  # the article stored with the URL in the query
MATCH_LIST = "list"  # no words to look for: the archive (filtered, or with exclusions), newest first


class Visibility:
    """Which documents one reader may see (store/read.py makes them from collections and permissions).

    `key` names the set (equal keys: the same documents in every view), for the answer cache; `mask(view)`
    is True for each visible document of a View. Every answer is built under it as under a filter that no
    facet count leaves out: hits, totals, facet counts, the histogram, story version counts, relevance
    feedback, corrections and related articles see only these documents."""

    key: tuple = ()

    def mask(self, view) -> np.ndarray:  # pragma: no cover - an interface
        raise NotImplementedError


@dataclass
class _Matched:
    """Matches before filters: a document mask, scores, and (relaxed) how many words each matched."""

    mask: np.ndarray
    scores: np.ndarray
    words: Optional[np.ndarray]  # per document, matched word count (relaxed queries only)
    match: str
    phrase: Optional[np.ndarray] = None  # per document, True when it holds the typed words as a run
    spelling: Optional[np.ndarray] = None  # per document, how it writes the words typed (see _typed_spelling)
    all_words: Optional[int] = None  # how many articles match every bare word under the filters, when known


class Matching:
    """ArchiveSearcher's matching (search/query.py holds the state it reads: `view`, `searcher`, `keys`)."""

    @timed("match")
    def _match(self, parsed: ParsedQuery, filters: dict[str, np.ndarray], per_page: int, rank: bool = True) -> _Matched:
        """What `parsed` matches, relaxed to "most" when every word finds fewer than `per_page` under the
        filters; `rank` False when only the matches are counted (no phrase or spelling tiers)."""
        n = self.view.doc_count_all
        scores = np.zeros(n)
        if parsed.is_empty:
            mask = np.zeros(n, dtype=bool)
            if parsed.ignored and not parsed.excluded:  # only stop words: nothing to look for
                return _Matched(mask, scores, None, MATCH_ALL)
            mask[self.view.all_docs()] = True  # no words: list the archive, but for any exclusions ("-sport")
            if parsed.excluded:
                mask &= ~self._mask_of(_or(parsed.excluded), n)
            return _Matched(mask, scores, None, MATCH_LIST)
        if parsed.boolean is not None:
            ids, found = self._evaluate(parsed.boolean)
            mask = np.zeros(n, dtype=bool)
            mask[ids] = True
            scores[ids] = found
            return _Matched(mask, scores, None, MATCH_ALL)

        allowed = self.view.view.live.copy()  # every live document
        required = list(parsed.required)
        words = list(parsed.words)
        match = MATCH_ALL
        if parsed.url:
            url_ids, _ = self._evaluate(query.Term("url", parsed.url))
            if url_ids.size:
                required.append(query.Term("url", parsed.url))
                match = MATCH_URL
            else:
                words += [w for w in parsed.url_words if w.term not in {x.term for x in words}]
        if required:
            ids, found = self._evaluate(_and(required))
            base = np.zeros(n, dtype=bool)
            base[ids] = True
            scores[ids] += found
            allowed &= base
        if parsed.excluded:
            allowed &= ~self._mask_of(_or(parsed.excluded), n)
        if not words:
            if not required:
                return _Matched(np.zeros(n, dtype=bool), scores, None, match)
            return _Matched(allowed, scores, None, match)
        counts = np.zeros(n, dtype=np.int32)  # words matched, for "all"
        held = np.zeros(n, dtype=bool)  # holds one of the words (not only stop words of its language)
        tiers = np.zeros(n, dtype=np.int32)  # telling words matched, for ranking "most"
        spelling: Optional[np.ndarray] = None  # words written as typed, where the archive has accented spellings
        live = max(1, self.view.all_docs().size)
        rare: list[np.ndarray] = []  # the articles holding each rare word (see RARE_HOLDERS)
        for word in words:
            ids, found = self._evaluate(word_query(word))
            counts[ids] += 1
            stopped = None
            if word.stopped:  # articles of the languages it is a stop word in: they need not hold it
                stopped = np.zeros(n, dtype=bool)
                stopped[self._evaluate(analyses_query(word.stopped))[0]] = True
            held[ids if stopped is None else ids[~stopped[ids]]] = True  # and it makes none of them a hit
            scores[ids] += found * self._kept_share(word)
            typed = self._typed_spelling(word, ids) if rank else None
            if typed is not None:
                spelling = np.zeros(n, dtype=np.int32) if spelling is None else spelling
                spelling[ids] += typed
            if ids.size <= TIER_MAX_SHARE * live:
                tiers[ids] += 1
            if rank and self._rare_name(word, ids, word is not words[0]):
                rare.append(ids)
            if stopped is not None:
                stopped[ids] = False
                counts[stopped] += 1
        every = allowed & held & (counts == len(words))
        tiers = _ranked_tiers(tiers, rare, every)
        all_words = int(np.count_nonzero(every & _combined(filters, n)))
        if match == MATCH_URL or len(words) == 1:
            return _Matched(every, scores, None, match, spelling=spelling, all_words=all_words)
        # The phrase check's best articles are among those the request may see (hidden ones take no places).
        visible_every = every if self._visible is None else every & self._visible
        phrase = self._phrase_mask(parsed.runs, visible_every, scores, n) if rank else None
        if all_words >= per_page:
            return _Matched(every, scores, None, MATCH_ALL, phrase, spelling, all_words)
        return _Matched(allowed & held, scores, tiers, MATCH_MOST, phrase, spelling, all_words)

    def _rare_name(self, word: Word, ids: np.ndarray, inside: bool = False) -> bool:
        """Whether `word`, held by the articles `ids`, is a rare name (RARE_HOLDERS); `inside`: it was not
        the query's first word (then typed capitalised, it is a name as typed)."""
        if not ids.size or ids.size > RARE_HOLDERS or self.legacy:
            return False
        if word.function_word and not (word.text.isupper() and len(word.text) > 1):
            return False
        if TYPED_NAMES and inside and word.text[:1].isupper():
            return True
        names, _ = self._evaluate(query.Term("name", word.plain))
        return names.size >= NAME_SHARE * ids.size

    def _kept_share(self, word: Word) -> float:
        """The share of the archive's articles whose language does not drop the word as a stop word: what
        the word's score is worth. "the" in an archive of English articles and a few German ones tells
        little, although the German articles index it (and a rare word scores high)."""
        if not word.stopped:
            return 1.0
        if self._analysis_counts is None:
            self._analysis_counts = {key: self._evaluate(analyses_query((key,)))[0].size for key in self.keys}
        total = sum(self._analysis_counts.values()) or 1
        stopped = sum(self._analysis_counts.get(key, 0) for key in word.stopped)
        return max(0.0, 1.0 - stopped / total)

    @timed("spelling")
    def _typed_spelling(self, word: Word, ids: np.ndarray) -> Optional[np.ndarray]:
        """For the articles `ids` holding `word`, when the archive writes the word with accents somewhere
        ("quebec:québec" in the variant field): 2 where the article writes it as typed (with the accents
        typed; typed without, as a name without accents), 1 where it writes the word itself in another
        spelling, 0 where it holds only a word of the same stem ("Verrat" for "Verrater", "Verräter").
        None when the archive has no accented spelling of the word (nothing to rank apart)."""
        if self.legacy or not ids.size:
            return None
        typed = word.text.lower()
        folded = fold(typed)
        reader = self.searcher.reader()
        if folded not in self.view.view.accented(self.view.leaves()):
            return None
        variants = list(reader.expand_prefix("variant", f"{folded}:"))
        accented, _ = self._evaluate(query.Or([query.Term("variant", v) for v in variants]))
        names, _ = self._evaluate(query.Term("name", folded))
        if typed != folded:
            as_typed, _ = self._evaluate(query.Term("variant", f"{folded}:{typed}"))
        else:  # a name written without accents: written as a name, and with no accented spelling
            as_typed = names[~np.isin(names, accented, assume_unique=True)]
        itself = np.union1d(accented, names)
        out = np.isin(ids, itself, assume_unique=True).astype(np.int32)
        out[np.isin(ids, as_typed, assume_unique=True)] = 2
        return out

    @timed("phrase")
    def _phrase_mask(
        self, runs: tuple[tuple[tuple[str, ...], ...], ...], every: np.ndarray, scores: np.ndarray, n: int
    ) -> Optional[np.ndarray]:
        """Among the best PHRASE_CHECK_DOCS articles holding every word, those that hold each run of typed
        words in a row (in the headline, the body or a caption; by any analysis's terms); None when none
        does or there is no run."""
        if not runs or not every.any():
            return None
        candidates = np.flatnonzero(every)
        candidates = np.sort(candidates[self.view.top(candidates, -scores[candidates], PHRASE_CHECK_DOCS)])
        for alternatives in runs:
            held = [self.view.holding_run(run, PHRASE_FIELDS, candidates) for run in alternatives]
            candidates = np.unique(np.concatenate(held)) if len(held) > 1 else held[0]
            if not candidates.size:
                return None
        mask = np.zeros(n, dtype=bool)
        mask[candidates] = True
        return mask

    def _mask_of(self, q: query.Query, n: int) -> np.ndarray:
        ids, _ = self._evaluate(q)
        mask = np.zeros(n, dtype=bool)
        mask[ids] = True
        return mask

    @timed("filters")
    def _filter_masks(self, request: SearchRequest) -> dict[str, np.ndarray]:
        """One mask per active filter (facet name, or "date")."""
        masks = {}
        for facet in FACETS:
            values, excluded = request.filters.get(facet), request.exclude.get(facet)
            if values or excluded:
                # A facet's chosen and excluded values are one filter: its counts are taken without both.
                mask = self.view.facet_mask(facet, values) if values else np.ones(self.view.doc_count_all, bool)
                if excluded:
                    mask &= ~self.view.facet_mask(facet, excluded)
                masks[facet] = mask
        if request.after is not None:
            masks["after"] = self.view.after_article(request.after)
        if request.date_from or request.date_to:
            masks["date"] = self.view.day_mask(
                day_number(request.date_from) if request.date_from else None,
                day_number(request.date_to) if request.date_to else None,
            )
        if self._visible is not None:
            masks[ACCESS] = self._visible  # no facet's name: every count keeps it
        return masks

    def count_all_words(self, parsed: ParsedQuery, filters: dict[str, np.ndarray]) -> int:
        """How many articles match every word and required part of `parsed` under the filters."""
        # per_page 0: never relaxed; timed as part of the caller's stage (the corrections), not as matching
        matched = Matching._match.__wrapped__(self, parsed, filters, per_page=0, rank=False)
        return int(np.count_nonzero(matched.mask & _combined(filters, self.view.doc_count_all)))

    @staticmethod
    def _rank_key(ids: np.ndarray, matched: _Matched) -> np.ndarray:
        """Ascending sort key, best first: articles holding the typed words as a run, then (relaxed queries)
        by telling words matched, then by words written as typed and then written at all (where the archive
        has accented spellings of them: see _typed_spelling), then by score."""
        scores = matched.scores[ids]
        if not scores.size or (matched.words is None and matched.phrase is None and matched.spelling is None):
            return -scores
        low = scores.min()
        span = float(scores.max() - low) + 1.0
        key = scores - low
        if matched.spelling is not None:
            spelling = matched.spelling[ids].astype(np.float64)
            key = key + spelling * span
            span *= float(spelling.max()) + 1.0
        if matched.words is not None:
            tiers = matched.words[ids].astype(np.float64)
            key = key + tiers * span
            span *= float(tiers.max()) + 1.0
        if matched.phrase is not None:
            key = key + matched.phrase[ids] * span
        return -key


def _ranked_tiers(tiers: np.ndarray, rare: list[np.ndarray], every: np.ndarray) -> np.ndarray:
    """A relaxed answer's tiers: the articles holding every word (ALL_WORDS_FIRST), then the rare names'
    (_rarest_first), then the telling words' count `tiers` (TIER_MAX_SHARE)."""
    if not tiers.size:
        return tiers
    if rare:
        tiers = tiers + _rarest_first(rare, tiers.size, int(tiers.max()))
    if ALL_WORDS_FIRST:
        tiers = tiers + every.astype(np.int64) * (int(tiers.max()) + 1)  # above any other tier
    return tiers


def _rarest_first(rare: list[np.ndarray], n: int, below: int) -> np.ndarray:
    """Per document, a tier that ranks the holders of the rarest word first, then of the next rarest (words
    held by as many articles count alike, an article holding two of them above one holding one), each
    tier above every combination of commoner words' tiers and of the `below` tiers already given."""
    weights = {}
    total = below
    for size in sorted({ids.size for ids in rare}, reverse=True):  # commonest first
        weights[size] = total + 1
        total += weights[size] * sum(1 for ids in rare if ids.size == size)
    out = np.zeros(n, dtype=np.int64)
    for ids in rare:
        out[ids] += weights[ids.size]
    return out


def _holds(ids: np.ndarray, doc: int) -> bool:
    """Whether the ascending document numbers `ids` hold `doc`."""
    i = int(np.searchsorted(ids, doc))
    return i < ids.size and int(ids[i]) == doc


def _combined(masks: dict[str, np.ndarray], n: int) -> np.ndarray:
    out = np.ones(n, dtype=bool)
    for mask in masks.values():
        out &= mask
    return out


def _and(parts: list[query.Query]) -> query.Query:
    return parts[0] if len(parts) == 1 else query.And(parts)


def _or(parts) -> query.Query:
    parts = list(parts)
    return parts[0] if len(parts) == 1 else query.Or(parts)
