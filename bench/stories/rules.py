"""The join rule of ingest/stories.py weighed offline on the judged pairs, and checked on pairs it was not
chosen on.

Each judged pair's MinHash similarity (as sampled) and the overlap of its two headlines (the ingester's own
`headline_words`) are scored under rules "similarity >= T, or similarity >= L and headline overlap >= H",
with each pair weighted by its stratum as in measure.py. Then two-fold cross-validation: on the
even-numbered pairs the rule with the best recall at precision >= 0.95 is chosen from a small grid and
scored on the odd-numbered pairs, and the other way round. Pairs are scored one by one here; the
ingester's clusters are transitive (an article joins its best candidate's story), which measure.py scores.

    python -m bench.stories.rules
"""

from __future__ import annotations

import gzip
import itertools
import json
from collections import Counter

from ingest.stories import HEADLINE_OVERLAP, HEADLINE_SIMILARITY, JOIN_SIMILARITY, headline_overlap, headline_words

from ..common import REUTERS, require_corpus
from .measure import SAMPLE


def pairs_with_headlines() -> list[dict]:
    pairs = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]
    wanted = {i.split(":", 1)[1] for p in pairs for i in (p["a"], p["b"]) if i.startswith("reuters:")}
    titles = {}
    for chunk in sorted(REUTERS.glob("reuters-financial-0*.jsonl.gz")):
        with gzip.open(chunk, "rt", encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                if record.get("id") in wanted:
                    titles["reuters:" + record["id"]] = record.get("title", "")
    out = []
    for p in pairs:
        if p["a"] in titles and p["b"] in titles:
            p["overlap"] = headline_overlap(headline_words(titles[p["a"]]), headline_words(titles[p["b"]]))
            out.append(p)
    return out


def score(pairs: list[dict], rule, fold: int | None = None) -> tuple[float, float]:
    per_stratum = Counter(p["stratum"] for p in pairs)
    tp = fp = fn = 0.0
    for p in pairs:
        if fold is not None and p["pair"] % 2 != fold:
            continue
        weight = p["stratum_pairs"] / per_stratum[p["stratum"]]
        same, joined = p["label"] == "same", rule(p)
        tp += weight * (same and joined)
        fp += weight * (not same and joined)
        fn += weight * (same and not joined)
    return (tp / (tp + fp) if tp + fp else 0.0), (tp / (tp + fn) if tp + fn else 0.0)


def rule(text: float, low: float = 2.0, overlap: float = 2.0):
    return lambda p: p["similarity"] >= text or (p["similarity"] >= low and p["overlap"] >= overlap)


def main() -> int:
    require_corpus()
    pairs = pairs_with_headlines()
    print(f"{len(pairs)} judged pairs\n\n| rule | precision | recall |\n| --- | --- | --- |")
    rules = {f"similarity >= {t}": rule(t) for t in (0.2, 0.25, 0.3)}
    for t, low, h in ((0.25, 0.1, 0.3), (0.3, 0.1, 0.3), (JOIN_SIMILARITY, HEADLINE_SIMILARITY, HEADLINE_OVERLAP)):
        rules[f"similarity >= {t} or (similarity >= {low} and headline overlap >= {h})"] = rule(t, low, h)
    for name, r in rules.items():
        print(f"| {name} | {score(pairs, r)[0]:.3f} | {score(pairs, r)[1]:.3f} |")
    print("\n| chosen on | rule chosen | precision, recall there | precision, recall on the other half |")
    print("| --- | --- | --- | --- |")
    grid = list(itertools.product((0.2, 0.25, 0.3), (0.1, 0.12, 0.15), (0.25, 0.3, 0.35, 0.4, 0.5)))
    for fold, name in ((0, "even pairs"), (1, "odd pairs")):
        best = None
        for t, low, h in grid:
            precision, recall = score(pairs, rule(t, low, h), fold)
            if precision >= 0.95 and (best is None or recall > best[0]):
                best = (recall, precision, (t, low, h))
        recall, precision, chosen = best
        other = score(pairs, rule(*chosen), 1 - fold)
        print(f"| {name} | {chosen} | {precision:.3f}, {recall:.3f} | {other[0]:.3f}, {other[1]:.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
