"""Names, accents and languages, as a user meets them: a name typed without its accents finds its article,
every language is analysed as itself, bylines are searched, and a correction never turns a name into a
common word.

One archive of articles in several languages is built once for the module (SQLite; it is only read);
tests that write build their own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import whoosh.index
from whoosh.fields import ID, KEYWORD, Schema

from ingest.pipeline import Ingester
from search.analysis import ArchiveAnalyzer, NewsAnalyzer, mark
from search.index import VERSION_FILE, ArchiveIndex
from search.languages import analysis_key, fold, language_tag
from search.request import SearchRequest
from search.schema import build_schema
from store.db import upgrade
from store.read import Archive

from .conftest import SEED_FILE, ingest_into, make_settings, served, shared_read_only

ARTICLES = [
    {
        "headline": "Québec votes on a new energy plan",
        "body": "QUEBEC CITY — Voters in Québec went to the polls on Monday. The premier of Québec said the plan "
        "would cut emissions by a third.",
        "date": "2022-10-03",
        "source": "Reuters",
        "language": "en",
    },
    {
        "headline": "Hydro exports from the province rise",
        "body": "Exports of hydro power from Quebec to New England rose last year, the utility said.",
        "date": "2022-11-03",
        "source": "Reuters",
        "language": "en",
    },
    {
        "headline": "Le gouvernement du Québec annonce des élections anticipées",
        "body": "Le premier ministre a annoncé mardi des élections anticipées. Le gouvernement veut un nouveau "
        "mandat avant l'hiver, selon les sondages publiés par la presse régionale.",
        "date": "2022-08-30",
        "source": "Le Devoir",
        "byline": "Constant Méheut",
        "language": "fr-CA",
    },
    {
        "headline": "Reporter Constant Méheut wins award for war coverage",
        "body": "The journalist Constant Méheut was honoured on Friday for his reporting from Ukraine. "
        "Méheut has covered the war since it began.",
        "date": "2023-05-12",
        "source": "Press Gazette",
        "language": "en",
    },
    {
        "headline": "Leaders meet to discuss the budget",
        "body": "Ministers will meet on Thursday. The meeting follows talks last week, and leaders meet again "
        "next month to agree the budget.",
        "images": [{"caption": "Ministers meet in Brussels.", "credit": "Reuters/Yves Herman"}],
        "date": "2023-02-01",
        "source": "Reuters",
        "language": "en",
    },
    {
        "headline": "Government sets out spending plans",
        "body": "The government set out its spending plans on Wednesday, and the government said taxes would rise.",
        "date": "2023-03-01",
        "source": "Reuters",
        "language": "en",
    },
    {
        "headline": "Die Häuser in Erfurt werden teurer",
        "body": "Die Preise für Häuser und Wohnungen in Erfurt sind im vergangenen Jahr gestiegen, sagte die "
        "Stadt. Sie rechnet damit, dass die Mieten weiter steigen. Von den Käufern kamen viele aus Leipzig, "
        "die zu den Preisen in Erfurt nichts sagen wollten.",
        "date": "2017-06-29",
        "source": "dpa",
        "language": "de",
    },
    {
        "headline": "Die Mieten in Leipzig steigen weiter",
        "body": "Die Mieten für Wohnungen in Leipzig sind gestiegen, und sie werden weiter steigen, sagte die "
        "Stadt. Von den Mietern kamen Klagen zu den Preisen, die sie nicht zahlen wollten.",
        "date": "2017-06-30",
        "source": "dpa",
        "language": "de",
    },
    {
        "headline": "CME nun zweitgrößte Bitcoin (BTC)-Futures-Börse",
        "body": "Die Stadtwerke versorgen zwei Millionen Kund*innen mit Strom, Gas und Wasser. Die Börse in "
        "Chicago handelt nun mehr Futures als jede andere.",
        "date": "2017-07-02",
        "source": "dpa",
        "language": "de",
    },
    {
        "headline": "Ein Haus für die Welt",
        "body": "Das neue Museum in Bonn zeigt Kunst aus der ganzen Welt. Das Haus öffnet im Herbst.",
        "date": "2017-07-01",
        "source": "dpa",
        "language": "de",
    },
    {
        "headline": "東京都の知事が新しい計画を発表",
        "body": "東京都の知事は月曜日、新しい防災計画を発表した。計画は来年から始まる。",
        "date": "2021-04-05",
        "source": "Kyodo",
        "language": "ja",
    },
    {
        "headline": "Fabryka w Łodzi zatrudni 500 osób",
        "body": "Nowa fabryka w Łódź otworzy się w przyszłym roku, podało miasto Łódź.",
        "places": ["Łódź"],
        "date": "2020-01-15",
        "source": "PAP",
        "language": "pl",
    },
    {
        "headline": "Bostadspriserna i Malmö stiger",
        "body": "Priserna på bostäder i Malmö steg under året, enligt mäklarna i Malmö.",
        "places": ["Malmö"],
        "date": "2020-02-15",
        "source": "TT",
        "language": "sv",
    },
    {
        "headline": "Chuva forte atinge São Paulo",
        "body": "A chuva forte atingiu São Paulo na segunda-feira, segundo a prefeitura de São Paulo.",
        "places": ["São Paulo"],
        "date": "2020-03-15",
        "source": "Folha",
        "language": "pt-BR",
    },
    {
        "headline": "Ferry links to Tórshavn and Ålesund resume",
        "body": "Ferries between Tórshavn and Ålesund sailed again on Monday, Færøerne officials said, and the "
        "Øresund bridge reopened. Straße, Đà Nẵng, Œuvre, Þingvellir and Kırşehir were also named.",
        "date": "2020-04-15",
        "source": "Reuters",
        "language": "en",
    },
]


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """The archive of ARTICLES and the seed, on SQLite, shared read-only by this module's tests."""
    home = tmp_path_factory.mktemp("languages") / "home"
    settings = make_settings(home, None)
    upgrade(settings)
    folder = home.parent / "files"
    folder.mkdir()
    (folder / "articles.json").write_text(json.dumps(ARTICLES, ensure_ascii=False), encoding="utf-8")
    ingest_into(settings, [SEED_FILE, folder], expected=len(ARTICLES) + 1)
    archive = Archive(settings)
    with shared_read_only(settings):
        yield archive
    archive.close()


@pytest.fixture(scope="module")
def client(archive):
    with served(archive.settings) as app:
        yield app.test_client()


def search(archive: Archive, q: str, **params) -> dict:
    return archive.search(SearchRequest(q=q, **params))


def headlines(answer: dict) -> list[str]:
    return [hit["headline"] for hit in answer["hits"]]


# -- folding and tags ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "written, typed",
    [
        ("Québec", "quebec"),
        ("Suruç", "suruc"),
        ("São Paulo", "sao paulo"),
        ("Łódź", "lodz"),
        ("Malmö", "malmo"),
        ("Øresund", "oresund"),
        ("Đà Nẵng", "da nang"),
        ("Straße", "strasse"),
        ("Færøerne", "faeroerne"),
        ("Œuvre", "oeuvre"),
        ("Kırşehir", "kirsehir"),
        ("Þingvellir", "thingvellir"),
    ],
)
def test_folding_takes_accents_off_latin_letters(written, typed):
    assert fold(written.lower()) == typed


def test_folding_leaves_other_scripts_as_they_are():
    assert fold("Москва Ελλάδα 東京") == "Москва Ελλάδα 東京"


@pytest.mark.parametrize(
    "tag, stored",
    [("pt-br", "pt"), ("pt_BR", "pt"), ("en-US", "en"), ("iw", "he"), ("eng", "en"), ("zh-Hant-TW", "zh")],
)
def test_language_tags_have_one_form(tag, stored):
    assert language_tag(tag) == stored


@pytest.mark.parametrize("tag", ["", "und", "English", "x", None, 42])
def test_what_is_not_a_language_tag_is_none(tag):
    assert language_tag(tag) is None


def test_each_language_is_analysed_by_its_own_rules():
    analyzer = ArchiveAnalyzer()
    # German: its stop words dropped, its stemmer ("Häuser" and "Haus" are one word).
    assert analyzer.terms(mark("de", "Die Häuser und die Wohnungen")) == analyzer.terms(mark("de", "Haus Wohnung"))
    # English keeps "die" (a word), and Porter's stems.
    assert analyzer.terms(mark("en", "refugees die")) == ["refuge", "die"]
    # A language with no stemmer: folded and lower-cased only.
    assert analysis_key("pl") == "pl" and analyzer.terms(mark("xx", "Łódź Łodzi")) == ["lodz", "lodzi"]
    # Han and kana runs: overlapping pairs.
    assert analyzer.terms(mark("ja", "東京都")) == ["東京", "京都"]


# -- accents ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "q, headline",
    [
        ("Quebec energy plan", "Québec votes on a new energy plan"),
        ("Suruc", "Islamic State fighters admit they lost Syrian town of Kobani, blame US-led airstrike campaign"),
        ("Suruç", "Islamic State fighters admit they lost Syrian town of Kobani, blame US-led airstrike campaign"),
        ("Sao Paulo", "Chuva forte atinge São Paulo"),
        ("Lodz", "Fabryka w Łodzi zatrudni 500 osób"),
        ("Malmo", "Bostadspriserna i Malmö stiger"),
        ("Thingvellir", "Ferry links to Tórshavn and Ålesund resume"),
        ("Kirsehir", "Ferry links to Tórshavn and Ålesund resume"),
        ("Strasse", "Ferry links to Tórshavn and Ålesund resume"),
        ("Torshavn oresund", "Ferry links to Tórshavn and Ålesund resume"),
    ],
)
def test_a_name_typed_without_its_accents_finds_its_article(archive, q, headline):
    answer = search(archive, q)
    assert headlines(answer)[:1] == [headline], answer["hits"]
    assert not answer["corrected"]


def test_the_spelling_typed_ranks_first(archive):
    accented = headlines(search(archive, "Québec"))
    plain = headlines(search(archive, "Quebec"))
    assert set(accented) == set(plain) and len(accented) == 3
    # Typed with its accent, every article writing "Québec" comes before the one writing "Quebec" (which
    # ranks second by its score alone); typed without, the one writing "Quebec" comes first.
    assert accented[-1] == "Hydro exports from the province rise"
    assert plain[0] == "Hydro exports from the province rise"


def test_the_word_itself_ranks_before_words_of_its_stem(archive):
    """ "Hauser" typed without its accent: the article writing "Häuser" before the one writing "Haus" (both
    are the German stem "haus")."""
    assert headlines(search(archive, "Hauser")) == ["Die Häuser in Erfurt werden teurer", "Ein Haus für die Welt"]


def test_highlights_mark_the_word_as_the_article_writes_it(archive):
    hit = search(archive, "quebec premier")["hits"][0]
    assert "<mark>Québec</mark>" in hit["snippet"]
    assert "<mark>premier</mark>" in hit["snippet"]
    seed = search(archive, "suruç refugees")["hits"][0]
    assert "<mark>Suruc</mark>" in seed["caption_match"]["snippet"]


def test_field_queries_and_phrases_fold_too(archive):
    assert headlines(search(archive, "place:lodz")) == ["Fabryka w Łodzi zatrudni 500 osób"]
    assert headlines(search(archive, 'place:"sao paulo"')) == ["Chuva forte atinge São Paulo"]
    assert "Québec votes on a new energy plan" in headlines(search(archive, "headline:quebec"))
    assert headlines(search(archive, '"premier of quebec"')) == ["Québec votes on a new energy plan"]


def test_facet_prefix_search_ignores_accents(client):
    places = client.get("/api/facets/place?prefix=sao").get_json()
    assert [p["value"] for p in places["values"]] == ["São Paulo"]
    places = client.get("/api/facets/place?prefix=LODZ").get_json()
    assert [p["value"] for p in places["values"]] == ["Łódź"]
    writers = client.get("/api/facets/byline?prefix=meheut").get_json()
    assert [w["value"] for w in writers["values"]] == ["Constant Méheut"]


# -- bylines ---------------------------------------------------------------------------------------------


def test_a_reporters_name_finds_their_articles_below_an_article_about_them(archive):
    found = headlines(search(archive, "Constant Meheut"))
    assert found == [
        "Reporter Constant Méheut wins award for war coverage",
        "Le gouvernement du Québec annonce des élections anticipées",
    ]
    assert headlines(search(archive, "byline:meheut")) == ["Le gouvernement du Québec annonce des élections anticipées"]


# -- languages -------------------------------------------------------------------------------------------


def test_a_german_query_finds_german_forms_and_its_stop_words_are_not_required(archive):
    # "Häuser" and "Haus" are one German word; "die" is a German stop word but an English word.
    assert set(headlines(search(archive, "Haus"))) == {"Die Häuser in Erfurt werden teurer", "Ein Haus für die Welt"}
    assert headlines(search(archive, "die Welt")) == ["Ein Haus für die Welt"]
    assert search(archive, "die Welt", per_page=1)["match"] == "all"
    assert set(headlines(search(archive, "Wohnung"))) == {
        "Die Häuser in Erfurt werden teurer",
        "Die Mieten in Leipzig steigen weiter",
    }


def test_pasted_german_text_is_read_as_written(archive):
    """A hyphen after a bracket joins words ("(BTC)-Futures" excludes nothing), and a star inside a word is
    also the word as written (the German gender star, "Kund*innen"), as well as a wildcard."""
    target = "CME nun zweitgrößte Bitcoin (BTC)-Futures-Börse"
    assert headlines(search(archive, target))[:1] == [target]
    assert headlines(search(archive, "Millionen Kund*innen mit Strom, Gas"))[:1] == [target]


def test_the_language_filter_reads_the_query_by_that_language(archive):
    answer = archive.search(SearchRequest(q="die", filters={"language": ["en"]}))
    assert answer["total"] == 0  # no English article holds "die" as a word
    answer = archive.search(SearchRequest(q="Mieten", filters={"language": ["de"]}))
    assert headlines(answer) == ["Die Mieten in Leipzig steigen weiter", "Die Häuser in Erfurt werden teurer"]


def test_japanese_is_searched_by_its_words(archive):
    assert headlines(search(archive, "東京都")) == ["東京都の知事が新しい計画を発表"]
    assert headlines(search(archive, "防災計画")) == ["東京都の知事が新しい計画を発表"]
    hit = search(archive, "知事")["hits"][0]
    assert "<mark>知事</mark>" in hit["snippet"]


def test_related_articles_share_words_not_stop_words(archive, client):
    erfurt = search(archive, "Erfurt Häuser")["hits"][0]["id"]
    related = client.get(f"/api/articles/{erfurt}/related").get_json()
    shared = {word.lower() for item in related["related"] for word in item["shared"]}
    assert shared, related
    german_stop_words = {"und", "die", "sie", "von", "zu", "den", "der", "das", "in"}
    assert not shared & german_stop_words, shared


def test_stored_language_tags_have_one_form(archive):
    assert search(archive, "São Paulo")["facets"]["language"] == [{"value": "pt", "count": 1}]
    assert [v["value"] for v in search(archive, "")["facets"]["language"]].count("fr") == 1


# -- corrections -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("q", ["Meheut", "meheut", "Suruç", "Suruc", "gouvernement", "Méheut"])
def test_a_word_the_archive_holds_in_another_spelling_or_language_is_not_corrected(archive, q):
    answer = search(archive, q)
    assert answer["total"] > 0
    assert answer["suggestion"] is None and not answer["corrected"], answer["suggestion"]


@pytest.mark.parametrize("q", ["Meht", "Goverment", "Zbigniew", "Brusels"])
def test_a_capitalised_word_is_never_replaced_by_a_common_word(archive, q):
    answer = search(archive, q)
    assert not answer["corrected"]
    assert answer["suggestion"] in (None, "Brussels"), answer["suggestion"]


def test_a_short_word_two_edits_from_an_archive_word_gets_no_suggestion(archive):
    """Five letters or fewer: one edit at most, as Elasticsearch's AUTO fuzziness ("suruc" is no "sure");
    "tewnx" was offered "town"."""
    answer = search(archive, "tewnx")
    assert answer["suggestion"] is None and not answer["corrected"], answer["suggestion"]


def test_a_lower_case_misspelling_is_corrected_and_a_capitalised_one_suggested(archive):
    answer = search(archive, "kobanni")
    assert answer["corrected"] and answer["suggestion"] == "kobani" and answer["total"] == 1
    answer = search(archive, "Kobanni")
    assert not answer["corrected"] and answer["suggestion"] == "Kobani" and answer["total"] == 0
    answer = search(archive, "goverment spending")
    assert answer["suggestion"] == "government spending"


# -- stories ---------------------------------------------------------------------------------------------


def test_articles_in_two_languages_are_never_one_story(settings, tmp_path):
    """The same names, numbers and quotes in a German and an English report do not make them versions."""
    upgrade(settings)
    shared = (
        "Siemens Energy Thyssenkrupp Erfurt 2017 Gehler 4,5 Milliarden Euro Landgericht Erfurt Urteil "
        "Bundesgerichtshof Karlsruhe Thyssenkrupp Siemens Energy 2017 Gehler Erfurt Landgericht "
    )
    stories = [
        {
            "headline": "Thyssenkrupp-Klage gegen Ex-Manager muss neu verhandelt werden",
            "body": shared * 3 + "Das Gericht in Erfurt muss den Fall neu verhandeln.",
            "date": "2017-06-29T10:00:00Z",
            "language": "de",
        },
        {
            "headline": "Thyssenkrupp suit against ex-manager must be heard again",
            "body": shared * 3 + "The court in Erfurt must hear the case again.",
            "date": "2017-06-29T11:00:00Z",
            "language": "en",
        },
    ]
    folder = tmp_path / "stories"
    folder.mkdir()
    (folder / "stories.json").write_text(json.dumps(stories))
    with Ingester(settings, workers=1) as ingester:
        ingester.run([folder])
    archive = Archive(settings)
    try:
        answer = archive.search(SearchRequest(q="Thyssenkrupp", collapse=False))
        assert answer["total"] == 2
        assert len({hit["story_id"] for hit in answer["hits"]}) == 2
    finally:
        archive.close()


def test_an_index_of_the_old_schema_keeps_answering_with_a_notice(tmp_path):
    """An archive whose index was built before languages were analysed apart (schema 5) answers by its own
    rules until `newsarchive reindex`, and says so."""
    settings = make_settings(tmp_path / "home", None)
    upgrade(settings)
    with Ingester(settings, workers=1) as ingester:
        ingester.run([SEED_FILE])
    _rebuild_as_schema_5(settings.index_dir)
    archive = Archive(settings)
    try:
        answer = archive.search(SearchRequest(q="kobani refugees"))
        assert answer["total"] == 1
        assert any("newsarchive reindex" in notice for notice in answer["notices"])
        assert "<mark>Kobani</mark>" in answer["hits"][0]["snippet"] or answer["hits"][0]["caption_match"]
    finally:
        archive.close()


def _rebuild_as_schema_5(index_dir: Path) -> None:
    """Rewrite the live index generation as schema 5 wrote it: every article by English rules, no folding,
    no analysis, name or variant fields."""
    index = ArchiveIndex(index_dir)
    path = index.current_path()
    with whoosh.index.open_dir(str(path)).searcher() as searcher:
        stored = [dict(fields) for fields in searcher.all_stored_fields()]
    new = build_schema()
    old = Schema()
    for name, field in new.items():
        if name in ("analysis", "name", "variant") or name.startswith("spell_"):
            continue
        if name in ("headline", "body", "caption", "credit"):
            field.analyzer = NewsAnalyzer()
        elif name in ("source", "place", "byline", "dateline"):
            field.analyzer = NewsAnalyzer(stoplist=None, stemming=False)
        old.add(name, field)
    assert isinstance(old["id"], ID) and isinstance(old["place_facet"], KEYWORD)
    ix = whoosh.index.create_in(str(path), old)
    (path / VERSION_FILE).write_text("5\n")
    writer = ix.writer()
    seed_text = SEED_FILE.read_text(encoding="utf-8")
    for fields in stored:
        writer.add_document(id=fields["id"], headline=seed_text.splitlines()[0], body=seed_text)
    writer.commit()
