"""Opening a file's bytes for reading: gzip unpacked as a stream, within the limits of one run."""

from __future__ import annotations

import io
import zlib
from dataclasses import dataclass
from typing import BinaryIO, Optional

from ..errors import InputError

GZIP_MAGIC = b"\x1f\x8b"


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
