"""Score article-body extraction on every extraction set of ../shared/corpus, through the real ingestion path.

Each set's pages are ingested into a fresh archive in a temporary folder, exactly as `newsarchive ingest`
would (the reader unpacks the gzip itself; files outside the inbox are read in place and never modified).
Each stored body is then read back from SQL; a page with no stored article (it was quarantined) counts as
an empty prediction. `--compare` scores trafilatura (defaults, and without comments) and readability-lxml
on the same pages in the same run: the anchors to beat.

- article-extraction-benchmark (181 pages, gold body): the set the reader's rules were tuned on.
- news-extraction-big9 (360 pages of nine news sites, gold body): held out, no rule was chosen by its scores.
- html-metadata segments (989 pages, hand-picked text each page's main text must keep or drop; the
  evaluation set trafilatura itself was tuned on): the two thresholds of the reader's second opinion on a
  short reading (150 words, three times the words) were chosen on it; nothing else.

Body sets use the article-extraction benchmark's own evaluate.py with unigrams: tokens are `\\w+` runs
(case kept); per page true positives, false positives and false negatives are counted over the token
multisets and normalised by their sum; precision is averaged over pages that predicted something, recall
over pages whose truth is not empty, and F1 is taken of the two averages (the benchmark's official
4-token-shingle F1 is printed as a second line). The segments set uses trafilatura's own evaluation: a
`with` segment found in the text is a true positive, a `without` segment found is a false positive.

    python bench/extract.py [--corpus DIR] [--compare] [--sets NAME ...] [--worst N]
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
from concurrent.futures import ProcessPoolExecutor
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Optional

import trafilatura
from sqlalchemy import func, select

from ingest.pipeline import Ingester
from ingest.readers import read_bytes
from store.db import make_engine, make_sessionmaker, upgrade
from store.models import Article, Caption, IngestFile
from store.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TOKEN = re.compile(r"\w+")


def corpus_root() -> Path:
    return Path(os.environ.get("NEWSARCHIVE_CORPUS") or ROOT.parent / "shared" / "corpus")


# name: (what the set's truth is, how it was used)
SETS = {
    "article-extraction-benchmark": ("body", "tuned on"),
    "news-extraction-big9": ("body", "held out"),
    "html-metadata": ("segments", "tuned on: the second opinion's two thresholds (trafilatura's own evaluation set)"),
}
TARGET_BENCHMARK_F1 = 0.975


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


def _norm(text: str) -> str:
    return " ".join((text or "").split())


def segment_score(truth: dict[str, dict], predictions: dict[str, str]) -> tuple[float, float, float]:
    """trafilatura's evaluation: precision and recall over the `with` (keep) and `without` (drop) segments."""
    tp = fp = fn = 0
    for key, segments in truth.items():
        text = _norm(predictions.get(key, ""))
        for segment in segments.get("with", []):
            if _norm(segment) in text:
                tp += 1
            else:
                fn += 1
        fp += sum(1 for segment in segments.get("without", []) if _norm(segment) in text)
    precision, recall = tp / ((tp + fp) or 1), tp / ((tp + fn) or 1)
    return precision, recall, 2 * precision * recall / ((precision + recall) or 1)


def load_set(root: Path, name: str) -> tuple[str, dict[str, dict], list[Path]]:
    """(kind, truth by page id, page files) of one extraction set."""
    kind, _ = SETS[name]
    folder = root / name
    if kind == "body":
        truth = json.loads((folder / "ground-truth.json").read_text(encoding="utf-8"))
    else:
        rows = (json.loads(line) for line in (folder / "segments.jsonl").read_text(encoding="utf-8").splitlines())
        truth = {row["id"]: row for row in rows}
    return kind, truth, [folder / "html" / f"{key}.html.gz" for key in sorted(truth)]


def set_score(kind: str, truth: dict[str, dict], predictions: dict[str, str]) -> tuple[float, float, float]:
    return score(truth, predictions, 1)[0] if kind == "body" else segment_score(truth, predictions)


# -- the ingestion path -----------------------------------------------------------------------------


def page_id(path: str) -> str:
    name = Path(path).name
    for suffix in (".gz", ".html", ".htm"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name


def ingest_and_read_back(files: list[Path]) -> tuple[dict[str, str], dict[str, str], dict[str, int], float]:
    """Ingest these pages into a fresh archive; return (stored body by page id, quarantine reason by page
    id, captions stored by page id, seconds the ingest run took). A page found to be a duplicate of one
    stored before it is given the body the reader gives it (the stored one)."""

    with tempfile.TemporaryDirectory(prefix="bench-extract-") as tmp:
        settings = Settings.from_env({}, home=Path(tmp) / "home")
        upgrade(settings)
        with Ingester(settings) as ingester:
            started = time.perf_counter()
            summary = ingester.run(files)
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
                    page_id(row.path): f"{row.status}: {row.reason or ''}"
                    for row in session.scalars(select(IngestFile).where(IngestFile.status != "ingested"))
                }
        finally:
            engine.dispose()
    for path in files:
        key = page_id(str(path))
        if failed.get(key, "").startswith("duplicate"):
            # The same article as a page stored before it: its body is what that page stored.
            bodies[key] = "\n\n".join(read_bytes(gzip.decompress(path.read_bytes()), path.name[:-3])[0].paragraphs)
            del failed[key]
    if summary.ingested != len(bodies) - summary.duplicates:
        print(f"warning: the run reported {summary.ingested} articles, the store holds {len(bodies)}", file=sys.stderr)
    return bodies, failed, captions, elapsed


# -- the anchors ------------------------------------------------------------------------------------

ANCHORS = {
    "trafilatura": "`trafilatura.extract(html)`, defaults",
    "trafilatura-nc": "`trafilatura.extract(html, include_comments=False)`",
    "readability": "readability-lxml `Document(html).summary()`, its text",
}


def anchor_text(job: tuple[str, Path]) -> tuple[str, str]:
    """One anchor's text for one page (run in a worker process; the page's bytes go in undecoded, so each
    extractor detects the encoding its own way)."""
    anchor, path = job
    data = gzip.decompress(path.read_bytes())
    try:
        if anchor == "readability":
            from bs4 import BeautifulSoup  # noqa: PLC0415 (worker process)
            from readability import Document  # noqa: PLC0415 (worker process)
            from trafilatura.utils import decode_file  # noqa: PLC0415 (worker process)

            summary = Document(decode_file(data)).summary(html_partial=True)
            return page_id(str(path)), BeautifulSoup(summary, "lxml").get_text("\n")
        options = {"include_comments": False} if anchor == "trafilatura-nc" else {}
        return page_id(str(path)), trafilatura.extract(data, **options) or ""
    except Exception:  # an anchor failing on a page predicts nothing for it
        return page_id(str(path)), ""


def anchor_predictions(anchor: str, files: list[Path]) -> tuple[dict[str, str], float]:
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        predictions = dict(pool.map(anchor_text, [(anchor, f) for f in files], chunksize=8))
    return predictions, time.perf_counter() - started


def per_page(row: tuple[float, float, float]) -> tuple[float, float]:
    tp, fp, fn = row
    p = precision_score(tp, fp, fn) if tp + fp > 0 else math.nan
    r = recall_score(tp, fp, fn) if tp + fn > 0 else math.nan
    return p, r


def _line(name: str, result: tuple[float, float, float]) -> str:
    p, r, f = result
    return f"  {name:<34} precision={p:.4f}  recall={r:.4f}  F1={f:.4f}"


def _version(package: str) -> str:

    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


def run_set(root: Path, name: str, compare: bool, worst: int) -> dict:
    kind, truth, files = load_set(root, name)
    role = SETS[name][1]
    print(f"\n{name}: {len(files)} pages ({'gold body' if kind == 'body' else 'keep/drop segments'}; {role})")
    bodies, failed, captions, elapsed = ingest_and_read_back(files)
    result = {"name": name, "role": role, "pages": len(files), "ours": set_score(kind, truth, bodies), "anchors": {}}
    print(_line("newsarchive", result["ours"]))
    if kind == "body":
        print(_line("newsarchive (4-gram shingles)", score(truth, bodies, 4)[0]))
    print(
        f"  ingest: {elapsed:.1f} s, {len(files) / elapsed:.1f} pages/s (read, parse, store in SQL, index); "
        f"{len(bodies)} archived, {len(failed)} not archived, {sum(captions.values())} captions on "
        f"{len(captions)} pages"
    )
    for key, reason in sorted(failed.items()):
        print(f"    not archived: {key}: {reason}")
    if compare:
        for anchor in ANCHORS:
            predictions, seconds = anchor_predictions(anchor, files)
            result["anchors"][anchor] = set_score(kind, truth, predictions)
            print(_line(anchor, result["anchors"][anchor]) + f"  ({len(files) / seconds:.1f} pages/s, 2 processes)")
    if kind == "body" and worst:
        rows = score(truth, bodies, 1)[1]

        def badness(key: str) -> float:
            p, r = per_page(rows[key])
            values = [v for v in (p, r) if not math.isnan(v)]
            return min(values) if len(values) == 2 else 0.0

        print(f"  worst {worst} pages (token precision, recall):")
        for key in sorted(truth, key=badness)[:worst]:
            p, r = per_page(rows[key])
            print(f"    {key[:24]:<24}  P={p:.3f}  R={r:.3f}")
    return result


def summary_table(results: list[dict]) -> list[str]:
    lines = [
        "| set | pages | how it was used | newsarchive P / R / F1 | trafilatura F1 | trafilatura, no comments F1 "
        "| readability-lxml F1 | better anchor | result |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        p, rec, f = r["ours"]
        anchors = r["anchors"]
        best = max((v[2] for v in anchors.values()), default=float("nan"))
        passed = f > best if anchors else None
        if r["name"] == "article-extraction-benchmark":
            passed = passed and f >= TARGET_BENCHMARK_F1
        cells = [f"{anchors[a][2]:.4f}" if a in anchors else "-" for a in ANCHORS]
        verdict = "-" if passed is None else ("**pass**" if passed else "**fail**")
        lines.append(
            f"| {r['name']} | {r['pages']} | {r['role']} | {p:.4f} / {rec:.4f} / **{f:.4f}** | "
            + " | ".join(cells)
            + f" | {best:.4f} | {verdict} |"
        )
    return lines


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=corpus_root(), help="the ../shared/corpus folder")
    parser.add_argument("--compare", action="store_true", help="also score the anchors in this run")
    parser.add_argument("--sets", nargs="*", default=list(SETS), choices=list(SETS), help="which sets")
    parser.add_argument("--worst", type=int, default=10, help="how many of the worst pages to list per body set")
    args = parser.parse_args(argv)

    present = [name for name in args.sets if (args.corpus / name / "html").is_dir()]
    if not present:
        print(f"skipped: no extraction set is at {args.corpus} (set NEWSARCHIVE_CORPUS or pass --corpus)")
        return 0
    print(
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, trafilatura {_version('trafilatura')}, "
        f"readability-lxml {_version('readability-lxml')}, beautifulsoup4 {_version('beautifulsoup4')}, "
        f"lxml {_version('lxml')}"
    )
    results = [run_set(args.corpus, name, args.compare, args.worst) for name in present]
    print("\n" + "\n".join(summary_table(results)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
