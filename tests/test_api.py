"""The JSON API over a real archive (SQLite + Whoosh) built from the seed and a few written stories."""

import shutil

import pytest
from sqlalchemy import delete

from store.db import make_engine
from store.models import SearchIndexFile, SearchIndexPart, SearchIndexState

from .backends import sampled_database_url, sampled_shared_migrated  # noqa: F401 (fixtures: both search backends)
from .conftest import SAMPLE_STORIES, served

SEED_HEADLINE = "Islamic State fighters admit they lost Syrian town of Kobani, blame US-led airstrike campaign"


def search(client, **params):
    response = client.get("/api/search", query_string=params)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


@pytest.mark.parametrize("q", ["kobani", "caption:refugee", "credit:gurel", 'source:"associated press"'])
def test_the_spec_queries_find_the_seed(client, q):
    answer = search(client, q=q)
    assert SEED_HEADLINE in [h["headline"] for h in answer["hits"]]


def test_a_body_word_is_not_a_caption_word(client):
    assert search(client, q="withering")["total"] == 1
    assert search(client, q="caption:withering")["total"] == 0


def test_the_answer_has_the_spec_shape(client):
    answer = search(client, q="kobani")
    assert set(answer) >= {"query", "total", "page", "per_page", "took_ms", "hits", "facets", "suggestion"}
    assert answer["query"] == "kobani" and answer["page"] == 1 and answer["per_page"] == 20
    assert set(answer["facets"]) == {"source", "credit", "place", "year", "byline", "dateline", "language", "story"}
    hit = answer["hits"][0]
    assert set(hit) == {
        "id", "headline", "published", "published_display", "source", "byline", "dateline", "places", "snippet",
        "caption_match", "url", "score", "story_id", "versions",
    }  # fmt: skip
    assert "<mark>Kobani</mark>" in hit["snippet"]  # the text as written, marked
    assert answer["total"] == 2


def test_the_seed_ranks_first_for_its_headline_words(client):
    answer = search(client, q="islamic state fighters kobani")
    assert answer["hits"][0]["headline"] == SEED_HEADLINE


def test_snippets_escape_article_text(client):
    answer = search(client, q="caption:refugee")
    snippet = answer["hits"][0]["snippet"]
    assert "<mark>refugee</mark>" in snippet.lower()
    assert "<" not in snippet.replace("<mark>", "").replace("</mark>", "")


def test_an_empty_query_lists_the_archive_newest_first_with_facets(client):
    answer = search(client)
    assert answer["total"] == 1 + len(SAMPLE_STORIES)
    dates = [h["published"] for h in answer["hits"]]
    dated = [d for d in dates if d]
    assert dated == sorted(dated, reverse=True)
    assert dates[-1] is None  # undated last
    assert {"value": "Reuters", "count": 2} in answer["facets"]["source"]
    assert {"value": "2015", "count": 3} in answer["facets"]["year"]
    assert {"value": "Emrah Gurel", "count": 1} in answer["facets"]["credit"]


def test_sort_oldest_puts_undated_last(client):
    dates = [h["published"] for h in search(client, sort="oldest")["hits"]]
    assert dates[0] == "2013-07-01" and dates[-1] is None


def test_facet_filters_narrow_and_combine(client):
    assert search(client, source="Reuters")["total"] == 2
    assert search(client, source=["Reuters", "Kyodo News"])["total"] == 3  # values of one facet: any of them
    both = search(client, source="Reuters", year="2015")
    assert [h["headline"] for h in both["hits"]] == ["Oil prices fall on supply worries"]
    # Disjunctive counts: each facet counted under every filter but its own, so the other sources of 2015
    # and the other years of Reuters stay visible, with what choosing them would add.
    assert both["facets"]["source"] == [{"value": "The Associated Press", "count": 2}, {"value": "Reuters", "count": 1}]
    assert sorted((f["value"], f["count"]) for f in both["facets"]["year"]) == [("2014", 1), ("2015", 1)]
    assert search(client, q="kobani", place="Turkey")["total"] == 1
    assert search(client, credit="Murad Sezer")["hits"][0]["headline"] == "Refugee camp in Turkey grows as winter nears"


def test_from_and_to_are_inclusive(client):
    answer = search(client, **{"from": "2015-01-30", "to": "2015-02-02"})
    assert sorted(h["published"] for h in answer["hits"]) == ["2015-01-30", "2015-02-02"]
    assert search(client, **{"from": "2015-03-11"})["total"] == 0
    assert search(client, to="2013")["total"] == 1  # a bare year means through its last day


def test_pages_do_not_repeat_hits(client):
    seen = []
    for page in (1, 2, 3, 4):
        seen += [h["id"] for h in search(client, per_page=2, page=page)["hits"]]
    assert len(seen) == len(set(seen)) == 1 + len(SAMPLE_STORIES)
    assert search(client, per_page=2, page=99)["hits"] == []


def test_a_typo_that_finds_nothing_is_answered_with_its_correction(client):
    answer = search(client, q="kobanni")
    assert answer["corrected"] is True and answer["suggestion"] == "kobani" and answer["query"] == "kobanni"
    assert answer["total"] == 2 and "Kobani" in answer["hits"][0]["headline"]
    exact = search(client, q="kobani")
    assert exact["suggestion"] is None and exact["corrected"] is False


@pytest.mark.parametrize("q, notice", [("foo:bar", "not a field"), ("k*", "wildcard"), ('kobani "syria', "quote")])
def test_odd_query_text_is_read_leniently_and_says_how(client, q, notice):
    answer = search(client, q=q)
    assert any(notice in n for n in answer["notices"]), answer["notices"]


@pytest.mark.parametrize(
    "params, word",
    [
        ({"per_page": 0}, "per_page"),
        ({"per_page": 101}, "per_page"),
        ({"per_page": "ten"}, "per_page"),
        ({"page": 0}, "page"),
        ({"sort": "best"}, "sort"),
        ({"from": "yesterday"}, "from"),
        ({"from": "2015-02-01", "to": "2015-01-01"}, "after"),
        ({"facet_size": -1}, "facet_size"),
        ({"year": "last"}, "year"),
        ({"q": "x" * 1001}, "limit"),
    ],
)
def test_bad_parameters_are_400_json_errors_that_say_what_to_fix(client, params, word):
    response = client.get("/api/search", query_string=params)
    assert response.status_code == 400
    error = response.get_json()["error"]
    assert error["code"] in ("bad_parameter", "bad_query")
    assert word in error["message"]


@pytest.mark.parametrize(
    "q", ['kobani "syria', "(kobani", "kobani)", "AND", "NOT", '"', "caption:", ":", "\\", "[a TO"]
)
def test_unbalanced_or_odd_query_text_is_read_leniently(client, q):
    response = client.get("/api/search", query_string={"q": q})
    assert response.status_code == 200
    assert isinstance(response.get_json()["total"], int)


def test_the_article_record(client):
    hit = search(client, q="kobani caption:refugee")["hits"][0]
    record = client.get(f"/api/articles/{hit['id']}").get_json()
    assert record["headline"] == SEED_HEADLINE
    assert record["published"] == "2015-01-30" and record["date_inferred"] is True
    assert record["source"] == "The Associated Press"
    assert len(record["paragraphs"]) == 12 and record["body"] == "\n\n".join(record["paragraphs"])
    assert [c["photographer"] for c in record["captions"]] == ["Emrah Gurel", "Emrah Gurel", None]
    assert {c["agency"] for c in record["captions"]} == {"AP"}
    assert {"Kobani", "Syria", "Turkey"} <= set(record["places"])
    assert set(record) >= {
        "id",
        "byline",
        "dateline",
        "url",
        "language",
        "content_sha256",
        "original_file",
        "ingested_at",
    }


def test_unknown_articles_and_paths_are_json_404s(client):
    response = client.get("/api/articles/999999")
    assert response.status_code == 404 and response.get_json()["error"]["code"] == "not_found"
    response = client.get("/api/nothing-here")
    assert response.status_code == 404 and response.get_json()["error"]["code"] == "not_found"
    response = client.post("/api/search")
    assert response.status_code == 405 and "error" in response.get_json()


def test_openapi_describes_the_api(client):
    doc = client.get("/api/openapi.json").get_json()
    assert doc["openapi"].startswith("3.")
    assert {"/api/search", "/api/articles/{id}", "/healthz"} <= set(doc["paths"])


def test_healthz_counts(app, client):
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.get_json()
    assert body["status"] == "ok" and body["articles"] == body["index_documents"] == 1 + len(SAMPLE_STORIES)
    assert body["index_backend"] == app.extensions["newsarchive"].settings.search_backend


def test_healthz_reports_a_missing_index(own_app):
    client = own_app.test_client()
    settings = own_app.extensions["newsarchive"].settings
    shutil.rmtree(settings.index_dir)
    if settings.search_backend == "postgres":
        # The folder was only this machine's copy of the index kept in the database: a new server makes
        # it again. Losing the index means losing it from the database.
        with served(settings) as again:
            assert again.test_client().get("/api/search?q=kobani").get_json()["total"] >= 1
        assert (settings.index_dir).is_dir()
        engine = make_engine(settings)
        with engine.begin() as connection:
            for table in (SearchIndexState, SearchIndexPart, SearchIndexFile):
                connection.execute(delete(table))
        engine.dispose()
    response = client.get("/healthz")
    assert response.status_code == 503 and "index_error" in response.get_json()
    assert client.get("/api/search?q=kobani").status_code == 503
