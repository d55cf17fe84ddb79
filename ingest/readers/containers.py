"""Files that hold other files: zip and tar bundles (tar.gz and .tgz are tar after the gzip layer), and
WARC web archives.

Bundles: every regular member is read by its content, as a file in the inbox would be, and may itself be
a bundle once (a zip inside a tar.gz, say); deeper nesting is listed, not read. A member's name is only
ever a label (`2015/story.xml`, shown as `bundle.zip!/2015/story.xml`): nothing is written to disk, so a
name such as `../../etc/passwd` reaches no folder. Each member is read up to `max_record_bytes`, however
large its header says it is, and the whole bundle up to `max_unpacked_bytes` (a zip bomb stops there). A
member that cannot be read is a skipped record with its reason; the other members are kept. Links,
devices and encrypted members are listed as skipped.

WARC (read with warcio, record by record, so memory stays flat): every `response` or `resource` record
holding an HTML page is one page read by the HTML rules, with its `WARC-Target-URI` as the page's URL and
its `WARC-Date` as the capture date, used as an inferred publication date only when the page itself says
none. Redirects, errors and non-HTML payloads (images, scripts, style sheets) are skipped records with the
reason; request, metadata, warcinfo and revisit records are not articles and are passed over silently.
"""

from __future__ import annotations

import io
import lzma
import tarfile
import zipfile
import zlib
from typing import Callable, Iterator, Optional

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed

from ..errors import InputError, RecordError
from ..normalise import decode_bytes

BUNDLE_FORMATS = ("zip", "tar")
# What corrupt compressed data raises while a member is unpacked (deflate, bzip2, lzma, a bad header).
UNPACK_ERRORS = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, OSError, EOFError, ValueError)
MAX_DEPTH = 1  # a bundle inside a bundle is read; one more level is not


def member_label(name: str) -> str:
    """A member's name for display and storage: control characters removed, at most 500 characters."""
    cleaned = "".join(ch for ch in name if ch >= " " and ch != "\x7f").strip()
    return (cleaned or "(unnamed member)")[:500]


def bundle_members(stream: io.BufferedReader, fmt: str, limits) -> Iterator[tuple[str, bytes] | RecordError]:
    """(label, bytes) of each regular member in order, or a RecordError for one that cannot be read."""
    budget = _Budget(limits.max_unpacked_bytes)
    if fmt == "zip":
        yield from _zip_members(stream, limits, budget)
    else:
        yield from _tar_members(stream, limits, budget)


class _Budget:
    def __init__(self, limit: int) -> None:
        self.left = limit
        self.limit = limit

    def take(self, size: int) -> None:
        self.left -= size
        if self.left < 0:
            raise InputError(f"the bundle unpacks to more than max_unpacked_bytes={self.limit:_} bytes")


def _read_member(handle, label: str, position: int, cap: int, budget: _Budget) -> tuple[tuple | RecordError, bool]:
    """(the member's (label, bytes), or a RecordError; whether the bundle ends here: past its size budget)."""
    try:
        data = handle.read(cap + 1)
        if len(data) > cap:
            budget.take(cap)
            return RecordError(position, f"{label}: the member is over max_record_bytes={cap:_} bytes"), False
        budget.take(len(data))
    except InputError as exc:  # past max_unpacked_bytes: the members read so far are kept
        return RecordError(position, f"{label}: {exc}; the members after it were not read"), True
    return (label, data), False


def _zip_members(stream, limits, budget: _Budget) -> Iterator[tuple[str, bytes] | RecordError]:
    source = stream
    if not (hasattr(stream, "seekable") and stream.seekable()):
        data = stream.read(limits.max_unpacked_bytes + 1)
        if len(data) > limits.max_unpacked_bytes:
            raise InputError(f"the zip file is over max_unpacked_bytes={limits.max_unpacked_bytes:_} bytes")
        source = io.BytesIO(data)
    try:
        archive = zipfile.ZipFile(source)
    except (*UNPACK_ERRORS, NotImplementedError, RuntimeError) as exc:
        raise InputError(f"the zip file cannot be read: {exc}") from None
    with archive:
        names = {info.filename for info in archive.infolist()[:50]}
        if "[Content_Types].xml" in names or "mimetype" in names or "META-INF/manifest.xml" in names:
            # Word, EPUB and OpenDocument files are zip files too, but one document, not a bundle of articles.
            raise InputError(
                "the zip file is an office document or e-book (Word, EPUB or OpenDocument), not a bundle of "
                "articles; save the article as text or HTML"
            )
        for position, info in enumerate(archive.infolist(), start=1):
            label = member_label(info.filename)
            if info.is_dir():
                continue
            if info.flag_bits & 0x1:
                yield RecordError(position, f"{label}: the member is encrypted")
                continue
            try:
                with archive.open(info) as handle:
                    item, last = _read_member(handle, label, position, limits.max_record_bytes, budget)
            except (*UNPACK_ERRORS, NotImplementedError, RuntimeError) as exc:
                yield RecordError(position, f"{label}: the member cannot be unpacked: {exc}")
                continue
            yield item
            if last:
                return


def _tar_members(stream, limits, budget: _Budget) -> Iterator[tuple[str, bytes] | RecordError]:
    position = 0
    try:
        archive = tarfile.open(fileobj=stream, mode="r|")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise InputError(f"the tar file cannot be read: {exc}") from None
    try:
        for member in archive:
            position += 1
            label = member_label(member.name)
            if member.isdir():
                continue
            if not member.isfile():
                kind = "a link" if member.issym() or member.islnk() else "not a regular file"
                yield RecordError(position, f"{label}: {kind}, not read")
                continue
            handle = archive.extractfile(member)
            if handle is None:
                continue
            item, last = _read_member(handle, label, position, limits.max_record_bytes, budget)
            yield item
            if last:
                return
    except InputError as exc:  # the gzip layer of a .tar.gz, cut off or corrupt
        if position <= 1:
            raise
        yield RecordError(position, str(exc))
    except (tarfile.TarError, *UNPACK_ERRORS) as exc:
        if position == 0:
            raise InputError(f"the tar file cannot be read: {exc}") from None
        yield RecordError(position + 1, f"the tar file ends early or is corrupt after member {position}: {exc}")


# --- WARC ---------------------------------------------------------------------------------------------

CONTENT_RECORDS = ("response", "resource")


def warc_pages(
    stream: io.BufferedReader, limits, *, make_unit: Callable[[str, int, dict], object]
) -> Iterator[object | RecordError]:
    """One unit per HTML page of a WARC file (made by `make_unit(text, position, meta)`), in order."""
    position = 0
    try:
        records = ArchiveIterator(stream, no_record_parse=False, ensure_http_headers=False)
        for record in records:
            if record.rec_type not in CONTENT_RECORDS:
                continue
            position += 1
            uri = record.rec_headers.get_header("WARC-Target-URI") or ""
            captured = record.rec_headers.get_header("WARC-Date")
            label = member_label(uri)[:300] or f"record {position}"
            status = record.http_headers.get_statuscode() if record.http_headers else None
            content_type = (
                record.http_headers.get_header("Content-Type")
                if record.http_headers
                else record.rec_headers.get_header("Content-Type")
            ) or ""
            if status and not status.startswith("2"):
                yield RecordError(position, f"{label}: HTTP status {status}, not a page")
                continue
            payload = record.content_stream().read(limits.max_record_bytes + 1)
            if len(payload) > limits.max_record_bytes:
                yield RecordError(position, f"{label}: over max_record_bytes={limits.max_record_bytes:_} bytes")
                continue
            if getattr(record.raw_stream, "limit", 0):  # fewer bytes than its Content-Length: the file was cut
                yield RecordError(position, f"{label}: the WARC file ends early, in the middle of this record")
                return
            if not _is_html(content_type, payload):
                yield RecordError(position, f"{label}: not an HTML page ({content_type or 'no content type'})")
                continue
            try:
                text = _decode(payload, _charset(content_type))
            except InputError as exc:
                yield RecordError(position, f"{label}: {exc}")
                continue
            yield make_unit(text, position, {"url": uri or None, "captured": captured, "member": None})
    except InputError as exc:  # a truncated gzip layer, found by the unpacking stream
        if position == 0:
            raise
        yield RecordError(position + 1, str(exc))
    except (ArchiveLoadFailed, EOFError, OSError, ValueError, AttributeError, TypeError) as exc:
        # warcio fails with AttributeError or TypeError on a record cut inside its headers
        if position == 0:
            raise InputError(f"the WARC file cannot be read: {exc}") from None
        yield RecordError(position + 1, f"the WARC file ends early or is corrupt after record {position}: {exc}")


def _is_html(content_type: str, payload: bytes) -> bool:
    kind = content_type.split(";")[0].strip().lower()
    if kind in ("text/html", "application/xhtml+xml"):
        return True
    if kind and kind not in ("text/plain", "application/octet-stream", "unk", "unknown"):
        return False
    head = payload[:1024].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html"))


def _decode(payload: bytes, charset: Optional[str]) -> str:
    """The page's text: by the charset its HTTP header states when the bytes agree, else detected."""
    if charset:
        try:
            return payload.decode(charset)
        except (LookupError, UnicodeDecodeError):
            pass
    return decode_bytes(payload)[0]


def _charset(content_type: str) -> Optional[str]:
    for part in content_type.split(";")[1:]:
        name, _, value = part.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None
