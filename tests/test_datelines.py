"""Datelines of every wire era and agency, on 390+ first paragraphs that open with one and 340+ that do not
(tests/data/datelines.py); the real-corpus rates are in test_corpus.py and BENCHMARKS.md."""

from ingest.enrich import enrich, find_dateline
from ingest.records import ArticleData

from .data.datelines import dateline_paragraphs, ordinary_paragraphs


def test_the_sets_are_big_enough_to_mean_something():
    assert len(dateline_paragraphs()) >= 300 and len(ordinary_paragraphs()) >= 300


def test_at_least_97_percent_of_datelines_are_read_whole():
    wrong = []
    cases = dateline_paragraphs()
    for paragraph, expected in cases:
        found = find_dateline(paragraph)
        got = (found.place, found.agency, found.date_text) if found else None
        if got != expected:
            wrong.append(f"{paragraph[:70]!r}: {got} instead of {expected}")
    assert len(wrong) <= 0.03 * len(cases), "\n".join(wrong)


def test_at_least_97_percent_of_ordinary_first_paragraphs_give_none():
    cases = ordinary_paragraphs()
    wrong = [f"{p!r}: {find_dateline(p)}" for p in cases if find_dateline(p) is not None]
    assert len(wrong) <= 0.03 * len(cases), "\n".join(wrong)


def test_the_agency_of_a_dateline_is_the_source_under_one_name():
    for paragraph, source in [
        ("(Reuters) - Enron's former chief was sentenced to 24 years.", "Reuters"),
        ("NEW YORK, Oct 20 (Reuter) - Stocks rose.", "Reuters"),
        ("CHICAGO, Jan. 5 (UPI) -- The city council met.", "United Press International"),
        ("PARIS (AFP) - France said on Monday it would act.", "Agence France-Presse"),
        ("(Adds quotes) By Emily Kaiser CHICAGO, Oct 23 (Reuters) - Wal-Mart said.", "Reuters"),
    ]:
        article = enrich(ArticleData(headline="A headline", paragraphs=[paragraph]))
        assert article.source == source, paragraph


def test_a_dated_dateline_without_agency_gives_the_place_and_an_inferred_date():
    article = enrich(ArticleData(headline="Floods", paragraphs=["RIO DE JANEIRO, Brazil, April 2, 1988 - Floods hit."]))
    assert article.dateline == "RIO DE JANEIRO, Brazil" and article.source is None
    assert str(article.published) == "1988-04-02" and article.date_inferred is True
    assert [p.name for p in article.places][:2] == ["Rio de Janeiro", "Brazil"]
