"""Real feeds and agency wire files from ../shared/corpus/feed-formats (never copied into the repository):
every one of the 1,675 files is read or refused with a reason (never an internal error), and the real
deliveries come out field by field. Runs whenever the corpus exists."""

import io
import os
import tarfile
import warnings
import zipfile
from collections import Counter

import pytest
from bs4 import XMLParsedAsHTMLWarning
from sqlalchemy import select

from ingest.errors import InputError, RecordError
from ingest.pipeline import Ingester
from ingest.readers import Limits, iter_units, open_unpacked, parse_unit, read_bytes, sniff
from store.models import Article

from .conftest import CORPUS

pytestmark = [pytest.mark.corpus]
FEEDS = CORPUS / "feed-formats" / "feeds"


def all_files():
    return sorted(p for p in FEEDS.rglob("*") if p.is_file())


def read_all(data: bytes, name: str) -> tuple[str, list, list[str]]:
    """(format, articles, reasons) for one file, as the ingester reads it."""
    stream, _ = open_unpacked(data, Limits())
    fmt = sniff(stream, name)
    articles, reasons = [], []
    for unit in iter_units(stream, fmt, Limits()):
        if isinstance(unit, RecordError):
            reasons.append(unit.reason)
            continue
        try:
            articles.append(parse_unit(unit))
        except InputError as exc:
            reasons.append(str(exc))
    return fmt, articles, reasons


def test_every_feed_and_wire_file_is_read_or_refused_with_a_reason():
    if not FEEDS.exists():
        pytest.skip("no ../shared/corpus/feed-formats")
    warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
    formats, articles = Counter(), 0
    for path in all_files():
        try:
            fmt, found, reasons = read_all(path.read_bytes(), path.name)
        except InputError as exc:
            assert str(exc), path
            formats["refused"] += 1
            continue
        assert found or reasons, path
        assert all(r and "internal error" not in r for r in reasons), path
        formats[fmt] += 1
        articles += len(found)
    # Most refusals are feedparser's conformance cases: a channel element on its own, no item.
    assert formats["feed"] >= 700 and formats["newsml"] >= 130 and formats["nitf"] >= 19, formats
    assert articles >= 1300, articles


def test_real_feeds_give_their_items_with_captions_and_credits():
    if not FEEDS.exists():
        pytest.skip("no ../shared/corpus/feed-formats")
    fmt, guardian, _ = read_all((FEEDS / "rss-parser" / "guardian.rss").read_bytes(), "guardian.rss")
    assert fmt == "feed" and len(guardian) == 55
    assert all(a.url.startswith("https://www.theguardian.com/") for a in guardian)
    assert sum(bool(a.byline) for a in guardian) >= 50
    assert all(a.published is not None for a in guardian)
    _, huffpost, _ = read_all((FEEDS / "feedjira" / "HuffPostCanada.xml").read_bytes(), "HuffPostCanada.xml")
    first = huffpost[0]
    assert first.headline == "Winnipeg High School Orders Custom Hijabs For Muslim Athletes"
    assert first.byline == "Canadian Press"
    assert len(first.paragraphs) > 5  # the item's HTML body, not its one-line media description
    assert (first.captions[0].text.startswith("About 50 female students"), first.captions[0].credit) == (
        True,
        "Dakota Collegiate/Twitter",
    )
    _, mail, _ = read_all((FEEDS / "node-feedparser" / "mediacontent-dupes.xml").read_bytes(), "dupes.xml")
    assert [c.credit for c in mail[0].captions] == ["© Bettmann/CORBIS"]  # declared Latin-1, repaired
    _, iconv, _ = read_all((FEEDS / "node-feedparser" / "compressed.xml").read_bytes(), "compressed.xml")
    assert len(iconv) == 10 and all(a.language == "ru" for a in iconv)  # gzipped, windows-1251


def test_real_agency_files_give_headline_byline_dateline_and_date():
    if not FEEDS.exists():
        pytest.skip("no ../shared/corpus/feed-formats")
    (ap,) = read_bytes((FEEDS / "superdesk-agency" / "ap-nitf.xml").read_bytes(), "ap-nitf.xml")
    assert ap.headline == "Can trading pollution like stocks help fight climate change?"
    assert (ap.byline, ap.dateline, ap.source) == ("BERNARD CONDON", "NEW YORK", "The Associated Press")
    assert ap.published.isoformat() == "2015-12-10T19:10:44+00:00"
    dpa = sorted((FEEDS / "dpa-newsml-g2" / "text").glob("*.xml"))
    read = [read_bytes(p.read_bytes(), p.name)[0] for p in dpa]
    assert len(read) == 100
    assert all(a.language == "de" and a.published is not None and a.headline for a in read)
    with_dateline = [a for a, p in zip(read, dpa, strict=True) if b"<dateline>" in p.read_bytes()]
    assert all(a.dateline for a in with_dateline) and len(with_dateline) == 84
    assert {a.source for a in read} == {"Deutsche Presse-Agentur GmbH"}
    ap_g2 = read_bytes((FEEDS / "superdesk-agency" / "ap.xml").read_bytes(), "ap.xml")
    assert [a.dateline for a in ap_g2] == ["FORT WASHINGTON, Pa.", "BETHESDA, Md.", "KNOXVILLE, Tenn."]


def test_a_real_delivery_bundled_in_zip_and_tar_is_stored_once_with_member_names(migrated, tmp_path):
    if not FEEDS.exists():
        pytest.skip("no ../shared/corpus/feed-formats")
    warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
    picked = sorted((FEEDS / "dpa-newsml-g2" / "text").glob("*.xml"))[:20] + [
        FEEDS / "superdesk-agency" / "ap-nitf.xml",
        FEEDS / "rss-parser" / "guardian.rss",
    ]
    zipped = io.BytesIO()
    with zipfile.ZipFile(zipped, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in picked:
            archive.write(path, f"delivery/{path.name}")
    tarred = io.BytesIO()
    with tarfile.open(fileobj=tarred, mode="w:gz") as archive:
        for path in picked:
            archive.add(path, f"delivery/{path.name}")
    (tmp_path / "delivery.zip").write_bytes(zipped.getvalue())
    (tmp_path / "delivery.tar.gz").write_bytes(tarred.getvalue())
    with Ingester(migrated, workers=2) as ingester:
        summary = ingester.run([tmp_path / "delivery.zip", tmp_path / "delivery.tar.gz"])
    expected = 20 + 1 + 55
    assert (summary.ingested, summary.duplicates) == (expected, expected), summary.as_dict()
    with ingester.sessions() as session:
        members = Counter(
            os.path.basename(m).rsplit(".", 1)[-1] for m in session.scalars(select(Article.source_member))
        )
    assert members == Counter({"xml": 21, "rss": 55})
