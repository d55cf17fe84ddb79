"""Score article-body extraction on the article-extraction benchmark, through the real ingestion path.

The 181 pages (`html/*.html.gz`) are ingested into a fresh archive in a temporary folder, exactly as
`newsarchive ingest` would (the reader unpacks the gzip itself; files outside the inbox are read in place
and never modified). Each stored body is then read back from SQL; a page with no stored article (it was
quarantined) counts as an empty prediction.

The metric is the benchmark's own evaluate.py with unigrams: tokens are `\\w+` runs (case kept); per page
true positives, false positives and false negatives are counted over the token multisets and normalised
by their sum; precision is averaged over pages that predicted something, recall over pages whose truth
is not empty, and F1 is taken of the two averages. The benchmark's official 4-token-shingle F1 is
printed as a second line. `--compare` scores plain `trafilatura.extract(html)` the same way in the same run.

    python bench/extract.py [--corpus DIR] [--compare] [--worst N]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from collections import Counter
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Optional

import trafilatura
from sqlalchemy import func, select

from ingest.pipeline import Ingester
from store.db import make_engine, make_sessionmaker, upgrade
from store.models import Article, Caption, IngestFile
from store.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TOKEN = re.compile(r"\w+")


def default_corpus() -> Path:
    base = Path(os.environ.get("NEWSARCHIVE_CORPUS") or ROOT.parent / "shared" / "corpus")
    return base / "article-extraction-benchmark"


# -- the metric -------------------------------------------------------------------------------------


def shingles(text: str, n: int) -> Counter:
    tokens = TOKEN.findall(text or "")
    if n == 1:
        return Counter(tokens)
    grams = [tuple(tokens[i : i + n]) for i in range(max(1, len(tokens) - n + 1))]
    return Counter(g for g in grams if g)


def tp_fp_fn(truth: str, prediction: str, n: int) -> tuple[float, float, float]:
    true, pred = shingles(truth, n), shingles(prediction, n)
    tp = float(sum((true & pred).values()))
    fp = float(sum((pred - true).values()))
    fn = float(sum((true - pred).values()))
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (tp, fp, fn)


def precision_score(tp: float, fp: float, fn: float) -> float:
    if fp == fn == 0:
        return 1.0
    if tp == fp == 0:
        return 0.0
    return tp / (tp + fp)


def recall_score(tp: float, fp: float, fn: float) -> float:
    if fp == fn == 0:
        return 1.0
    if tp == fn == 0:
        return 0.0
    return tp / (tp + fn)


def metrics(rows: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    precision = statistics.mean(precision_score(*r) for r in rows if r[0] + r[1] > 0)
    recall = statistics.mean(recall_score(*r) for r in rows if r[0] + r[2] > 0)
    return precision, recall, 2 * precision * recall / (precision + recall)


def score(truth: dict[str, dict], predictions: dict[str, str], n: int) -> tuple[tuple[float, float, float], dict]:
    rows = {key: tp_fp_fn(truth[key].get("articleBody", ""), predictions.get(key, ""), n) for key in truth}
    return metrics(list(rows.values())), rows


# -- the ingestion path -----------------------------------------------------------------------------


def page_id(path: str) -> str:
    name = Path(path).name
    for suffix in (".gz", ".html", ".htm"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def ingest_and_read_back(html_dir: Path) -> tuple[dict[str, str], dict[str, str], dict[str, int], float]:
    """Ingest every page into a fresh archive; return (stored body by page id, quarantine reason by page id,
    captions stored by page id, seconds the ingest run took)."""

    with tempfile.TemporaryDirectory(prefix="bench-extract-") as tmp:
        settings = Settings.from_env({}, home=Path(tmp) / "home")
        upgrade(settings)
        with Ingester(settings) as ingester:
            started = time.perf_counter()
            summary = ingester.run([html_dir])
            elapsed = time.perf_counter() - started
        engine = make_engine(settings)
        try:
            with make_sessionmaker(engine)() as session:
                bodies = {
                    page_id(path): body for path, body in session.execute(select(Article.original_file, Article.body))
                }
                captions = {
                    page_id(path): count
                    for path, count in session.execute(
                        select(Article.original_file, func.count(Caption.id))
                        .join(Caption, Caption.article_id == Article.id)
                        .group_by(Article.original_file)
                    )
                }
                failed = {
                    page_id(row.path): row.reason or ""
                    for row in session.scalars(select(IngestFile).where(IngestFile.status != "ingested"))
                }
        finally:
            engine.dispose()
    if summary.ingested != len(bodies):
        print(f"warning: the run reported {summary.ingested} articles, the store holds {len(bodies)}", file=sys.stderr)
    return bodies, failed, captions, elapsed


def trafilatura_predictions(html_dir: Path, keys: list[str], **options) -> tuple[dict[str, str], float]:

    predictions = {}
    started = time.perf_counter()
    for key in keys:
        html = gzip.decompress((html_dir / f"{key}.html.gz").read_bytes()).decode("utf-8", "replace")
        predictions[key] = trafilatura.extract(html, **options) or ""
    return predictions, time.perf_counter() - started


def per_page(row: tuple[float, float, float]) -> tuple[float, float]:
    tp, fp, fn = row
    p = precision_score(tp, fp, fn) if tp + fp > 0 else math.nan
    r = recall_score(tp, fp, fn) if tp + fn > 0 else math.nan
    return p, r


def _line(name: str, result: tuple[float, float, float]) -> str:
    p, r, f = result
    return f"{name:<34} precision={p:.4f}  recall={r:.4f}  F1={f:.4f}"


def _version(package: str) -> str:

    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=default_corpus(), help="the article-extraction-benchmark folder")
    parser.add_argument("--compare", action="store_true", help="also score plain trafilatura.extract(html) in this run")
    parser.add_argument("--worst", type=int, default=15, help="how many of the worst pages to list")
    args = parser.parse_args(argv)

    html_dir = args.corpus / "html"
    truth_file = args.corpus / "ground-truth.json"
    if not html_dir.is_dir() or not truth_file.is_file():
        print(f"skipped: the benchmark corpus is not at {args.corpus} (set NEWSARCHIVE_CORPUS or pass --corpus)")
        return 0
    truth = json.loads(truth_file.read_text(encoding="utf-8"))
    keys = sorted(truth)
    pages = len(list(html_dir.glob("*.html.gz")))
    print(
        f"{pages} pages, {len(truth)} with ground truth; {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"trafilatura {_version('trafilatura')}"
    )

    bodies, failed, captions, elapsed = ingest_and_read_back(html_dir)
    uni, rows = score(truth, bodies, 1)
    four, _ = score(truth, bodies, 4)
    print(_line("newsarchive (tokens)", uni))
    print(_line("newsarchive (4-gram shingles)", four))
    print(
        f"ingest: {elapsed:.1f} s for {pages} pages, {pages / elapsed:.1f} pages/s "
        f"(read, parse, store in SQL, index); {len(bodies)} archived, {len(failed)} not archived, "
        f"{sum(captions.values())} captions on {len(captions)} pages"
    )
    for key, reason in sorted(failed.items()):
        print(f"  not archived: {key} ({truth.get(key, {}).get('url', '?')}): {reason}")

    if args.compare:
        for label, options in (
            ("trafilatura default (tokens)", {}),
            ("trafilatura no comments (tokens)", {"include_comments": False}),
        ):
            predictions, seconds = trafilatura_predictions(html_dir, keys, **options)
            print(
                _line(label, score(truth, predictions, 1)[0])
                + f"  ({len(keys) / seconds:.1f} pages/s, extraction only)"
            )
            print(_line(label.replace("tokens", "4-gram shingles"), score(truth, predictions, 4)[0]))

    def badness(key: str) -> float:
        p, r = per_page(rows[key])
        values = [v for v in (p, r) if not math.isnan(v)]
        return min(values) if values and len(values) == 2 else 0.0

    print(f"\nworst {args.worst} pages (token precision, recall):")
    for key in sorted(keys, key=badness)[: args.worst]:
        p, r = per_page(rows[key])
        print(f"  {key[:16]}  P={p:.3f}  R={r:.3f}  {truth[key].get('url', '')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
