"""Text normalisation: bytes in any common encoding to clean NFC Unicode with its paragraphs kept."""

from __future__ import annotations

import codecs
import re
import unicodedata

import chardet
import ftfy

from .errors import InputError

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
# Bytes that never occur in text: C0 controls other than tab, newlines, form feed and escape.
_BINARY_BYTES = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27)) + b"\x7f"
_BINARY_TABLE = bytes.maketrans(b"", b"")


def decode_bytes(data: bytes) -> tuple[str, str]:
    """Decode `data` to text and name its encoding; raise InputError for bytes that are not text."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding), encoding
            except UnicodeDecodeError as exc:
                raise InputError(
                    f"the file starts with a {encoding} byte-order mark but does not decode: {exc}"
                ) from exc
    sample = data[:65536]
    if b"\x00" in sample:
        utf16 = _guess_utf16_without_bom(sample)
        if utf16:
            try:
                return data.decode(utf16), utf16
            except UnicodeDecodeError:
                pass
        if sample.count(b"\x00") > max(2, len(sample) // 1000):
            raise InputError("binary content: the file contains NUL bytes, so it is not text, HTML or JSON")
        # A stray NUL in a text or HTML page (browsers show such pages): drop it, read the rest.
        data = data.replace(b"\x00", b"")
        sample = data[:65536]
    controls = len(sample) - len(sample.translate(_BINARY_TABLE, _BINARY_BYTES))
    if sample and controls > max(2, len(sample) // 100):
        raise InputError(f"binary content: {controls} control bytes in the first {len(sample)} bytes")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    guess = chardet.detect(data, prefer_superset=True)
    encoding = guess.get("encoding")
    if encoding:
        try:
            return data.decode(encoding), encoding.lower()
        except (UnicodeDecodeError, LookupError):
            pass
    raise InputError("the text is in no encoding that could be detected")


def _guess_utf16_without_bom(sample: bytes) -> str | None:
    """UTF-16 text without a BOM has NUL in every other byte (for Latin text); tell which half."""
    even, odd = sample[0::2], sample[1::2]
    if len(sample) >= 4 and odd.count(0) > 0.4 * len(odd) and even.count(0) < 0.05 * len(even):
        return "utf-16-le"
    if len(sample) >= 4 and even.count(0) > 0.4 * len(even) and odd.count(0) < 0.05 * len(odd):
        return "utf-16-be"
    return None


# UTF-8 read as Latin-1 or Windows-1252 leaves a lead-byte letter (Â..ô) before a continuation-byte
# character; only then is ftfy (slow, thorough) worth running.
_MOJIBAKE_HINT = re.compile(
    "[\u00c2-\u00f4][\u0080-\u00bf\u0152\u0153\u0160\u0161\u0178\u017d\u017e\u0192\u02c6\u02dc"
    "\u2013\u2014\u2018-\u201e\u2020-\u2022\u2026\u2030\u2039\u203a\u20ac\u2122]"
)
# Control characters and invisible marks: zero-width space, direction marks, word joiner, BOM, and the soft
# hyphen (U+00AD, a hyphenation hint a browser shows only at a line break: left in, "Mit\u00adtel\u00adal\u00adter"
# would not match a search for "Mittelalter").
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f\u00ad\u200b\u200e\u200f\u2028\u2029\u2060\ufeff\ufffe]")
_INVISIBLE = re.compile("[\u00ad\u200b\u2060\ufeff]")


def drop_invisible(text: str | None) -> str | None:
    """Text without soft hyphens and zero-width marks (they can come back from an HTML entity such as
    `&shy;` after the raw page was cleaned)."""
    if text is None or text.isascii():
        return text
    return _INVISIBLE.sub("", text)


def fix_mojibake(text: str) -> str:
    if _MOJIBAKE_HINT.search(text):
        return ftfy.fix_text(
            text,
            unescape_html=False,
            uncurl_quotes=False,
            fix_latin_ligatures=False,
            fix_character_width=False,
            normalization="NFC",
        )
    return text


def clean_text(text: str) -> str:
    """Repair mojibake, normalise to NFC, unify line ends and drop invisible control characters."""
    text = fix_mojibake(text)
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _CONTROL.sub("", text.replace("\u2028", "\n").replace("\u2029", "\n\n"))
    text = safe_text(text)
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    return text


_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def safe_text(text: str | None) -> str | None:
    """Text any database can store: no NUL characters (PostgreSQL refuses them), no lone surrogates."""
    if text is None or not _UNSTORABLE.search(text):
        return text
    return _UNSTORABLE.sub(lambda m: "" if m.group(0) == "\x00" else "\ufffd", text)


def collapse(text: str) -> str:
    """One line with single spaces: for headlines, captions and paragraphs (str.split knows every Unicode
    space: no-break, thin, ideographic ...)."""
    return " ".join(text.split())


_BLANK_LINE = re.compile(r"\n[ \t\f\u00a0]*\n\s*")
_SENTENCE_END = r"[.!?\"'\u201d\u2019)\]]"
# Two or more spaces (no newline) between a sentence end and a capital or quote: a paragraph break
# flattened by whatever exported the text (wire copy often arrives like this).
_FLAT_BREAK = re.compile(r"(?<=" + _SENTENCE_END + r") {2,}(?=[\"'\u201c\u2018(]?[A-Z0-9])")
_SINGLE_SPACED = re.compile(r"(?<=[a-z0-9][.!?]) (?=[A-Z])")


def split_paragraphs(text: str) -> list[str]:
    """Split a text body into paragraphs: blank lines separate them, single newlines are line wraps.

    A block with no blank lines but every line ending a sentence is one paragraph per line; double
    spaces that end a sentence split paragraphs when the text otherwise separates sentences by one space.
    """
    text = text.strip("\n ")
    if not text:
        return []
    blocks = _BLANK_LINE.split(text)
    if len(blocks) == 1 and "\n" in text:
        lines = [line for line in text.split("\n") if line.strip()]
        if len(lines) > 1 and sum(1 for line in lines if re.search(_SENTENCE_END + r"\s*$", line)) >= 0.8 * len(lines):
            blocks = lines
    flat = len(_FLAT_BREAK.findall(text))
    restore_flat = flat > 0 and len(_SINGLE_SPACED.findall(text)) >= flat
    paragraphs: list[str] = []
    for block in blocks:
        parts = _FLAT_BREAK.split(block) if restore_flat else [block]
        for part in parts:
            part = collapse(part)
            if part:
                paragraphs.append(part)
    return paragraphs
