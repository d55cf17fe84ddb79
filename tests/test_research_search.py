"""Research-grade search: chosen and excluded facet values, facet value lookup, the date histogram, export.

One generated archive of 160 stories (four sources, five cities, six writers, three languages, eleven
years and some undated) is searched on SQLite and PostgreSQL with a real index. Every expectation is
computed from the SQL rows of the stored articles, never from the index that is being checked.
"""

from __future__ import annotations

import csv
import io
import json
import random
from collections import Counter

import pytest
from click.testing import CliRunner
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from search.request import SearchRequest
from search.schema import byline_names
from store.models import Article
from webapp.cli import cli

from .backends import conformance_shared_migrated  # noqa: F401 (a fixture: both search backends)
from .builders import WRITERS, ingest_generated
from .conftest import cli_env, ingest_into, served, shared_read_only


@pytest.fixture(scope="module")
def research_app(shared_migrated, tmp_path_factory):
    """The generated research archive, built once per backend and read by every test that takes it."""
    ingest_generated(shared_migrated, tmp_path_factory.mktemp("research"))
    with shared_read_only(shared_migrated), served(shared_migrated) as app:
        yield app


def sql_rows(app) -> list[dict]:
    """Every stored article's facet values, read from SQL."""
    archive = app.extensions["newsarchive"]
    with archive.sessions() as session:
        articles = session.scalars(
            select(Article).options(selectinload(Article.places), selectinload(Article.source))
        ).all()
        return [
            {
                "id": a.id,
                "source": {a.source.name} if a.source else set(),
                "place": {p.name for p in a.places},
                "year": {str(a.published_day.year)} if a.published_day else set(),
                "byline": set(byline_names(a.byline)) if a.byline else set(),
                "language": {a.language} if a.language else set(),
                "day": a.published_day,
            }
            for a in articles
        ]


def passes(row: dict, chosen: dict, excluded: dict, skip: str = "") -> bool:
    for facet, values in chosen.items():
        if facet != skip and not row[facet] & set(values):
            return False
    for facet, values in excluded.items():
        if facet != skip and row[facet] & set(values):
            return False
    return True


def params_of(chosen: dict, excluded: dict) -> list[tuple[str, str]]:
    out = [(f, v) for f, values in chosen.items() for v in values]
    return out + [(f"not_{f}", v) for f, values in excluded.items() for v in values]


CHECKED = ("source", "place", "year", "byline", "language")


def test_chosen_and_excluded_values_and_their_disjunctive_counts_equal_sql_counts(research_app):
    """Under 60 generated combinations of chosen (OR'ed within a facet) and excluded values, the total is
    the SQL count, and each facet's counts are the SQL GROUP BY counts under every filter but its own."""
    rows = sql_rows(research_app)
    assert len(rows) == 160
    values = {facet: sorted({v for row in rows for v in row[facet]}) for facet in CHECKED}
    assert len(values["language"]) >= 3 and len(values["byline"]) == len(WRITERS)
    client = research_app.test_client()
    rng = random.Random(7)
    for _ in range(60):
        chosen: dict[str, list[str]] = {}
        excluded: dict[str, list[str]] = {}
        for facet in rng.sample(CHECKED, rng.randint(1, 3)):
            picked = rng.sample(values[facet], rng.randint(1, min(2, len(values[facet]))))
            (excluded if rng.random() < 0.4 else chosen)[facet] = picked
        answer = client.get(
            "/api/search", query_string=[*params_of(chosen, excluded), ("facet_size", "200"), ("collapse", "false")]
        ).get_json()
        expected_ids = {row["id"] for row in rows if passes(row, chosen, excluded)}
        assert answer["total"] == len(expected_ids), (chosen, excluded)
        assert answer["exclude"] == excluded and answer["filters"] == chosen
        for facet in CHECKED:
            counted = Counter(v for row in rows if passes(row, chosen, excluded, skip=facet) for v in row[facet])
            got = {item["value"]: item["count"] for item in answer["facets"][facet]}
            assert got == dict(counted), (facet, chosen, excluded)


def test_an_excluded_source_is_gone_from_every_page_and_still_counted_in_its_facet(research_app):
    client = research_app.test_client()
    answer = client.get("/api/search?not_source=Reuters&per_page=100").get_json()
    assert answer["hits"] and all(hit["source"] != "Reuters" for hit in answer["hits"])
    counts = {item["value"]: item["count"] for item in answer["facets"]["source"]}
    everything = client.get("/api/search").get_json()
    assert counts["Reuters"] > 0
    assert (
        answer["articles"] == everything["articles"] - counts["Reuters"]
    )  # the French and German copies are one story each


def test_a_typed_query_with_two_sources_and_a_place(research_app):
    client = research_app.test_client()
    answer = client.get(
        "/api/search?q=the+harbour+strike+in+Paris&source=Reuters&source=Agence+France-Presse&place=Paris&per_page=100"
    ).get_json()
    rows = {r["id"]: r for r in sql_rows(research_app)}
    assert answer["total"] > 0
    for hit in answer["hits"]:
        assert hit["source"] in ("Reuters", "Agence France-Presse") and "Paris" in rows[hit["id"]]["place"]
    # Fewer than a page hold every word, so the rest follow them (relaxed), never before them.
    holding = ["harbour strike" in hit["headline"].lower() for hit in answer["hits"]]
    assert holding[0] and holding == sorted(holding, reverse=True)


def test_facet_values_by_prefix_reach_values_beyond_the_top(research_app):
    client = research_app.test_client()
    answer = client.get("/api/facets/byline?prefix=ja").get_json()
    assert [item["value"] for item in answer["values"]] == ["Jane Doe"]
    # A word inside the value counts too, in any case; counts follow the active filters.
    lima = client.get("/api/facets/byline?prefix=LIMA&not_source=Reuters").get_json()["values"]
    rows = sql_rows(research_app)
    expected = sum(1 for row in rows if "Ana Lima" in row["byline"] and "Reuters" not in row["source"])
    assert lima == [{"value": "Ana Lima", "count": expected}]
    with_one = client.get("/api/facets/place?prefix=&facet_size=1").get_json()["values"]
    assert len(with_one) == 1
    bad = client.get("/api/facets/colour?prefix=r")
    assert bad.status_code == 400 and "the facets are" in bad.get_json()["error"]["message"]


def test_the_histogram_adds_up_to_the_total_with_empty_buckets_inside_the_range(research_app):
    client = research_app.test_client()
    rows = sql_rows(research_app)
    for query in (
        "",
        "q=grain+prices",
        "source=Agence+France-Presse&source=BBC+News",
        "not_place=Paris&from=2009&to=2011",
    ):
        answer = client.get(f"/api/search?{query}").get_json()
        histogram = answer["histogram"]
        assert sum(b["count"] for b in histogram["buckets"]) + histogram["undated"] == answer["total"], query
        keys = [b["key"] for b in histogram["buckets"]]
        assert keys == sorted(keys) and len(set(keys)) == len(keys)
    whole = client.get("/api/search?collapse=false").get_json()["histogram"]
    assert whole["interval"] == "year"
    dated = [row["day"] for row in rows if row["day"]]
    assert [b["key"] for b in whole["buckets"]] == [str(y) for y in range(min(dated).year, max(dated).year + 1)]
    assert whole["undated"] == sum(1 for row in rows if not row["day"])
    by_year = Counter(str(day.year) for day in dated)
    assert {b["key"]: b["count"] for b in whole["buckets"]} == {k: by_year.get(k, 0) for k in by_year} | {
        b["key"]: by_year.get(b["key"], 0) for b in whole["buckets"]
    }
    # One year of hits is drawn by month, all twelve months, empty ones included.
    year = client.get("/api/search?from=2010&to=2010&collapse=false").get_json()["histogram"]
    assert year["interval"] == "month" and [b["key"] for b in year["buckets"]][0].startswith("2010-")
    months = client.get("/api/search?from=2010&to=2010&interval=month&collapse=false").get_json()["histogram"][
        "buckets"
    ]
    assert all(b["from"][:7] == b["key"] and b["to"][:7] == b["key"] for b in months)
    in_2010 = Counter(f"2010-{day.month:02d}" for day in dated if day.year == 2010)
    first, last = min(in_2010), max(in_2010)
    assert [b["key"] for b in months] == [f"2010-{m:02d}" for m in range(int(first[5:]), int(last[5:]) + 1)]
    assert {b["key"]: b["count"] for b in months} == {b["key"]: in_2010.get(b["key"], 0) for b in months}


def test_histogram_interval_errors_say_what_to_do(research_app):
    client = research_app.test_client()
    bad = client.get("/api/search?interval=week")
    assert bad.status_code == 400 and "interval must be one of" in bad.get_json()["error"]["message"]
    too_many = client.get("/api/search?interval=day")
    assert too_many.status_code == 400
    assert "choose a longer interval" in too_many.get_json()["error"]["message"]


def all_pages(client, query: str) -> list[int]:
    ids: list[int] = []
    page = 1
    while True:
        answer = client.get(f"/api/search?{query}&per_page=20&page={page}").get_json()
        ids += [hit["id"] for hit in answer["hits"]]
        if page * 20 >= answer["total"]:
            return ids
        page += 1


@pytest.mark.parametrize(
    "query",
    ["q=flood+report", "q=river+flood+in+Lima&sort=newest", "not_source=BBC+News&sort=oldest", "q=officials+spoke"],
)
def test_export_holds_every_hit_in_the_order_of_the_pages(research_app, query):
    client = research_app.test_client()
    expected = all_pages(client, query)
    assert expected
    response = client.get(f"/api/search.jsonl?{query}")
    assert response.status_code == 200 and response.mimetype == "application/x-ndjson"
    assert "attachment" in response.headers["Content-Disposition"]
    lines = [json.loads(line) for line in response.get_data(as_text=True).splitlines()]
    assert [row["id"] for row in lines] == expected
    assert int(response.headers["X-Total-Hits"]) == len(expected)
    first = lines[0]
    assert set(first) == {
        "story_id",
        "id",
        "headline",
        "published",
        "source",
        "byline",
        "dateline",
        "places",
        "language",
        "url",
        "snippet",
    }
    assert isinstance(first["places"], list) and "<mark>" not in first["snippet"]
    table = list(csv.DictReader(io.StringIO(client.get(f"/api/search.csv?{query}&text=body").get_data(as_text=True))))
    assert [int(row["id"]) for row in table] == expected
    assert table[0]["body"] and "snippet" not in table[0]
    limited = client.get(f"/api/search.csv?{query}&limit=3").get_data(as_text=True)
    assert [int(row["id"]) for row in csv.DictReader(io.StringIO(limited))] == expected[:3]


def test_export_errors_and_cap(research_app):
    client = research_app.test_client()
    assert client.get("/api/search.csv?text=everything").status_code == 400
    bad = client.get("/api/search.jsonl?limit=0")
    assert bad.status_code == 400 and "limit must be" in bad.get_json()["error"]["message"]
    archive = research_app.extensions["newsarchive"]
    total, rows = archive.export(archive_request(""), "snippet", None)
    assert total == 160 and len(list(rows)) == 160


def archive_request(q: str):

    return SearchRequest(q=q, collapse=False)


def test_csv_cells_that_a_spreadsheet_would_run_are_quoted(migrated, tmp_path):
    folder = tmp_path / "formula"
    folder.mkdir()
    (folder / "story.json").write_text(
        json.dumps({"headline": '=HYPERLINK("http://evil.example")', "body": "A story about a harbour strike today."})
    )
    ingest_into(migrated, [folder], expected=1)
    with served(migrated) as app:
        rows = list(csv.DictReader(io.StringIO(app.test_client().get("/api/search.csv").get_data(as_text=True))))
    assert rows[0]["headline"] == '\'=HYPERLINK("http://evil.example")'


def test_the_results_page_excludes_draws_the_histogram_and_links_the_exports(research_app):
    client = research_app.test_client()
    page = client.get("/search?q=grain+prices&not_source=Reuters").get_data(as_text=True)
    assert "not Reuters" in page
    assert 'aria-label="Exclude Agence France-Presse"' in page
    assert 'href="/api/search.csv?q=grain+prices&amp;not_source=Reuters"' in page
    assert 'href="/api/search.jsonl?q=grain+prices&amp;not_source=Reuters"' in page
    assert '<svg viewBox="0 0 600' in page and '<rect class="bar"' in page
    # Each bar narrows the search to its dates, keeping the query and the exclusion.
    assert "/search?q=grain+prices&amp;from=20" in page and "&amp;not_source=Reuters" in page
    bar = client.get("/search?q=grain+prices&not_source=Reuters&from=2010-01-01&to=2010-12-31")
    assert bar.status_code == 200 and 'value="2010-01-01"' in bar.get_data(as_text=True)


def test_cli_search_exports_csv_and_jsonl_with_exclusions(research_app):
    settings = research_app.extensions["newsarchive"].settings
    runner = CliRunner()
    env = cli_env(settings)
    out = runner.invoke(cli, ["search", "grain", "prices", "--exclude", "source=Reuters", "--format", "jsonl"], env=env)
    assert out.exit_code == 0, out.output
    rows = [json.loads(line) for line in out.output.splitlines()]
    client = research_app.test_client()
    assert [r["id"] for r in rows] == all_pages(client, "q=grain+prices&not_source=Reuters")
    assert all(r["source"] != "Reuters" for r in rows)
    out = runner.invoke(cli, ["search", "--format", "csv", "--limit", "5", "--byline", "Jane Doe"], env=env)
    assert out.exit_code == 0, out.output
    table = list(csv.DictReader(io.StringIO(out.output)))
    assert len(table) == 5 and all("Jane Doe" in row["byline"] for row in table)
    bad = runner.invoke(cli, ["search", "x", "--exclude", "colour=red"], env=env)
    assert bad.exit_code != 0 and "FACET=VALUE" in bad.output


def test_related_articles_say_which_words_they_share(research_app):
    client = research_app.test_client()
    rows = {r["id"]: r for r in sql_rows(research_app)}
    english = next(i for i, r in rows.items() if r["language"] == {"en"})
    answer = client.get(f"/api/articles/{english}/related?limit=5").get_json()
    related = answer["related"]
    assert related and all(item["id"] != english for item in related)
    own = client.get(f"/api/articles/{english}").get_json()
    own_text = f"{own['headline']} {own['body']}".lower()
    for item in related:
        other = client.get(f"/api/articles/{item['id']}").get_json()
        other_text = f"{other['headline']} {other['body']}".lower()
        assert len(item["shared"]) >= 3
        for word in item["shared"]:  # each reason is a word both articles hold (as the article writes it)
            assert word.lower() in own_text and word.lower()[:4] in other_text, (word, item)
    page = client.get(f"/articles/{english}").get_data(as_text=True)
    assert "Shares: " in page and related[0]["headline"] in page
    assert client.get("/api/articles/999999/related").status_code == 404
    assert client.get(f"/api/articles/{english}/related?limit=500").status_code == 400
