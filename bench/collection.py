"""The relevance collection: every BBC article plus the first Reuters chunk (27,000 records), with stable keys.

A key names an article in the corpus, never in an archive: `bbc/<category>/<nnn>.txt` for a BBC file and
`reuters/<id>` for a Reuters record (its `id`, `<day>/<slug>`). Copies (the BBC folder and the Reuters feed
both repeat some articles, byte for byte or with other whitespace) share one canonical key, the first in
corpus order, because the archive stores such copies once. Judgments and results are compared by
canonical key.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from .common import CORPUS

BBC = CORPUS / "bbc-news" / "bbc"
REUTERS_CHUNK = CORPUS / "reuters-financial" / "reuters-financial-01.jsonl.gz"


@dataclass(frozen=True)
class Doc:
    key: str
    headline: str
    body: str


def _bbc_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def bbc_docs() -> Iterator[Doc]:
    for path in sorted(BBC.glob("*/*.txt")):
        lines = _bbc_text(path).strip().split("\n", 1)
        yield Doc(f"bbc/{path.parent.name}/{path.name}", lines[0].strip(), lines[1].strip() if len(lines) > 1 else "")


def reuters_docs() -> Iterator[Doc]:
    with gzip.open(REUTERS_CHUNK, "rt", encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            yield Doc(
                f"reuters/{record['id']}", (record.get("title") or "").strip(), (record.get("body") or "").strip()
            )


def all_docs() -> Iterator[Doc]:
    yield from bbc_docs()
    yield from reuters_docs()


def _fingerprint(doc: Doc) -> str:
    text = re.sub(r"\s+", " ", f"{doc.headline}\n{doc.body}").strip().lower()
    return hashlib.sha256(text.encode()).hexdigest()


@lru_cache(maxsize=1)
def canonical_keys() -> dict[str, str]:
    """Every key mapped to the canonical key of its copies (itself when it has none)."""
    first: dict[str, str] = {}
    out: dict[str, str] = {}
    for doc in all_docs():
        fp = _fingerprint(doc)
        out[doc.key] = first.setdefault(fp, doc.key)
    return out


def key_of_file(original_file: str) -> str | None:
    """The key of a BBC file from the path an archive stored it under."""
    m = re.search(r"bbc/(business|entertainment|politics|sport|tech)/(\d+\.txt)$", original_file or "")
    return f"bbc/{m.group(1)}/{m.group(2)}" if m else None


@lru_cache(maxsize=1)
def reuters_key_by_url() -> dict[str, str]:
    out: dict[str, str] = {}
    for doc_key, url in _reuters_urls():
        out.setdefault(url, doc_key)
    return out


def _reuters_urls() -> Iterator[tuple[str, str]]:
    with gzip.open(REUTERS_CHUNK, "rt", encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if record.get("url"):
                yield f"reuters/{record['id']}", record["url"]
