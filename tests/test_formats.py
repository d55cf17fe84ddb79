"""Every form a news archive arrives in: RSS, Atom and Media RSS feeds, NITF, NewsML-G2, WARC web archives,
and zip and tar bundles of any of them; each read into stored records that are checked field by field,
and hostile variants that are refused or partly kept with their reasons.

The fixtures are written here from the published specifications: RSS 2.0 (rssboard.org/rss-specification)
with the content module and Media RSS 1.5.1 (rssboard.org/media-rss), Atom 1.0 (RFC 4287), NITF 3.6 (IPTC,
nitf.org, the "fishing" sample's structure), NewsML-G2 2.x (IPTC, the specification's LISTING 1, 3 and 24:
a text item, a picture item and a package in one newsMessage), and WARC 1.1 (ISO 28500, written with warcio).
"""

from __future__ import annotations

import gzip
import io
import json
import random
import tarfile
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import select
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from ingest.errors import InputError
from ingest.pipeline import Ingester
from ingest.readers import detect_format, read_bytes
from store.models import Article, IngestFile
from store.read import Archive

from .conftest import served

RSS = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
     xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:media="http://search.yahoo.com/mrss/">
  <channel>
    <title>Harbour Gazette</title>
    <link>https://gazette.example/</link>
    <description>News from the harbour town</description>
    <language>en-gb</language>
    <item>
      <title>Lifeboat crew rescue three fishermen off Sandy Point</title>
      <link>https://gazette.example/2024/03/05/lifeboat-rescue</link>
      <guid isPermaLink="false">gazette-2024-0305-001</guid>
      <pubDate>Tue, 05 Mar 2024 18:30:00 +0000</pubDate>
      <dc:creator>Mary Keel</dc:creator>
      <category>Coast</category>
      <description>Three fishermen were rescued after their boat lost power.</description>
      <content:encoded><![CDATA[<p>Three fishermen were rescued off Sandy Point on Tuesday after their trawler
        lost power in heavy seas, the coastguard said.</p>
        <p>The lifeboat reached the trawler within twenty minutes and towed it back to the harbour.</p>]]>
      </content:encoded>
      <media:content url="https://gazette.example/img/lifeboat.jpg" medium="image" type="image/jpeg">
        <media:description>The lifeboat tows the trawler into the harbour on Tuesday evening.</media:description>
        <media:credit role="photographer">Tom Rigg/Reuters</media:credit>
      </media:content>
    </item>
    <item>
      <title>Council approves new sea wall</title>
      <link>https://gazette.example/2024/03/04/sea-wall</link>
      <guid>https://gazette.example/2024/03/04/sea-wall</guid>
      <pubDate>Mon, 04 Mar 2024 09:00:00 +0000</pubDate>
      <description>&lt;p&gt;The council approved a new sea wall for the promenade at its Monday meeting,
        after two winters of flooding.&lt;/p&gt;</description>
    </item>
  </channel>
</rss>
"""

ATOM = """<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">
  <title>Valley Courier</title>
  <id>urn:uuid:60a76c80-d399-11d9-b93C-0003939e0af6</id>
  <updated>2023-11-02T12:00:00Z</updated>
  <entry>
    <title>Bridge reopens after repairs to flood damage</title>
    <link rel="alternate" href="https://courier.example/bridge-reopens"/>
    <id>tag:courier.example,2023:bridge-reopens</id>
    <published>2023-11-02T08:15:00-05:00</published>
    <updated>2023-11-02T10:00:00-05:00</updated>
    <author><name>Ana Ortiz</name></author>
    <content type="html">&lt;p&gt;The old stone bridge over the river reopened on Thursday after six months
      of repairs to flood damage.&lt;/p&gt;&lt;p&gt;Traffic was light in the first hours.&lt;/p&gt;</content>
  </entry>
</feed>
"""

NITF = """<?xml version="1.0" encoding="UTF-8"?>
<nitf version="-//IPTC//DTD NITF 3.6//EN" baselang="en-US">
  <head>
    <title>Storm closes port</title>
    <docdata>
      <doc-id regsrc="WIRE" id-string="WIRE-2019-0412-77"/>
      <date.issue norm="20190412T143000Z"/>
      <doc.copyright holder="Example Wire Service" year="2019"/>
    </docdata>
    <pubdata type="web" date.publication="20190412T150000-0400"/>
  </head>
  <body>
    <body.head>
      <hedline><hl1>Storm closes port as waves top breakwater</hl1></hedline>
      <byline>By <person>Jane Doe</person><byttl>Staff Writer</byttl></byline>
      <dateline><location>NORFOLK, Va.</location><story.date norm="20190412">April 12</story.date></dateline>
    </body.head>
    <body.content>
      <p>NORFOLK, Va. (Example Wire) - The port closed on Friday as waves topped the breakwater.</p>
      <media media-type="image">
        <media-reference source="port.jpg" mime-type="image/jpeg"/>
        <media-caption>Waves break over the sea wall at the port entrance on Friday.</media-caption>
        <media-producer>John Smith/AP</media-producer>
      </media>
      <block>
        <p>Ships waited at anchor outside the harbour until the wind dropped.</p>
        <hl2>Ferries cancelled</hl2>
        <p>All ferries to the islands were cancelled for the day.</p>
      </block>
    </body.content>
  </body>
</nitf>
"""

NEWSML = """<?xml version="1.0" encoding="UTF-8"?>
<newsMessage xmlns="http://iptc.org/std/nar/2006-10-01/">
  <header><sent>2021-06-01T10:05:00Z</sent><sender>wire.example</sender></header>
  <itemSet>
    <packageItem guid="urn:newsml:wire.example:20210601:pkg1" version="1" standard="NewsML-G2"
        standardversion="2.29" conformance="power">
      <itemMeta><itemClass qcode="ninat:composite"/><provider qcode="nprov:WIRE"/>
        <versionCreated>2021-06-01T10:00:00Z</versionCreated><pubStatus qcode="stat:usable"/></itemMeta>
      <groupSet root="G1">
        <group id="G1" role="group:main">
          <itemRef residref="urn:newsml:wire.example:20210601:txt1"/>
          <itemRef residref="urn:newsml:wire.example:20210601:pic1"/>
        </group>
      </groupSet>
    </packageItem>
    <newsItem guid="urn:newsml:wire.example:20210601:txt1" version="3" standard="NewsML-G2"
        standardversion="2.29" conformance="power" xml:lang="en">
      <rightsInfo><copyrightHolder literal="Wire Example Ltd"/></rightsInfo>
      <itemMeta>
        <itemClass qcode="ninat:text"/>
        <provider literal="Wire Example"/>
        <versionCreated>2021-06-01T09:58:00Z</versionCreated>
        <firstCreated>2021-06-01T08:30:00Z</firstCreated>
        <pubStatus qcode="stat:usable"/>
      </itemMeta>
      <contentMeta>
        <located><name>Lisbon</name></located>
        <headline>Portugal opens new solar farm in the Alentejo</headline>
        <by>Rui Costa</by>
        <dateline>LISBON, June 1 (Wire Example) -</dateline>
        <language tag="en"/>
      </contentMeta>
      <contentSet>
        <inlineXML contenttype="application/xhtml+xml">
          <html xmlns="http://www.w3.org/1999/xhtml"><head><title>Solar farm</title></head>
            <body>
              <p>LISBON, June 1 (Wire Example) - Portugal opened its largest solar farm on Tuesday.</p>
              <p>The plant in the Alentejo region will power 200,000 homes, the operator said.</p>
            </body>
          </html>
        </inlineXML>
      </contentSet>
    </newsItem>
    <newsItem guid="urn:newsml:wire.example:20210601:pic1" version="1" standard="NewsML-G2"
        standardversion="2.29" conformance="power">
      <itemMeta><itemClass qcode="ninat:picture"/><provider literal="Wire Example"/>
        <versionCreated>2021-06-01T09:00:00Z</versionCreated></itemMeta>
      <contentMeta>
        <headline>Solar panels</headline>
        <creditline>Ana Lima/Wire Example</creditline>
        <description role="drol:caption">Solar panels stretch across the plain near Evora on June 1, 2021.</description>
      </contentMeta>
      <contentSet><remoteContent href="pic1.jpg" contenttype="image/jpeg"/></contentSet>
    </newsItem>
  </itemSet>
</newsMessage>
"""

PAGE = """<!doctype html><html lang="en"><head><title>Museum reopens | City Times</title>
<meta property="og:site_name" content="City Times"></head><body><article>
<h1>Museum reopens after two-year renovation</h1>
<p>The city museum reopened its doors on Saturday after a two-year renovation that doubled its galleries.</p>
<p>Visitors queued along the river before the doors opened, and the first thousand were let in free.</p>
<p>The renovation added a new wing for the maritime collection and a cafe on the roof terrace.</p>
</article></body></html>"""


def warc_bytes(pages: list[tuple[str, str, str]], *, gzipped: bool = True, extra: bool = True) -> bytes:
    """A WARC 1.1 file of (uri, date, html) response records, with a request record and an image record."""
    out = io.BytesIO()
    writer = WARCWriter(out, gzip=gzipped, warc_version="WARC/1.1")
    for uri, date, html in pages:
        if extra:
            request = writer.create_warc_record(
                uri,
                "request",
                payload=io.BytesIO(b""),
                http_headers=StatusAndHeaders("GET / HTTP/1.1", [("Host", "example")], is_http_request=True),
                warc_headers_dict={"WARC-Date": date},
            )
            writer.write_record(request)
        body = html.encode("utf-8")
        headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1")
        record = writer.create_warc_record(
            uri, "response", payload=io.BytesIO(body), http_headers=headers, warc_headers_dict={"WARC-Date": date}
        )
        writer.write_record(record)
    if extra:
        image = StatusAndHeaders("200 OK", [("Content-Type", "image/png")], protocol="HTTP/1.1")
        writer.write_record(
            writer.create_warc_record(
                "https://city.example/logo.png", "response", payload=io.BytesIO(b"\x89PNG\r\n"), http_headers=image
            )
        )
    return out.getvalue()


def zip_of(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def tgz_of(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


FILES = {
    "gazette.rss": RSS.encode(),
    "courier.atom": ATOM.encode(),
    "port.xml": NITF.encode(),
    "solar.xml": NEWSML.encode(),
    "crawl.warc.gz": warc_bytes([("https://city.example/museum", "2022-05-14T10:00:00Z", PAGE)]),
}
HEADLINES = {
    "Lifeboat crew rescue three fishermen off Sandy Point",
    "Council approves new sea wall",
    "Bridge reopens after repairs to flood damage",
    "Storm closes port as waves top breakwater",
    "Portugal opens new solar farm in the Alentejo",
    "Museum reopens after two-year renovation",
}


def test_each_format_is_recognised_by_its_content():
    named = {
        name: detect_format(gzip.decompress(data) if name.endswith(".gz") else data) for name, data in FILES.items()
    }
    assert named == {
        "gazette.rss": "feed",
        "courier.atom": "feed",
        "port.xml": "nitf",
        "solar.xml": "newsml",
        "crawl.warc.gz": "warc",
    }
    assert detect_format(zip_of({"a.txt": b"x"})) == "zip"
    assert detect_format(gzip.decompress(tgz_of({"a.txt": b"x"}))) == "tar"


def stored(settings) -> dict[str, dict]:
    """Every stored article as the API shows it, by headline."""
    reader = Archive(settings)
    try:
        with reader.sessions() as session:
            ids = list(session.scalars(select(Article.id)))
        return {record["headline"]: record for record in (reader.article(i) for i in ids)}
    finally:
        reader.close()


def check_fields(records: dict[str, dict], member_prefix: str = "") -> None:
    """The stored records of FILES, field by field."""
    assert set(records) == HEADLINES

    rss = records["Lifeboat crew rescue three fishermen off Sandy Point"]
    assert rss["source"] == "Harbour Gazette"  # the feed's title
    assert rss["byline"] == "Mary Keel"
    assert rss["published"] == "2024-03-05T18:30:00+00:00"
    assert rss["url"] == "https://gazette.example/2024/03/05/lifeboat-rescue"
    assert rss["paragraphs"][0].startswith("Three fishermen were rescued off Sandy Point on Tuesday")
    assert len(rss["paragraphs"]) == 2  # content:encoded, not the short description
    assert rss["captions"] == [
        {
            "text": "The lifeboat tows the trawler into the harbour on Tuesday evening.",
            "credit": "Tom Rigg/Reuters",
            "photographer": "Tom Rigg",
            "agency": "Reuters",
            "image_url": "https://gazette.example/img/lifeboat.jpg",
        }
    ]
    assert rss["language"] == "en"
    wall = records["Council approves new sea wall"]
    assert wall["paragraphs"] == [
        "The council approved a new sea wall for the promenade at its Monday meeting, after two winters of flooding."
    ]

    atom = records["Bridge reopens after repairs to flood damage"]
    assert (atom["source"], atom["byline"], atom["url"]) == (
        "Valley Courier",
        "Ana Ortiz",
        "https://courier.example/bridge-reopens",
    )
    assert atom["published"] == "2023-11-02T08:15:00-05:00"
    assert atom["paragraphs"][1] == "Traffic was light in the first hours."

    nitf = records["Storm closes port as waves top breakwater"]
    assert nitf["byline"] == "Jane Doe"
    assert nitf["dateline"] == "NORFOLK, Va."
    assert nitf["published"] == "2019-04-12T15:00:00-04:00"
    assert nitf["source"] == "Example Wire Service"
    assert nitf["paragraphs"] == [
        "NORFOLK, Va. (Example Wire) - The port closed on Friday as waves topped the breakwater.",
        "Ships waited at anchor outside the harbour until the wind dropped.",
        "Ferries cancelled",
        "All ferries to the islands were cancelled for the day.",
    ]
    assert [(c["text"], c["photographer"], c["agency"]) for c in nitf["captions"]] == [
        ("Waves break over the sea wall at the port entrance on Friday.", "John Smith", "AP")
    ]

    g2 = records["Portugal opens new solar farm in the Alentejo"]
    assert g2["byline"] == "Rui Costa"
    assert g2["dateline"] == "LISBON"
    assert g2["published"] == "2021-06-01T08:30:00+00:00"  # firstCreated
    assert g2["source"] == "Wire Example"
    assert g2["language"] == "en"
    assert g2["paragraphs"][1] == "The plant in the Alentejo region will power 200,000 homes, the operator said."
    assert [(c["text"], c["credit"]) for c in g2["captions"]] == [
        ("Solar panels stretch across the plain near Evora on June 1, 2021.", "Ana Lima/Wire Example")
    ]

    page = records["Museum reopens after two-year renovation"]
    assert page["url"] == "https://city.example/museum"  # WARC-Target-URI
    assert page["published"] == "2022-05-14" and page["date_inferred"] is True  # the capture day, inferred
    assert len(page["paragraphs"]) == 3

    for headline, record in records.items():
        if member_prefix:
            assert record["source_member"] and record["source_member"].startswith(member_prefix), headline
        else:
            assert record["source_member"] is None


def drop_files(tmp_path: Path) -> Path:
    """A folder holding FILES."""
    folder = tmp_path / "drop"
    folder.mkdir()
    for name, data in FILES.items():
        (folder / name).write_bytes(data)
    return folder


def test_each_format_is_stored_field_by_field(migrated, tmp_path):
    with Ingester(migrated, workers=1) as ingester:
        summary = ingester.run([drop_files(tmp_path)])
    assert summary.failed_files == 0, summary.as_dict()
    assert summary.ingested == len(HEADLINES)
    # The WARC's request record passes silently; its image is a skipped record with the reason.
    assert [e["reason"] for r in summary.files for e in r.errors] == [
        "https://city.example/logo.png: not an HTML page (image/png)"
    ]
    check_fields(stored(migrated))


@pytest.mark.parametrize("bundle", ["zip", "tar.gz"])
def test_each_format_inside_a_bundle_is_stored_with_its_member_name(migrated, tmp_path, bundle):
    members = {f"2024/{name}": data for name, data in FILES.items()}
    data = zip_of(members) if bundle == "zip" else tgz_of(members)
    path = tmp_path / f"delivery.{bundle}"
    path.write_bytes(data)
    with Ingester(migrated, workers=1) as ingester:
        summary = ingester.run([path])
    assert summary.ingested == len(HEADLINES), summary.as_dict()
    records = stored(migrated)
    check_fields(records, member_prefix="2024/")
    assert records["Council approves new sea wall"]["source_member"] == "2024/gazette.rss"
    # The article page offers the member itself as the original, not the whole bundle.
    with served(migrated) as app:
        client = app.test_client()
        article_id = records["Storm closes port as waves top breakwater"]["id"]
        response = client.get(f"/articles/{article_id}/original")
        assert response.status_code == 200
        assert response.data == NITF.encode()
        assert "port.xml" in response.headers["Content-Disposition"]


def test_a_bundle_in_a_bundle_is_read_once_and_no_deeper(migrated, tmp_path):
    inner = zip_of({"port.xml": NITF.encode()})
    innermost = zip_of({"deep.zip": zip_of({"atom.xml": ATOM.encode()})})
    outer = tgz_of({"wire/inner.zip": inner, "wire/nested.zip": innermost, "courier.atom": ATOM.encode()})
    path = tmp_path / "outer.tgz"
    path.write_bytes(outer)
    with Ingester(migrated, workers=1) as ingester:
        summary = ingester.run([path])
    records = stored(migrated)
    assert records["Storm closes port as waves top breakwater"]["source_member"] == "wire/inner.zip!/port.xml"
    assert records["Bridge reopens after repairs to flood damage"]["source_member"] == "courier.atom"
    reasons = [e["reason"] for e in summary.files[0].errors]
    assert reasons == [
        "wire/nested.zip!/deep.zip: a bundle inside a bundle inside a bundle is not read (nested more than once)"
    ]


def test_hostile_bundles_keep_the_good_members_and_say_why_the_rest_were_refused(migrated, tmp_path):
    settings = migrated
    bomb = b"\0" * (settings.max_record_bytes + 10)
    data = zip_of(
        {
            "../../etc/passwd": b"Ferry timetable changes\n\nThe winter ferry timetable starts on Monday, the operator said.\n",
            "ok/port.xml": NITF.encode(),
            "bomb.txt": bomb,
            "broken.xml": b"<nitf><body><body.content><p>cut off",
        }
    )
    path = tmp_path / "hostile.zip"
    path.write_bytes(data)
    before = {p for p in Path("/").glob("etc/passwd*")}
    with Ingester(settings, workers=1) as ingester:
        summary = ingester.run([path])
    assert {p for p in Path("/").glob("etc/passwd*")} == before
    for folder in (settings.archive_dir, settings.failed_dir):
        assert not list(folder.rglob("passwd")) if folder.exists() else True
    result = summary.files[0]
    assert result.status == "ingested" and result.articles == 2, (
        summary.as_dict()
    )  # port.xml and the text named ../../etc/passwd
    reasons = " | ".join(e["reason"] for e in result.errors)
    assert f"bomb.txt: the member is over max_record_bytes={settings.max_record_bytes:_} bytes" in reasons
    assert "broken.xml: the XML is not well-formed" in reasons
    records = stored(settings)
    members = sorted(r["source_member"] for r in records.values())
    assert members == ["../../etc/passwd", "ok/port.xml"]  # a label only: nothing was written by that name


def test_a_zip_bomb_stops_at_the_unpacked_size_limit(migrated, tmp_path):
    settings = migrated
    text = b"Harbour news. " * (settings.max_record_bytes // 14 + 1)
    members = {f"part{n}.txt": (b"Part %d. " % n + text)[: settings.max_record_bytes - 1] for n in range(4)}
    path = tmp_path / "bomb.zip"
    path.write_bytes(zip_of(members))
    assert path.stat().st_size < 200_000
    small = replace(settings, max_unpacked_bytes=2 * settings.max_record_bytes)
    with Ingester(small, workers=1) as ingester:
        summary = ingester.run([path])
    result = summary.files[0]
    # The first two members fit under the limit and are kept; the third would pass it, so it and the rest
    # are not read, and the file says so.
    assert (result.status, summary.ingested) == ("ingested", 2), summary.as_dict()
    assert [e["reason"] for e in result.errors] == [
        f"part2.txt: the bundle unpacks to more than max_unpacked_bytes={small.max_unpacked_bytes:_} bytes; "
        "the members after it were not read"
    ]


XXE = b"""<?xml version="1.0"?>
<!DOCTYPE nitf [<!ENTITY secret SYSTEM "file:///etc/hostname">]>
<nitf><body><body.head><hedline><hl1>Entity test &secret;</hl1></hedline></body.head>
<body.content><p>The body mentions &secret; here.</p></body.content></body></nitf>"""

LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE rss [
 <!ENTITY a "haha">
 <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
 <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
 <!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">
 <!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;">
 <!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">
 <!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;">
 <!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">
 <!ENTITY i "&h;&h;&h;&h;&h;&h;&h;&h;&h;&h;">
]>
<rss version="2.0"><channel><title>Laughs</title>
<item><title>Laugh &i;</title><description>Body &i;</description></item></channel></rss>"""

NEWSML_XXE = NEWSML.replace(
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE newsMessage [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
).replace("Rui Costa", "Rui Costa &x;")


def test_xml_entities_are_never_expanded_nor_fetched():
    hostname = Path("/etc/hostname").read_text().strip() if Path("/etc/hostname").exists() else "localhost"
    (nitf,) = read_bytes(XXE, "x.xml")
    assert hostname not in nitf.headline + nitf.body
    assert nitf.body.startswith("The body mentions")
    (g2,) = read_bytes(NEWSML_XXE.encode(), "g2.xml")
    assert "root:" not in g2.byline + g2.body
    try:
        articles = read_bytes(LAUGHS, "laughs.rss")
    except Exception as exc:  # refused is fine; expanded is not
        assert "haha" * 100 not in str(exc)
    else:
        assert all(len(a.headline) + len(a.body) < 10_000 for a in articles)


def test_a_feed_with_broken_encoding_keeps_its_items(migrated, tmp_path):
    # Declared UTF-8, written in Latin-1: the bytes of "café" and "Málaga" are not valid UTF-8.
    broken = RSS.replace("Council approves new sea wall", "Café owners in Málaga welcome sea wall").encode("latin-1")
    path = tmp_path / "broken.rss"
    path.write_bytes(broken)
    with Ingester(migrated, workers=1) as ingester:
        summary = ingester.run([path])
    assert summary.ingested == 2, summary.as_dict()
    assert "Café owners in Málaga welcome sea wall" in stored(migrated)


def test_a_truncated_warc_keeps_the_pages_before_the_cut(migrated, tmp_path):
    pages = [
        (f"https://city.example/{n}", "2022-05-14T10:00:00Z", PAGE.replace("Museum reopens", f"Museum {n} reopens"))
        for n in range(3)
    ]
    data = warc_bytes(pages, gzipped=False, extra=False)
    cut = data[: int(len(data) * 0.8)]
    path = tmp_path / "cut.warc"
    path.write_bytes(cut)
    with Ingester(migrated, workers=1) as ingester:
        summary = ingester.run([path])
    result = summary.files[0]
    assert result.status == "ingested" and result.articles == 2, summary.as_dict()
    assert result.errors and "ends early" in result.errors[-1]["reason"]


def test_a_feed_item_without_a_date_takes_none_and_a_folder_source_beats_the_feed_title(migrated, tmp_path):
    folder = tmp_path / "wire"
    folder.mkdir()
    (folder / ".newsarchive.json").write_text(json.dumps({"source": "Gazette Wire"}))
    (folder / "feed.rss").write_bytes(RSS.replace("<pubDate>Mon, 04 Mar 2024 09:00:00 +0000</pubDate>", "").encode())
    with Ingester(migrated, workers=1) as ingester:
        ingester.run([folder])
    records = stored(migrated)
    assert {r["source"] for r in records.values()} == {"Gazette Wire"}
    assert records["Council approves new sea wall"]["published"] is None


def test_the_format_of_each_file_is_logged(migrated, tmp_path):
    with Ingester(migrated, workers=1) as ingester:
        ingester.run([drop_files(tmp_path)])
    reader = Archive(migrated)
    try:
        with reader.sessions() as session:
            formats = dict(session.execute(select(IngestFile.path, IngestFile.format)).all())
    finally:
        reader.close()
    assert sorted(formats.values()) == ["feed", "feed", "newsml", "nitf", "warc"]


RSS_XXE = RSS.replace(
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE rss [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
).replace("<dc:creator>Mary Keel</dc:creator>", "<dc:creator>Mary Keel &x;</dc:creator>")


def test_a_feed_never_reads_an_external_entity():
    articles = read_bytes(RSS_XXE.encode(), "xxe.rss")
    assert articles, "the feed's items are kept"
    assert all("root:" not in (a.byline or "") + a.body for a in articles)


def test_a_warc_gzipped_whole_reads_as_one_gzipped_per_record():
    pages = [("https://city.example/museum", "2022-05-14T10:00:00Z", PAGE)]
    whole = gzip.compress(warc_bytes(pages, gzipped=False, extra=False))
    per_record = warc_bytes(pages, gzipped=True, extra=False)
    assert whole[:2] == per_record[:2] == b"\x1f\x8b"
    (a,) = read_bytes(whole, "whole.warc.gz")
    (b,) = read_bytes(per_record, "records.warc.gz")
    assert (a.headline, a.url, a.body) == (b.headline, b.url, b.body)
    assert a.headline == "Museum reopens after two-year renovation"


def test_damaged_files_of_every_format_are_read_or_refused_with_a_reason():
    """Each fixture, and the bundles of them, cut short, with bytes flipped or bytes inserted: a reader
    gives articles or an InputError with its reason, never another exception (these found a zlib.error
    from a damaged zip member, a NotImplementedError from a damaged zip header and a UnicodeDecodeError
    from feedparser)."""
    rng = random.Random(20261204)
    seeds = dict(FILES)
    seeds["bundle.zip"] = zip_of(FILES)
    seeds["bundle.tgz"] = tgz_of(FILES)
    seeds["crawl.warc"] = gzip.decompress(FILES["crawl.warc.gz"])
    for name, data in seeds.items():
        for _ in range(60):
            damaged = bytearray(data)
            kind = rng.choice(("cut", "flip", "insert"))
            if kind == "cut":
                damaged = damaged[: rng.randrange(1, len(damaged))]
            elif kind == "flip":
                for _ in range(rng.randint(1, 8)):
                    damaged[rng.randrange(len(damaged))] = rng.randrange(256)
            else:
                at = rng.randrange(len(damaged))
                damaged[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 20)))
            try:
                read_bytes(bytes(damaged), name)
            except InputError as exc:
                assert str(exc), (name, kind)


def test_an_office_document_or_e_book_is_not_taken_for_a_bundle():
    docx = zip_of({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<w:document/>"})
    epub = zip_of({"mimetype": b"application/epub+zip", "OEBPS/chapter1.xhtml": b"<html><p>Chapter</p></html>"})
    for name, data in (("story.docx", docx), ("book.epub", epub)):
        with pytest.raises(InputError, match="office document or e-book"):
            read_bytes(data, name)
