"""Page metadata (title, authors, publication date) on the html-metadata set, beside trafilatura in the same run.

Every page of ../shared/corpus/html-metadata goes through the archive's reader as `newsarchive ingest`
reads it (`read_bytes`: decoding, HTML reading, enrichment); trafilatura reads the same bytes with
`bare_extraction(with_metadata=True)`. Both answers are compared with the expected values the same way:

- title: equal once case, spaces, quotes and dashes are unified;
- authors: the same set of names, once "By", roles and separators (`,` `;` `&` `and` `und`...) are taken off;
- date: the same calendar day (a datetime counts by its own offset's day).

A page the reader refuses counts as an empty answer. The set is scored in its two parts, which come
from different projects (see its SOURCE.md): trafilatura's evaluation pages and htmldate's MediaCloud 2020
news pages. Mismatches are written to bench/out/metadata-misses.jsonl.

    python -m bench.metadata [--corpus DIR] [--parts NAME ...]
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import logging
import os
import platform
import re
import sys
import time
import unicodedata
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.extract import _version, corpus_root  # noqa: E402
from ingest.errors import InputError  # noqa: E402
from ingest.readers import read_bytes  # noqa: E402

FIELDS = ("title", "authors", "date")
SYSTEMS = ("newsarchive", "trafilatura")


# -- comparing ----------------------------------------------------------------------------------------

_QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "“": '"', "”": '"', "„": '"', "«": '"', "»": '"'})
_DASHES = re.compile(r"[\u2010-\u2015\u2212]")


def norm_title(text: Optional[str]) -> str:
    text = unicodedata.normalize("NFKC", text or "").translate(_QUOTES)
    return " ".join(_DASHES.sub("-", text).casefold().split()).strip(" .")


_BY = re.compile(r"^(?:by|von|par|por|di|door|text|texte|autor|author)\s*:?\s+", re.I)
_SEPARATORS = re.compile(r"\s*(?:[,;&|/]|\band\b|\bund\b|\bet\b|\by\b|\be\b|\bi\b|\bsowie\b)\s*", re.I)


def author_names(value) -> frozenset[str]:
    """The set of names in an author value (a list, or one string with separators)."""
    items = value if isinstance(value, list) else [value or ""]
    names = set()
    for item in items:
        for part in _SEPARATORS.split(_BY.sub("", str(item).strip())):
            name = " ".join(part.casefold().strip(" .:-").split())
            if name:
                names.add(name)
    return frozenset(names)


def day_of(value) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()[:10]
    match = re.match(r"\d{4}-\d{2}-\d{2}", str(value))
    return match.group(0) if match else None


def correct(field: str, expected, found) -> bool:
    if field == "title":
        return bool(found) and norm_title(found) == norm_title(expected)
    if field == "authors":
        return bool(found) and author_names(found) == author_names(expected)
    return day_of(found) == day_of(expected)


# -- reading ------------------------------------------------------------------------------------------


def read_page(path: Path) -> tuple[str, dict, dict]:
    """(page id, the archive's answer, trafilatura's answer) for one page; runs in a worker process."""
    logging.disable(logging.CRITICAL)
    import trafilatura  # noqa: PLC0415 (worker process)

    data = gzip.decompress(path.read_bytes())
    key = path.name.removesuffix(".html.gz")
    try:
        article = read_bytes(data, key + ".html")[0]
        ours = {"title": article.headline, "authors": article.byline, "date": day_of(article.published)}
    except InputError:
        ours = {}
    try:
        doc = trafilatura.bare_extraction(data, with_metadata=True, output_format="python")
        theirs = {"title": doc.title, "authors": doc.author, "date": day_of(doc.date)} if doc else {}
    except Exception:  # trafilatura failing on a page answers nothing for it
        theirs = {}
    return key, ours, theirs


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=corpus_root(), help="the ../shared/corpus folder")
    args = parser.parse_args(argv)
    folder = args.corpus / "html-metadata"
    if not (folder / "expected.jsonl").is_file():
        print(f"skipped: the html-metadata set is not at {folder}")
        return 0
    expected = [json.loads(line) for line in (folder / "expected.jsonl").read_text(encoding="utf-8").splitlines()]
    print(
        f"{len(expected)} pages; {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"trafilatura {_version('trafilatura')}, htmldate {_version('htmldate')}"
    )
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        answers = {
            key: (ours, theirs)
            for key, ours, theirs in pool.map(read_page, [folder / "html" / f"{row['id']}.html.gz" for row in expected])
        }
    print(f"read in {time.perf_counter() - started:.0f} s (both systems, {os.cpu_count()} processes)")

    counts: dict[tuple[str, str, str], int] = defaultdict(int)
    totals: dict[tuple[str, str], int] = defaultdict(int)
    misses = []
    for row in expected:
        ours, theirs = answers[row["id"]]
        for field in FIELDS:
            if field not in row or row[field] is None:
                continue
            totals[row["source"], field] += 1
            for system, answer in zip(SYSTEMS, (ours, theirs), strict=True):
                if correct(field, row[field], answer.get(field)):
                    counts[row["source"], field, system] += 1
                elif system == "newsarchive":
                    found = answer.get(field)
                    misses.append({"id": row["id"], "field": field, "expected": row[field], "found": found})

    lines = [
        "| part | field | pages with a value | newsarchive right | trafilatura right | result |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for part in sorted({row["source"] for row in expected}):
        for field in FIELDS:
            n = totals[part, field]
            if not n:
                continue
            ours, theirs = counts[part, field, "newsarchive"], counts[part, field, "trafilatura"]
            verdict = "**pass**" if ours >= theirs else "**fail**"
            lines.append(
                f"| {part} | {field} | {n} | {ours} ({ours / n:.1%}) | {theirs} ({theirs / n:.1%}) | {verdict} |"
            )
    print("\n".join(lines))
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    with (out / "metadata-misses.jsonl").open("w", encoding="utf-8") as handle:
        for miss in misses:
            handle.write(json.dumps(miss, ensure_ascii=False, default=str) + "\n")
    print(f"{len(misses)} misses of the archive written to bench/out/metadata-misses.jsonl")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
