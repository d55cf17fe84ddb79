"""Draw a further stratified sample of Reuters article pairs for reading by hand (bench/stories/).

The population is every pair of Reuters articles dated (by the day in their URL) the same or the next day
whose MinHash similarity, by the ingester's own `ingest.stories.signature` of the record's title and body,
is at least 0.1. It is cut into the strata of the first sample (0.1-0.2, 0.2-0.3, 0.3-0.4, 0.4-0.5,
0.5-0.7, 0.7-1.0) and a seeded random draw of `--per` pairs per stratum is written, leaving out pairs
already in an earlier sample, with the stratum's population size. The pairs are written without labels:
the reader sees only the two articles (`--show` prints them without their similarity), so the label cannot
lean on the prediction.

    python -m bench.stories.sample --out bench/stories/judged-pairs-2.jsonl [--per 0.1-0.2=60 ...] [--seed 2]
    python -m bench.stories.sample --show bench/stories/judged-pairs-2.jsonl --pairs 0-39
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
from collections import defaultdict
from pathlib import Path

import numpy as np

from ingest.stories import signature

from ..common import require_corpus, reuters_lines
from .measure import SAMPLES

STRATA = ((0.1, 0.2), (0.2, 0.3), (0.3, 0.4), (0.4, 0.5), (0.5, 0.7), (0.7, 1.01))
DEFAULT_PER = {"0.1-0.2": 60, "0.2-0.3": 40, "0.3-0.4": 25, "0.4-0.5": 20, "0.5-0.7": 15, "0.7-1.0": 15}


def stratum_name(low: float, high: float) -> str:
    return f"{low:g}-{min(high, 1.0):.1f}"


def records() -> dict[str, dict]:
    out = {}
    for line in reuters_lines():
        record = json.loads(line)
        out[record["id"]] = record
    return out


def population(corpus: dict[str, dict]) -> dict[str, list[tuple[str, str, float]]]:
    """Stratum name -> every (id a, id b, similarity) pair of the population."""
    by_day: dict[dt.date, list[tuple[str, np.ndarray]]] = defaultdict(list)
    for key, record in corpus.items():
        sig = signature(record.get("title") or "", record.get("body") or "")
        day = record.get("day")
        if sig is None or not day:
            continue
        by_day[dt.datetime.strptime(day, "%Y%m%d").date()].append((key, np.frombuffer(sig, "<u4")))
    strata: dict[str, list] = defaultdict(list)
    for day, today in sorted(by_day.items()):
        ids = [k for k, _ in today]
        matrix = np.stack([s for _, s in today])
        after = by_day.get(day + dt.timedelta(days=1), [])
        other_ids = ids + [k for k, _ in after]
        other = np.concatenate([matrix] + ([np.stack([s for _, s in after])] if after else []))
        for n, key in enumerate(ids):
            shared = (other == matrix[n]).mean(axis=1)
            for m in np.flatnonzero(shared >= 0.1):
                if m < len(ids) and m <= n:
                    continue  # each same-day pair once, no article with itself
                for low, high in STRATA:
                    if low <= shared[m] < high:
                        strata[stratum_name(low, high)].append((key, other_ids[m], round(float(shared[m]), 3)))
    return strata


def show(path: Path, first: int, last: int) -> None:
    corpus = records()
    for line in path.read_text(encoding="utf-8").splitlines():
        pair = json.loads(line)
        if not first <= pair["pair"] <= last:
            continue
        print(f"=== pair {pair['pair']}")
        for side in ("a", "b"):
            record = corpus[pair[side].split(":", 1)[1]]
            print(f"--- {side}: {record.get('title')} ({record.get('published')})\n{record.get('body')}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path)
    parser.add_argument("--per", action="append", default=[], metavar="STRATUM=N")
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--show", type=Path)
    parser.add_argument("--pairs", default="0-9999")
    args = parser.parse_args(argv)
    require_corpus()
    if args.show:
        first, last = (int(x) for x in args.pairs.split("-"))
        show(args.show, first, last)
        return 0
    per = DEFAULT_PER | {k: int(v) for k, v in (item.split("=") for item in args.per)}
    judged = {
        frozenset((p["a"], p["b"]))
        for path in SAMPLES
        if path.exists()
        for p in map(json.loads, path.read_text(encoding="utf-8").splitlines())
    }
    strata = population(records())
    rng = random.Random(args.seed)
    out = []
    for name in DEFAULT_PER:
        pairs = sorted(strata[name])
        fresh = [p for p in pairs if frozenset((f"reuters:{p[0]}", f"reuters:{p[1]}")) not in judged]
        for a, b, similarity in rng.sample(fresh, min(per[name], len(fresh))):
            out.append({"a": f"reuters:{a}", "b": f"reuters:{b}", "similarity": similarity, "stratum": name,
                        "stratum_pairs": len(pairs)})  # fmt: skip
        print(f"{name}: {len(pairs):,} pairs, {min(per[name], len(fresh))} drawn")
    rng.shuffle(out)  # the reader meets the strata mixed
    with args.out.open("w", encoding="utf-8") as handle:
        for n, pair in enumerate(out):
            handle.write(json.dumps({"pair": n, **pair}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
