"""Speed on the Reuters corpus: ingestion against the raw Whoosh writer, search against SQLite FTS5.

    python -m bench.speed [--articles 20000] [--queries 96] [--seconds 20]

All figures of one table come from one run on one machine, so their ratios hold even when absolute
times drift. Writes its table into BENCHMARKS.md (section `speed-<articles>`).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Optional

import whoosh.index
from whoosh.fields import ID, TEXT, Schema

from store.settings import Settings

from .common import (
    CORPUS,
    ROOT,
    Server,
    archive_env,
    ingest_watching_memory,
    machine,
    newsarchive,
    percentile,
    query_mix,
    require_corpus,
    reuters_lines,
    today,
    update_benchmarks,
    write_parts,
)

# -- ingestion ---------------------------------------------------------------------------------------

BBC = CORPUS / "bbc-news" / "bbc"


def raw_whoosh_rate(records: list[dict], workdir: Path, procs: int = 2, limitmb: int = 128) -> tuple[float, float]:
    """Articles/s of a plain Whoosh writer (title and body, standard analyzer) on the same texts; Whoosh's
    default memory (limitmb=128 per process) unless told otherwise."""

    path = workdir / "raw-index"
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    schema = Schema(id=ID(stored=True, unique=True), title=TEXT(stored=True), body=TEXT)
    ix = whoosh.index.create_in(str(path), schema)
    started = time.perf_counter()
    writer = ix.writer(procs=procs, multisegment=True, limitmb=limitmb)
    for i, r in enumerate(records):
        writer.add_document(id=str(i), title=r.get("title") or "", body=r.get("body") or "")
    writer.commit()
    seconds = time.perf_counter() - started
    return len(records) / seconds, seconds


def end_to_end_rate(feed: Path, home: Path) -> tuple[dict, float, int, int]:
    """`newsarchive ingest` of the feed folder into a fresh archive, timed from process start to exit; and
    its peak memory over the whole run and over the first half of it (equal peaks mean memory stopped
    growing with the number of articles)."""
    return ingest_watching_memory(feed, home)


def build_fts5(records: list[dict], path: Path) -> float:
    """An FTS5 table of the same articles (headline and body), with year and byline columns for GROUP BY
    facets."""
    if path.exists():
        path.unlink()
    db = sqlite3.connect(path)
    db.executescript("""
        PRAGMA journal_mode=WAL;
        CREATE TABLE articles (id INTEGER PRIMARY KEY, title TEXT, body TEXT, byline TEXT, year INTEGER);
        CREATE VIRTUAL TABLE fts USING fts5(title, body, content='articles', content_rowid='id');
    """)
    started = time.perf_counter()
    rows = []
    for i, r in enumerate(records, start=1):
        year = int((r.get("day") or "0000")[:4])
        rows.append((i, r.get("title") or "", r.get("body") or "", r.get("byline") or None, year))
    db.executemany("INSERT INTO articles VALUES (?, ?, ?, ?, ?)", rows)
    db.execute("INSERT INTO fts(fts) VALUES ('rebuild')")
    db.commit()
    db.close()
    return time.perf_counter() - started


def fts_words(text: str) -> list[str]:
    return ['"' + w + '"' for w in dict.fromkeys(w.lower() for w in re.findall(r"\w+", text))]


FTS_HITS = """SELECT a.id, a.title, snippet(fts, 1, '<mark>', '</mark>', '…', 24), bm25(fts)
              FROM fts JOIN articles a ON a.id = fts.rowid WHERE fts MATCH ?{0} ORDER BY bm25(fts) LIMIT 20"""
FTS_FACET = """SELECT a.{0}, count(*) FROM fts JOIN articles a ON a.id = fts.rowid WHERE fts MATCH ?{1}
               GROUP BY a.{0} ORDER BY count(*) DESC LIMIT 20"""


def fts5_answer(db: sqlite3.Connection, text: str, year_filter: bool) -> None:
    """FTS5 given the archive's semantics: every word; when that finds fewer than a page, any word; bm25
    order, a snippet per hit, the total, and the year and byline counts; every second query also filtered
    to two years (as /api/search is asked)."""
    words = fts_words(text)
    where = " AND a.year IN (2008, 2011)" if year_filter else ""
    total = "SELECT count(*) FROM fts JOIN articles a ON a.id = fts.rowid WHERE fts MATCH ?" + where
    q = " ".join(words)
    if db.execute(total, (q,)).fetchone()[0] < 20:
        q = " OR ".join(words)
        db.execute(total, (q,)).fetchone()
    db.execute(FTS_HITS.format(where), (q,)).fetchall()
    db.execute(FTS_FACET.format("year", ""), (q,)).fetchall()  # disjunctive: not under its own filter
    db.execute(FTS_FACET.format("byline", where), (q,)).fetchall()


def fts5_latencies(path: Path, queries: list[str], rounds: int) -> list[float]:
    db = sqlite3.connect(path)
    times = []
    for i, q in enumerate(queries):  # warm the page cache
        fts5_answer(db, q, bool(i % 2))
    for _ in range(rounds):
        for i, q in enumerate(queries):
            started = time.perf_counter()
            fts5_answer(db, q, bool(i % 2))
            times.append(time.perf_counter() - started)
    db.close()
    return times


def api_latencies(server: Server, queries: list[str], rounds: int) -> tuple[list[float], list[int], list[float]]:
    """(latencies of the measured rounds, totals, latencies of the first pass on a fresh server)."""
    client = server.client()
    cold = []
    for q in queries:  # the first pass: caches empty, every word's postings read from disk
        status, _, seconds = client.get("/api/search", {"q": q})
        cold.append(seconds)
    times, totals = [], []
    for _ in range(rounds):
        for i, q in enumerate(queries):
            # Every second query also chooses two years: the facet counts are then disjunctive (the year
            # facet counted without its own filter, the others with it); the histogram and one hit per
            # story are on for every query, as they are by default.
            params = {"q": q, "year": ["2008", "2011"]} if i % 2 else {"q": q}
            status, body, seconds = client.get("/api/search", params)
            if status != 200:
                raise RuntimeError(f"{q!r}: HTTP {status}: {body[:200]!r}")
            times.append(seconds)
            totals.append(json.loads(body)["total"])
    return times, totals, cold


def concurrent(
    server: Server, queries: list[str], clients: int, seconds: float, until: Optional[subprocess.Popen] = None
) -> tuple[float, float, int]:
    """(requests/s, p95 ms, errors) of `clients` keep-alive clients searching for `seconds`, or until the
    process `until` ends."""
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    stop = threading.Event()

    def loop(offset: int) -> None:
        nonlocal errors
        client = server.client()
        i = offset
        while not stop.is_set():
            status, _, s = client.get("/api/search", {"q": queries[i % len(queries)]})
            with lock:
                if status == 200:
                    latencies.append(s)
                else:
                    errors += 1
            i += 1

    threads = [threading.Thread(target=loop, args=(n * 11,)) for n in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    time.sleep(seconds)
    if until is not None:
        until.wait()
    stop.set()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    return len(latencies) / elapsed, percentile([x * 1000 for x in latencies], 95), errors


# -- the run -----------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=20000)
    parser.add_argument("--queries", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=3, help="passes over the query set for latency figures")
    parser.add_argument("--seconds", type=float, default=20, help="length of the concurrency run")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--out", default=str(ROOT / "bench" / "out" / "speed"))
    parser.add_argument(
        "--archive",
        help="measure search on a copy of this archive of the same articles (from an earlier run's "
        "bench/out/speed/N/archive) instead of building one: the ingest rows are then left out",
    )
    args = parser.parse_args()
    require_corpus()
    workdir = Path(args.out) / str(args.articles)
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)

    lines = list(reuters_lines(args.articles))
    # Files of at most 27,000 lines, as the corpus itself comes (each well under max_file_bytes).
    feed = workdir / "feed"
    write_parts(feed, lines)
    records = [json.loads(line) for line in lines]
    raw_text_bytes = sum(len((r.get("title") or "").encode()) + len((r.get("body") or "").encode()) for r in records)
    print(f"{len(records):,} Reuters articles, {raw_text_bytes / 1e6:.0f} MB of headline and body text", flush=True)

    home = workdir / "archive"
    if args.archive:
        shutil.copytree(args.archive, home, symlinks=True)  # the index's `current` link stays a link
        ingest_rows = None
    else:
        ingest_rows = measure_ingest(records, lines, feed, workdir, home)
        if ingest_rows is None:
            return 1
    stats = json.loads(newsarchive(home, "stats", "--json").stdout)
    search_rows = measure_search(args, records, home)
    rows = (ingest_rows or []) + search_rows(stats, raw_text_bytes)
    table = "\n".join(f"| {k} | {v} |" for k, v in rows)
    update_benchmarks(
        f"speed-{args.articles}",
        f"""## Speed at {args.articles:,} articles

`python -m bench.speed --articles {args.articles}{" --archive ..." if args.archive else ""}` (run by `make bench`), {today()}, {machine()}. SQLite store.

| measure | value |
| --- | --- |
{table}
""",
    )
    print(table)
    return 0


def measure_ingest(records: list[dict], lines: list, feed: Path, workdir: Path, home: Path) -> Optional[list]:
    """The ingest rows of the table: `newsarchive ingest` of the feed into `home` beside the raw writer."""
    print("raw Whoosh writer ...", flush=True)
    raw_rate, raw_seconds = raw_whoosh_rate(records, workdir)
    print(f"  {raw_rate:.0f} articles/s ({raw_seconds:.1f} s)", flush=True)

    our_memory = Settings.from_env({}).index_memory_mb // 2
    print(f"raw Whoosh writer with our memory budget ({our_memory} MB per process) ...", flush=True)
    raw_same_rate, raw_same_seconds = raw_whoosh_rate(records, workdir, limitmb=our_memory)
    print(f"  {raw_same_rate:.0f} articles/s ({raw_same_seconds:.1f} s)", flush=True)
    print("newsarchive ingest ...", flush=True)
    summary, e2e_seconds, ingest_peak, ingest_half_peak = end_to_end_rate(feed, home)
    if summary["ingested"] + summary["duplicates"] + summary["failed"] != len(lines) or summary["ingested"] < 0.9 * len(
        lines
    ):
        print("ingestion did not take the feed:", json.dumps({k: v for k, v in summary.items() if k != "files"}))
        return None
    e2e_rate = summary["ingested"] / e2e_seconds
    print(
        f"  {e2e_rate:.0f} articles/s ({e2e_seconds:.1f} s): {summary['ingested']:,} ingested, "
        f"{summary['duplicates']:,} duplicates, {summary['failed']:,} bad lines",
        flush=True,
    )
    return [
        (
            "end-to-end `newsarchive ingest`",
            f"{e2e_rate:.0f} articles/s ({summary['ingested']:,} articles in {e2e_seconds:.1f} s, process start to exit)",
        ),
        ("raw Whoosh writer (plain schema, procs=2, multisegment)", f"{raw_rate:.0f} articles/s ({raw_seconds:.1f} s)"),
        ("**ingest ratio** (target >= 0.75)", f"**{e2e_rate / raw_rate:.2f}**"),
        (
            f"raw Whoosh writer given our memory budget (limitmb={our_memory} per process)",
            f"{raw_same_rate:.0f} articles/s ({raw_same_seconds:.1f} s); ratio {e2e_rate / raw_same_rate:.2f}",
        ),
        (
            "ingester peak memory (PSS of the process and its workers, sampled every 0.2 s): whole run / first half",
            f"{ingest_peak / 1e6:.0f} MB / {ingest_half_peak / 1e6:.0f} MB",
        ),
    ]


def articles_in(home: Path) -> int:
    return json.loads(newsarchive(home, "stats", "--json").stdout)["articles"]


def while_ingesting(server: Server, queries: list[str], clients: int, seconds: float, home: Path) -> str:
    """The clients from the start to the end of `newsarchive ingest` adding the BBC corpus (at its default
    priority): the table's cell."""
    before = articles_in(home)
    adding = subprocess.Popen(
        [sys.executable, "-m", "webapp.cli", "ingest", str(BBC)],
        env=archive_env(home),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    started = time.perf_counter()
    rps, p95, errors = concurrent(server, queries, clients, seconds, until=adding)
    took = time.perf_counter() - started
    if adding.returncode != 0:
        raise RuntimeError("the ingest during the run failed: " + adding.stderr.read().decode(errors="replace")[-2000:])
    return (
        f"{rps:.0f} requests/s, p95 {p95:.1f} ms, {errors} errors, from the ingest's start to its end ({took:.0f} s; "
        f"it stored {articles_in(home) - before:,} articles)"
    )


def measure_search(args, records: list[dict], home: Path):
    """Search against FTS5 built the same way; returns a function of (stats, raw text bytes) giving the rows."""
    workdir = home.parent
    print("SQLite FTS5 ...", flush=True)
    fts_path = workdir / "fts5.sqlite"
    build_fts5(records, fts_path)
    mix = query_mix(args.queries)
    queries = [text for _, text in mix]
    fts = fts5_latencies(fts_path, queries, args.rounds)

    print("/api/search ...", flush=True)
    # Each query is asked several times: with answers kept for next pages, every round after the first
    # would cost nothing. The latencies are of answers computed anew (bench.profile measures paging).
    server = Server(home, NEWSARCHIVE_SEARCH_ANSWERS=0)
    try:
        api, totals, cold = api_latencies(server, queries, args.rounds)
        # The rounds above went through one connection, so one worker: warm the others as a server in use
        # is (the first pass on a fresh server is reported above), then measure.
        concurrent(server, queries, args.clients, args.seconds)
        rps, p95_conc, errors = concurrent(server, queries, args.clients, args.seconds)
        print(f"{args.clients} clients while the BBC corpus is ingested ...", flush=True)
        during_ingest = while_ingesting(server, queries, args.clients, args.seconds, home)
        server_rss = server.rss_bytes()
    finally:
        server.stop()

    def ms(values):
        return [v * 1000 for v in values]

    api_ms, fts_ms = ms(api), ms(fts)
    kinds = [kind for kind, _ in mix] * args.rounds

    def by_kind(values, kind):
        return [v for v, k in zip(values, kinds, strict=False) if k == kind]

    ratio_p95 = percentile(api_ms, 95) / percentile(fts_ms, 95)

    def rows(stats: dict, raw_text_bytes: int) -> list:
        index_bytes = stats["index_bytes"]
        return [
            (
                "`/api/search` p50 / p95 / p99 (HTTP keep-alive, every facet, histogram, collapse, feedback)",
                f"{percentile(api_ms, 50):.1f} / {percentile(api_ms, 95):.1f} / {percentile(api_ms, 99):.1f} ms",
            ),
            (
                "`/api/search` first pass on a fresh server (empty caches) p50 / p95 / p99",
                f"{percentile(ms(cold), 50):.1f} / {percentile(ms(cold), 95):.1f} / {percentile(ms(cold), 99):.1f} ms",
            ),
            (
                "SQLite FTS5 the archive's way p50 / p95 / p99 (in-process: every word, any word when that finds "
                "under 20; bm25, snippet, count, year and byline GROUP BY)",
                f"{percentile(fts_ms, 50):.1f} / {percentile(fts_ms, 95):.1f} / {percentile(fts_ms, 99):.1f} ms",
            ),
            ("**p95 ratio** /api/search : FTS5 (target <= 0.5)", f"**{ratio_p95:.2f}**"),
            (
                "p95 by kind, /api/search : FTS5",
                "; ".join(
                    f"{kind} {percentile(by_kind(api_ms, kind), 95):.1f} : "
                    f"{percentile(by_kind(fts_ms, kind), 95):.1f} ms"
                    for kind in ("word", "pair", "headline", "question")
                ),
            ),
            (
                f"{args.clients} concurrent clients ({args.seconds:.0f} s; `serve` defaults: one worker per core, "
                "4 threads each)",
                f"{rps:.0f} requests/s, p95 {p95_conc:.1f} ms, {errors} errors",
            ),
            (
                f"{args.clients} concurrent clients while `newsarchive ingest` adds the BBC corpus (2,225 text files)",
                during_ingest,
            ),
            ("server peak RSS (all workers)", f"{server_rss / 1e6:.0f} MB"),
            (
                "index size : raw text",
                f"{index_bytes / 1e6:.0f} MB : {raw_text_bytes / 1e6:.0f} MB = {index_bytes / raw_text_bytes:.2f}",
            ),
            (
                "queries",
                f"{len(queries)} queries (a quarter each: single words, word pairs, pasted Reuters headlines, "
                f"the judged natural-language questions) x {args.rounds} rounds after a warm-up pass; every "
                "second query of /api/search also chooses two years (disjunctive facet counts); histogram and "
                f"one hit per story on; answers are not kept between requests (each computed anew); median hits "
                f"{sorted(totals)[len(totals) // 2]:,}",
            ),
        ]

    return rows


if __name__ == "__main__":
    sys.exit(main())
