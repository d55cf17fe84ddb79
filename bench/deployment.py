"""Past one machine, measured: two ingesters on the same Reuters articles, a killed one finished by another,
and 16 clients on two web servers reading a streaming replica and the primary while an ingester writes.

    python -m bench.deployment [--articles 20000] [--clients 16] [--seconds 30]

Needs a PostgreSQL primary with a streaming replica: `.ci/replica` makes them on this machine (ports 5433
and 5434; NEWSARCHIVE_BENCH_PRIMARY and NEWSARCHIVE_BENCH_REPLICA name others). Every archive keeps its
index in PostgreSQL (NEWSARCHIVE_SEARCH_BACKEND=postgres), as a deployment past one machine does.

1. Two ingesters, each with a home of its own (as on two machines), are given all `--articles` Reuters
   articles at once, one in the corpus's order and one in reverse (files of their own: no file's bytes
   are known to the other). Counted: articles stored (each once?), files failed, searched versions per
   identity, wall time beside one ingester alone. Their story clusters are compared with those of one
   ingester given the articles in the order the two stored them (equal, by construction of the turns),
   and with one ingester given them in the corpus's order (how much the clusters depend on arrival order).
2. A third ingester reads the next 5,000 articles from an inbox it shares with the first and is killed
   part way; the first then reads the inbox: every article stored once?
3. Two `newsarchive serve` processes (one worker each), reading from the replica and the primary
   (`NEWSARCHIVE_DATABASE_REPLICA_URLS` names both, so reads are spread over them), take `--clients`
   clients for `--seconds` while an ingester writes the next articles: requests/s, p95, errors, which
   server answered, and the replica's lag as /api/status showed it.
Writes its table into BENCHMARKS.md (section `deployment-<articles>`).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

from .common import (
    ROOT,
    Server,
    archive_env,
    machine,
    percentile,
    query_mix,
    require_corpus,
    reuters_lines,
    today,
    update_benchmarks,
    write_parts,
)

PRIMARY = os.environ.get("NEWSARCHIVE_BENCH_PRIMARY") or "postgresql+psycopg://postgres@127.0.0.1:5433/postgres"
REPLICA = os.environ.get("NEWSARCHIVE_BENCH_REPLICA") or "postgresql+psycopg://postgres@127.0.0.1:5434/postgres"


def _libpq(url: str, database: str | None = None) -> str:
    u = make_url(url)
    parts = {
        "host": u.host,
        "port": u.port,
        "user": u.username,
        "password": u.password,
        "dbname": database or u.database,
    }
    return " ".join(f"{k}={v}" for k, v in parts.items() if v not in (None, ""))


def problem() -> str | None:
    try:
        with psycopg.connect(_libpq(REPLICA), connect_timeout=3) as conn:
            if not conn.execute("SELECT pg_is_in_recovery()").fetchone()[0]:
                return f"{REPLICA} is not a replica (not in recovery)"
        psycopg.connect(_libpq(PRIMARY), connect_timeout=3).close()
    except psycopg.Error as exc:
        return f"no primary and replica to measure ({exc}): run .ci/replica first"
    return None


def fresh(name: str) -> str:
    with psycopg.connect(_libpq(PRIMARY), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return make_url(PRIMARY).set(database=name).render_as_string(hide_password=False)


def drop(name: str) -> None:
    with psycopg.connect(_libpq(PRIMARY), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def sql(url: str, statement: str, *params):
    with psycopg.connect(_libpq(url, make_url(url).database)) as conn:
        return conn.execute(statement, params).fetchall()


def env_of(url: str, **extra) -> dict:
    return {"NEWSARCHIVE_DATABASE_URL": url, "NEWSARCHIVE_SEARCH_BACKEND": "postgres", **extra}


def ingest(home: Path, url: str, *paths: Path, **extra) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "webapp.cli", "ingest", "--json", *map(str, paths)],
        env=archive_env(home, **env_of(url, **extra)),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def finish(process: subprocess.Popen) -> dict:
    out, err = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(err.decode(errors="replace")[-2000:])
    return json.loads(out.decode().splitlines()[-1])


def clusters(url: str) -> set:
    """Story clusters as sets of content hashes (ids differ between archives)."""
    found: dict = {}
    for story, digest in sql(url, "SELECT coalesce(story_id, id), content_sha256 FROM articles"):
        found.setdefault(story, set()).add(digest)
    return {frozenset(c) for c in found.values()}


def stored_order(url: str) -> list[bytes]:
    """The source lines of the stored articles, in the order they were stored (id order)."""
    rows = sql(
        url,
        "SELECT f.path, a.source_line FROM articles a JOIN ingest_files f ON f.id = a.ingest_file_id ORDER BY a.id",
    )
    files: dict[str, list[bytes]] = {}
    out = []
    for path, line in rows:
        if path not in files:
            with gzip.open(path, "rb") as handle:
                files[path] = handle.read().splitlines()
        out.append(files[path][line - 1] + b"\n")
    return out


def two_ingesters(workdir: Path, lines: list[bytes]) -> dict:
    forward, backward = workdir / "feed-forward", workdir / "feed-backward"
    write_parts(forward, lines)
    write_parts(backward, list(reversed(lines)))
    url = fresh("newsarchive_bench_deploy")
    started = time.perf_counter()
    runs = [ingest(workdir / "one", url, forward), ingest(workdir / "two", url, backward)]
    summaries = [finish(p) for p in runs]
    both_s = time.perf_counter() - started
    ((count, distinct),) = sql(url, "SELECT count(*), count(DISTINCT content_sha256) FROM articles")
    ((usable_twice,),) = sql(
        url,
        "SELECT count(*) FROM (SELECT identity FROM articles WHERE status = 'usable' AND identity IS NOT NULL"
        " GROUP BY identity HAVING count(*) > 1) AS t",
    )
    together = clusters(url)
    order_feed = workdir / "feed-as-stored"
    write_parts(order_feed, stored_order(url))
    alone_url = fresh("newsarchive_bench_deploy_alone")
    finish(ingest(workdir / "alone", alone_url, order_feed))
    same_order = clusters(alone_url)
    forward_url = fresh("newsarchive_bench_deploy_forward")
    started = time.perf_counter()
    one = finish(ingest(workdir / "forward", forward_url, forward))
    one_s = time.perf_counter() - started
    corpus_order = clusters(forward_url)
    ((one_count,),) = sql(forward_url, "SELECT count(*) FROM articles")
    for name in ("newsarchive_bench_deploy_alone", "newsarchive_bench_deploy_forward"):
        drop(name)
    multi = [c for c in corpus_order if len(c) > 1]
    return {
        "url": url,
        "stored": count,
        "distinct": distinct,
        "one_alone": one_count,
        "failed": sum(s["failed_files"] for s in summaries),
        "usable_twice": usable_twice,
        "both_s": both_s,
        "one_s": one_s,
        "one_rate": one["ingested"] / one_s,
        "same_as_stored_order": together == same_order,
        "clusters": len(together),
        "multi_clusters": len(multi),
        "multi_same_as_corpus_order": sum(1 for c in multi if c in together),
    }


def killed_and_finished(workdir: Path, url: str, lines: list[bytes]) -> dict:
    inbox = workdir / "shared-inbox"
    archive = workdir / "shared-archive"
    inbox.mkdir(parents=True)
    (inbox / "next.jsonl").write_bytes(b"".join(lines))
    shared = {"NEWSARCHIVE_INBOX": str(inbox), "NEWSARCHIVE_ARCHIVE_DIR": str(archive)}
    ((before,),) = sql(url, "SELECT count(*) FROM articles")
    third = ingest(workdir / "three", url, **shared, NEWSARCHIVE_INGEST_SLICE_S="0.5")
    deadline = time.monotonic() + 300
    while sql(url, "SELECT count(*) FROM articles")[0][0] < before + len(lines) // 3:
        if third.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("the third ingester ended before it could be killed part way")
        time.sleep(0.05)
    os.kill(third.pid, signal.SIGKILL)
    third.wait()
    ((part_way,),) = sql(url, "SELECT count(*) FROM articles")
    looks = []
    while any(inbox.iterdir()) and len(looks) < 30:  # `busy` until the server has ended the killed session
        summary = finish(ingest(workdir / "one", url, **shared))
        looks.append([(f["status"], f["reason"]) for f in summary["files"]])
        if any(inbox.iterdir()):
            time.sleep(1)
    ((after, distinct),) = sql(url, "SELECT count(*), count(DISTINCT content_sha256) FROM articles")
    statuses = sql(url, "SELECT status FROM ingest_files WHERE path LIKE %s", "%next.jsonl")
    return {
        "records": len(lines),
        "part_way": part_way - before,
        "after": after - before,
        "doubled": after - distinct,
        "statuses": sorted(s for (s,) in statuses),
        "left": sorted(p.name for p in inbox.iterdir()),
        "looks": looks,
    }


def load(workdir: Path, url: str, lines: list[bytes], clients: int, seconds: float) -> dict:
    replica_url = make_url(REPLICA).set(database=make_url(url).database).render_as_string(hide_password=False)
    reads = f"{replica_url},{url}"  # the replica and the primary share the reads
    servers = [
        Server(workdir / f"web{n}", workers=1, **env_of(url, NEWSARCHIVE_DATABASE_REPLICA_URLS=reads)) for n in range(2)
    ]
    feed = workdir / "feed-during"
    write_parts(feed, lines)
    queries = [text for _, text in query_mix(96)]
    latencies: list[float] = []
    errors, answered_by = 0, Counter()
    lock, stop = threading.Lock(), threading.Event()
    lags: list[float] = []

    def loop(n: int) -> None:
        nonlocal errors
        client = servers[n % 2].client()
        i = n * 7
        while not stop.is_set():
            status, body, s = client.get("/api/search", {"q": queries[i % len(queries)]})
            with lock:
                if status == 200:
                    latencies.append(s * 1000)
                else:
                    errors += 1
            i += 1

    def read_from() -> None:
        client = servers[0].client()
        while not stop.is_set():
            try:
                client.conn.request("GET", "/api/search?q=oil")
                response = client.conn.getresponse()
                response.read()
            except OSError:
                client = servers[0].client()
                continue
            with lock:
                answered_by[response.getheader("X-Newsarchive-Read-From") or "?"] += 1
            status, body, _ = client.get("/api/status", {})
            if status == 200:
                replica = json.loads(body).get("database", {}).get("replicas", [{}])[0]
                if replica.get("lag_s") is not None:
                    lags.append(replica["lag_s"])
            time.sleep(0.5)

    try:
        for server in servers:  # warm: every local index copy made, caches filled
            client = server.client()
            for q in queries[:20]:
                client.get("/api/search", {"q": q})
        ((before,),) = sql(url, "SELECT count(*) FROM articles")
        writer = ingest(workdir / "one", url, feed)
        threads = [threading.Thread(target=loop, args=(n,)) for n in range(clients)]
        threads.append(threading.Thread(target=read_from))
        started = time.perf_counter()
        for t in threads:
            t.start()
        time.sleep(seconds)
        stop.set()
        for t in threads:
            t.join()
        elapsed = time.perf_counter() - started
        ((during,),) = sql(url, "SELECT count(*) FROM articles")
        finish(writer)
    finally:
        for server in servers:
            server.stop()
    return {
        "rps": len(latencies) / elapsed,
        "p50": percentile(latencies, 50),
        "p95": percentile(latencies, 95),
        "errors": errors,
        "answered_by": dict(answered_by),
        "stored_during": during - before,
        "seconds": elapsed,
        "max_lag": max(lags) if lags else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=20000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--out", default=str(ROOT / "bench" / "out" / "deployment"))
    args = parser.parse_args()
    require_corpus()
    if problem():
        print(f"skipped: {problem()}")
        return 0
    workdir = Path(args.out)
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    lines = list(reuters_lines(args.articles + 15000))
    print(f"two ingesters on {args.articles:,} articles ...", flush=True)
    two = two_ingesters(workdir, lines[: args.articles])
    print(two, flush=True)
    print("a killed ingester finished by another ...", flush=True)
    killed = killed_and_finished(workdir, two["url"], lines[args.articles : args.articles + 5000])
    print(killed, flush=True)
    print(f"{args.clients} clients on two web servers while an ingester writes ...", flush=True)
    served = load(workdir, two["url"], lines[args.articles + 5000 :], args.clients, args.seconds)
    print(served, flush=True)
    drop("newsarchive_bench_deploy")

    rows = [
        (
            "two ingesters, all articles each, opposite orders: articles stored",
            f"{two['stored']:,} ({two['distinct']:,} distinct; one ingester alone stores {two['one_alone']:,}); "
            f"{two['failed']} files failed; identities with two searched versions: {two['usable_twice']}",
        ),
        (
            "wall time: the two together / one alone",
            f"{two['both_s']:.0f} s / {two['one_s']:.0f} s ({two['one_rate']:.0f} articles/s alone)",
        ),
        (
            "story clusters of the two = one ingester given the articles in the order the two stored them",
            "yes" if two["same_as_stored_order"] else "**no**",
        ),
        (
            "clusters of two or more articles (one ingester, corpus order) found alike by the two",
            f"{two['multi_same_as_corpus_order']:,} of {two['multi_clusters']:,} "
            f"({100 * two['multi_same_as_corpus_order'] / max(1, two['multi_clusters']):.1f}%)",
        ),
        (
            "a third ingester killed part way through a 5,000-record file in a shared inbox",
            f"{killed['part_way']:,} stored when killed; after the first read the inbox: {killed['after']:,} "
            f"stored, {killed['doubled']} twice; the file's log rows: {', '.join(killed['statuses'])}; "
            f"left in the inbox: {len(killed['left'])} (the first ingester's runs until it was read: {len(killed['looks'])})",
        ),
        (
            f"{args.clients} clients on 2 web servers (1 worker each) for {served['seconds']:.0f} s, an ingester writing",
            f"{served['rps']:.1f} req/s, p50 {served['p50']:.0f} ms, p95 {served['p95']:.0f} ms, "
            f"{served['errors']} errors; {served['stored_during']:,} articles stored meanwhile",
        ),
        (
            "answers read from (a sample, one request every 0.5 s)",
            ", ".join(f"{k}: {v}" for k, v in sorted(served["answered_by"].items())),
        ),
        (
            "the replica's lag as /api/status showed it, at most",
            "n/a" if served["max_lag"] is None else f"{served['max_lag']:.2f} s",
        ),
    ]
    table = "\n".join(f"| {k} | {v} |" for k, v in rows)
    update_benchmarks(
        f"deployment-{args.articles}",
        f"""## Past one machine: ingesters, a replica, two web servers ({args.articles:,} articles)

`python -m bench.deployment --articles {args.articles}`, {today()}, {machine()}. One PostgreSQL 15 primary and
one streaming replica (`.ci/replica`) on the same machine; the `postgres` search backend.

| measure | value |
| --- | --- |
{table}
""",
    )
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
