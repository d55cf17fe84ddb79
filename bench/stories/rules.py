"""The join rule of ingest/stories.py weighed offline on the judged pairs, and checked on pairs it was not
chosen on.

Each judged pair's MinHash similarity (the ingester's own signature of title and body), the overlap of its
two headlines (`headline_words`), whether the headlines name one product kind (`headline_kind`), the hours
between the two stated times, whether each headline names someone the other article never mentions
(`headline_names`) and the estimated containment of the shorter text in the longer (`containment`) are
scored under rules "similarity >= T, or similarity >= L and headline overlap >= H", with and without the
ingester's further conditions, each pair weighted by its stratum as in measure.py. Then:
- each rule of a small grid of (T, L, H) is chosen on one sample (best recall at precision >= 0.95) and
  scored on the others, each way;
- leave one sample out: the headline overlap and the news-cycle constants (hours, the far similarity, the
  containment and its headline overlap) are chosen on the other samples pooled (best recall at precision
  >= AIM) and scored on the one left out, each way; the held-out scores pooled are what a rule chosen this
  way does on pairs it has not seen. Then the same choice on all samples: the ingester's constants.
Pairs are scored one by one here; the ingester's clusters are transitive (an article joins its best
candidate's story), which measure.py scores.

    python -m bench.stories.rules
"""

from __future__ import annotations

import gzip
import itertools
import json
from collections import Counter

from ingest.dates import parse_date
from ingest.stories import (
    CONTAINMENT,
    CONTAINMENT_OVERLAP,
    FAR_SIMILARITY,
    HEADLINE_OVERLAP,
    HEADLINE_SIMILARITY,
    JOIN_SIMILARITY,
    NEWS_CYCLE_HOURS,
    containment,
    headline_kind,
    headline_names,
    headline_overlap,
    headline_words,
    name_each_other_unknown,
    sign,
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
            (sig_a, size_a), (sig_b, size_b) = (sign(r["title"], r["body"]) for r in (a, b))
            p["sim"] = similarity(sig_a, sig_b)
            p["contained"] = containment(p["sim"], size_a, size_b)
            p["overlap"] = headline_overlap(headline_words(a["title"]), headline_words(b["title"]))
            p["one_kind"] = headline_kind(a["title"]) == headline_kind(b["title"])
            times = [parse_date(r["published"]) for r in (a, b)]
            p["hours"] = abs((times[0] - times[1]).total_seconds()) / 3600
            p["names_apart"] = name_each_other_unknown(
                *((headline_names(r["title"], r["body"]), text_words(r["title"], r["body"])) for r in (a, b))
            )
    return samples


def counts(pairs: list[dict], r) -> tuple[float, float, float]:
    """A sample's estimated true joins, wrong joins and missed joins under rule `r`, each pair weighted by
    its stratum."""
    per_stratum = Counter(p["stratum"] for p in pairs)
    tp = fp = fn = 0.0
    for p in pairs:
        weight = p["stratum_pairs"] / per_stratum[p["stratum"]]
        same, joined = p["label"] == "same", r(p)
        tp += weight * (same and joined)
        fp += weight * (not same and joined)
        fn += weight * (same and not joined)
    return tp, fp, fn


def ratios(scored: list[tuple[list[dict], object]]) -> tuple[float, float]:
    """Precision and recall of (sample, rule) counts added up, as measure.py pools samples."""
    tp, fp, fn = (sum(c) for c in zip(*(counts(pairs, r) for pairs, r in scored), strict=True))
    return (tp / (tp + fp) if tp + fp else 0.0), (tp / (tp + fn) if tp + fn else 0.0)


def score(pairs: list[dict], r) -> tuple[float, float]:
    return ratios([(pairs, r)])


def pooled(samples: list[list[dict]], r) -> tuple[float, float]:
    return ratios([(pairs, r) for pairs in samples])


OURS = dict(hours=NEWS_CYCLE_HOURS, far=FAR_SIMILARITY, contained=CONTAINMENT, contained_overlap=CONTAINMENT_OVERLAP)


def rule(
    text: float,
    low: float = 2.0,
    overlap: float = 2.0,
    kinds: bool = True,
    exceptions: bool = True,
    hours: float = 1e9,
    far: float = 0.0,
    contained: float = 2.0,
    contained_overlap: float = 2.0,
):
    """Joins at similarity `text`, or at `low` with headline overlap `overlap` or with `contained_overlap`
    and containment `contained`, within `hours`; at `far` on text alone beyond; one product kind if `kinds`;
    no names apart if `exceptions`."""

    def joins(p: dict) -> bool:
        if kinds and not p["one_kind"]:
            return False
        if p["hours"] >= hours:
            return p["sim"] >= max(far, text)
        if p["sim"] >= text:
            return True
        headline = p["sim"] >= low and (
            p["overlap"] >= overlap or (p["overlap"] >= contained_overlap and p["contained"] >= contained)
        )
        return headline and not (exceptions and p["names_apart"])

    return joins


AIM = 0.955  # the precision a choice aims at on the samples it sees: the 0.95 target and a margin for the estimate


def choose(samples: list[list[dict]]) -> tuple[dict, float, float]:
    """The rule of the grid (headline overlap and the news-cycle constants; the ingester's similarity
    thresholds) with the best pooled recall at precision >= AIM on `samples`, and its precision, recall."""
    grid = [
        dict(overlap=v, hours=h, far=f, contained=c, contained_overlap=o)
        for v in (0.25, 0.3, 0.35)
        for h in (12, 18, 24)
        for f in (0.4, 0.5)
        for c in (0.5, 0.55, 0.6, 2.0)
        for o in (0.1, 0.15)
    ]
    best = None
    for g in grid:
        precision, recall = pooled(samples, rule(JOIN_SIMILARITY, HEADLINE_SIMILARITY, **g))
        key = (precision >= AIM, recall if precision >= AIM else precision)
        if best is None or key > best[0]:
            best = (key, g, precision, recall)
    return best[1], best[2], best[3]


def leave_one_out(samples: dict[str, list[dict]]) -> None:
    """The rule chosen (`choose`) on all samples but one, scored on that one, each way; then chosen on all."""
    ours = rule(JOIN_SIMILARITY, HEADLINE_SIMILARITY, HEADLINE_OVERLAP, **OURS)
    print(
        f"\n| left out | chosen on the rest at precision >= {AIM} (headline overlap, hours, far, containment, "
        "its overlap) | there | left out: chosen | left out: the ingester's |"
    )
    print("| --- | --- | --- | --- | --- |")
    held_chosen, held_ours = [], []
    for out in samples:
        g, precision, recall = choose([pairs for name, pairs in samples.items() if name != out])
        chosen = rule(JOIN_SIMILARITY, HEADLINE_SIMILARITY, **g)
        held_chosen.append((samples[out], chosen))
        held_ours.append((samples[out], ours))
        print(
            f"| `{out}` | {tuple(g.values())} | {precision:.3f}, {recall:.3f} | "
            + "{:.3f}, {:.3f} | ".format(*score(samples[out], chosen))
            + "{:.3f}, {:.3f} |".format(*score(samples[out], ours))
        )
    precision, recall = ratios(held_chosen)
    print(
        f"| all, each scored where it was left out | | | {precision:.3f}, {recall:.3f} | "
        + "{:.3f}, {:.3f} |".format(*ratios(held_ours))
    )
    g, precision, recall = choose(list(samples.values()))
    print(f"| none: chosen on all | {tuple(g.values())} | {precision:.3f}, {recall:.3f} | | |")


def main() -> int:
    require_corpus()
    samples = judged()
    names = list(samples)
    print("| rule | " + " | ".join(f"`{n}` precision, recall" for n in names) + " | all pooled |")
    print("| --- |" + " --- |" * (len(names) + 1))
    rules = {f"similarity >= {t}": rule(t, kinds=False) for t in (0.2, 0.3)}
    ours = (JOIN_SIMILARITY, HEADLINE_SIMILARITY, HEADLINE_OVERLAP)
    rules[f"similarity >= {ours[0]} or (similarity >= {ours[1]} and headline overlap >= {ours[2]})"] = rule(
        *ours, kinds=False, exceptions=False
    )
    rules["the same, and one product kind"] = rule(*ours, exceptions=False)
    rules["the same, and no headline names apart"] = rule(*ours)
    rules[f"the same, and stated {NEWS_CYCLE_HOURS} hours or more apart only at similarity >= {FAR_SIMILARITY}"] = rule(
        *ours, hours=NEWS_CYCLE_HOURS, far=FAR_SIMILARITY
    )
    rules[
        f"the same, and within {NEWS_CYCLE_HOURS} hours at containment >= {CONTAINMENT} with headline overlap "
        f">= {CONTAINMENT_OVERLAP} (the ingester's)"
    ] = rule(*ours, **OURS)
    for name, r in rules.items():
        cells = " | ".join("{:.3f}, {:.3f}".format(*score(pairs, r)) for pairs in samples.values())
        print(f"| {name} | {cells} | " + "{:.3f}, {:.3f} |".format(*pooled(list(samples.values()), r)))
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
            precision, recall = score(samples[here], rule(t, low, h, **OURS))
            if precision >= 0.95 and (best is None or recall > best[0]):
                best = (recall, precision, (t, low, h))
        if best is None:
            print(f"| `{here}` | none reaches precision 0.95 | |" + " |" * len(names))
            continue
        recall, precision, chosen = best
        cells = " | ".join(
            "" if there == here else "{:.3f}, {:.3f}".format(*score(samples[there], rule(*chosen, **OURS)))
            for there in names
        )
        print(f"| `{here}` | {chosen} | {precision:.3f}, {recall:.3f} | {cells} |")
    leave_one_out(samples)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
