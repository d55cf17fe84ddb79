"""What a reader and an operator see (issue 14), through the real app on SQLite and PostgreSQL: result rows
with their metadata, numbered pages, a facet's full list, the article page's original download, the
status of the ingester, and malformed addresses."""

import json
import re
import subprocess
import sys
import time

import pytest
from sqlalchemy import select

from ingest.pipeline import Ingester
from store.models import Article
from store.settings import Settings, SettingsError
from webapp import create_app

from .builders import start_long_ingest, wire_records
from .conftest import ROOT, SEED_FILE, cli_env, make_settings, served


def get(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, response.data[:500]
    return response


def test_a_hit_shows_byline_dateline_places_a_human_date_and_the_caption_it_matched(client):
    hits = get(client, "/api/search?q=kobani").get_json()["hits"]
    seed, other = hits
    assert seed["published"] == "2015-01-30" and seed["published_display"] == "30 Jan 2015"
    assert {"Kobani", "Syria", "Turkey"} <= set(seed["places"])
    assert seed["caption_match"]["credit"] == "AP Photo/Emrah Gurel"
    assert "<mark>Kobani</mark>" in seed["caption_match"]["snippet"]
    assert other["dateline"] == "BEIRUT" and other["caption_match"] is None

    html = get(client, "/search?q=kobani").get_data(as_text=True)
    rows = re.findall(r'<li class="hit">(.*?)</li>', html, re.S)
    assert "<span>The Associated Press</span> · <span>BEIRUT</span> · <span>2 Feb 2015</span>" in rows[1]
    assert "Photo caption:" in rows[0] and "(AP Photo/Emrah Gurel)" in rows[0]
    assert "Places: " in rows[0] and "Turkey" in rows[0]


def test_times_are_shown_in_the_archive_time_zone_and_published_keeps_its_offset(migrated, tmp_path):
    story = {
        "headline": "Late vote in Washington",
        "date": "2007-02-19T07:54:00-05:00",
        "body": "The Senate voted late on Monday on the budget after a long debate about spending plans.",
    }
    (tmp_path / "one.json").write_text(json.dumps(story))
    with Ingester(migrated, workers=1) as ingester:
        ingester.run([tmp_path / "one.json"])
    for zone, shown in (("UTC", "19 Feb 2007, 12:54 UTC"), ("America/New_York", "19 Feb 2007, 07:54 EST")):
        settings = make_settings(migrated.home, migrated.database_url, time_zone=zone)
        with served(settings) as app:
            hit = app.test_client().get("/api/search?q=senate").get_json()["hits"][0]
            assert hit["published"] == "2007-02-19T07:54:00-05:00" and hit["published_display"] == shown
            html = app.test_client().get(f"/articles/{hit['id']}").get_data(as_text=True)
            assert f'<time datetime="2007-02-19T07:54:00-05:00">{shown}</time>' in html


def test_per_page_choice_and_sort_stay_in_the_links(client):
    html = get(client, "/search?per_page=2&sort=newest").get_data(as_text=True)
    assert '<option value="2" selected>2</option>' in html and '<option value="50" >50</option>' in html
    pages = re.findall(r'href="(/search\?[^"]*)" aria-label="Page \d+"', html)
    assert pages and all("per_page=2" in p and "sort=newest" in p for p in pages)


def test_a_facet_offers_more_values_and_finds_them_by_prefix(client):
    html = get(client, "/search?facet_size=2").get_data(as_text=True)
    more = re.search(r'<a class="more" href="(/facets/place\?[^"]*)">More place values</a>', html)
    assert more, "a facet cut at facet_size offers the rest"
    full = get(client, more.group(1).replace("&amp;", "&")).get_data(as_text=True)
    listed = re.findall(r'<li><a href="/search\?[^"]*place=([^"&]+)[^"]*">', full)
    assert len(listed) > 2 and "Turkey" in listed
    narrowed = get(client, "/facets/place?prefix=tu").get_data(as_text=True)
    assert re.findall(r'<li><a href="/search\?place=([^"&]+)">', narrowed) == ["Turkey"]
    assert "No place value starts with <q>zz</q>" in get(client, "/facets/place?prefix=zz").get_data(as_text=True)
    get(client, "/facets/nothing", 404)


def test_the_article_page_offers_the_original_file_and_never_shows_the_server_path(client):
    home = client.application.config["NEWSARCHIVE_SETTINGS"].home
    hit = get(client, "/api/search?q=kobani").get_json()["hits"][0]
    record = get(client, f"/api/articles/{hit['id']}").get_json()
    html = get(client, f"/articles/{hit['id']}").get_data(as_text=True)
    assert record["original_file"] not in html and str(home) not in html
    assert f'href="/articles/{hit["id"]}/original" download>Download the original file</a>' in html
    original = get(client, f"/articles/{hit['id']}/original")
    assert original.data == SEED_FILE.read_bytes()
    assert original.headers["Content-Disposition"].startswith("attachment;")
    get(client, "/articles/424242/original", 404)


def test_the_original_is_gone_when_its_file_is_gone(own_client, sessions, tmp_path):
    client = own_client
    story = tmp_path / "gone.txt"
    story.write_text("A harbour story\n\nThe harbour master kept notes on every ship that came in that winter.\n")
    with Ingester(client.application.config["NEWSARCHIVE_SETTINGS"], workers=1) as ingester:
        ingester.run([story])
    with sessions() as session:
        article_id = session.scalar(select(Article.id).where(Article.headline == "A harbour story"))
    story.unlink()
    html = get(client, f"/articles/{article_id}").get_data(as_text=True)
    assert "Download the original" not in html
    get(client, f"/articles/{article_id}/original", 404)


def test_malformed_percent_encoding_is_a_400_that_says_so(client):
    for url in ("/api/search?q=%FF", "/search?q=caf%E9", "/api/facets/place?prefix=%C3"):
        response = get(client, url, 400)
        assert "not UTF-8" in response.get_data(as_text=True)
    assert get(client, "/api/search?q=caf%C3%A9").get_json()["query"] == "café"


def test_status_shows_skipped_records_failures_and_waiting_files(migrated, tmp_path):
    big = tmp_path / "wire.jsonl"
    big.write_text(wire_records(30, bad_every=10))
    broken = tmp_path / "broken.json"
    broken.write_text("{ nope")
    with Ingester(migrated, workers=1) as ingester:
        summary = ingester.run([big, broken])
    assert summary.skipped_records == 3
    migrated.ensure_dirs()
    (migrated.inbox / "later.txt").write_text("Waiting\n\nA story that waits in the inbox for the next run.\n")
    with served(migrated) as app:
        client = app.test_client()
        state = get(client, "/api/status").get_json()
        wire = next(f for f in state["recent"] if f["file"] == "wire.jsonl")
        assert wire["status"] == "ingested" and wire["articles"] == 27 and wire["skipped"] == 3
        assert [e["line"] for e in wire["skipped_records"]] == [10, 20, 30]
        assert state["last_error"]["file"] == "broken.json" and "JSON" in state["last_error"]["reason"]
        assert state["waiting"] == {"count": 1, "files": ["later.txt"]}
        assert state["current"] is None and state["pending_index"] == 0
        html = get(client, "/status").get_data(as_text=True)
        assert "line 10:" in html and "later.txt" in html and "broken.json" in html
        assert str(tmp_path) not in html  # file names, not server paths
    stats = subprocess.run(
        [sys.executable, "-m", "webapp.cli", "stats", "--json"],
        env=cli_env(migrated),
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(stats.stdout)["skipped_records"] == 3


def test_status_shows_the_file_being_read_with_a_moving_count(migrated, tmp_path):
    big = tmp_path / "long.jsonl"
    big.write_text(wire_records(6000))
    app = create_app(migrated)
    client = app.test_client()
    process = start_long_ingest(migrated, big)
    seen, health = [], set()
    try:
        deadline = time.monotonic() + 120
        while process.poll() is None and time.monotonic() < deadline:
            current = get(client, "/api/status").get_json()["current"]
            if current is not None:
                assert current["file"] == "long.jsonl" and current["format"] == "jsonl"
                if not seen or current["records"] != seen[-1]:
                    seen.append(current["records"])
                health.add(get(client, "/healthz").get_json()["ingesting"])
            time.sleep(0.1)
    finally:
        process.wait(120)
    try:
        assert process.returncode == 0, process.stderr.read()
        assert len(seen) >= 2 and seen == sorted(seen) and seen[-1] > seen[0], seen
        assert "long.jsonl" in health
        assert get(client, "/api/status").get_json()["current"] is None  # gone when the file is done
        assert get(client, "/healthz").get_json()["ingesting"] is None
    finally:
        app.extensions["newsarchive"].close()


@pytest.mark.parametrize("zone", ["Mars/Olympus", "not a zone"])
def test_a_bad_time_zone_setting_says_what_it_must_be(zone):

    with pytest.raises(SettingsError, match="NEWSARCHIVE_TIME_ZONE must be a time zone name"):
        Settings.from_env({"NEWSARCHIVE_TIME_ZONE": zone})
