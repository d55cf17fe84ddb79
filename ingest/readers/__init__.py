"""Readers: pick the format from the content, split a file into units, and turn each unit into an article.

A unit is what one article comes from: a whole text or HTML file, one object of a JSON document, or one
line of a JSON Lines file. `iter_units` only splits (cheap, in order); `parse_unit` does the work and is
a pure function of its input, so units can be parsed in worker processes.
"""

from __future__ import annotations

import codecs
import io
import json
import re
import zlib
from dataclasses import dataclass
from typing import Any, BinaryIO, Iterator, Optional

from ..errors import InputError, RecordError
from ..extract import enrich
from ..folders import NONE, FolderDefaults
from ..normalise import decode_bytes
from ..records import ArticleData
from .html import read_html
from .jsonfmt import article_from_object, parse_json_document, parse_json_line
from .text import read_text

GZIP_MAGIC = b"\x1f\x8b"
FORMATS = ("text", "html", "json", "jsonl")


@dataclass
class Unit:
    format: str  # text, html, json-object, jsonl-line
    payload: Any  # text (str), a parsed JSON object, or the bytes of one line
    line: Optional[int] = None  # line number (JSON Lines) or 1-based position (JSON array)


@dataclass
class Limits:
    max_unpacked_bytes: int = 1_000_000_000
    max_record_bytes: int = 5_000_000


class _Unpacked(io.RawIOBase):
    """Gzip data read as a stream: output as far as the data goes, then InputError for a truncated or corrupt
    end, or past `max_unpacked_bytes` (a decompression bomb). Reads its source 64 KiB at a time."""

    def __init__(self, source: BinaryIO, max_bytes: int) -> None:
        self._src = source
        self._buf = b""  # compressed bytes read but not yet given to the decompressor
        self._max = max_bytes
        self._count = 0
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
            self._count += len(self._pending)
            if self._count > self._max:
                self._pending = b""
                self._error = f"the gzip file unpacks to more than max_unpacked_bytes={self._max:_} bytes"
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
    if data.startswith(b"PK\x03\x04"):
        raise InputError("zip archives are not supported yet; unpack the articles into the inbox")
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
        lowered = stripped[:4096].lower()
        if re.search(r"<(?:rss|feed|rdf:rdf)\b", lowered) and "<html" not in lowered:
            raise InputError("RSS/Atom feeds are not supported yet")
        # The whole sample: a page may open with a long <style> or <script> block before its first tag.
        if _HTML_TAG.search(stripped) or name.lower().endswith((".html", ".htm", ".xhtml")):
            return "html"
    return "text"


def _decode_head(sample: bytes) -> str:
    """The text of a file's first bytes, for sniffing; a character cut at the end of the sample is dropped."""
    if not sample.strip():
        return ""
    try:
        return codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except UnicodeDecodeError:
        return decode_bytes(sample)[0]


def iter_units(stream: io.BufferedReader, fmt: str, limits: Limits) -> Iterator[Unit | RecordError]:
    """Split a file's content into units in file order.

    JSON Lines are read line by line (memory stays flat whatever the file's size) and a failure part-way
    becomes a RecordError after the lines already read; other formats are read whole and raise InputError
    when the file as a whole is unreadable.
    """
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
    text, _ = decode_bytes(stream.read())
    if fmt == "json":
        objects = parse_json_document(text)
        if not objects:
            raise InputError("the JSON holds no articles (an empty list)")
        for position, obj in enumerate(objects, start=1):
            yield Unit("json-object", obj, position if len(objects) > 1 else None)
        return
    yield Unit(fmt, text)


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
    else:
        raise InputError(f"unknown format {unit.format!r}")
    article.source_line = unit.line
    return enrich(article, defaults).prepare()


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
