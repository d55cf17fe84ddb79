"""Where a search's time goes, stage by stage and by query kind, on an archive of Reuters articles.

    python -m bench.profile [--articles 106520] [--rounds 3] [--label after] [--home DIR]

Builds the archive once (`newsarchive ingest` of the first N Reuters articles, kept under bench/out/profile
and reused while it holds them), then asks `Archive.search` in this process the queries of bench.speed
(every second one with two years chosen), as `/api/search` would, recording the stages of search/timing.py.
Reports the mean milliseconds of each stage per query kind, and the p95 of the whole answer; writes its
table into BENCHMARKS.md (section `profile-<articles>-<label>`), so a "before" and an "after" table stand
side by side.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from search.query import AnswerCache
from search.request import SearchRequest
from search.timing import STAGES, recording
from store.read import Archive
from store.settings import Settings

from .common import (
    ROOT,
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

KINDS = ("word", "pair", "headline", "question")


def built_archive(articles: int, home: Path) -> Path:
    """An archive of the first `articles` Reuters articles at `home` (built unless it is already there)."""
    marker = home / "built.json"
    if marker.exists() and json.loads(marker.read_text()).get("articles") == articles:
        return home / "archive"
    feed = home / "feed"
    feed.mkdir(parents=True, exist_ok=True)
    lines = list(reuters_lines(articles))
    for part, start in enumerate(range(0, len(lines), 27_000), start=1):
        write_feed(feed / f"part-{part:02}.jsonl.gz", lines[start : start + 27_000])
    print(f"ingesting {len(lines):,} articles into {home / 'archive'} ...", flush=True)
    newsarchive(home / "archive", "ingest", str(feed))
    marker.write_text(json.dumps({"articles": articles}))
    return home / "archive"


def profile(archive: Archive, mix: list[tuple[str, str]], rounds: int) -> list[dict]:
    """One record per measured query: kind, match, total seconds and seconds per stage."""
    records = []
    for measured in range(rounds + 1):  # the first pass warms the caches and is not kept
        for i, (kind, text) in enumerate(mix):
            request = SearchRequest(q=text, filters={"year": ["2008", "2011"]} if i % 2 else {})
            with recording() as times:
                started = time.perf_counter()
                answer = archive.search(request)
                total = time.perf_counter() - started
            if measured:
                records.append({"kind": kind, "match": answer["match"], "total": total, "stages": dict(times)})
    return records


def next_pages(archive: Archive, mix: list[tuple[str, str]]) -> str:
    """Page 2 of each query right after its page 1, with answers kept (the default): what paging costs."""
    archive.searcher().answers = AnswerCache(entries=32)
    first, second = [], []
    for _, text in mix:
        for page, times in ((1, first), (2, second)):
            started = time.perf_counter()
            archive.search(SearchRequest(q=text, page=page))
            times.append((time.perf_counter() - started) * 1000)
    return (
        f"Paging with answers kept (NEWSARCHIVE_SEARCH_ANSWERS, default 32), {len(mix)} queries: page 1 p50 / p95 "
        f"{percentile(first, 50):.1f} / {percentile(first, 95):.1f} ms, then page 2 "
        f"{percentile(second, 50):.1f} / {percentile(second, 95):.1f} ms."
    )


def table(records: list[dict]) -> str:
    groups = [(kind, [r for r in records if r["kind"] == kind]) for kind in KINDS]
    groups.append(("relaxed (any kind)", [r for r in records if r["match"] == "most"]))
    groups.append(("all queries", records))
    used = [s for s in STAGES if any(s in r["stages"] for r in records)]
    head = "| queries | n | p95 ms | mean ms | " + " | ".join(used) + " | other |"
    rule = "| --- " * (len(used) + 5) + "|"
    lines = [head, rule]
    for name, group in groups:
        if not group:
            continue
        totals = [r["total"] * 1000 for r in group]
        means = [sum(r["stages"].get(s, 0.0) for r in group) * 1000 / len(group) for s in used]
        other = sum(totals) / len(group) - sum(means)
        cells = " | ".join(f"{m:.1f}" for m in means)
        lines.append(
            f"| {name} | {len(group)} | {percentile(totals, 95):.1f} | {sum(totals) / len(group):.1f} | "
            f"{cells} | {other:.1f} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=106_520)
    parser.add_argument("--queries", type=int, default=96)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--label", default="now", help="names the BENCHMARKS.md section (e.g. before, after)")
    parser.add_argument("--home", help="an archive folder to profile instead of building one")
    parser.add_argument("--database-url", help="that archive's database, when not its own SQLite file")
    parser.add_argument("--search-backend", default="whoosh", help="that archive's search backend")
    parser.add_argument("--cache-mb", type=int, help="NEWSARCHIVE_SEARCH_CACHE_MB for this run")
    args = parser.parse_args()
    require_corpus()
    if args.home:
        home = Path(args.home)
    else:
        home = built_archive(args.articles, ROOT / "bench" / "out" / "profile" / str(args.articles))
    # Every query is asked several times: answers kept for next pages would make the later rounds free.
    given = {"NEWSARCHIVE_DATABASE_URL": args.database_url} if args.database_url else {}
    if args.cache_mb:
        given["NEWSARCHIVE_SEARCH_CACHE_MB"] = str(args.cache_mb)
    settings = Settings.from_env(
        archive_env(home, NEWSARCHIVE_SEARCH_ANSWERS=0, NEWSARCHIVE_SEARCH_BACKEND=args.search_backend, **given)
    )
    archive = Archive(settings)
    try:
        stats = archive.searcher().view.doc_count_all
        mix = query_mix(args.queries)
        records = profile(archive, mix, args.rounds)
        paging = next_pages(archive, mix)
    finally:
        archive.close()
    body = table(records) + "\n\n" + paging
    print(body)
    update_benchmarks(
        f"profile-{args.articles}-{args.label}",
        f"""### Stages at {args.articles:,} articles ({args.label})

`python -m bench.profile --articles {args.articles} --label {args.label}`, {today()}, {machine()}; {stats:,}
documents in the index. Mean milliseconds per query spent in each stage of search/timing.py (exclusive:
a stage inside another is not counted twice), in-process (no HTTP), {args.rounds} rounds of {args.queries}
queries after a warm-up pass, every second query with two years chosen; "other" is the rest of the answer.

{body}
""",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
