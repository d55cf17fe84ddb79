"""Which format a file is, from its first 64 KiB (the extension only breaks ties)."""

from __future__ import annotations

import codecs
import io
import json
import re
from typing import Optional

from ..errors import InputError
from ..normalise import decode_bytes

FORMATS = ("text", "html", "json", "jsonl", "feed", "nitf", "newsml", "warc", "zip", "tar")


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


def sniff(stream: io.BufferedReader, name: str = "") -> str:
    """The format of a content stream, from its first 64 KiB, without consuming them."""
    return detect_format(stream.peek(65536)[:65536], name)
