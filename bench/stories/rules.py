"""The join rule of ingest/stories.py weighed offline on the judged pairs, and checked on pairs it was not
chosen on.

Each judged pair's MinHash similarity (the ingester's own signature of title and body), the overlap of its
two headlines (`headline_words`), whether the headlines name one product kind (`headline_kind`), the hours
between the two stated times and whether each headline names someone the other article never mentions
(`headline_names`) are scored under rules "similarity >= T, or similarity >= L and headline overlap >= H",
with and without the kind check and the headline rule's two exceptions, each pair weighted by its stratum
as in measure.py. Then each rule of a small grid is chosen
on one sample (best recall at precision >= 0.95) and scored on the others, each way. Pairs are scored one
by one here; the ingester's clusters are transitive (an article joins its best candidate's story), which
measure.py scores.

    python -m bench.stories.rules
"""

from __future__ import annotations

import gzip
import itertools
import json
from collections import Counter

from ingest.dates import parse_date
from ingest.stories import (
    HEADLINE_HOURS,
    HEADLINE_OVERLAP,
    HEADLINE_SIMILARITY,
    JOIN_SIMILARITY,
    headline_kind,
    headline_names,
    headline_overlap,
    headline_words,
    name_each_other_unknown,
    signature,
    similarity,
    text_words,
)

from ..common import REUTERS, require_corpus
from .measure import SAMPLES


def judged() -> dict[str, list[dict]]:
    """Sample file name -> its pairs, each with similarity, headline overlap and kind agreement."""
    samples = {
        path.name: [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] for path in SAMPLES
    }
    wanted = {i.split(":", 1)[1] for pairs in samples.values() for p in pairs for i in (p["a"], p["b"])}
    records = {}
    for chunk in sorted(REUTERS.glob("reuters-financial-0*.jsonl.gz")):
        with gzip.open(chunk, "rt", encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                if record.get("id") in wanted:
                    records["reuters:" + record["id"]] = record
    for pairs in samples.values():
        for p in pairs:
            a, b = records[p["a"]], records[p["b"]]
            p["sim"] = similarity(signature(a["title"], a["body"]), signature(b["title"], b["body"]))
            p["overlap"] = headline_overlap(headline_words(a["title"]), headline_words(b["title"]))
            p["one_kind"] = headline_kind(a["title"]) == headline_kind(b["title"])
            times = [parse_date(r["published"]) for r in (a, b)]
            p["hours"] = abs((times[0] - times[1]).total_seconds()) / 3600
            p["names_apart"] = name_each_other_unknown(
                *((headline_names(r["title"], r["body"]), text_words(r["title"], r["body"])) for r in (a, b))
            )
    return samples


def score(pairs: list[dict], rule) -> tuple[float, float]:
    per_stratum = Counter(p["stratum"] for p in pairs)
    tp = fp = fn = 0.0
    for p in pairs:
        weight = p["stratum_pairs"] / per_stratum[p["stratum"]]
        same, joined = p["label"] == "same", rule(p)
        tp += weight * (same and joined)
        fp += weight * (not same and joined)
        fn += weight * (same and not joined)
    return (tp / (tp + fp) if tp + fp else 0.0), (tp / (tp + fn) if tp + fn else 0.0)


def rule(text: float, low: float = 2.0, overlap: float = 2.0, kinds: bool = True, exceptions: bool = True):
    def joins(p: dict) -> bool:
        headline = p["sim"] >= low and p["overlap"] >= overlap
        if exceptions and headline:
            headline = p["hours"] < HEADLINE_HOURS and not p["names_apart"]
        return (p["one_kind"] or not kinds) and (p["sim"] >= text or headline)

    return joins


def main() -> int:
    require_corpus()
    samples = judged()
    names = list(samples)
    print("| rule | " + " | ".join(f"`{n}` precision, recall" for n in names) + " |")
    print("| --- |" + " --- |" * len(names))
    rules = {f"similarity >= {t}": rule(t, kinds=False) for t in (0.2, 0.3)}
    ours = (JOIN_SIMILARITY, HEADLINE_SIMILARITY, HEADLINE_OVERLAP)
    rules[f"similarity >= {ours[0]} or (similarity >= {ours[1]} and headline overlap >= {ours[2]})"] = rule(
        *ours, kinds=False, exceptions=False
    )
    rules["the same, and one product kind"] = rule(*ours, exceptions=False)
    rules[f"the same, the headline rule under {HEADLINE_HOURS} hours and no names apart (the ingester's)"] = rule(*ours)
    for name, r in rules.items():
        cells = " | ".join("{:.3f}, {:.3f}".format(*score(pairs, r)) for pairs in samples.values())
        print(f"| {name} | {cells} |")
    print(
        "\n| chosen on | rule chosen (text, low, headline) | there | "
        + " | ".join(f"`{n}`" for n in names)
        + " |\n| --- | --- | --- |"
        + " --- |" * len(names)
    )
    grid = list(itertools.product((0.2, 0.25, 0.3, 0.35), (0.1, 0.12, 0.15, 0.2), (0.25, 0.3, 0.35, 0.4, 0.5)))
    for here in names:
        best = None
        for t, low, h in grid:
            precision, recall = score(samples[here], rule(t, low, h))
            if precision >= 0.95 and (best is None or recall > best[0]):
                best = (recall, precision, (t, low, h))
        if best is None:
            print(f"| `{here}` | none reaches precision 0.95 | |" + " |" * len(names))
            continue
        recall, precision, chosen = best
        cells = " | ".join(
            "" if there == here else "{:.3f}, {:.3f}".format(*score(samples[there], rule(*chosen))) for there in names
        )
        print(f"| `{here}` | {chosen} | {precision:.3f}, {recall:.3f} | {cells} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
