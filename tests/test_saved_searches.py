"""Saved searches: saved from the results page with a CSRF-protected POST, listed with their new matches,
read by a feed reader as Atom, and told by `newsarchive alerts` once per new match."""

from __future__ import annotations

import json
import re
from html import unescape

import feedparser
from click.testing import CliRunner

from ingest.pipeline import Ingester
from webapp.cli import cli

from .backends import conformance_database_url  # noqa: F401 (a fixture: both search backends)
from .conftest import cli_env


def form_fields(html: str, action: str) -> dict[str, str]:
    form = re.search(rf'<form[^>]*action="{re.escape(action)}".*?</form>', html, re.S).group(0)
    return {m.group(1): unescape(m.group(2)) for m in re.finditer(r'name="([^"]+)" value="([^"]*)"', form)}


def save_from_page(client, query: str, name: str | None = None) -> None:
    page = client.get(f"/search?{query}").get_data(as_text=True)
    fields = form_fields(page, "/saved")
    if name is not None:
        fields["name"] = name
    response = client.post("/saved", data=fields)
    assert response.status_code == 303 and response.headers["Location"].endswith("/saved")


def add_articles(settings, tmp_path, stories: list[dict], name: str) -> None:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "new.json").write_text(json.dumps(stories))
    with Ingester(settings, workers=1) as ingester:
        assert ingester.run([folder]).ingested == len(stories)


HARBOUR = {
    "headline": "Dockers extend the harbour strike in Aberdeen",
    "source": "Reuters",
    "date": "2015-03-02",
    "byline": "Jane Doe",
    "body": "ABERDEEN (Reuters) - Dock workers voted to extend the harbour strike for another week on Monday.",
}
OTHER = {
    "headline": "Orchestra plays a new symphony",
    "source": "Reuters",
    "date": "2015-03-02",
    "body": "The city orchestra gave the first performance of a symphony written for its centenary.",
}


def test_a_saved_search_counts_new_matches_feeds_them_as_atom_and_alerts_once(own_app, tmp_path):
    app = own_app
    settings = app.extensions["newsarchive"].settings
    client = app.test_client()
    runner = CliRunner()
    env = cli_env(settings)
    save_from_page(client, "q=harbour+strike&source=Reuters")
    listing = client.get("/saved").get_data(as_text=True)
    assert "harbour strike" in listing and "Nothing new since you last looked" in listing
    assert runner.invoke(cli, ["alerts"], env=env).output == "harbour strike: 0 new\n"

    add_articles(settings, tmp_path, [HARBOUR, OTHER], "first")
    listing = client.get("/saved").get_data(as_text=True)
    assert "<strong>1 new</strong> since you last looked" in listing
    saved = client.get("/api/saved").get_json()["saved"]
    assert [(s["name"], s["new"], s["params"]) for s in saved] == [
        ("harbour strike", 1, "q=harbour+strike&source=Reuters")
    ]

    feed = feedparser.parse(client.get(saved[0]["feed"]).get_data())
    assert not feed.bozo, feed.bozo_exception
    assert feed.feed.title == "newsarchive: harbour strike"
    titles = [entry.title for entry in feed.entries]
    assert titles[0] == HARBOUR["headline"] and HARBOUR["headline"] not in titles[1:]
    assert OTHER["headline"] not in titles
    first = feed.entries[0]
    assert re.fullmatch(r"http://localhost/articles/\d+", first.id) and first.link == first.id
    assert first.author == "Jane Doe" and "harbour strike" in first.summary

    out = runner.invoke(cli, ["alerts"], env=env).output
    assert out.startswith("harbour strike: 1 new\n") and out.count(HARBOUR["headline"]) == 1
    assert runner.invoke(cli, ["alerts"], env=env).output == "harbour strike: 0 new\n"  # told once

    later = dict(HARBOUR, headline="Harbour strike ends after talks", body="The harbour strike ended on Friday.")
    add_articles(settings, tmp_path, [later], "second")
    alerted = json.loads(runner.invoke(cli, ["alerts", "--json"], env=env).output)
    assert [m["headline"] for m in alerted["new"]] == [later["headline"]]
    titles = [entry.title for entry in feedparser.parse(client.get(saved[0]["feed"]).get_data()).entries]
    assert titles[:2] == [later["headline"], HARBOUR["headline"]]  # the most recently stored first

    # Opening it marks everything seen.
    fields = form_fields(client.get("/saved").get_data(as_text=True), f"/saved/{saved[0]['id']}/open")
    opened = client.post(f"/saved/{saved[0]['id']}/open", data=fields)
    assert opened.status_code == 303 and opened.headers["Location"].endswith("/search?q=harbour+strike&source=Reuters")
    assert "Nothing new since you last looked" in client.get("/saved").get_data(as_text=True)


def test_forms_that_change_state_need_the_csrf_token(own_app):
    app = own_app
    client = app.test_client()
    assert client.post("/saved", data={"params": "q=kobani", "name": "x"}).status_code == 400
    page = client.get("/search?q=kobani").get_data(as_text=True)
    fields = form_fields(page, "/saved")
    forged = client.post("/saved", data=dict(fields, csrf_token="not-the-token"))
    assert forged.status_code == 400 and "reload the page" in forged.get_data(as_text=True)
    other_browser = app.test_client()  # another session: the token of the first is not its own
    assert other_browser.post("/saved", data=fields).status_code == 400
    assert client.get("/saved").get_data(as_text=True).count("<h2>") == 0
    assert client.post("/saved", data=fields).status_code == 303
    assert client.get("/saved/1/delete").status_code == 405  # never a GET
    assert client.post("/saved/1/delete", data={}).status_code == 400
    delete = form_fields(client.get("/saved").get_data(as_text=True), "/saved/1/delete")
    assert client.post("/saved/1/delete", data=delete).status_code == 303
    assert client.get("/saved/1.atom").status_code == 404
    assert client.post("/saved/1/delete", data=delete).status_code == 404


def test_saved_names_and_bad_parameters(own_app):
    app = own_app
    client = app.test_client()
    save_from_page(client, "q=kobani", name='<script>alert("x")</script>')
    page = client.get("/saved").get_data(as_text=True)
    assert "<script>alert" not in page and "&lt;script&gt;" in page
    feed = client.get("/saved/1.atom").get_data(as_text=True)
    assert "<script>" not in feed and not feedparser.parse(feed).bozo
    fields = form_fields(client.get("/search?q=kobani").get_data(as_text=True), "/saved")
    bad = client.post("/saved", data=dict(fields, params="per_page=1000"))
    assert bad.status_code == 400 and "per_page must be from 1 to 100" in bad.get_data(as_text=True)
    long = client.post("/saved", data=dict(fields, name="x" * 201))
    assert long.status_code == 400 and "at most 200 characters" in long.get_data(as_text=True)
