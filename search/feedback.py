"""Pseudo-relevance feedback (RM3) for relaxed answers, and related articles by an article's most telling
words (ArchiveSearcher's jobs, search/query.py)."""

from __future__ import annotations

from collections import Counter
from typing import Optional

import numpy as np

from .analysis import mark
from .matching import Visibility, _combined, _holds, _Matched
from .parse import ParsedQuery, term_counts, term_query, word_query
from .timing import timed

# Relaxed answers are re-ranked with pseudo-relevance feedback (RM3): the words that stand out in the
# best FEEDBACK_DOCS articles (found in at most FEEDBACK_MAX_SHARE of the archive) join the typed words,
# the typed words keeping FEEDBACK_TYPED_WEIGHT of the weight. Only the order changes: every hit still
# holds at least one typed word. Chosen on the judged development questions (BENCHMARKS.md).
FEEDBACK_DOCS = 10
FEEDBACK_TERMS = 20
FEEDBACK_TYPED_WEIGHT = 0.5
FEEDBACK_MAX_SHARE = 0.1

# Related articles: by the article's most telling words (its key terms), and sharing at least a few of them.
RELATED_TERMS = 12
RELATED_MIN_SHARED = 3


class Feedback:
    """ArchiveSearcher's relevance feedback and related articles."""

    @timed("feedback")
    def _feedback(self, parsed: ParsedQuery, matched: _Matched, filters: dict[str, np.ndarray]) -> None:
        """Re-score a relaxed answer with the typed words and the telling words of its best articles (RM3)."""
        if not FEEDBACK_DOCS:
            return
        n = self.view.doc_count_all
        candidates = np.flatnonzero(matched.mask & _combined(filters, n))
        if candidates.size < 2:
            return
        # The best by score, ties by article id: a partial sort (a relaxed answer may hold most of the archive).
        best = candidates[self.view.top(candidates, -matched.scores[candidates], FEEDBACK_DOCS)]
        texts = self.texts([self.view.doc_id(int(d)) for d in best])
        top = matched.scores[best]
        doc_weights = np.exp(top - top.max())
        model: Counter = Counter()
        for (text, language), weight in zip(texts, doc_weights, strict=False):
            terms = term_counts(text or "", self.key_of(language))
            length = sum(terms.values()) or 1
            for term, count in terms.items():
                model[term] += weight * count / length
        reader = self.searcher.reader()
        limit = FEEDBACK_MAX_SHARE * max(1, self.view.all_docs().size)
        chosen = []
        for term, value in model.most_common():
            if self._doc_frequency(reader, term) <= limit:
                chosen.append((term, value))
                if len(chosen) == FEEDBACK_TERMS:
                    break
        typed = {w.term: w for w in parsed.words}
        weights: Counter = Counter({t: FEEDBACK_TYPED_WEIGHT / len(typed) for t in typed})
        mass = sum(v for _, v in chosen) or 1.0
        for term, value in chosen:
            weights[term] += (1 - FEEDBACK_TYPED_WEIGHT) * value / mass
        scores = np.zeros(n)
        for term, weight in weights.items():
            word = typed.get(term)
            if word is not None:
                ids, found = self._evaluate(word_query(word))
                found = found * self._kept_share(word)
            else:
                ids, found = self._evaluate(term_query(term))
            scores[ids] += weight * found
        matched.scores = scores

    def more_like(
        self,
        doc_id: str,
        text: str,
        limit: int,
        language: Optional[str] = None,
        visible: Optional[Visibility] = None,
    ) -> list[tuple[str, list[str]]]:
        """The documents most like `text` (the article `doc_id` itself left out), best first, each with
        the article's key terms it shares (the reason it is related), as index terms (stems).

        The key terms are the RELATED_TERMS words of the text that best tell it apart from the rest of
        the archive (Whoosh's key terms of the body: frequent here, rare elsewhere), read by the rules of
        the article's `language` (its stop words are never key terms); articles are ranked by BM25F over
        them, and only articles sharing at least RELATED_MIN_SHARED of them are offered."""
        docnum = self.searcher.document_number(id=doc_id)
        if docnum is None or not text.strip():
            return []
        marked = text if self.legacy else mark(self.key_of(language), text)
        key_terms = [term for term, _ in self.searcher.key_terms_from_text("body", marked, numterms=RELATED_TERMS)]
        if not key_terms:
            return []
        n = self.view.doc_count_all
        scores = np.zeros(n)
        shared = np.zeros(n, dtype=np.int32)
        holders = {}
        for term in key_terms:
            ids, found = self._evaluate(term_query(term))
            scores[ids] += found
            shared[ids] += 1
            holders[term] = ids
        shared[self.view.view.story_num == self.view.story_of(docnum)] = 0  # itself and its other versions
        if visible is not None:
            shared[~visible.mask(self.view.view)] = 0
        candidates = np.flatnonzero(shared >= RELATED_MIN_SHARED)
        order = self.view.top(candidates, -(scores[candidates] + shared[candidates] * (scores.max() + 1)), limit)
        out = []
        for position in order:
            doc = int(candidates[position])
            reasons = [term for term in key_terms if _holds(holders[term], doc)]
            out.append((self.view.doc_id(doc), reasons))
        return out
