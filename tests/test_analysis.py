"""The one-pass analyzer yields exactly what Whoosh's own analyzer chains yield."""

import pickle
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st
from whoosh.analysis import StandardAnalyzer, StemmingAnalyzer
from whoosh.formats import Positions

from search.analysis import FastPositions, NewsAnalyzer, word_counts
from search.analysis import tokens as split_tokens

TEXTS = [
    "The Islamic State group has acknowledged for the first time that its fighters have been defeated.",
    "U.S.-led coalition strikes; Kobani's 35,000 refugees — in Suruç, Turkey (AP Photo/Emrah Gurel) kob* te?t",
    "A an the of to be: X Y Z 1 22 333 a.b.c e.g. don't won't 3.5% $20 bn £600m",
    "Müller told Reuters: «Ça va» — 東京 Ελλάδα Привет мир",
    "",
]


def tokens(analyzer, text, **kwargs):
    return [
        (
            t.text,
            getattr(t, "pos", None),
            getattr(t, "startchar", None),
            getattr(t, "endchar", None),
            t.stopped,
            t.boost,
        )
        for t in analyzer(text, **kwargs)
    ]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"positions": True},
        {"positions": True, "chars": True},
        {"removestops": False, "positions": True, "mode": "query"},
        {"no_morph": True, "positions": True},
    ],
)
def test_same_tokens_as_whoosh(text, kwargs):
    assert tokens(NewsAnalyzer(), text, **kwargs) == tokens(StemmingAnalyzer(), text, **kwargs)
    plain = NewsAnalyzer(stoplist=None, stemming=False)
    assert tokens(plain, text, **kwargs) == tokens(StandardAnalyzer(stoplist=None), text, **kwargs)


def test_it_pickles_with_the_schema():

    analyzer = pickle.loads(pickle.dumps(NewsAnalyzer()))
    assert [t.text for t in analyzer("refugees fled")] == [t.text for t in StemmingAnalyzer()("refugees fled")]
    assert analyzer == NewsAnalyzer() and analyzer.has_morph()


@pytest.mark.parametrize("text", TEXTS)
def test_indexed_postings_are_the_same_as_whoosh_positions(text):

    for analyzer, reference in (
        (NewsAnalyzer(), StemmingAnalyzer()),
        (NewsAnalyzer(stoplist=None, stemming=False), StandardAnalyzer(stoplist=None)),
    ):
        ours = sorted(FastPositions(field_boost=3.0).word_values(text, analyzer))
        theirs = sorted(Positions(field_boost=3.0).word_values(text, reference))
        assert ours == theirs


@given(st.text(alphabet=st.characters(max_codepoint=0x7F)) | st.text())
def test_word_counts_are_the_lower_cased_tokens_counted_in_order(text):
    """Relevance feedback counts an article's words in one C pass when the text is ASCII: the same words, the
    same counts, in the same order as lower-casing each token."""
    expected = Counter(word.lower() for word in split_tokens(text))
    found = word_counts(text)
    assert found == expected and list(found) == list(expected)
