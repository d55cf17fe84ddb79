"""Place precision on the judged sample (bench/places/sample.json + judgments.json): extract places again
from each sampled article with today's code, and score the sampled place when it is still extracted.

    python -m bench.places.precision          (run by `make bench`; rewrites its section of BENCHMARKS.md)
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from bench.common import CORPUS, machine, today, update_benchmarks
from ingest.enrich import enrich
from ingest.readers.jsonfmt import article_from_object
from ingest.readers.text import read_text

HERE = Path(__file__).resolve().parent
REUTERS = CORPUS / "reuters-financial" / "reuters-financial-03.jsonl.gz"
BBC = CORPUS / "bbc-news" / "bbc"
TARGET = 0.95


def articles(keys: set[str]) -> dict[str, object]:
    found = {}
    for key in keys:
        kind, _, ref = key.partition(":")
        if kind == "bbc":
            found[key] = enrich(read_text((BBC / ref).read_bytes().decode("latin-1")))
    wanted = {k.partition(":")[2] for k in keys if k.startswith("reuters:")}
    with gzip.open(REUTERS, "rt", encoding="utf-8") as lines:
        for line in lines:
            obj = json.loads(line)
            if obj["id"] in wanted:
                found["reuters:" + obj["id"]] = enrich(article_from_object(obj))
    return found


def main() -> None:
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}; skipped")
        return
    items = json.loads((HERE / "sample.json").read_text())["items"]
    judged = {j["n"]: j for j in json.loads((HERE / "judgments.json").read_text())["judgments"]}
    by_key = articles({item["article"] for item in items})
    kept = right = dropped_right = dropped_wrong = 0
    wrong_names = []
    for n, item in enumerate(items, start=1):
        article = by_key[item["article"]]
        still = any(
            (p.name, p.kind, p.country_code) == (item["place"], item["kind"], item["country"]) for p in article.places
        )
        correct = judged[n]["correct"]
        if still:
            kept += 1
            right += correct
            if not correct:
                wrong_names.append(f"{item['place']} ({judged[n]['why']})")
        else:
            dropped_right += correct
            dropped_wrong += not correct
    precision = right / kept if kept else 0.0
    judged_precision = sum(j["correct"] for j in judged.values()) / len(judged)
    body = f"""## Place precision

`python -m bench.places.precision` (run by `make bench`), {today()}, {machine()}.
Sample: one extracted place from each of {len(items)} seeded random articles of the Reuters chunk 03 and the BBC
corpus (`bench/places/sample.json`, made by `python -m bench.places.sample`), each judged by reading the
article (`bench/places/judgments.json`). Precision of the places today's code still extracts, target
>= {TARGET}: **{precision:.3f}** ({right} of {kept}); **{"pass" if precision >= TARGET else "FAIL"}**.
When the sample was judged, {judged_precision:.3f} of all {len(judged)} sampled places were right. Since then
{dropped_right + dropped_wrong} are no longer extracted ({dropped_wrong} of them wrong, {dropped_right} right).

Wrong places still extracted: {"; ".join(wrong_names) or "none"}.
"""
    print(body)
    update_benchmarks("places", body)


if __name__ == "__main__":
    main()
