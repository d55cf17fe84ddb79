"""One big JSON Lines or WARC file through `newsarchive ingest`: bounded memory however large the file.

A file of `--gigabytes` is generated from the Reuters corpus (all 106,520 records, then again with each
copy's body carrying its copy number, so no record is a duplicate of another), written once under
bench/out/ and kept for the next run. It is ingested into a fresh archive by `newsarchive ingest FILE`
in a subprocess, with the settings of the environment plus `--set NAME=VALUE` overrides; the peak memory
(PSS of the process and its parser workers, sampled every 0.2 s) is reported over the whole run and over
its first half: equal peaks mean memory stopped growing with the file.

With `--format warc` the same records become HTML pages in a WARC file (gzipped per record, as crawlers
write them), each a response record after its request record, so the HTML rules read every page.

    python -m bench.bulk [--gigabytes 2] [--format jsonl|warc] [--set index_memory_mb=256]
"""

from __future__ import annotations

import argparse
import html
import io
import json
import os
import platform
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from .common import ROOT, ingest_watching_memory, require_corpus, reuters_lines


def copies(limit: int | None = None):
    """Reuters records as JSON lines, copy after copy (each copy's id and body carrying its copy number, so
    no record is a duplicate of another), `limit` of them or without end."""
    count = 0
    copy = 0
    while True:
        for line in reuters_lines():
            if limit is not None and count >= limit:
                return
            record = json.loads(line)
            if copy:
                record["id"] = f"{record.get('id')}-copy{copy}"
                record["body"] = f"{record.get('body', '')}\n\n(Archive copy {copy}.)"
            yield json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n"
            count += 1
        copy += 1


def generate(path: Path, size: int) -> int:
    """Write Reuters records, copy after copy, until the file holds `size` bytes; return the records."""
    if path.exists() and path.stat().st_size >= size:
        with path.open("rb") as handle:
            return sum(1 for _ in handle)
    path.parent.mkdir(parents=True, exist_ok=True)
    records = written = 0
    with path.open("wb") as out:
        for data in copies():
            out.write(data)
            written += len(data)
            records += 1
            if written >= size:
                break
    return records


def generate_warc(path: Path, size: int) -> int:
    """Write the records as HTML pages in a gzipped WARC until it holds `size` bytes; return the pages."""
    if path.exists() and path.stat().st_size >= size:
        return int(path.with_suffix(".count").read_text())
    path.parent.mkdir(parents=True, exist_ok=True)
    pages = copy = 0
    with path.open("wb") as out:
        writer = WARCWriter(out, gzip=True)
        while out.tell() < size:
            for line in reuters_lines():
                record = json.loads(line)
                body = record.get("body", "") + (f"\n\n(Archive copy {copy}.)" if copy else "")
                paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in body.split("\n") if p.strip())
                title = html.escape(record.get("title") or record.get("headline") or "")
                page = (
                    f'<!doctype html><html lang="en"><head><title>{title}</title>'
                    f'<meta property="article:published_time" content="{html.escape(str(record.get("published", "")))}">'
                    f"</head><body><nav><a href='/'>Home</a> <a href='/world'>World</a></nav><article><h1>{title}</h1>"
                    f"{paragraphs}</article><footer>© Example News</footer></body></html>"
                ).encode("utf-8")
                uri = f"https://news.example/{copy}/{pages}"
                request = StatusAndHeaders("GET / HTTP/1.1", [("Host", "news.example")], is_http_request=True)
                writer.write_record(
                    writer.create_warc_record(uri, "request", payload=io.BytesIO(b""), http_headers=request)
                )
                headers = StatusAndHeaders(
                    "200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1"
                )
                writer.write_record(
                    writer.create_warc_record(uri, "response", payload=io.BytesIO(page), http_headers=headers)
                )
                pages += 1
                if out.tell() >= size:
                    break
            copy += 1
    path.with_suffix(".count").write_text(str(pages))
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gigabytes", type=float, default=2.0, help="size of the generated file")
    parser.add_argument("--format", choices=("jsonl", "warc"), default="jsonl", help="the big file's format")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a setting for the run")
    args = parser.parse_args(argv)
    require_corpus()
    overrides = dict(item.split("=", 1) for item in args.set)
    size = int(args.gigabytes * 1e9)
    if args.format == "warc":
        path = ROOT / "bench" / "out" / f"bulk-{args.gigabytes:g}gb.warc.gz"
        records = generate_warc(path, size)
    else:
        path = ROOT / "bench" / "out" / f"bulk-{args.gigabytes:g}gb.jsonl"
        records = generate(path, size)
    print(f"{path.name}: {path.stat().st_size / 1e9:.2f} GB, {records:,} records; settings {overrides or 'defaults'}")
    settings = {f"NEWSARCHIVE_{name.upper()}": value for name, value in overrides.items()}
    summary, seconds, peak, first_half = ingest_watching_memory(path, ROOT / "bench" / "out" / "bulk-home", **settings)
    print(
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}: {seconds:.0f} s, "
        f"{summary.get('ingested', 0) / seconds:.0f} articles/s, {path.stat().st_size / 1e6 / seconds:.2f} MB/s; "
        f"peak memory (PSS of the ingester and its workers) {peak / 1e6:.0f} MB, first half {first_half / 1e6:.0f} MB"
    )
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
