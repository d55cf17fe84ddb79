"""Every feed and agency wire file of ../shared/corpus/feed-formats through the readers: what format each is
taken for, how many articles come out, and why the rest are refused (never an internal error).

    python -m bench.formats

Rewrites the "formats" section of BENCHMARKS.md.
"""

from __future__ import annotations

import time
import warnings
from collections import Counter

from bs4 import XMLParsedAsHTMLWarning

from ingest.errors import InputError, RecordError
from ingest.readers import Limits, iter_units, open_unpacked, parse_unit, sniff

from .common import CORPUS, machine, require_corpus, today, update_benchmarks

FEEDS = CORPUS / "feed-formats" / "feeds"


def reason_kind(reason: str) -> str:
    """A reason without its specifics, to count alike ones together."""
    for cut in (" (", ": "):
        reason = reason.split(cut, 1)[0]
    return reason[:80]


def main() -> int:
    require_corpus()
    warnings.simplefilter("ignore", XMLParsedAsHTMLWarning)
    files = sorted(p for p in FEEDS.rglob("*") if p.is_file())
    by_format: Counter = Counter()
    articles_by_format: Counter = Counter()
    refused: Counter = Counter()
    skipped: Counter = Counter()
    internal = []
    started = time.perf_counter()
    for path in files:
        limits = Limits()
        try:
            stream, _ = open_unpacked(path.read_bytes(), limits)
            fmt = sniff(stream, path.name)
            found = 0
            for unit in iter_units(stream, fmt, limits):
                if isinstance(unit, RecordError):
                    skipped[reason_kind(unit.reason)] += 1
                    continue
                try:
                    parse_unit(unit)
                    found += 1
                except InputError as exc:
                    skipped[reason_kind(str(exc))] += 1
            by_format[fmt] += 1
            articles_by_format[fmt] += found
        except InputError as exc:
            refused[reason_kind(str(exc))] += 1
        except Exception as exc:  # counted and shown: the benchmark must see every failure
            internal.append(f"{path.relative_to(FEEDS)}: {type(exc).__name__}: {exc}")
    seconds = time.perf_counter() - started
    lines = [
        "## Feed and wire formats",
        "",
        f"`python -m bench.formats`, {today()}, {machine()}: every file of `feed-formats` ({len(files):,}: "
        "feedparser's conformance cases, real feeds, agency NITF and NewsML-G2, IPTC 7901 and ANPA wire text) "
        f"through the readers in {seconds:.0f} s. Internal errors: **{len(internal)}**.",
        "",
        "| read as | files | articles |",
        "| --- | ---: | ---: |",
    ]
    for fmt, count in by_format.most_common():
        lines.append(f"| {fmt} | {count:,} | {articles_by_format[fmt]:,} |")
    lines.append(f"| refused whole | {sum(refused.values()):,} | 0 |")
    lines += ["", "| files refused, by reason | files |", "| --- | ---: |"]
    lines += [f"| {reason} | {count:,} |" for reason, count in refused.most_common(12)]
    lines += ["", "| records skipped inside files, by reason | records |", "| --- | ---: |"]
    lines += [f"| {reason} | {count:,} |" for reason, count in skipped.most_common(12)]
    if internal:
        lines += ["", "Internal errors:", ""] + [f"- {line}" for line in internal[:20]]
    body = "\n".join(lines)
    print(body)
    update_benchmarks("formats", body)
    return 1 if internal else 0


if __name__ == "__main__":
    raise SystemExit(main())
