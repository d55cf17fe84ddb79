"""Versions, corrections and withdrawals: an article's identity from its source (NewsML-G2 guid, feed guid,
ninjs uri, a web archive's URL) ties its versions together; the newest is searched, older ones stay in SQL
as history, a withdrawal takes the article out of search and says so, and `reindex` keeps all of it.
Real SQL (SQLite and PostgreSQL) and the real index throughout."""

from __future__ import annotations

import io
import json

import pytest
from sqlalchemy import func, select
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from ingest.indexing import reindex
from ingest.pipeline import Ingester
from search.request import SearchRequest
from store import pgbuild
from store.db import make_engine, make_sessionmaker, upgrade
from store.models import Article, SearchIndexBuild, SearchIndexFile
from store.pgindex import open_index
from store.read import Archive

from .backends import conformance_database_url  # noqa: F401 (a fixture: both search backends)
from .builders import stories
from .conftest import database, make_settings, served

GUID = "urn:newsml:wire.example:20210601:quake"


def newsml(
    version: int, headline: str, body: str, *, status: str = "usable", created: str = "", note: str = ""
) -> bytes:
    created = created or f"2021-06-01T{8 + version:02d}:00:00Z"
    paragraphs = "".join(f"<p>{p}</p>" for p in body.split("\n") if p)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<newsItem xmlns="http://iptc.org/std/nar/2006-10-01/" guid="{GUID}" version="{version}"
    standard="NewsML-G2" standardversion="2.29">
  <itemMeta>
    <itemClass qcode="ninat:text"/>
    <provider literal="Wire Example"/>
    <versionCreated>{created}</versionCreated>
    <firstCreated>2021-06-01T08:00:00Z</firstCreated>
    <pubStatus qcode="stat:{status}"/>
    {f"<edNote>{note}</edNote>" if note else ""}
  </itemMeta>
  <contentMeta><headline>{headline}</headline><language tag="en"/></contentMeta>
  <contentSet><inlineXML contenttype="application/xhtml+xml">
    <html xmlns="http://www.w3.org/1999/xhtml"><body>{paragraphs}</body></html>
  </inlineXML></contentSet>
</newsItem>""".encode()


V1 = newsml(1, "Earthquake shakes coastal town", "An earthquake shook the coastal town early on Tuesday.")
V2 = newsml(
    2,
    "Earthquake of magnitude 5.8 shakes coastal town, no injuries",
    "An earthquake of magnitude 5.8 shook the coastal town early on Tuesday.\nOfficials reported no injuries.",
)
KILL = newsml(
    3,
    "KILL: Earthquake story",
    "",
    status="canceled",
    note="Kill the story: the quake was a quarry blast. Do not use.",
)


def ingest(settings, tmp_path, name: str, data: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with Ingester(settings, workers=1) as ingester:
        summary = ingester.run([path])
    assert summary.failed_files == 0, summary.as_dict()


def search_ids(settings, q: str) -> list[int]:
    archive = Archive(settings)
    try:
        found = archive.search(SearchRequest(q=q, collapse=False, per_page=50))
        return [hit["id"] for hit in found["hits"]]
    finally:
        archive.close()


def api(settings, path: str) -> dict:
    with served(settings) as app:
        response = app.test_client().get(path)
        assert response.status_code == 200, response.data
        return response.get_json()


def ids_by_version(settings) -> dict[int, int]:
    engine = make_engine(settings)
    try:
        with make_sessionmaker(engine)() as session:
            return dict(session.execute(select(Article.version, Article.id)).all())
    finally:
        engine.dispose()


def index_matches_sql(settings) -> None:
    """The index holds exactly the searchable articles: SQL's usable rows, no more, no fewer."""
    engine = make_engine(settings)
    try:
        with make_sessionmaker(engine)() as session:
            usable = set(session.scalars(select(Article.id).where(Article.status == "usable")))
            pending = session.scalar(select(func.count()).select_from(Article).where(Article.indexed.is_(False)))
    finally:
        engine.dispose()
    assert pending == 0
    assert set(search_ids(settings, "")) == usable


def rebuild(settings) -> None:
    engine = make_engine(settings)
    try:
        reindex(make_sessionmaker(engine), open_index(settings, engine))
    finally:
        engine.dispose()


def test_a_newer_version_replaces_the_older_in_search_and_keeps_it_as_history(migrated, tmp_path):
    ingest(migrated, tmp_path, "v1.xml", V1)
    ingest(migrated, tmp_path, "v2.xml", V2)
    versions = ids_by_version(migrated)
    assert search_ids(migrated, "earthquake coastal town") == [versions[2]]
    assert search_ids(migrated, "injuries") == [versions[2]]
    history = api(migrated, f"/api/articles/{versions[1]}/versions")
    assert history["current"] == versions[2]
    assert [(v["version"], v["status"]) for v in history["versions"]] == [(1, "superseded"), (2, "usable")]
    old = api(migrated, f"/api/articles/{versions[1]}")
    assert old["status"] == "superseded" and old["headline"] == "Earthquake shakes coastal town"
    index_matches_sql(migrated)
    rebuild(migrated)
    assert search_ids(migrated, "earthquake coastal town") == [versions[2]]
    index_matches_sql(migrated)


def test_an_older_version_arriving_late_does_not_replace_the_newer(migrated, tmp_path):
    ingest(migrated, tmp_path, "v2.xml", V2)
    ingest(migrated, tmp_path, "v1.xml", V1)
    versions = ids_by_version(migrated)
    assert search_ids(migrated, "earthquake coastal town") == [versions[2]]
    assert api(migrated, f"/api/articles/{versions[1]}")["status"] == "superseded"
    assert api(migrated, f"/api/articles/{versions[2]}")["status"] == "usable"
    index_matches_sql(migrated)


def test_versions_in_one_file_out_of_order_leave_the_newest(migrated, tmp_path):
    bundle = json.dumps(
        [
            {"uri": "urn:x:1", "version": "2", "headline": "Bridge vote passes", "body_text": "The vote passed 7-2."},
            {"uri": "urn:x:1", "version": "1", "headline": "Bridge vote due", "body_text": "The vote is due tonight."},
            {"uri": "urn:x:1", "version": "3", "headline": "Bridge vote passes 7-2", "body_text": "It passed 7-2."},
        ]
    ).encode()
    ingest(migrated, tmp_path, "ninjs.json", bundle)
    versions = ids_by_version(migrated)
    assert search_ids(migrated, "bridge vote") == [versions[3]]
    statuses = {v["version"]: v["status"] for v in api(migrated, f"/api/articles/{versions[1]}/versions")["versions"]}
    assert statuses == {1: "superseded", 2: "superseded", 3: "usable"}
    index_matches_sql(migrated)


def test_a_withdrawal_takes_the_article_out_of_search_and_the_api_says_withdrawn(migrated, tmp_path):
    ingest(migrated, tmp_path, "v1.xml", V1)
    ingest(migrated, tmp_path, "v2.xml", V2)
    ingest(migrated, tmp_path, "kill.xml", KILL)
    versions = ids_by_version(migrated)
    assert search_ids(migrated, "earthquake") == []
    assert search_ids(migrated, "quarry blast") == []  # the notice is not an article in search either
    record = api(migrated, f"/api/articles/{versions[2]}")
    assert record["status"] == "withdrawn"
    assert record["notice"] == "Kill the story: the quake was a quarry blast. Do not use."
    history = api(migrated, f"/api/articles/{versions[2]}/versions")
    assert history["current"] is None and history["status"] == "withdrawn"
    index_matches_sql(migrated)
    rebuild(migrated)
    assert search_ids(migrated, "earthquake") == []
    index_matches_sql(migrated)
    # The article page says so, in words a reader sees.
    with served(migrated) as app:
        page = app.test_client().get(f"/articles/{versions[2]}").get_data(as_text=True)
        older = app.test_client().get(f"/articles/{versions[1]}").get_data(as_text=True)
    assert "Withdrawn." in page and "the quake was a quarry blast" in page
    assert "An earlier version." in older and "later withdrawn by its source" in older


def nitf(version: int, body: str, status: str = "usable", message: str = "") -> bytes:
    """An NITF 3.6 story in the shape of the specification's examples; `du-key` versions it and
    `management-status` (NITF 3.1+) says whether it may be used, with `ed-msg` saying why."""
    ed_msg = f'<ed-msg info="{message}"/>' if message else ""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<nitf version="-//IPTC//DTD NITF 3.6//EN">
<head><title>Dam inspection</title>
<docdata management-status="{status}"><doc-id id-string="EX-2019-0413-dam"/><du-key version="{version}"/>
{ed_msg}<date.issue norm="20190413T090000Z"/></docdata></head>
<body><body.head><hedline><hl1>Engineers inspect the Millbrook dam</hl1></hedline></body.head>
<body.content><p>{body}</p></body.content></body></nitf>""".encode()


def test_an_nitf_kill_withdraws_the_story_with_its_editorial_message(migrated, tmp_path):
    story = "Engineers began a full inspection of the Millbrook dam on Saturday after cracks were found."
    ingest(migrated, tmp_path, "dam-1.xml", nitf(1, story))
    assert len(search_ids(migrated, "millbrook dam inspection")) == 1
    ingest(migrated, tmp_path, "dam-2.xml", nitf(2, "", "canceled", "KILL: the dam named is wrong. Do not use."))
    versions = ids_by_version(migrated)
    assert search_ids(migrated, "millbrook dam inspection") == []
    record = api(migrated, f"/api/articles/{versions[2]}")
    assert record["status"] == "withdrawn"
    assert record["notice"] == "KILL: the dam named is wrong. Do not use."
    index_matches_sql(migrated)
    rebuild(migrated)
    assert search_ids(migrated, "millbrook") == []
    index_matches_sql(migrated)


def test_a_feed_item_updated_later_replaces_its_earlier_edition(migrated, tmp_path):
    def feed(updated: str, text: str) -> bytes:
        return f"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Valley Courier</title><id>urn:courier</id>
<updated>{updated}</updated>
<entry><title>Flood warning for the valley</title><id>tag:courier.example,2023:flood</id>
<link href="https://courier.example/flood"/><published>2023-11-02T08:00:00Z</published><updated>{updated}</updated>
<content type="html">&lt;p&gt;{text}&lt;/p&gt;</content></entry></feed>""".encode()

    ingest(migrated, tmp_path, "a.atom", feed("2023-11-02T09:00:00Z", "A flood warning was issued for the valley."))
    ingest(
        migrated,
        tmp_path,
        "b.atom",
        feed("2023-11-02T12:00:00Z", "The flood warning for the valley was raised to severe at noon."),
    )
    ids = search_ids(migrated, "flood warning valley")
    assert len(ids) == 1
    assert api(migrated, f"/api/articles/{ids[0]}")["paragraphs"] == [
        "The flood warning for the valley was raised to severe at noon."
    ]
    index_matches_sql(migrated)


def test_a_later_capture_of_the_same_url_in_a_web_archive_is_the_newer_version(migrated, tmp_path):
    def warc(date: str, sentence: str) -> bytes:
        out = io.BytesIO()
        writer = WARCWriter(out, gzip=True)
        page = (
            "<html><head><title>Library hours</title></head><body><article><h1>Library changes its opening hours</h1>"
            f"<p>{sentence}</p><p>The change follows a survey of readers across the county last spring, in which "
            "most asked for longer evening hours and for the reading room to stay open on Sunday afternoons.</p>"
            "</article></body></html>"
        ).encode()
        headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        record = writer.create_warc_record(
            "https://city.example/library",
            "response",
            payload=io.BytesIO(page),
            http_headers=headers,
            warc_headers_dict={"WARC-Date": date},
        )
        writer.write_record(record)
        return out.getvalue()

    ingest(
        migrated, tmp_path, "late.warc.gz", warc("2022-06-01T10:00:00Z", "The library now opens at eight on weekdays.")
    )
    ingest(migrated, tmp_path, "early.warc.gz", warc("2022-05-01T10:00:00Z", "The library will open at nine."))
    ids = search_ids(migrated, "library opening hours")
    assert len(ids) == 1
    assert "eight on weekdays" in api(migrated, f"/api/articles/{ids[0]}")["body"]
    index_matches_sql(migrated)


def test_an_interrupted_reindex_goes_on_where_it_stopped_with_the_postgres_backend(tmp_path, monkeypatch):
    """`newsarchive reindex` on the postgres backend uploads the new generation at checkpoints: stopped
    part way (Ctrl-C), the live index answers as before; run again, on another machine, it goes on from
    the last checkpoint, and a version replaced meanwhile is not searchable in the index it makes."""
    with database("pgsearch") as url:
        settings = make_settings(tmp_path / "home", url)
        upgrade(settings)
        ingest(settings, tmp_path, "v1.xml", V1)
        ingest(settings, tmp_path, "more.json", json.dumps(stories(40)).encode())
        before = sorted(search_ids(settings, "harbour OR earthquake OR city"))
        monkeypatch.setattr(pgbuild, "CHECKPOINT_DOCS", 10)
        engine = make_engine(settings)
        try:

            def interrupt(done: int) -> None:
                if done == 25:
                    raise KeyboardInterrupt

            with pytest.raises(KeyboardInterrupt):
                reindex(make_sessionmaker(engine), open_index(settings, engine), progress=interrupt)
            with engine.connect() as conn:
                build = conn.execute(select(SearchIndexBuild.documents, SearchIndexBuild.last_article_id)).one()
            assert build.documents == 20 and build.last_article_id >= ids_by_version(settings)[1]
            assert sorted(search_ids(settings, "harbour OR earthquake OR city")) == before

            ingest(settings, tmp_path, "v2.xml", V2)  # replaces version 1, already in the build
            other = make_settings(tmp_path / "other-machine", url)
            seen: list[int] = []
            reindex(make_sessionmaker(engine), open_index(other, engine), progress=seen.append)
            # written: the 41 articles of before and version 2 (version 1 leaves the index at the swap)
            assert seen[0] == 20 and seen[-1] == 42
            with engine.connect() as conn:
                assert conn.execute(select(SearchIndexBuild)).first() is None
                assert conn.scalar(select(func.count(func.distinct(SearchIndexFile.generation)))) == 1
        finally:
            engine.dispose()
        versions = ids_by_version(settings)
        found = search_ids(settings, "earthquake coastal town")
        assert found[0] == versions[2] and versions[1] not in found
        index_matches_sql(settings)
