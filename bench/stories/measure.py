"""Story clusters measured on pairs read by hand: precision and recall of "versions of one story".

The sample (`bench/stories/judged-pairs.jsonl`, 210 pairs, ids only: the texts stay in ../shared/corpus)
was drawn from every pair of articles of the Reuters corpus dated the same or the next day, and of the
BBC corpus, whose MinHash similarity (64 values, 3-word shingles) is at least 0.1: 18,780 pairs, cut into
strata by similarity (0.1-0.2: 6,229 pairs, 40 read; 0.2-0.3: 2,202, 40; 0.3-0.4: 1,045, 40; 0.4-0.5:
732, 40; 0.5-0.7: 1,279, 30; 0.7-1.0: 7,293, 20). Each pair was labelled "same" (a rewrite, an update or
write-through in the same news cycle, a correction, a republished or retitled copy) or "different"
(separate reports, however close the subject) by reading both texts, with a few words on why.

This script ingests the whole Reuters corpus and the BBC files into a fresh archive with the archive's own
ingester (`newsarchive ingest`), reads the story ids from SQL, and scores each judged pair: predicted
"same" when both articles got one story id. Each pair stands for its stratum (weight = stratum pairs /
pairs read), so precision and recall are estimates for all 18,780 pairs. Pairs of one story below
similarity 0.1 are not in the population: they share almost no text and are not counted as missed.

    python -m bench.stories.measure [--home bench/out/stories-home] [--reuse]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from sqlalchemy import create_engine, select

from store.models import Article

from ..common import CORPUS, REUTERS, ROOT, machine, newsarchive, require_corpus, today, update_benchmarks

SAMPLE = Path(__file__).with_name("judged-pairs.jsonl")


def ingest(home: Path) -> float:
    import shutil  # noqa: PLC0415

    shutil.rmtree(home, ignore_errors=True)
    newsarchive(home, "db", "upgrade")
    started = time.perf_counter()
    chunks = sorted(str(p) for p in REUTERS.glob("reuters-financial-0*.jsonl.gz"))
    newsarchive(home, "ingest", *chunks, str(CORPUS / "bbc-news" / "bbc"), "--json")
    return time.perf_counter() - started


def story_ids(home: Path) -> dict[str, int]:
    """Judged-sample id ("reuters:<record id>" or "bbc:<folder>/<file>") -> story id."""
    engine = create_engine(f"sqlite:///{home / 'newsarchive.sqlite'}")
    out = {}
    with engine.connect() as connection:
        for row in connection.execute(select(Article.id, Article.story_id, Article.url, Article.original_file)):
            story = row.story_id or row.id
            if row.url and "reuters.com/article/" in row.url:
                out["reuters:" + row.url.split("reuters.com/article/", 1)[1].replace("/", "", 2)] = story
            elif "/bbc/" in row.original_file:
                out["bbc:" + "/".join(row.original_file.rsplit("/", 2)[-2:])] = story
    engine.dispose()
    return out


def add_duplicates(home: Path, pairs: list[dict], stories: dict[str, int]) -> int:
    """Judged articles the ingester did not store because the same text was stored before (a duplicate)
    get the story of the article that was: found by the content hash the ingester computes."""
    from ingest.readers import read_bytes  # noqa: PLC0415

    from ..common import reuters_lines  # noqa: PLC0415

    wanted = {i for p in pairs for i in (p["a"], p["b"]) if i not in stories and i.startswith("reuters:")}
    if not wanted:
        return 0
    engine = create_engine(f"sqlite:///{home / 'newsarchive.sqlite'}")
    found = 0
    with engine.connect() as connection:
        for line in reuters_lines():
            key = "reuters:" + json.loads(line).get("id", "")
            if key not in wanted:
                continue
            digest = read_bytes(line, "record.jsonl")[0].prepare().content_sha256
            row = connection.execute(
                select(Article.id, Article.story_id).where(Article.content_sha256 == digest)
            ).first()
            if row is not None:
                stories[key] = row.story_id or row.id
                found += 1
    engine.dispose()
    return found


def score(pairs: list[dict], stories: dict[str, int]) -> dict:
    per_stratum = Counter(p["stratum"] for p in pairs)
    tp = fp = fn = 0.0
    missing = 0
    counts = Counter()
    for p in pairs:
        if p["a"] not in stories or p["b"] not in stories:
            missing += 1
            continue
        weight = p["stratum_pairs"] / per_stratum[p["stratum"]]
        same = p["label"] == "same"
        predicted = stories[p["a"]] == stories[p["b"]]
        counts[(same, predicted)] += 1
        tp += weight * (same and predicted)
        fp += weight * (not same and predicted)
        fn += weight * (same and not predicted)
    return {
        "precision": tp / (tp + fp) if tp + fp else 0.0,
        "recall": tp / (tp + fn) if tp + fn else 0.0,
        "read": len(pairs) - missing,
        "missing": missing,
        "same_joined": counts[(True, True)],
        "same_apart": counts[(True, False)],
        "different_joined": counts[(False, True)],
        "different_apart": counts[(False, False)],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, default=ROOT / "bench" / "out" / "stories-home")
    parser.add_argument("--reuse", action="store_true", help="score the archive already at --home")
    args = parser.parse_args(argv)
    require_corpus()
    pairs = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    seconds = None if args.reuse else ingest(args.home)
    stories = story_ids(args.home)
    sizes = Counter(stories.values())
    stored = len(stories)
    duplicates = add_duplicates(args.home, pairs, stories)
    result = score(pairs, stories)
    clusters = sum(1 for n in sizes.values() if n > 1)
    lines = [
        f"`python -m bench.stories.measure`, {today()}, {machine()}. The whole Reuters corpus and the BBC files "
        f"ingested into a fresh SQLite archive" + (f" in {seconds:.0f} s" if seconds else "") + f"; {stored:,} "
        f"articles in {len(sizes):,} stories, {clusters:,} of them with two or more versions (largest "
        f"{max(sizes.values())}). Scored on the {result['read']} judged pairs of `bench/stories/judged-pairs.jsonl` "
        f"(each weighted by its similarity stratum; see the script's docstring); {duplicates} judged articles were "
        "not stored because their text was stored before, and count as their stored twin.",
        "",
        "| measure | value | target |",
        "| --- | --- | --- |",
        f"| precision of same-story pairs | {result['precision']:.3f} | >= 0.95 |",
        f"| recall of same-story pairs | {result['recall']:.3f} | >= 0.9 |",
        f"| judged pairs: same and joined / same apart / different joined / different apart | "
        f"{result['same_joined']} / {result['same_apart']} / {result['different_joined']} / {result['different_apart']} | |",
    ]
    print("\n".join(lines))
    update_benchmarks("stories", "## Story clusters\n\n" + "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
