"""Make the place-precision sample: one extracted place from each of a seeded random set of Reuters (chunk 03)
and BBC articles. Writes references only (article key, place) to bench/places/sample.json; the text shown to
the judge is written outside the repository (the corpus is never copied in).

    python -m bench.places.sample --n 340 --judge-file /tmp/places_judge.jsonl
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
from pathlib import Path

from bench.common import CORPUS
from ingest.enrich import enrich
from ingest.errors import InputError
from ingest.readers.jsonfmt import article_from_object
from ingest.readers.text import read_text

HERE = Path(__file__).resolve().parent
REUTERS = CORPUS / "reuters-financial" / "reuters-financial-03.jsonl.gz"
BBC = CORPUS / "bbc-news" / "bbc"


def reuters_articles():
    with gzip.open(REUTERS, "rt", encoding="utf-8") as lines:
        for line in lines:
            obj = json.loads(line)
            yield "reuters:" + obj["id"], lambda obj=obj: article_from_object(obj)


def bbc_articles():
    for path in sorted(BBC.rglob("*.txt")):
        key = "bbc:" + path.relative_to(BBC).as_posix()
        yield key, lambda path=path: read_text(path.read_bytes().decode("latin-1"))


def load(key: str):
    """The enriched article for a sample key."""
    kind, _, ref = key.partition(":")
    if kind == "bbc":
        return enrich(read_text((BBC / ref).read_bytes().decode("latin-1")))
    with gzip.open(REUTERS, "rt", encoding="utf-8") as lines:
        for line in lines:
            obj = json.loads(line)
            if obj["id"] == ref:
                return enrich(article_from_object(obj))
    raise KeyError(key)


def contexts(article, name: str, limit: int = 3) -> list[str]:
    text = "\n".join([article.headline, *article.paragraphs])
    found = []
    for sentence in re.split(r"(?<=[.!?])\s+|\n", text):
        if name.casefold() in sentence.casefold():
            found.append(sentence.strip()[:400])
            if len(found) >= limit:
                break
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=340)
    parser.add_argument("--judge-file", type=Path, required=True)
    args = parser.parse_args()
    rng = random.Random(20261203)
    pool = list(reuters_articles())
    picks = rng.sample(pool, args.n) + rng.sample(list(bbc_articles()), args.n)
    rng.shuffle(picks)
    items, shown = [], []
    for key, make in picks:
        try:
            article = enrich(make())
        except InputError:
            continue
        if not article.places:
            continue
        place = rng.choice(article.places)
        items.append({"article": key, "place": place.name, "kind": place.kind, "country": place.country_code})
        shown.append(
            {
                "n": len(items),
                "article": key,
                "place": place.name,
                "kind": place.kind,
                "country": place.country_code,
                "headline": article.headline,
                "dateline": article.dateline,
                "contexts": contexts(article, place.name) or [article.body[:600]],
            }
        )
        if len(items) >= args.n:
            break
    (HERE / "sample.json").write_text(json.dumps({"items": items}, indent=1, ensure_ascii=False) + "\n")
    with args.judge_file.open("w", encoding="utf-8") as out:
        for row in shown:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(items)} places sampled; judge them from {args.judge_file}")


if __name__ == "__main__":
    main()
