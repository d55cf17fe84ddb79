"""Story clusters measured on pairs read by hand: precision and recall of "versions of one story".

The sample (`bench/stories/judged-pairs.jsonl`, 210 pairs, ids only: the texts stay in ../shared/corpus)
was drawn from every pair of articles of the Reuters corpus dated the same or the next day, and of the
BBC corpus, whose MinHash similarity (64 values, 3-word shingles) is at least 0.1: 18,780 pairs, cut into
strata by similarity (0.1-0.2: 6,229 pairs, 40 read; 0.2-0.3: 2,202, 40; 0.3-0.4: 1,045, 40; 0.4-0.5:
732, 40; 0.5-0.7: 1,279, 30; 0.7-1.0: 7,293, 20). Each pair was labelled "same" (a rewrite, an update or
write-through in the same news cycle, a correction, a republished or retitled copy) or "different"
(separate reports, however close the subject) by reading both texts, with a few words on why; it was
read again under `bench/stories/GUIDELINES.md` (below).

This script ingests the whole Reuters corpus and the BBC files into a fresh archive with the archive's own
ingester (`newsarchive ingest`), reads the story ids from SQL, and scores each judged pair: predicted
"same" when both articles got one story id. Each pair stands for its stratum (weight = stratum pairs /
pairs read), so precision and recall are estimates for all 18,780 pairs. Pairs of one story below
similarity 0.1 are not in the population: they share almost no text and are not counted as missed.

A second sample (`bench/stories/judged-pairs-2.jsonl`, 175 pairs, drawn by `bench/stories/sample.py` with
the ingester's own signature: 6,288 / 2,286 / 996 / 769 / 1,249 / 7,150 pairs in the same strata, read
60 / 40 / 25 / 20 / 15 / 15), and a third, a fourth and a fifth drawn the same way (seeds 3, 4 and 5,
each leaving out the pairs of the samples before it). The join rule's thresholds were chosen on the first
sample; the headline rule's exceptions (a day apart, names apart) on the second sample's errors, then
checked on the third; the news-cycle and containment rules on the first four, then checked on the fifth,
drawn and read after they were written; the headline overlap was then raised on all five, by a choice that
`bench/stories/rules.py` checks by leaving each sample out in turn. Every pair of every sample is
read as `bench/stories/GUIDELINES.md` says: twice, blind (the readers see the two texts only, not the
similarity, the stratum or the archive's answer), and by a third reader with both reasons where the two
differ. Each sample is scored on its own, and pooled: the samples' estimates of the population's
same-joined, same-apart and different-joined counts are averaged. The 95% interval of each
figure is a bootstrap over pairs drawn again within their strata (2,000 rounds).

    python -m bench.stories.measure [--home bench/out/stories-home] [--reuse]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import time
from collections import Counter
from pathlib import Path

from sqlalchemy import create_engine, select

from ingest.readers import read_bytes
from store.models import Article

from ..common import (
    CORPUS,
    REUTERS,
    ROOT,
    machine,
    newsarchive,
    require_corpus,
    reuters_lines,
    today,
    update_benchmarks,
)

SAMPLE = Path(__file__).with_name("judged-pairs.jsonl")
SAMPLES = tuple(
    Path(__file__).with_name(name)
    for name in (
        "judged-pairs.jsonl",
        "judged-pairs-2.jsonl",
        "judged-pairs-3.jsonl",
        "judged-pairs-4.jsonl",
        "judged-pairs-5.jsonl",
    )
)
BOOTSTRAP_ROUNDS = 2000


def ingest(home: Path) -> float:

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


def totals(pairs: list[dict], stories: dict[str, int]) -> Counter:
    """The sample's estimates of the population's counts: same and joined (tp), different and joined (fp),
    same and apart (fn), each pair weighted by its stratum; and the raw counts of the pairs read."""
    per_stratum = Counter(p["stratum"] for p in pairs)
    out: Counter = Counter()
    for p in pairs:
        if p["a"] not in stories or p["b"] not in stories:
            out["missing"] += 1
            continue
        weight = p["stratum_pairs"] / per_stratum[p["stratum"]]
        same = p["label"] == "same"
        predicted = stories[p["a"]] == stories[p["b"]]
        out["tp"] += weight * (same and predicted)
        out["fp"] += weight * (not same and predicted)
        out["fn"] += weight * (same and not predicted)
        out["same_joined" if same and predicted else "same_apart" if same else
            "different_joined" if predicted else "different_apart"] += 1  # fmt: skip
    return out


def ratios(counts: list[Counter]) -> tuple[float, float]:
    """Precision and recall from the average of several samples' estimated counts."""
    tp, fp, fn = (sum(c[k] for c in counts) / len(counts) for k in ("tp", "fp", "fn"))
    return (tp / (tp + fp) if tp + fp else 0.0), (tp / (tp + fn) if tp + fn else 0.0)


def resampled(pairs: list[dict], rng: random.Random) -> list[dict]:
    """The sample drawn again with replacement within each stratum (same stratum sizes)."""
    by_stratum: dict[str, list[dict]] = {}
    for p in pairs:
        by_stratum.setdefault(p["stratum"], []).append(p)
    return [rng.choice(group) for group in by_stratum.values() for _ in group]


def interval(samples: list[list[dict]], stories: dict[str, int]) -> tuple[tuple[float, float], tuple[float, float]]:
    """95% bootstrap intervals of (precision, recall) of the pooled samples."""
    rng = random.Random(13)
    precisions, recalls = [], []
    for _ in range(BOOTSTRAP_ROUNDS):
        precision, recall = ratios([totals(resampled(pairs, rng), stories) for pairs in samples])
        precisions.append(precision)
        recalls.append(recall)
    low, high = int(0.025 * BOOTSTRAP_ROUNDS), int(0.975 * BOOTSTRAP_ROUNDS) - 1
    return (
        (sorted(precisions)[low], sorted(precisions)[high]),
        (sorted(recalls)[low], sorted(recalls)[high]),
    )


def score(pairs: list[dict], stories: dict[str, int]) -> dict:
    counts = totals(pairs, stories)
    precision, recall = ratios([counts])
    return {"precision": precision, "recall": recall, "read": len(pairs) - counts["missing"], **counts}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--home", type=Path, default=ROOT / "bench" / "out" / "stories-home")
    parser.add_argument("--reuse", action="store_true", help="score the archive already at --home")
    args = parser.parse_args(argv)
    require_corpus()
    samples = {
        path.name: [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        for path in SAMPLES
        if path.exists()
    }
    everything = [p for pairs in samples.values() for p in pairs]
    seconds = None if args.reuse else ingest(args.home)
    stories = story_ids(args.home)
    sizes = Counter(stories.values())
    stored = len(stories)
    duplicates = add_duplicates(args.home, everything, stories)
    clusters = sum(1 for n in sizes.values() if n > 1)
    lines = [
        f"`python -m bench.stories.measure`, {today()}, {machine()}. The whole Reuters corpus and the BBC files "
        f"ingested into a fresh SQLite archive" + (f" in {seconds:.0f} s" if seconds else "") + f"; {stored:,} "
        f"articles in {len(sizes):,} stories, {clusters:,} of them with two or more versions (largest "
        f"{max(sizes.values())}). Scored on the judged pairs of `bench/stories/` (each weighted by its "
        f"similarity stratum; see the script's docstring); {duplicates} judged articles were not stored because "
        "their text was stored before, and count as their stored twin. In brackets: 95% bootstrap intervals.",
        "",
        "| sample | pairs | precision of same-story pairs | recall of same-story pairs | "
        "same joined / same apart / different joined / different apart |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, pairs in samples.items():
        result = score(pairs, stories)
        (p_low, p_high), (r_low, r_high) = interval([pairs], stories)
        lines.append(
            f"| `{name}` | {result['read']} | {result['precision']:.3f} [{p_low:.3f}, {p_high:.3f}] | "
            f"{result['recall']:.3f} [{r_low:.3f}, {r_high:.3f}] | {result['same_joined']} / {result['same_apart']} "
            f"/ {result['different_joined']} / {result['different_apart']} |"
        )
    if len(samples) > 1:
        precision, recall = ratios([totals(pairs, stories) for pairs in samples.values()])
        (p_low, p_high), (r_low, r_high) = interval(list(samples.values()), stories)
        lines.append(
            f"| **all {len(samples)}** (estimates averaged) | {len(everything)} | **{precision:.3f}** [{p_low:.3f}, {p_high:.3f}] "
            f"| **{recall:.3f}** [{r_low:.3f}, {r_high:.3f}] | |"
        )
    lines.append("| target | | >= 0.95 | >= 0.9 | |")
    print("\n".join(lines))
    update_benchmarks("stories", "## Story clusters\n\n" + "\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
