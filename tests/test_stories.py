"""Story clusters: versions of one story (a write-through, another outlet's copy, an undated copy) share a
story id; results show one hit per story; the ids survive reindex and come out the same on a re-ingest."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from ingest.indexing import reindex
from ingest.stories import band_keys, containment, headline_kind, sign, signature, similarity
from search.index import ArchiveIndex
from store.db import make_engine, make_sessionmaker, upgrade
from store.models import Article, StoryKey

from .builders import (
    FIRST,
    LEAD,
    MARKET_REPORT,
    OTHER_OUTLET,
    REST,
    REWRITE,
    SAME_DAY_OTHER_STORY,
    STORIES,
    UNDATED,
    WEEKS_LATER,
    WRITE_THROUGH,
    ingest,
)
from .conftest import make_settings, served


def stories_by_headline(settings) -> dict[str, int]:
    engine = make_engine(settings)
    try:
        with engine.connect() as connection:
            rows = connection.execute(select(Article.id, Article.headline, Article.story_id)).all()
    finally:
        engine.dispose()
    return {r.headline: r.story_id or r.id for r in rows}


def test_the_versions_are_as_similar_as_the_rule_needs_and_the_others_are_not():
    copy = signature(UNDATED["headline"], UNDATED["body"])
    assert len(set(band_keys(copy)) & set(band_keys(signature(FIRST["headline"], FIRST["body"])))) >= 3
    sig = {
        k: signature(v["headline"], v["body"])
        for k, v in {
            "first": FIRST,
            "through": WRITE_THROUGH,
            "outlet": OTHER_OUTLET,
            "other": SAME_DAY_OTHER_STORY,
        }.items()
    }
    assert similarity(sig["first"], sig["through"]) >= 0.3 and similarity(sig["first"], sig["outlet"]) >= 0.3
    assert similarity(sig["first"], sig["other"]) < 0.1
    assert signature("Short", "Too short to tell.") is None


def test_versions_share_a_story_and_results_show_one_hit_per_story(migrated, tmp_path):
    ingest(migrated, tmp_path, "first", STORIES[:2])
    ingest(migrated, tmp_path, "later", STORIES[2:])  # a later file joins stories stored before
    story = stories_by_headline(migrated)
    first = story[FIRST["headline"]]
    assert story[WRITE_THROUGH["headline"]] == story[OTHER_OUTLET["headline"]] == first
    assert story[SAME_DAY_OTHER_STORY["headline"]] != first
    assert story[WEEKS_LATER["headline"]] != first  # the same text weeks later is a story told again

    with served(migrated) as app:
        client = app.test_client()
        answer = client.get("/api/search?q=steelmaker+jobs").get_json()
        assert answer["articles"] == 4 and answer["total"] == 2
        top = answer["hits"][0]
        assert top["story_id"] == first and top["versions"] == 3
        everything = client.get("/api/search?q=steelmaker+jobs&collapse=false").get_json()
        assert everything["total"] == 4 and {h["story_id"] for h in everything["hits"]} == {
            first,
            story[WEEKS_LATER["headline"]],
        }
        facet = client.get("/api/search?q=steelmaker").get_json()["facets"]["story"]
        assert facet[0] == {"value": str(first), "count": 3, "label": FIRST["headline"]}
        versions = client.get(f"/api/search?story={first}&collapse=false").get_json()
        assert versions["total"] == 3
        page = client.get("/search?q=steelmaker+jobs").get_data(as_text=True)
        assert "3 versions of this story" in page
        assert f'href="/search?q=steelmaker+jobs&amp;collapse=false&amp;story={first}">3 versions' in page
        article = client.get(f"/articles/{first}").get_data(as_text=True)
        assert "Other versions of this story" in article and WRITE_THROUGH["headline"] in article
        related = client.get(f"/api/articles/{first}/related").get_json()["related"]
        assert all(story.get(item["headline"]) != first for item in related)
        rows = client.get("/api/search.jsonl?q=steelmaker").get_data(as_text=True).splitlines()
        assert sorted(json.loads(row)["story_id"] for row in rows) == sorted({first, story[WEEKS_LATER["headline"]]})

    # reindex keeps the stories (they live in SQL), and the collapsed answer with them.
    engine = make_engine(migrated)
    try:
        reindex(make_sessionmaker(engine), ArchiveIndex(migrated.index_dir))
    finally:
        engine.dispose()
    with served(migrated) as app:
        again = app.test_client().get("/api/search?q=steelmaker+jobs").get_json()
        assert [(h["id"], h["versions"]) for h in again["hits"]] == [(h["id"], h["versions"]) for h in answer["hits"]]


def test_an_undated_copy_is_found_by_its_band_keys_both_ways(migrated, tmp_path):
    ingest(migrated, tmp_path, "undated", [UNDATED])
    ingest(migrated, tmp_path, "dated", [FIRST, SAME_DAY_OTHER_STORY])
    ingest(migrated, tmp_path, "copy", [dict(UNDATED, headline="Steelmaker to cut 3,000 jobs (copy)")])
    story = stories_by_headline(migrated)
    assert story[FIRST["headline"]] == story[UNDATED["headline"]] == story["Steelmaker to cut 3,000 jobs (copy)"]
    assert story[SAME_DAY_OTHER_STORY["headline"]] != story[UNDATED["headline"]]


def test_an_undated_copy_finds_a_dated_version_stored_before_any_undated_article(migrated, tmp_path):
    """A wholly dated archive keeps no band keys (dated articles find each other by day); the first undated
    article gives the earlier dated ones their keys, so it and every later undated copy still find them."""
    ingest(migrated, tmp_path, "dated", [FIRST, SAME_DAY_OTHER_STORY])
    with make_engine(migrated).connect() as connection:
        assert connection.execute(select(StoryKey.key).limit(1)).first() is None
    ingest(migrated, tmp_path, "undated", [UNDATED])
    ingest(migrated, tmp_path, "copy", [dict(UNDATED, headline="Steelmaker to cut 3,000 jobs (copy)")])
    story = stories_by_headline(migrated)
    assert story[FIRST["headline"]] == story[UNDATED["headline"]] == story["Steelmaker to cut 3,000 jobs (copy)"]
    assert story[SAME_DAY_OTHER_STORY["headline"]] != story[FIRST["headline"]]


def test_a_factbox_or_instant_view_is_not_a_version_of_the_news_story_it_reuses(migrated, tmp_path):
    """A wire headline's product label names a separate article: the "Instant view" of reactions and the
    factbox share the news story's lead and quotes (enough to join on text), yet neither is a version of
    it; a factbox updated the same day is a version of the factbox."""
    quotes = (
        '"This is a bigger cut than anyone expected," said Jan Vogel, an analyst at Metzler Bank.',
        '"The furnaces were the oldest in Europe; closing them was only a matter of time," said Eva Brandt '
        "of DZ Bank, who expects more closures in the Saar region within two years.",
    )
    view = {
        "headline": "INSTANT VIEW: German steelmaker to cut 3,000 jobs",
        "date": "2026-03-03T10:05:00+01:00",
        "source": "Reuters",
        "body": "\n\n".join([LEAD, "COMMENTS:", *quotes, REST[1]]),
    }
    factbox = {
        "headline": "FACTBOX: Germany's steel industry and its job cuts",
        "date": "2026-03-03T11:00:00+01:00",
        "source": "Reuters",
        "body": "\n\n".join([LEAD, REST[0], "* The industry employs about 80,000 people in Germany.", REST[1]]),
    }
    factbox_update = dict(
        factbox,
        headline="UPDATE 1-FACTBOX-Germany's steel industry and its job cuts",
        date="2026-03-03T15:30:00+01:00",
        body=factbox["body"] + "\n\n* The union called a protest for Thursday in Duisburg.",
    )
    first = signature(FIRST["headline"], FIRST["body"])
    assert similarity(first, signature(view["headline"], view["body"])) >= 0.3
    assert similarity(first, signature(factbox["headline"], factbox["body"])) >= 0.3
    ingest(migrated, tmp_path, "kinds", [FIRST, view, factbox, factbox_update])
    story = stories_by_headline(migrated)
    assert len({story[FIRST["headline"]], story[view["headline"]], story[factbox["headline"]]}) == 3
    assert story[factbox_update["headline"]] == story[factbox["headline"]]


def test_a_fresh_archive_given_the_same_files_in_the_same_order_makes_the_same_stories(tmp_path, database_url):
    made = []
    for name in ("one", "two"):
        settings = make_settings(tmp_path / name, database_url if name == "one" else None)
        upgrade(settings)
        ingest(settings, tmp_path / name, "a", STORIES[:2])
        ingest(settings, tmp_path / name, "b", [*STORIES[2:], UNDATED])
        made.append(stories_by_headline(settings))
    assert made[0] == made[1]


@pytest.mark.parametrize("collapse", ["true", "false"])
def test_a_collapsed_search_never_shows_two_versions_on_any_page(migrated, tmp_path, collapse):
    items = []
    topics = "mill closes|port strike ends|tariff ruling due|union vote set|furnace relit|exports fall|prices climb|merger talks stall|plant reopens|court blocks sale|output record|chief quits"
    for k, topic in enumerate(topics.split("|")):  # twelve stories, each told three times on one day
        body = f"Steel story {k} of twelve: " + " ".join(f"point{k}x{i}" for i in range(40))
        for v in range(3):
            items.append(
                {
                    "headline": f"Steel: {topic}",
                    "date": f"2026-05-{k + 1:02d}",
                    "source": "Reuters",
                    "body": body + f" Version {v} adds a line of its own.",
                }
            )
    ingest(migrated, tmp_path, "many", items)
    with served(migrated) as app:
        client = app.test_client()
        seen = []
        for page in (1, 2, 3, 4):
            answer = client.get(f"/api/search?q=steel&per_page=5&page={page}&collapse={collapse}").get_json()
            seen += [h["story_id"] for h in answer["hits"]]
        if collapse == "true":
            assert answer["total"] == 12 and len(seen) == len(set(seen)) == 12
        else:
            assert answer["total"] == 36 and len(seen) == 20


def test_a_rewrite_that_keeps_little_text_joins_by_its_headline_and_a_report_quoting_as_much_does_not(
    migrated, tmp_path
):
    first = signature(FIRST["headline"], FIRST["body"])
    for other in (REWRITE, MARKET_REPORT):  # both share one paragraph: too little text to join on its own
        assert 0.1 <= similarity(first, signature(other["headline"], other["body"])) < 0.3
    ingest(migrated, tmp_path, "day", [FIRST, MARKET_REPORT, REWRITE])
    story = stories_by_headline(migrated)
    assert story[REWRITE["headline"]] == story[FIRST["headline"]]
    assert story[MARKET_REPORT["headline"]] != story[FIRST["headline"]]


def _monthly_sales(company: str, city: str, fell: str, expected: str, more: str) -> dict:
    return {
        "headline": f"{company} October same-store sales fall {fell} percent",
        "date": "2026-11-05T16:40:00-05:00",
        "source": "Reuters",
        "body": "\n\n".join(
            [
                f"{city} (Reuters) - Clothing retailer {company} said on Thursday that sales at stores open at "
                f"least a year fell {fell} percent in October.",
                f"Analysts, on average, were expecting same-store sales to rise {expected} percent, according to "
                "Reuters Estimates.",
                more,
            ]
        ),
    }


def test_the_headline_rule_does_not_join_the_next_days_follow_up_or_another_companys_news_told_alike(
    migrated, tmp_path
):
    """Headlines in the same words are not enough a day later (the next day's development is new news) or
    when each names a company the other article never mentions (two retailers' monthly sales)."""
    next_day = dict(
        REWRITE,
        headline="German steelmaker's plan to cut 3,000 jobs: union calls strike",
        date="2026-03-04T18:05:00+01:00",
        body=REWRITE["body"].replace("on Tuesday", "on Wednesday"),
    )
    first = signature(FIRST["headline"], FIRST["body"])
    assert 0.1 <= similarity(first, signature(next_day["headline"], next_day["body"])) < 0.3
    one = _monthly_sales(
        "Halvorsen",
        "OSLO",
        "4.2",
        "1.4",
        "The chain blamed weak demand for its own-brand knitwear and said it would close nine loss-making stores "
        "in Sweden by March, while its online sales rose for a sixth straight month.",
    )
    other = _monthly_sales(
        "Brekke",
        "BERGEN",
        "2.4",
        "1.1",
        "Warm weather kept shoppers away from winter coats, the department store group said, adding that "
        "bookings for its December loyalty event were running ahead of last year.",
    )
    assert 0.1 <= similarity(signature(one["headline"], one["body"]), signature(other["headline"], other["body"])) < 0.3
    ingest(migrated, tmp_path, "later", [FIRST, next_day, one, other])
    story = stories_by_headline(migrated)
    assert story[next_day["headline"]] != story[FIRST["headline"]]
    assert story[one["headline"]] != story[other["headline"]]
    # A rewrite of one company's sales story still joins it by its headline (as REWRITE joins FIRST hours
    # later in the test above).
    update = dict(one, headline="UPDATE 1-Halvorsen October same-store sales fall 4.2 pct; shares drop")
    update["body"] = "\n\n".join(
        [
            "OSLO (Reuters) - Shares of Halvorsen fell 6 percent after the bell on Thursday as the clothing "
            "retailer said sales at stores open at least a year dropped 4.2 percent last month, missing forecasts.",
            one["body"].split("\n\n")[2],
            "Chief executive Ingrid Lie said the chain would cut prices on knitwear before Christmas and hold "
            "back spring orders until stocks were lower, a step analysts at Nordea called overdue.",
            "The retailer, which has 140 stores across the Nordic countries, will report third-quarter results on "
            "November 19, when it is expected to update its full-year margin target.",
        ]
    )
    assert (
        0.1 <= similarity(signature(one["headline"], one["body"]), signature(update["headline"], update["body"])) < 0.3
    )
    ingest(migrated, tmp_path, "hours", [update])
    assert stories_by_headline(migrated)[update["headline"]] == story[one["headline"]]


BRIEF = {  # a first take: the lead alone
    "headline": "Ruhr steelmaker to cut 3,000 jobs, close two furnaces",
    "date": "2026-03-03T08:02:00+01:00",
    "source": "Reuters",
    "body": LEAD,
}
FULL_STORY = {  # the full story written from it hours later: the lead kept, four times as much text around it
    "headline": "UPDATE 2-Ruhr steelmaker's job cuts anger union; shares slide",
    "date": "2026-03-03T15:25:00+01:00",
    "source": "Reuters",
    "body": "\n\n".join(
        [
            LEAD,
            *REST,
            "IG Metall called a rally outside the company's headquarters in Duisburg for Thursday and said it "
            "would fight any compulsory redundancies, accusing management of cutting its way out of a crisis it "
            "had made.",
            "The state government of North Rhine-Westphalia said it would ask the company to keep at least one "
            "of the furnaces on standby, and economy minister Jonas Reuter said he would meet the board next week.",
            "Rival steelmakers in Austria and the Netherlands have announced similar cuts this year, as Chinese "
            "exports of flat steel to Europe hit a record and orders from carmakers fell for a fifth straight "
            "quarter.",
        ]
    ),
}
MIDCAPS = {  # the day's market report, quoting the whole brief among its own paragraphs
    "headline": "MIDCAPS-German mid-sized stocks fall; Keller's group leads losers",
    "date": "2026-03-03T17:40:00+01:00",
    "source": "Reuters",
    "body": "\n\n".join(
        [
            "FRANKFURT (Reuters) - German mid-sized stocks fell on Tuesday, with industrial names the biggest "
            "losers after a run of weak quarterly reports and a profit warning from a machinery maker in Stuttgart.",
            LEAD.replace("FRANKFURT (Reuters) - ", ""),
            "Chemicals makers also fell, with traders citing worries about energy costs next winter, while "
            "exporters held steady as the euro eased against the dollar for a third day.",
            "The MDAX closed 1.1 percent lower and the SDAX of smaller companies lost 0.8 percent, while the "
            "blue-chip DAX ended flat, supported by gains in software and insurance shares.",
            "Among the few gainers, a Hamburg port operator rose 2.3 percent after it reported record container "
            "volumes for February and said it expected traffic from Asia to keep growing through the spring.",
            "Dealers said volumes were thin ahead of Wednesday's services surveys and U.S. jobs data at the end of "
            "the week, which investors will watch for clues to the path of interest rates on both sides of the "
            "Atlantic.",
        ]
    ),
}


def test_a_brief_joins_the_full_story_that_holds_it_and_not_a_market_report_that_quotes_it(migrated, tmp_path):
    """Jaccard is low between a brief and the full story around it only because one text is short; what the
    longer text holds of the shorter is high. The headline tells the full story (one shared name) from the
    day's market report (no shared word), which holds the brief as wholly."""
    (brief, brief_size), (full, full_size), (report, report_size) = (
        sign(a["headline"], a["body"]) for a in (BRIEF, FULL_STORY, MIDCAPS)
    )
    for other, size in ((full, full_size), (report, report_size)):
        share = similarity(brief, other)
        assert 0.1 <= share < 0.3  # too little text shared to join on its own
        assert containment(share, brief_size, size) >= 0.8  # yet most of the brief is in it
    ingest(migrated, tmp_path, "day", [BRIEF, MIDCAPS, FULL_STORY])
    story = stories_by_headline(migrated)
    assert story[FULL_STORY["headline"]] == story[BRIEF["headline"]]
    assert story[MIDCAPS["headline"]] != story[BRIEF["headline"]]
    assert story[MIDCAPS["headline"]] != story[FULL_STORY["headline"]]


NEXT_MORNING = {  # the next development, told over the last day's text
    "headline": "Union calls strike at German steelmaker over 3,000 job cuts",
    "source": "Reuters",
    "body": "\n\n".join(
        [
            "FRANKFURT (Reuters) - The IG Metall union called a 24-hour strike at Germany's biggest steelmaker "
            "for Friday, a day after the company said it would close two blast furnaces and cut 3,000 jobs.",
            LEAD.replace("FRANKFURT (Reuters) - ", ""),
            REST[0],
            "The union said workers at the two furnaces in Duisburg and Bochum would down tools from the early "
            "shift, and that it expected staff at the group's rolling mills to join them in solidarity.",
            "Management said the strike was illegal while talks on a social plan had not yet begun and that it "
            "would ask a labour court in Duesseldorf to stop it.",
        ]
    ),
}


@pytest.mark.parametrize(
    ("date", "joins"),
    [("2026-03-04T05:40:00+01:00", False), ("2026-03-03T12:40:00+01:00", True)],
    ids=["20 hours later", "3 hours later"],
)
def test_text_shared_across_news_cycles_needs_more_to_join(migrated, tmp_path, date, joins):
    """A third of the text in common joins two articles of one news cycle, not an article and the next
    morning's news told over it."""
    later = dict(NEXT_MORNING, date=date)
    share = similarity(signature(FIRST["headline"], FIRST["body"]), signature(later["headline"], later["body"]))
    assert 0.3 <= share < 0.4
    ingest(migrated, tmp_path, "cycle", [FIRST, later])
    story = stories_by_headline(migrated)
    assert (story[later["headline"]] == story[FIRST["headline"]]) is joins


@pytest.mark.parametrize(
    ("headline", "kind"),
    [
        ("INSTANT VIEW 2: Consumer confidence 88.6 in December", "reactions"),
        ("Analysts' view: Fed holds rates", "reactions"),
        ("UPDATE 1-FACTBOX-Germany's steel industry", "background"),
        ("CHRONOLOGY: Key dates in the bank's rescue", "background"),
        ("SCENARIOS: Where Washington stands on the bailout", "background"),
        ("TEXT-Fed statement after its meeting", "document"),
        ("Timeline of events puzzles investors", ""),
        ("Tablet sales rise in third quarter", ""),
        ("UPDATE 2-German steelmaker to cut 3,000 jobs", ""),
    ],
)
def test_a_wire_products_label_is_read_numbered_after_an_update_slug_and_not_from_an_ordinary_word(headline, kind):
    assert headline_kind(headline) == kind
