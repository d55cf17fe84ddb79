"""The two search backends side by side on the Reuters corpus: ingest, disk, memory, latency, throughput.

    python -m bench.backends [--articles 106520] [--queries 96] [--rounds 3] [--seconds 20] [--clients 8]

Two archives of the same articles, both storing them in PostgreSQL (a database each, made afresh): one
with the `whoosh` search backend (the index in a folder, written after each file's rows commit), one with
`postgres` (the index's files in the database, written in the rows' transaction; the server keeps a local
copy). Each is ingested by `newsarchive ingest` from the same feed (timed from process start to exit,
peak memory sampled), then served by `newsarchive serve`; the same queries (bench.speed's mix: words,
pairs, pasted headlines, questions; every second one with two years) go to both servers in turn, query
by query, answers computed anew (NEWSARCHIVE_SEARCH_ANSWERS=0), every facet and the histogram in each
answer, after a warm-up pass; then 8 clients search each server for 20 s. The answers of the two servers
are compared (totals and hit ids of every query). Writes its table into BENCHMARKS.md (section
`backends-<articles>`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import psycopg
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

from search.index import ArchiveIndex
from store.pgindex import PgIndex

from .bulk import copies
from .common import (
    ROOT,
    Server,
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
from .speed import concurrent

ADMIN_URL = os.environ.get("NEWSARCHIVE_BENCH_POSTGRES") or "postgresql+psycopg://postgres@127.0.0.1:5432/test"
BACKENDS = ("whoosh", "postgres")
CORPUS_ARTICLES = 106_520


def _libpq(url) -> str:
    parts = {"host": url.host, "port": url.port, "user": url.username, "password": url.password, "dbname": url.database}
    return " ".join(f"{k}={v}" for k, v in parts.items() if v not in (None, ""))


def postgres_problem() -> str | None:
    """None when the benchmark's PostgreSQL server answers (NEWSARCHIVE_BENCH_POSTGRES), else why not."""
    try:
        psycopg.connect(_libpq(make_url(ADMIN_URL)), connect_timeout=3).close()
    except Exception as exc:
        return f"PostgreSQL at {make_url(ADMIN_URL).render_as_string(hide_password=True)} is unreachable: {exc}"
    return None


def fresh_database(name: str) -> str:
    admin = make_url(ADMIN_URL)
    with psycopg.connect(_libpq(admin), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return admin.set(database=name).render_as_string(hide_password=False)


def database_url(name: str) -> str:
    return make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)


def database_bytes(url: str) -> int:
    with psycopg.connect(_libpq(make_url(url))) as conn:
        return int(conn.execute("SELECT pg_database_size(current_database())").fetchone()[0])


def folder_bytes(path: Path) -> int:
    """Bytes of the files under `path`, each inode once (the postgres backend's copies share files)."""
    seen, total = set(), 0
    for root, _, files in os.walk(path):
        for name in files:
            st = os.stat(os.path.join(root, name))
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_size
    return total


def bench_database(backend: str, articles: int) -> str:
    """The database of one benchmark archive: one per backend and size, so runs of two sizes can stand side
    by side (and `--existing` serves the one of its size)."""
    return f"newsarchive_bench_{backend}_{articles}"


def shared_store(workdir: Path, lines: list, last: int, articles: int) -> tuple[dict, dict]:
    """Both archives of `lines` for a fraction of the machine time of two ingests: all but the last `last`
    articles ingested once into a `whoosh` archive (timed), its database copied (CREATE DATABASE ...
    TEMPLATE) and its index folder uploaded as the `postgres` archive's index (how `newsarchive reindex`
    ends), then the last `last` articles ingested into each (timed: the rate of each backend at this size)."""
    write_parts(workdir / "first", lines[:-last])
    write_parts(workdir / "last", lines[-last:])
    env = {
        b: {"NEWSARCHIVE_DATABASE_URL": database_url(bench_database(b, articles)), "NEWSARCHIVE_SEARCH_BACKEND": b}
        for b in BACKENDS
    }
    fresh_database(bench_database("whoosh", articles))
    print(f"whoosh: ingesting the first {len(lines) - last:,} articles ...", flush=True)
    first = ingest_watching_memory(workdir / "first", workdir / "whoosh", **env["whoosh"])
    print(f"  {first[0]['ingested']:,} stored in {first[1]:.0f} s", flush=True)
    admin = make_url(ADMIN_URL)
    with psycopg.connect(_libpq(admin), autocommit=True) as conn:
        source, copy = bench_database("whoosh", articles), bench_database("postgres", articles)
        conn.execute(f'DROP DATABASE IF EXISTS "{copy}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{copy}" TEMPLATE "{source}"')
    started = time.perf_counter()
    (workdir / "postgres").mkdir(exist_ok=True)
    engine = create_engine(env["postgres"]["NEWSARCHIVE_DATABASE_URL"])
    try:
        PgIndex(workdir / "postgres" / "index", engine).upload_folder(
            ArchiveIndex(workdir / "whoosh" / "index").current_path()
        )
    finally:
        engine.dispose()
    uploaded = time.perf_counter() - started
    print(f"postgres: the index uploaded in {uploaded:.0f} s", flush=True)
    ingest = {}
    for backend in BACKENDS:
        print(f"{backend}: ingesting the last {last:,} articles ...", flush=True)
        summary, seconds, peak, _ = ingest_watching_memory(
            workdir / "last", workdir / backend, fresh=False, **env[backend]
        )
        stats = json.loads(newsarchive(workdir / backend, "stats", "--json", **env[backend]).stdout)
        url = env[backend]["NEWSARCHIVE_DATABASE_URL"]
        ingest[backend] = (
            summary,
            seconds,
            peak,
            stats,
            database_bytes(url),
            folder_bytes(workdir / backend / "index"),
        )
        print(f"  {backend}: {summary['ingested']:,} stored in {seconds:.0f} s; {stats}", flush=True)
    ingest["first"] = first
    ingest["upload"] = uploaded
    return ingest, env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=20000)
    parser.add_argument("--queries", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--out", default=str(ROOT / "bench" / "out" / "backends"))
    parser.add_argument("--backends", default=",".join(BACKENDS), help="which of whoosh,postgres to measure")
    parser.add_argument(
        "--existing", action="store_true", help="serve the archives an earlier run left under --out (no ingest)"
    )
    parser.add_argument(
        "--shared-store",
        action="store_true",
        help="ingest all but the last --last articles once (whoosh), copy that archive for postgres, then "
        "both ingest the last ones",
    )
    parser.add_argument(
        "--cache-mb", type=int, default=0, help="NEWSARCHIVE_SEARCH_CACHE_MB of both servers (0: the default)"
    )
    parser.add_argument("--last", type=int, default=20000, help="with --shared-store: the articles both ingest")
    args = parser.parse_args()
    backends = tuple(b for b in args.backends.split(",") if b in BACKENDS)
    require_corpus()
    if postgres_problem():
        print(f"skipped: {postgres_problem()} (set NEWSARCHIVE_BENCH_POSTGRES)")
        return 0
    workdir = Path(args.out) / str(args.articles)
    if not args.existing:
        shutil.rmtree(workdir, ignore_errors=True)
        workdir.mkdir(parents=True)
        # Past the corpus's 106,520 articles, copies of it as bench.bulk makes them (each copy's body marked).
        lines = list(reuters_lines(args.articles)) if args.articles <= CORPUS_ARTICLES else list(copies(args.articles))
        if not args.shared_store:  # shared_store writes its own two parts
            write_parts(workdir / "feed", lines)

    env: dict[str, dict] = {}
    ingest: dict[str, tuple] = {}
    if args.shared_store:
        ingest, env = shared_store(workdir, lines, args.last, args.articles)
        backends = BACKENDS
    for backend in backends if not args.shared_store else ():
        name = bench_database(backend, args.articles)
        url = database_url(name) if args.existing else fresh_database(name)
        env[backend] = {"NEWSARCHIVE_DATABASE_URL": url, "NEWSARCHIVE_SEARCH_BACKEND": backend}
        home = workdir / backend
        if args.existing:
            summary, seconds, peak = None, None, None
        else:
            print(f"{backend}: ingesting {len(lines):,} Reuters articles ...", flush=True)
            summary, seconds, peak, _ = ingest_watching_memory(workdir / "feed", home, **env[backend])
        stats = json.loads(newsarchive(home, "stats", "--json", **env[backend]).stdout)
        ingest[backend] = (summary, seconds, peak, stats, database_bytes(url), folder_bytes(home / "index"))
        print(f"  {backend}: {stats}", flush=True)

    queries = [text for _, text in query_mix(args.queries)]
    cache = {"NEWSARCHIVE_SEARCH_CACHE_MB": str(args.cache_mb)} if args.cache_mb else {}
    servers = {b: Server(workdir / b, NEWSARCHIVE_SEARCH_ANSWERS=0, **cache, **env[b]) for b in backends}
    times: dict[str, list[float]] = {b: [] for b in backends}
    differ = 0
    try:
        clients = {b: servers[b].client() for b in backends}
        for round_number in range(args.rounds + 1):  # the first pass warms every cache and is not counted
            for i, q in enumerate(queries):
                params = {"q": q, "year": ["2008", "2011"]} if i % 2 else {"q": q}
                answers = {}
                for backend, client in clients.items():
                    status, body, seconds = client.get("/api/search", params)
                    if status == 599:  # the server closed a keep-alive connection left idle: ask again
                        status, body, seconds = client.get("/api/search", params)
                    if status != 200:
                        raise RuntimeError(f"{backend} {q!r}: HTTP {status}: {body[:200]!r}")
                    if round_number:
                        times[backend].append(seconds * 1000)
                    found = json.loads(body)
                    answers[backend] = (found["total"], [h["id"] for h in found["hits"]])
                if round_number == 1 and len(set(map(str, answers.values()))) > 1:
                    differ += 1
        memory = {b: servers[b].rss_bytes() for b in backends}
        load = {}
        for backend in backends:
            print(f"{backend}: {args.clients} clients for {args.seconds:.0f} s ...", flush=True)
            load[backend] = concurrent(servers[backend], queries, args.clients, args.seconds)
    finally:
        for server in servers.values():
            server.stop()

    def both(cell) -> str:
        return " / ".join(cell(b) for b in backends)

    def ingest_rate(b: str) -> str:
        summary, seconds = ingest[b][0], ingest[b][1]
        return (
            "(served as ingested before)"
            if summary is None
            else f"{summary['ingested'] / seconds:.0f} ({seconds:.0f} s)"
        )

    shared = []
    if args.shared_store:
        first = ingest["first"]
        shared = [
            (
                f"the first {first[0]['ingested']:,} articles: one `whoosh` ingest (articles/s, peak memory)",
                f"{first[0]['ingested'] / first[1]:.0f} ({first[1]:.0f} s), {first[2] / 1e6:.0f} MB",
            ),
            ("its database copied, its index uploaded as the `postgres` archive's", f"{ingest['upload']:.0f} s"),
        ]
    rows = shared + [
        (
            f"`newsarchive ingest` of the last {args.last:,} articles into each (articles/s)"
            if args.shared_store
            else "end-to-end `newsarchive ingest` (articles/s)",
            both(ingest_rate),
        ),
        ("articles in the index", both(lambda b: f"{ingest[b][3]['index_documents']:,}")),
        (
            "ingester peak memory (PSS with its workers)",
            both(lambda b: "n/a" if ingest[b][2] is None else f"{ingest[b][2] / 1e6:.0f} MB"),
        ),
        ("index size (`newsarchive stats`)", both(lambda b: f"{ingest[b][3]['index_bytes'] / 1e6:.0f} MB")),
        ("PostgreSQL database size", both(lambda b: f"{ingest[b][4] / 1e6:.0f} MB")),
        (
            "the web server's local index folder (each file once)",
            both(lambda b: f"{ingest[b][5] / 1e6:.0f} MB"),
        ),
        (
            "`/api/search` p50 / p95 / p99 (every facet, histogram)",
            both(lambda b: " / ".join(f"{percentile(times[b], p):.1f}" for p in (50, 95, 99)) + " ms"),
        ),
        (
            "**p95 ratio** postgres : whoosh",
            f"**{percentile(times['postgres'], 95) / percentile(times['whoosh'], 95):.2f}**"
            if len(backends) == 2
            else "n/a (one backend)",
        ),
        (
            f"{args.clients} clients for {args.seconds:.0f} s: requests/s, p95, errors",
            both(lambda b: f"{load[b][0]:.1f} req/s, p95 {load[b][1]:.0f} ms, {load[b][2]} errors"),
        ),
        ("web server memory (RSS after the latency passes)", both(lambda b: f"{memory[b] / 1e6:.0f} MB")),
        ("queries whose total or hit ids differ between the backends", f"{differ} of {len(queries)}"),
    ]
    table = "\n".join(f"| {k} | {v} |" for k, v in rows)
    command_extra = (
        (" --backends " + ",".join(backends) if backends != BACKENDS else "")
        + (" --existing" if args.existing else "")
        + (f" --shared-store --last {args.last}" if args.shared_store else "")
        + (f" --cache-mb {args.cache_mb}" if args.cache_mb else "")
    )
    update_benchmarks(
        f"backends-{args.articles}" + ("" if backends == BACKENDS else "-" + "-".join(backends)),
        f"""## The two search backends at {args.articles:,} articles

`python -m bench.backends --articles {args.articles}{command_extra}`, {today()}, {machine()}. The archives store their articles in PostgreSQL 15 on the same machine; each cell reads {" / ".join(backends)}. {len(queries)} queries (bench.speed's mix; every second one with two years) x {args.rounds} rounds after a warm-up pass, to the two servers in turn, answers computed anew; every answer carries every facet and the histogram.

| measure | {" / ".join(backends)} |
| --- | --- |
{table}
""",
    )
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
