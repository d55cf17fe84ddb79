import datetime as dt

import pytest

from ingest.enrich import enrich, find_dateline
from ingest.places import find_places
from ingest.records import ArticleData, CaptionData


@pytest.mark.parametrize(
    "paragraph, place, agency, date_text",
    [
        ("BEIRUT (AP) — Syrian troops advanced on Friday.", "BEIRUT", "AP", None),
        ("ANCHORAGE, Alaska  (Reuters) - Exxon Mobil offered to pay a fine.", "ANCHORAGE, Alaska", "Reuters", None),
        ("NEW YORK, Oct 20 (Reuters) - Stocks rose.", "NEW YORK", "Reuters", "Oct 20"),
        (
            "SAN FRANCISCO/NEW YORK  (Reuters) - Analysts raced to raise targets.",
            "SAN FRANCISCO/NEW YORK",
            "Reuters",
            None,
        ),
        ("WASHINGTON, Jan. 30, 2015 (AP) — Lawmakers met.", "WASHINGTON", "AP", "Jan. 30, 2015"),
        ("WASHINGTON — The Senate voted on Tuesday.", "WASHINGTON", None, None),
    ],
)
def test_datelines(paragraph, place, agency, date_text):
    d = find_dateline(paragraph)
    assert (d.place, d.agency, d.date_text) == (place, agency, date_text)


@pytest.mark.parametrize(
    "paragraph",
    [
        "The Islamic State group has acknowledged for the first time that its fighters were defeated.",
        "NATO — the alliance — met on Friday.",  # capitals and a dash, but not a place
        "I - think so.",
    ],
)
def test_not_datelines(paragraph):
    assert find_dateline(paragraph) is None


def article(*paragraphs, captions=(), **kw):
    return enrich(
        ArticleData(
            headline=kw.pop("headline", "A headline"), paragraphs=list(paragraphs), captions=list(captions), **kw
        )
    )


def test_dateline_gives_source_dateline_and_places():
    a = article("ANCHORAGE, Alaska  (Reuters) - Exxon Mobil offered to pay a fine to the state.")
    assert a.dateline == "ANCHORAGE, Alaska"
    assert a.source == "Reuters"
    names = [p.name for p in a.places]
    assert names[:2] == ["Anchorage", "Alaska"]


def test_a_dated_dateline_is_an_inferred_date():
    a = article("WASHINGTON, Jan. 30, 2015 (AP) — Lawmakers met on Friday.")
    assert a.published == dt.date(2015, 1, 30) and a.date_inferred is True
    assert a.source == "The Associated Press"


def test_metadata_dates_win_and_are_not_inferred():
    a = article(
        "Lawmakers met on Friday.",
        published=dt.date(2016, 5, 1),
        captions=[CaptionData("Lawmakers meet in Washington, Friday, Jan. 30, 2015.", "AP Photo", None, "AP")],
    )
    assert a.published == dt.date(2016, 5, 1) and a.date_inferred is False


def test_a_date_of_some_past_event_in_the_body_is_not_the_article_date():
    a = article(
        "The war began on Sept. 23, 2014, and ended on Jan. 30, 2015, officials said.",
        "Fighting since mid-September, 2014 has displaced thousands.",
    )
    assert a.published is None and a.date_inferred is False


def test_places_need_a_whole_proper_name_and_corroboration():
    names = [
        p.name
        for p in find_places(
            ["President Barack Obama met Michael Jordan. Mobile phones were banned. Talks in Paris went on."]
        )
    ]
    assert "Obama" not in names and "Jordan" not in names and "Mobile" not in names
    assert "Paris" in names


def test_a_small_city_counts_when_its_country_is_named():
    names = [p.name for p in find_places(["Refugees reached Suruc, a border town in Turkey."])]
    assert names == ["Suruç", "Turkey"]  # in the order the text names them
    assert [p.name for p in find_places(["Refugees reached Suruc on Friday."])] == []


def test_everyday_country_names():
    names = {p.name for p in find_places(["The U.S.-led coalition and Britain struck targets in Syria."])}
    assert names == {"United States", "United Kingdom", "Syria"}


def test_language_is_detected():
    assert (
        article("Le gouvernement a annoncé vendredi une série de mesures pour soutenir l'économie du pays.").language
        == "fr"
    )
    assert article("The government announced a set of measures on Friday to support the economy.").language == "en"


@pytest.mark.parametrize(
    "text, absent, present",
    [
        ("Bear Stearns shares fell. Bear said its U.S. hedge funds had lost money.", "Bear", "United States"),
        ("Steven Myers, an analyst in the U.S., said so. Myers expects more cuts.", "Myers", "United States"),
        ("Google said on Monday that its U.S. revenue rose. Google shares rose.", "Google", "United States"),
        ("Chelsea beat Arsenal 2-1 in the English Premier League, in England.", "Chelsea", "England"),
        ("Air China said on Monday that demand in China was recovering.", None, "China"),
    ],
)
def test_a_place_name_that_is_also_a_firm_or_a_person_needs_evidence(text, absent, present):
    names = [p.name for p in find_places([text])]
    assert present in names
    if absent:
        assert absent not in names


def test_small_places_written_as_places_count():
    names = [p.name for p in find_places(["Flooding hit the town of Selma, Alabama, on Monday."])]
    assert "Selma" in names and "Alabama" in names
    names = [p.name for p in find_places(["The plant in Fremont, Calif., will close next year."])]
    assert "Fremont" in names
