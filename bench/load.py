"""Load while ingesting: 8 clients search /api/search for 60 s while `newsarchive ingest` adds 10,000 Reuters
articles to an archive that already holds 5,000. Passes when no request fails and every article lands.

    python -m bench.load [--base 5000] [--add 10000] [--clients 8] [--seconds 60]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import threading
import time

from .common import (
    ROOT,
    Server,
    archive_env,
    machine,
    newsarchive,
    percentile,
    query_mix,
    require_corpus,
    reuters_lines,
    today,
    update_benchmarks,
    write_feed,
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=int, default=5000)
    parser.add_argument("--add", type=int, default=10000)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--out", default=str(ROOT / "bench" / "out" / "load"))
    args = parser.parse_args()
    require_corpus()

    home = ROOT / args.out if not args.out.startswith("/") else __import__("pathlib").Path(args.out)
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    base_feed, add_feed = home / "base.jsonl.gz", home / "add.jsonl.gz"
    write_feed(base_feed, reuters_lines(args.base))
    added_lines = write_feed(add_feed, reuters_lines(args.add, skip=args.base))
    print(f"ingesting the base of {args.base:,} articles ...", flush=True)
    newsarchive(home / "archive", "ingest", str(base_feed))
    before = json.loads(newsarchive(home / "archive", "stats", "--json").stdout)

    queries = [text for _, text in query_mix()]
    server = Server(home / "archive", NEWSARCHIVE_SEARCH_ANSWERS=0)  # clients repeat queries: answers anew
    latencies: list[float] = []
    finished: list[float] = []  # when each of those requests finished
    failures: list[tuple[int, str]] = []
    lock = threading.Lock()
    stop = threading.Event()

    def client_loop(offset: int) -> None:
        client = server.client()
        i = offset
        while not stop.is_set():
            status, body, seconds = client.get("/api/search", {"q": queries[i % len(queries)]})
            with lock:
                if status == 200 and b'"hits"' in body:
                    latencies.append(seconds)
                    finished.append(time.perf_counter())
                else:
                    failures.append((status, body[:200].decode(errors="replace")))
            i += 1

    print(
        f"{args.clients} clients search for {args.seconds:.0f} s while {added_lines:,} articles are ingested ...",
        flush=True,
    )
    threads = [threading.Thread(target=client_loop, args=(n * 7,)) for n in range(args.clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    ingest_started = time.perf_counter()
    ingest = subprocess.Popen(
        [sys.executable, "-m", "webapp.cli", "ingest", str(add_feed), "--json"],
        env=archive_env(home / "archive"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    ingest_output: list[bytes] = []
    ingest_done: list[float] = []

    def wait_for_ingest() -> None:
        ingest_output.extend(ingest.communicate())
        ingest_done.append(time.perf_counter())

    waiter = threading.Thread(target=wait_for_ingest)
    waiter.start()
    time.sleep(max(0.0, args.seconds - (time.perf_counter() - started)))
    waiter.join()  # the clients keep searching until the ingest has finished, if it takes longer
    stop.set()
    for t in threads:
        t.join()
    searching = time.perf_counter() - started
    out, err = ingest_output
    ingest_seconds = ingest_done[0] - ingest_started
    server_rss = server.rss_bytes()
    server.stop()
    if ingest.returncode != 0:
        print(err.decode(errors="replace"))
        return 1
    summary = json.loads(out)
    after = json.loads(newsarchive(home / "archive", "stats", "--json").stdout)

    accounted = summary["ingested"] + summary["duplicates"] + summary["failed"]
    landed = after["articles"] - before["articles"] == summary["ingested"]
    indexed = after["index_documents"] == after["articles"] and after["pending_index"] == 0
    ok = not failures and accounted == added_lines and landed and indexed
    ms = [s * 1000 for s in latencies]
    during = [s * 1000 for s, t in zip(latencies, finished, strict=False) if t <= ingest_done[0]]
    rows = [
        ("requests served", f"{len(latencies):,} in {searching:.1f} s ({len(latencies) / searching:.1f} req/s)"),
        ("errors", f"{len(failures)}"),
        (
            "latency p50 / p95 / p99, whole run",
            f"{percentile(ms, 50):.1f} / {percentile(ms, 95):.1f} / {percentile(ms, 99):.1f} ms",
        ),
        (
            "latency p50 / p95 / p99, while the ingest ran",
            f"{percentile(during, 50):.1f} / {percentile(during, 95):.1f} / "
            f"{percentile(during, 99):.1f} ms ({len(during):,} requests)",
        ),
        (
            "articles added",
            f"{added_lines:,} lines: {summary['ingested']:,} ingested, {summary['duplicates']:,} duplicates, "
            f"{summary['failed']:,} bad lines (all accounted: {accounted == added_lines})",
        ),
        (
            "ingest time under load (process start to exit)",
            f"{ingest_seconds:.1f} s ({summary['ingested'] / ingest_seconds:.0f} articles/s)",
        ),
        ("SQL articles = index documents", f"{after['articles']:,} = {after['index_documents']:,} ({indexed})"),
        ("server peak RSS", f"{server_rss / 1e6:.0f} MB"),
    ]
    for error in failures[:5]:
        print("failed request:", error)
    table = "\n".join(f"| {k} | {v} |" for k, v in rows)
    update_benchmarks(
        "load",
        f"""## Search under load while ingesting

`make bench-load` (`python -m bench.load --base {args.base} --add {args.add} --clients {args.clients} --seconds {args.seconds:.0f}`),
{today()}, {machine()}. SQLite store. {args.clients} keep-alive clients query `/api/search` (the mixed queries of bench.speed: words, pairs, pasted
headlines and questions, all four facets) for {args.seconds:.0f} s (or until the ingest ends, if later) while
`newsarchive ingest` adds Reuters articles to an archive of {before["articles"]:,}; the ingest starts with the clients. Result: **{"pass" if ok else "FAIL"}**.

| measure | value |
| --- | --- |
{table}
""",
    )
    print(table)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
