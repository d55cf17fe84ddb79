"""Search speed with access filtering on (login mode, a reader's API token) against open mode, on the Reuters corpus.

    python -m bench.access [--articles 106520] [--archive DIR] [--rounds 3]

One archive, two servers over it: one in `open` mode, one in `login` mode. The login server's readers see
part of the archive: a third of the articles is moved to `wire` (readable by the group `desk`) and a tenth
to `embargo` (admins only), so `dora` (of `desk`) reads about 90% and `rita` about 60%. The same queries
as bench.speed go to both servers in turn, query by query (drift of the machine falls on both alike), each
answer computed anew (NEWSARCHIVE_SEARCH_ANSWERS=0), after a warm-up pass. Writes its table into
BENCHMARKS.md (section `access-<articles>`).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from sqlalchemy import select

from store import access
from store.db import make_engine, make_sessionmaker
from store.models import Article
from store.settings import Settings

from .common import (
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

PASSWORD = "bench password 1"


def build(home: Path, articles: int, workdir: Path) -> None:
    lines = list(reuters_lines(articles))
    feed = workdir / "feed"
    write_parts(feed, lines)
    print(f"ingesting {len(lines):,} Reuters articles ...", flush=True)
    summary, seconds, _, _ = ingest_watching_memory(feed, home)
    print(f"  {summary['ingested']:,} articles in {seconds:.0f} s", flush=True)


def set_up_access(home: Path) -> dict[str, str]:
    """Users, collections and tokens on the archive; returns a read token per reader."""
    settings = Settings.from_env(archive_env(home))
    engine = make_engine(settings)
    sessions = make_sessionmaker(engine)
    with sessions.begin() as session:
        access.add_user(session, "dora", PASSWORD, "reader", ["desk"])
        access.add_user(session, "rita", PASSWORD, "reader")
        access.create_collection(session, "wire", grants=("group:desk",))
        access.create_collection(session, "embargo", grants=())
        ids = list(session.scalars(select(Article.id).order_by(Article.id)))
        access.assign(session, "wire", ids=[i for i in ids if i % 3 == 0])
        access.assign(session, "embargo", ids=[i for i in ids if i % 10 == 1])
    engine.dispose()
    return {
        name: newsarchive(home, "tokens", "create", name, "--days", "1").stdout.strip().splitlines()[-1]
        for name in ("dora", "rita")
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=20000)
    parser.add_argument("--queries", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "bench" / "out" / "access"))
    parser.add_argument(
        "--archive", help="measure on a copy of this archive of the same articles instead of building one"
    )
    args = parser.parse_args()
    require_corpus()
    workdir = Path(args.out) / str(args.articles)
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    home = workdir / "archive"
    if args.archive:
        shutil.copytree(args.archive, home, symlinks=True)
    else:
        build(home, args.articles, workdir)
    newsarchive(home, "db", "upgrade")
    tokens = set_up_access(home)
    queries = [text for _, text in query_mix(args.queries)]
    servers = {
        "open": Server(home, NEWSARCHIVE_SEARCH_ANSWERS=0, NEWSARCHIVE_ACCESS="open"),
        "login": Server(home, NEWSARCHIVE_SEARCH_ANSWERS=0, NEWSARCHIVE_ACCESS="login"),
    }
    try:
        clients = {
            "open": servers["open"].client(),
            "dora": servers["login"].client({"Authorization": f"Bearer {tokens['dora']}"}),
            "rita": servers["login"].client({"Authorization": f"Bearer {tokens['rita']}"}),
        }
        times: dict[str, list[float]] = {name: [] for name in clients}
        totals: dict[str, list[int]] = {name: [] for name in clients}
        for round_number in range(args.rounds + 1):  # the first pass warms every cache and is not counted
            for i, q in enumerate(queries):
                params = {"q": q, "year": ["2008", "2011"]} if i % 2 else {"q": q}
                for name, client in clients.items():
                    status, body, seconds = client.get("/api/search", params)
                    if status == 599:  # the server closed a keep-alive connection left idle: ask again
                        status, body, seconds = client.get("/api/search", params)
                    if status != 200:
                        raise RuntimeError(f"{name} {q!r}: HTTP {status}: {body[:200]!r}")
                    if round_number:
                        times[name].append(seconds * 1000)
                        totals[name].append(json.loads(body)["total"])
        everything = clients["open"].get("/api/search", {"per_page": 1})[1]
        seen = {name: json.loads(c.get("/api/search", {"per_page": 1})[1])["total"] for name, c in clients.items()}
    finally:
        for server in servers.values():
            server.stop()
    total = json.loads(everything)["total"]

    def cell(name: str) -> str:
        values = times[name]
        return " / ".join(f"{percentile(values, p):.1f}" for p in (50, 95, 99)) + " ms"

    open_p95 = percentile(times["open"], 95)
    rows = [
        ("`/api/search` p50 / p95 / p99, open mode", cell("open")),
        (
            f"the same, login mode, dora's read token (reads {seen['dora'] / total:.0%} of the archive)",
            cell("dora"),
        ),
        (f"the same, login mode, rita's read token (reads {seen['rita'] / total:.0%})", cell("rita")),
        (
            "**p95 ratio** login : open (target <= 1.10)",
            f"**dora {percentile(times['dora'], 95) / open_p95:.2f}, rita {percentile(times['rita'], 95) / open_p95:.2f}**",
        ),
        (
            "queries",
            f"{len(queries)} queries (bench.speed's mix; every second one with two years) x {args.rounds} rounds "
            "after a warm-up pass, each query to the three in turn; answers computed anew; median hits open "
            f"{sorted(totals['open'])[len(totals['open']) // 2]:,}, dora "
            f"{sorted(totals['dora'])[len(totals['dora']) // 2]:,}, rita {sorted(totals['rita'])[len(totals['rita']) // 2]:,}",
        ),
    ]
    table = "\n".join(f"| {k} | {v} |" for k, v in rows)
    update_benchmarks(
        f"access-{args.articles}",
        f"""## Search with access filtering at {args.articles:,} articles

`python -m bench.access --articles {args.articles}{" --archive ..." if args.archive else ""}` (run by `make bench`), {today()}, {machine()}. SQLite store.

| measure | value |
| --- | --- |
{table}
""",
    )
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
