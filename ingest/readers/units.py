"""Splitting a file into units, each what one article comes from, in file order (cheap: the work is in
`parse_unit`); and finding one member of a stored bundle again."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Optional

from lxml import etree

from ..errors import InputError, RecordError
from ..normalise import decode_bytes
from .containers import BUNDLE_FORMATS, MAX_DEPTH, bundle_members, warc_pages
from .feeds import feed_entries
from .jsonfmt import parse_json_document
from .newsxml import newsml_items, parse_xml
from .sniff import detect_format
from .unpack import Limits, open_unpacked

# Read as a stream past max_file_bytes: their records come one at a time, each under max_record_bytes.
STREAMED_FORMATS = ("jsonl", "warc", "tar", "zip")


@dataclass
class Unit:
    format: str  # text, html, json-object, jsonl-line, feed-entry, nitf, newsml-item
    payload: Any  # text (str), a parsed JSON object, the bytes of one line or document, a feed item
    line: Optional[int] = None  # line number (JSON Lines), 1-based position (JSON array, feed, bundle, WARC)
    member: Optional[str] = None  # the bundle member it came from ("2015/story.xml", nested "a.zip!/b.xml")
    meta: Optional[dict] = None  # what its container says: url and captured (WARC), feed_title (feeds)


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
