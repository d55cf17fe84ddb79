"""Readers: pick the format from the content, split a file into units, and turn each unit into an article.

A unit is what one article comes from: a whole text, HTML or NITF file, one object of a JSON document, one
line of a JSON Lines file, one item of a feed, one text item of a NewsML-G2 document, one HTML page of a
WARC file, or any of these inside a member of a zip or tar bundle. `iter_units` only splits (cheap, in
order); `parse_unit` does the work and is a pure function of its input, so units can be parsed in worker
processes.
"""

from __future__ import annotations

import codecs
import datetime as dt
import io
import json
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Iterator, Optional

from lxml import etree

from ..credits import source_for
from ..dates import parse_date
from ..errors import InputError, RecordError
from ..extract import enrich
from ..folders import NONE, FolderDefaults
from ..normalise import decode_bytes
from ..records import ArticleData, CaptionData
from .containers import BUNDLE_FORMATS, MAX_DEPTH, bundle_members, warc_pages
from .feeds import feed_entries, read_feed_entry
from .html import read_html
from .jsonfmt import article_from_object, parse_json_document, parse_json_line
from .newsxml import newsml_items, parse_xml, read_newsml_item, read_nitf
from .text import read_text

GZIP_MAGIC = b"\x1f\x8b"
FORMATS = ("text", "html", "json", "jsonl", "feed", "nitf", "newsml", "warc", "zip", "tar")
# Read as a stream past max_file_bytes: their records come one at a time, each under max_record_bytes.
STREAMED_FORMATS = ("jsonl", "warc", "tar", "zip")


@dataclass
class Unit:
    format: str  # text, html, json-object, jsonl-line, feed-entry, nitf, newsml-item
    payload: Any  # text (str), a parsed JSON object, the bytes of one line or document, a feed item
    line: Optional[int] = None  # line number (JSON Lines), 1-based position (JSON array, feed, bundle, WARC)
    member: Optional[str] = None  # the bundle member it came from ("2015/story.xml", nested "a.zip!/b.xml")
    meta: Optional[dict] = None  # what its container says: url and captured (WARC), feed_title (feeds)


@dataclass
class Limits:
    max_unpacked_bytes: int = 1_000_000_000
    max_record_bytes: int = 5_000_000


# A gzip stream may unpack past max_unpacked_bytes as long as it stays under this many times the packed
# bytes read: text and HTML pack 3 to 10 to 1, a decompression bomb about 1,000 to 1. So a 2 GB web
# archive (gzipped per record, some 6 GB of pages) is read whole, and a bomb still stops at the limit.
MAX_GZIP_RATIO = 50


class _Unpacked(io.RawIOBase):
    """Gzip data read as a stream: output as far as the data goes, then InputError for a truncated or corrupt
    end, or for a decompression bomb: past `max_unpacked_bytes` and past MAX_GZIP_RATIO times the packed
    bytes read so far. Reads its source 64 KiB at a time."""

    def __init__(self, source: BinaryIO, max_bytes: int) -> None:
        self._src = source
        self._buf = b""  # compressed bytes read but not yet given to the decompressor
        self._max = max_bytes
        self._count = 0
        self._packed = 0  # compressed bytes given to the decompressor
        self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._pending = b""
        self._error: Optional[str] = None

    def readable(self) -> bool:
        return True

    def _next_member(self) -> bool:
        """After one gzip member ends: start the next one, or say the data has ended (NUL padding aside)."""
        rest = self._z.unused_data + self._buf
        while not rest.strip(b"\x00"):
            more = self._src.read(65536)
            if not more:
                return False
            rest = more if not rest else rest + more
        self._z = zlib.decompressobj(16 + zlib.MAX_WBITS)
        self._buf = rest.lstrip(b"\x00")
        return True

    def readinto(self, buffer) -> int:
        while not self._pending:
            if self._error:
                raise InputError(self._error)
            if self._z.eof and not self._next_member():
                return 0
            chunk = self._buf or self._src.read(65536)
            self._buf = b""
            if not chunk:
                self._error = "the gzip data is truncated (it ends before the end-of-stream marker)"
                continue
            try:
                self._pending = self._z.decompress(chunk)
            except zlib.error as exc:
                self._error = f"the gzip data is corrupt ({exc})"
                continue
            self._packed += len(chunk) - len(self._z.unused_data)
            self._count += len(self._pending)
            if self._count > max(self._max, MAX_GZIP_RATIO * self._packed):
                self._pending = b""
                self._error = (
                    f"the gzip file unpacks to more than max_unpacked_bytes={self._max:_} bytes, at more than "
                    f"{MAX_GZIP_RATIO} times its packed size (a decompression bomb)"
                )
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n


def open_unpacked(source: bytes | io.BufferedReader, limits: Limits) -> tuple[io.BufferedReader, bool]:
    """A stream of a file's content (its bytes, or an open file read as it goes), gunzipped on the fly when
    it is gzip (`.gz` or not)."""
    if isinstance(source, bytes):
        head = source[:2]
        raw: BinaryIO = io.BytesIO(source)
    else:
        head = source.peek(2)[:2]
        raw = source
    if head == GZIP_MAGIC:
        return io.BufferedReader(_Unpacked(raw, limits.max_unpacked_bytes), buffer_size=1 << 16), True
    if isinstance(raw, io.BytesIO):
        return io.BufferedReader(raw, buffer_size=1 << 16), False
    return source, False


_HTML_TAG = re.compile(
    r"<(?:!doctype html|html|head|body|article|main|p|div|meta|title|h1|section|span|br|figure)\b", re.I
)


def detect_format(data: bytes, name: str = "") -> str:
    """The format of (already unpacked) bytes, judged by content, with the file name only to break ties."""
    if data.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "zip"
    if data[257:262] == b"ustar":
        return "tar"
    if data.startswith(b"WARC/1."):
        return "warc"
    if data.startswith(b"%PDF"):
        raise InputError("PDF files are not supported; save the article as text, HTML or JSON")
    head = _decode_head(data[:65536])
    stripped = head.lstrip("\ufeff \t\r\n")
    if stripped.startswith(("{", "[")):
        first_line, _, rest = stripped.partition("\n")
        if stripped.startswith("{") and rest.strip().startswith("{"):
            try:
                if isinstance(json.loads(first_line), dict):
                    return "jsonl"
            except (ValueError, RecursionError):
                pass
        return "json"
    if stripped.startswith("<"):
        root = _first_element(stripped[:16384])
        if root in ("rss", "feed", "rdf:rdf", "rdf"):
            return "feed"
        if root == "nitf":
            return "nitf"
        if root in ("newsmessage", "newsitem", "packageitem"):
            return "newsml"
        # The whole sample: a page may open with a long <style> or <script> block before its first tag.
        if _HTML_TAG.search(stripped) or name.lower().endswith((".html", ".htm", ".xhtml")):
            return "html"
    return "text"


_PROLOG = re.compile(r"\s*(?:<\?.*?\?>|<!--.*?-->|<!DOCTYPE(?:[^\[>]|\[.*?\])*>)", re.S | re.I)
_ELEMENT = re.compile(r"<([A-Za-z_][\w:.-]*)")


def _first_element(head: str) -> Optional[str]:
    """The lower-cased (prefixed) name of the first element after the XML prolog, or None."""
    position = 0
    while True:
        match = _PROLOG.match(head, position)
        if not match or match.end() == position:
            break
        position = match.end()
    match = _ELEMENT.match(head, position + len(head[position:]) - len(head[position:].lstrip()))
    if not match:
        return None
    name = match.group(1).lower()
    return name if name in ("rdf:rdf",) else name.rpartition(":")[2]


def _decode_head(sample: bytes) -> str:
    """The text of a file's first bytes, for sniffing; a character cut at the end of the sample is dropped."""
    if not sample.strip():
        return ""
    try:
        return codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except UnicodeDecodeError:
        return decode_bytes(sample)[0]


def iter_units(stream: io.BufferedReader, fmt: str, limits: Limits, depth: int = 0) -> Iterator[Unit | RecordError]:
    """Split a file's content into units in file order.

    JSON Lines, WARC files and bundles are read record by record (memory stays flat whatever the file's
    size) and a failure part-way becomes a RecordError after the records already read; other formats are
    read whole and raise InputError when the file as a whole is unreadable.
    """
    if fmt in BUNDLE_FORMATS:
        yield from _bundle_units(stream, fmt, limits, depth)
        return
    if fmt == "warc":
        yield from warc_pages(stream, limits, make_unit=lambda text, n, meta: Unit("html", text, n, meta=meta))
        return
    if fmt == "jsonl":
        number = 0
        cap = limits.max_record_bytes
        try:
            while True:
                raw = stream.readline(cap + 1)  # a line is never held whole past the record limit
                if not raw:
                    break
                number += 1
                if len(raw) > cap and not raw.endswith(b"\n"):
                    while raw and not raw.endswith(b"\n"):
                        raw = stream.readline(1 << 20)  # skip the rest of the over-long line
                    yield RecordError(number, f"the record is over max_record_bytes={cap:_} bytes")
                elif raw.strip():
                    yield Unit("jsonl-line", raw, number)
        except InputError as exc:
            yield RecordError(number + 1, str(exc))
        return
    if fmt == "feed":
        entries = feed_entries(stream.read())
        for position, entry in enumerate(entries, start=1):
            yield Unit("feed-entry", entry, position, meta={"feed_title": entry.get("feed_title")})
        return
    if fmt == "nitf":
        yield Unit("nitf", stream.read())
        return
    if fmt == "newsml":
        items = newsml_items(parse_xml(stream.read()))
        for position, (item, captions) in enumerate(items, start=1):
            payload = (etree.tostring(item), [c.as_dict() for c in captions])
            yield Unit("newsml-item", payload, position if len(items) > 1 else None)
        return
    text, _ = decode_bytes(stream.read())
    if fmt == "json":
        objects = parse_json_document(text)
        if not objects:
            raise InputError("the JSON holds no articles (an empty list)")
        for position, obj in enumerate(objects, start=1):
            yield Unit("json-object", obj, position if len(objects) > 1 else None)
        return
    yield Unit(fmt, text)


def _bundle_units(stream: io.BufferedReader, fmt: str, limits: Limits, depth: int) -> Iterator[Unit | RecordError]:
    """The units of every member of a zip or tar bundle, each labelled with its member's name."""
    for position, item in enumerate(bundle_members(stream, fmt, limits), start=1):
        if isinstance(item, RecordError):
            yield item
            continue
        label, data = item
        try:
            inner, _ = open_unpacked(data, limits)
            inner_fmt = detect_format(inner.peek(65536)[:65536], label)
            if inner_fmt in BUNDLE_FORMATS and depth >= MAX_DEPTH:
                raise InputError("a bundle inside a bundle inside a bundle is not read (nested more than once)")
            for unit in iter_units(inner, inner_fmt, limits, depth + 1):
                if isinstance(unit, RecordError):
                    if inner_fmt in BUNDLE_FORMATS:  # the inner bundle's reason starts with its member's label
                        yield RecordError(position, f"{label}!/{unit.reason}")
                    else:
                        where = f" record {unit.line}" if unit.line else ""
                        yield RecordError(position, f"{label}{where}: {unit.reason}")
                    continue
                unit.member = label if unit.member is None else f"{label}!/{unit.member}"
                yield unit
        except InputError as exc:
            yield RecordError(position, f"{label}: {exc}")
        except RecursionError:
            yield RecordError(position, f"{label}: the content is nested too deeply to read")


def sniff(stream: io.BufferedReader, name: str = "") -> str:
    """The format of a content stream, from its first 64 KiB, without consuming them."""
    return detect_format(stream.peek(65536)[:65536], name)


def parse_unit(unit: Unit, limits: Limits | None = None, defaults: FolderDefaults = NONE) -> ArticleData:
    """Turn one unit into an enriched article (with its folder's `defaults` for what it does not state);
    raise InputError with the reason when it holds none."""
    limits = limits or Limits()
    if unit.format == "jsonl-line":
        if len(unit.payload) > limits.max_record_bytes:
            raise InputError(
                f"the record is {len(unit.payload):_} bytes, over max_record_bytes={limits.max_record_bytes:_}"
            )
        text, _ = decode_bytes(unit.payload)
        article = article_from_object(parse_json_line(text))
    elif unit.format == "json-object":
        article = article_from_object(unit.payload)
    elif unit.format == "html":
        article = read_html(unit.payload)
    elif unit.format == "text":
        article = read_text(unit.payload)
    elif unit.format == "feed-entry":
        article = read_feed_entry(unit.payload)
    elif unit.format == "nitf":
        article = read_nitf(unit.payload)
    elif unit.format == "newsml-item":
        item, captions = unit.payload
        article = read_newsml_item(parse_xml(item), [CaptionData(**c) for c in captions])
    else:
        raise InputError(f"unknown format {unit.format!r}")
    article.source_line = unit.line
    article.source_member = unit.member
    meta = unit.meta or {}
    if meta.get("url") and not article.url:
        article.url = meta["url"]
    if meta.get("url") and meta.get("captured") and not article.identity:
        # A web archive's capture of a URL: a later capture of the same URL is a later version of the page.
        article.identity = "url:" + meta["url"][:1000]
        captured_at = parse_date(meta["captured"])
        article.version_time = captured_at if isinstance(captured_at, dt.datetime) else None
    article = enrich(article, defaults)
    if not article.source and meta.get("feed_title"):
        article.source = source_for(meta["feed_title"])
    if article.published is None and meta.get("captured"):
        # A web archive's capture time: when the page was seen, so only an inferred publication date.
        captured = parse_date(meta["captured"])
        if captured is not None:
            article.published = captured.date() if isinstance(captured, dt.datetime) else captured
            article.date_inferred = True
    return article.prepare()


def read_bytes(data: bytes, name: str = "", limits: Limits | None = None) -> list[ArticleData]:
    """Every article in a file's bytes, for tests and one-off use; a bad record raises InputError."""
    limits = limits or Limits()
    stream, _ = open_unpacked(data, limits)
    articles = []
    for unit in iter_units(stream, sniff(stream, name), limits):
        if isinstance(unit, RecordError):
            raise InputError(f"line {unit.line}: {unit.reason}")
        articles.append(parse_unit(unit, limits))
    return articles


def member_bytes(path: Path, member: str, limits: Limits | None = None) -> Optional[bytes]:
    """The bytes of one member of a stored bundle (`a.xml`, or `inner.zip!/a.xml` one level down), as it
    was read at ingest; None when the bundle or the member is not there any more."""
    limits = limits or Limits()
    try:
        with open(path, "rb") as handle:
            return _find_member(io.BufferedReader(handle), member, limits, 0)
    except (OSError, InputError):
        return None


def _find_member(source: io.BufferedReader | bytes, member: str, limits: Limits, depth: int) -> Optional[bytes]:
    stream, _ = open_unpacked(source, limits)
    fmt = detect_format(stream.peek(65536)[:65536])
    if fmt not in BUNDLE_FORMATS:
        return None
    for item in bundle_members(stream, fmt, limits):
        if isinstance(item, RecordError):
            continue
        label, data = item
        if label == member:
            return data
        if depth < MAX_DEPTH and member.startswith(label + "!/"):
            return _find_member(data, member[len(label) + 2 :], limits, depth + 1)
    return None
