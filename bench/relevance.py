"""Relevance: known-item searches and judged questions, the archive beside SQLite FTS5 and plain Whoosh.

    python -m bench.relevance [--fresh] [--sample 300] [--tune]

The collection (bench/collection.py: every BBC article and the first Reuters chunk) is ingested into an
archive under bench/out/relevance/ with the real `newsarchive ingest` (kept between runs; --fresh
rebuilds it). In the same run:
- the archive answers through `Archive.search`, the code path of /api/search, with every version of a story
  listed (`collapse=false`) as the anchors list them, and again with one hit per story (the default page);
- SQLite FTS5 indexes the archive's stored headlines and bodies (bm25, the words OR'ed), once with its
  default tokenizer and once with porter stemming;
- plain Whoosh indexes the same text with its default analyzer and searches with `OrGroup` and its
  default BM25F.
Known-item: for a seeded sample of stored articles, the headline pasted verbatim and 8 consecutive words
of the body must find the article in the top 10 (on the default page, one hit per story: the hit of its
story, which lists the article among its versions). Judged questions (bench/relevance/questions.json,
written and judged by reading, see its README): mean average precision over the top 100 and precision at
10, on the development and the held-back test questions separately. `--tune` searches the field weights
and the relaxation rule on the development questions only. Writes its section of BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import sys
import time
from pathlib import Path

import whoosh.index
from sqlalchemy import select
from whoosh import qparser
from whoosh.fields import ID, TEXT, Schema

from search import feedback as feedback_module
from search import matching as matching_module
from search import parse
from search.request import SearchRequest
from store.db import make_engine
from store.models import Article
from store.read import Archive
from store.settings import Settings

from .backends import fresh_database, postgres_problem
from .collection import BBC, REUTERS_CHUNK, canonical_keys, key_of_file
from .common import ROOT, machine, newsarchive, today, update_benchmarks

OUT = ROOT / "bench" / "out" / "relevance"
QUESTIONS = ROOT / "bench" / "relevance" / "questions.json"
DEPTH = 100
WORD = re.compile(r"\w+", re.UNICODE)


# -- the archive and the anchors -------------------------------------------------------------------------


def build_archive(home: Path, fresh: bool) -> None:
    if fresh:
        shutil.rmtree(home, ignore_errors=True)
    if (home / "newsarchive.sqlite").exists():
        return
    home.mkdir(parents=True, exist_ok=True)
    print("ingesting the collection (BBC + the first Reuters chunk) ...", flush=True)
    started = time.perf_counter()
    newsarchive(home, "db", "upgrade")
    newsarchive(home, "ingest", str(BBC), str(REUTERS_CHUNK))
    print(f"  {time.perf_counter() - started:.0f} s", flush=True)


def stored_articles(home: Path) -> list[tuple[int, str, str, str]]:
    """(archive id, canonical key, headline, body) of every stored article."""
    reuters_ids = []
    with gzip.open(REUTERS_CHUNK, "rt", encoding="utf-8") as f:
        for line in f:
            reuters_ids.append(json.loads(line)["id"])
    canon = canonical_keys()
    db = sqlite3.connect(home / "newsarchive.sqlite")
    rows = []
    for article_id, headline, body, original, line in db.execute(
        "SELECT id, headline, body, original_file, source_line FROM articles ORDER BY id"
    ):
        key = f"reuters/{reuters_ids[line - 1]}" if original.endswith(".gz") else key_of_file(original)
        if key is None:
            continue
        rows.append((article_id, canon.get(key, key), headline, body))
    db.close()
    return rows


class Fts5:
    def __init__(self, rows, path: Path, tokenizer: str) -> None:
        self.name = f"SQLite FTS5 ({tokenizer}), bm25, words OR'ed"
        if path.exists():
            path.unlink()
        self.db = sqlite3.connect(path)
        self.db.executescript(f"""
            CREATE TABLE docs (rowid INTEGER PRIMARY KEY, headline TEXT, body TEXT);
            CREATE VIRTUAL TABLE fts USING fts5(headline, body, content='docs', content_rowid='rowid',
                                                tokenize='{tokenizer}');""")
        self.db.executemany("INSERT INTO docs VALUES (?, ?, ?)", [(r[0], r[2], r[3]) for r in rows])
        self.db.execute("INSERT INTO fts(fts) VALUES ('rebuild')")
        self.db.commit()

    def search(self, text: str, depth: int, op: str = "OR") -> list[int]:
        words = dict.fromkeys(w.lower() for w in WORD.findall(text))
        if not words:
            return []
        q = f" {op} ".join('"' + w + '"' for w in words)
        return [
            r[0]
            for r in self.db.execute("SELECT rowid FROM fts WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT ?", (q, depth))
        ]


class PlainWhoosh:
    name = "plain Whoosh, OrGroup, default BM25F"

    def __init__(self, rows, path: Path) -> None:

        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        ix = whoosh.index.create_in(str(path), Schema(id=ID(stored=True), headline=TEXT, body=TEXT))
        writer = ix.writer(procs=2, multisegment=True, limitmb=256)
        for r in rows:
            writer.add_document(id=str(r[0]), headline=r[2], body=r[3])
        writer.commit()
        self.searcher = ix.searcher()
        self.parser = qparser.MultifieldParser(["headline", "body"], ix.schema, group=qparser.OrGroup)

    def search(self, text: str, depth: int) -> list[int]:
        q = self.parser.parse(" ".join(WORD.findall(text)))
        return [int(hit["id"]) for hit in self.searcher.search(q, limit=depth)]


class Ours:
    def __init__(self, home: Path, collapse: bool = False, settings: Settings | None = None) -> None:
        self.archive = Archive(settings or Settings.from_env({}, home=home))
        self.collapse = collapse
        self.name = (
            "newsarchive, one hit per story (the default page)"
            if collapse
            else "newsarchive (/api/search's code path, every version listed)"
        )

    def search(self, text: str, depth: int) -> list[int]:
        """The first `depth` hits, page by page at the default page size (which decides relaxation)."""

        ids: list[int] = []
        page = 1
        while len(ids) < depth:
            answer = self.archive.search(
                SearchRequest(q=text, page=page, facet_size=0, correct=False, collapse=self.collapse)
            )
            ids += [h["id"] for h in answer["hits"]]
            if page * answer["per_page"] >= answer["total"]:
                break
            page += 1
        return ids[:depth]

    def answer(self, text: str) -> dict:

        return self.archive.search(SearchRequest(q=text, per_page=10))


# -- metrics -------------------------------------------------------------------------------------------


def average_precision(ranked: list[str], relevant: set[str]) -> float:
    hits, total = 0, 0.0
    seen = set()
    for i, key in enumerate(ranked, start=1):
        if key in relevant and key not in seen:
            hits += 1
            total += hits / i
        seen.add(key)
    return total / len(relevant) if relevant else 0.0


def precision_at(ranked: list[str], relevant: set[str], k: int = 10) -> float:
    return sum(1 for key in ranked[:k] if key in relevant) / k


def judged_scores(system, questions, key_of: dict[int, str]) -> dict[str, tuple[float, float]]:
    out = {}
    for q in questions:
        ranked = [key_of.get(i, f"?{i}") for i in system.search(q["question"], DEPTH)]
        relevant = set(q["relevant"])
        out[q["id"]] = (average_precision(ranked, relevant), precision_at(ranked, relevant))
    return out


def summary(scores: dict[str, tuple[float, float]], ids: list[str]) -> tuple[float, float]:
    return (statistics.mean(scores[i][0] for i in ids), statistics.mean(scores[i][1] for i in ids))


def known_items(rows, sample: int, seed: int) -> list[tuple[int, str, str]]:
    """(archive id, pasted headline, 8 consecutive body words) for a seeded sample, half BBC, half Reuters."""
    rng = random.Random(seed)
    bbc = [r for r in rows if r[1].startswith("bbc/") and r[2] and len(r[3].split()) >= 40]
    reuters = [r for r in rows if r[1].startswith("reuters/") and r[2] and len(r[3].split()) >= 40]
    chosen = rng.sample(bbc, sample // 2) + rng.sample(reuters, sample - sample // 2)
    out = []
    for article_id, _, headline, body in chosen:
        words = body.split()
        start = rng.randrange(0, len(words) - 8)
        out.append((article_id, headline, " ".join(words[start : start + 8])))
    return out


def story_ids(home: Path) -> dict[int, int]:
    """Article id -> its story id (its own id when it starts a story)."""
    db = sqlite3.connect(home / "newsarchive.sqlite")
    try:
        return dict(db.execute("SELECT id, COALESCE(story_id, id) FROM articles"))
    finally:
        db.close()


def known_item_rates(search, items, story_of: dict[int, int] | None = None) -> tuple[float, float, list]:
    """The shares of items found by their headline and by their body words; with `story_of`, an item is
    found when a hit of its story is (a page of one hit per story lists the item under that hit)."""

    def found(article_id: int, ids: list[int]) -> bool:
        if story_of is None:
            return article_id in ids
        return story_of[article_id] in {story_of[i] for i in ids}

    misses = []
    found_h = found_b = 0
    for article_id, headline, fragment in items:
        if found(article_id, search(headline)):
            found_h += 1
        else:
            misses.append(("headline", article_id, headline))
        if found(article_id, search(fragment)):
            found_b += 1
        else:
            misses.append(("body", article_id, fragment))
    return found_h / len(items), found_b / len(items), misses


# -- tuning --------------------------------------------------------------------------------------------


def _knob_module(knob: str):
    """The module a ranking constant lives in: search/feedback.py's FEEDBACK_*, else search/matching.py."""
    return feedback_module if knob.startswith("FEEDBACK_") else matching_module


def tune(ours: Ours, questions, key_of) -> list[tuple]:
    """Dev MAP over a grid of field weights, relaxation tiers and feedback settings; never the test questions."""

    dev = [q for q in questions if q["split"] == "dev"]
    ids = [q["id"] for q in dev]
    knobs = ("TIER_MAX_SHARE", "ALL_WORDS_FIRST", "FEEDBACK_DOCS", "FEEDBACK_TERMS", "FEEDBACK_TYPED_WEIGHT")
    saved = dict(parse.FIELD_WEIGHTS), {k: getattr(_knob_module(k), k) for k in knobs}
    grid = [
        dict(zip(("headline",) + knobs, values, strict=False))
        for values in itertools.product(
            (0.5, 0.75, 1.0, 2.0, 3.0), (0.0, 0.05, 1.0), (True, False), (0, 5, 10), (10, 20), (0.5, 0.7)
        )
    ]
    if os.environ.get("TUNE_GRID") == "small":  # the neighbourhood of the chosen setting
        grid = [
            g
            for g in grid
            if g["headline"] in (0.5, 1.0)
            and g["TIER_MAX_SHARE"] == 0.0
            and g["FEEDBACK_TERMS"] == 20
            and g["FEEDBACK_TYPED_WEIGHT"] == 0.5
        ]
    grid = [g for g in grid if g["FEEDBACK_DOCS"] or (g["FEEDBACK_TERMS"] == 10 and g["FEEDBACK_TYPED_WEIGHT"] == 0.5)]
    results = []
    try:
        for setting in grid:
            parse.FIELD_WEIGHTS["headline"] = setting["headline"]
            for knob in knobs:
                setattr(_knob_module(knob), knob, setting[knob])
            parse.parse_query.cache_clear()
            mean_ap, p10 = summary(judged_scores(ours, dev, key_of), ids)
            results.append((mean_ap, p10, setting))
            print(f"  dev MAP {mean_ap:.4f}  P@10 {p10:.4f}  {setting}", flush=True)
    finally:
        parse.FIELD_WEIGHTS.clear()
        parse.FIELD_WEIGHTS.update(saved[0])
        for knob, value in saved[1].items():
            setattr(_knob_module(knob), knob, value)
        parse.parse_query.cache_clear()
    return sorted(results, key=lambda r: (r[0], r[1]), reverse=True)


# -- the run -------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fresh", action="store_true", help="re-ingest the collection")
    parser.add_argument("--sample", type=int, default=400, help="known-item articles (half BBC, half Reuters)")
    parser.add_argument("--seed", type=int, default=20150130)
    parser.add_argument("--tune", action="store_true", help="grid-search weights on the development questions")
    parser.add_argument("--misses", action="store_true", help="print the known-item misses")
    parser.add_argument(
        "--backends",
        action="store_true",
        help="also ingest the collection into PostgreSQL with the postgres search backend and score both "
        "search backends side by side (section relevance-backends)",
    )
    args = parser.parse_args()
    if not REUTERS_CHUNK.exists() or not BBC.is_dir():
        print(f"skipped: the corpus is not at {BBC.parent.parent} (set NEWSARCHIVE_CORPUS)")
        return 0
    home = OUT / "archive"
    build_archive(home, args.fresh)
    rows = stored_articles(home)
    key_of = {r[0]: r[1] for r in rows}
    print(f"{len(rows):,} stored articles; building the anchors ...", flush=True)
    ours = Ours(home)
    fts_plain = Fts5(rows, OUT / "fts5-unicode61.sqlite", "unicode61")
    fts_porter = Fts5(rows, OUT / "fts5-porter.sqlite", "porter unicode61")
    whoosh_plain = PlainWhoosh(rows, OUT / "whoosh-plain")
    questions = json.loads(QUESTIONS.read_text())

    if args.backends:
        return compare_backends(home, rows, key_of, questions, args)

    if args.tune:
        print("tuning on the development questions ...", flush=True)
        best = tune(ours, questions, key_of)
        for mean_ap, p10, setting in best[:5]:
            print(f"best: dev MAP {mean_ap:.4f} P@10 {p10:.4f} {setting}")
        return 0

    print("judged questions ...", flush=True)
    collapsed = Ours(home, collapse=True)
    systems = [ours, fts_porter, fts_plain, whoosh_plain, collapsed]
    table = []
    splits = {
        "dev": [q["id"] for q in questions if q["split"] == "dev"],
        "test": [q["id"] for q in questions if q["split"] == "test"],
    }
    per_system = {}
    for system in systems:
        scores = judged_scores(system, questions, key_of)
        per_system[system.name] = scores
        row = [system.name]
        for split in ("test", "dev"):
            mean_ap, p10 = summary(scores, splits[split])
            row += [f"{mean_ap:.4f}", f"{p10:.4f}"]
        table.append(row)
        print("  " + " | ".join(row), flush=True)
    best_test = max(float(r[1]) for r in table[1:-1]), max(float(r[2]) for r in table[1:-1])
    ours_test = float(table[0][1]), float(table[0][2])
    judged_pass = ours_test[0] >= best_test[0] and ours_test[1] >= best_test[1]

    print("known items ...", flush=True)
    items = known_items(rows, args.sample, args.seed)
    kh, kb, misses = known_item_rates(lambda t: ours.search(t, 10), items)
    ch, cb, collapsed_misses = known_item_rates(lambda t: collapsed.search(t, 10), items, story_ids(home))
    fh, fb, _ = known_item_rates(lambda t: fts_plain.search(t, 10, "AND"), items)
    ph, pb, _ = known_item_rates(lambda t: fts_plain.search(t, 10, "OR"), items)
    wh, wb, _ = known_item_rates(lambda t: whoosh_plain.search(t, 10), items)
    if args.misses:
        for kind, article_id, text in misses + collapsed_misses:
            print(f"  miss ({kind}) {key_of[article_id]}: {text}")
    known_pass = min(kh, ch) >= 0.99 and min(kb, cb) >= 0.97

    weights = ", ".join(f"{k} {v:g}" for k, v in parse.FIELD_WEIGHTS.items())
    feedback = (
        f"relevance feedback on relaxed answers from the best {feedback_module.FEEDBACK_DOCS} articles, "
        f"{feedback_module.FEEDBACK_TERMS} words, typed words weighing {feedback_module.FEEDBACK_TYPED_WEIGHT:g}"
        if feedback_module.FEEDBACK_DOCS
        else "no relevance feedback"
    )
    tiers = (
        f"words-matched tiers for words in at most {matching_module.TIER_MAX_SHARE:g} of the articles"
        if matching_module.TIER_MAX_SHARE > 0
        else "no words-matched tiers"
    )
    if matching_module.ALL_WORDS_FIRST:
        tiers += ", articles holding every word first"
    judged_rows = "\n".join(f"| {' | '.join(r)} |" for r in table)
    n_rel = sum(len(q["relevant"]) for q in questions)
    n_judged = sum(len(q["judged"]) for q in questions)
    body = f"""## Search relevance

`python -m bench.relevance` (run by `make bench`), {today()}, {machine()}.
Collection: every BBC article and the first Reuters chunk, ingested with `newsarchive ingest`: {len(rows):,}
stored articles. The archive searches with field weights {weights}, {tiers}, and {feedback} (chosen on the development questions with
`--tune`). Result: judged questions **{"pass" if judged_pass else "FAIL"}** (MAP and P@10 on the held-back
questions, every version listed as the anchors list them, at least the best anchor's), known items
**{"pass" if known_pass else "FAIL"}** (both ways).

Judged questions: {len(questions)} natural-language questions ({len(splits["dev"])} development,
{len(splits["test"])} held back), {n_judged:,} judgments of which {n_rel} relevant
(`bench/relevance/questions.json`). MAP over the top {DEPTH}; P@10.

| system (same run) | test MAP | test P@10 | dev MAP | dev P@10 |
| --- | --- | --- | --- | --- |
{judged_rows}

The last row is the default page: one hit per story, its other versions behind "N versions". Each version
is judged as an article of its own, so the versions it folds away count as relevant articles not found.

Known items: {len(items)} stored articles (seed {args.seed}, half BBC, half Reuters); found in the top 10;
on the default page, found when the hit of its story is (that hit lists it among its versions).

| system | pasted headline | 8 body words |
| --- | --- | --- |
| newsarchive, every version listed (target >= 99% / >= 97%) | **{kh:.1%}** | **{kb:.1%}** |
| newsarchive, one hit per story (the default page; target the same) | **{ch:.1%}** | **{cb:.1%}** |
| SQLite FTS5 (unicode61), words AND'ed | {fh:.1%} | {fb:.1%} |
| SQLite FTS5 (unicode61), words OR'ed | {ph:.1%} | {pb:.1%} |
| plain Whoosh, OrGroup | {wh:.1%} | {wb:.1%} |
"""
    update_benchmarks("relevance", body)
    print(body)
    return 0 if (judged_pass and known_pass) else 1


def compare_backends(home: Path, rows, key_of: dict[int, str], questions, args) -> int:
    """The collection ingested again into PostgreSQL with the postgres search backend (same command, same
    article ids), and both backends scored on the judged questions and the known items in one run."""
    if postgres_problem():
        print(f"skipped: {postgres_problem()} (set NEWSARCHIVE_BENCH_POSTGRES)")
        return 0
    url = fresh_database("newsarchive_bench_relevance")
    env = {"NEWSARCHIVE_DATABASE_URL": url, "NEWSARCHIVE_SEARCH_BACKEND": "postgres"}
    pg_home = OUT / "archive-postgres"
    shutil.rmtree(pg_home, ignore_errors=True)
    pg_home.mkdir(parents=True)
    print("ingesting the collection into PostgreSQL (search backend postgres) ...", flush=True)
    started = time.perf_counter()
    newsarchive(pg_home, "db", "upgrade", **env)
    newsarchive(pg_home, "ingest", str(BBC), str(REUTERS_CHUNK), **env)
    print(f"  {time.perf_counter() - started:.0f} s", flush=True)
    settings = Settings.from_env({}, home=pg_home, database_url=url, search_backend="postgres")
    engine = make_engine(settings)
    with engine.connect() as conn:
        pg_rows = {i: h for i, h in conn.execute(select(Article.id, Article.headline))}
    engine.dispose()
    if any(pg_rows.get(r[0]) != r[2] for r in rows):
        print("the two archives' article ids differ: cannot compare")
        return 1
    systems = {
        "whoosh, every version listed": Ours(home),
        "postgres, every version listed": Ours(pg_home, settings=settings),
        "whoosh, one hit per story": Ours(home, collapse=True),
        "postgres, one hit per story": Ours(pg_home, collapse=True, settings=settings),
    }
    splits = {s: [q["id"] for q in questions if q["split"] == s] for s in ("test", "dev")}
    items = known_items(rows, args.sample, args.seed)
    stories = story_ids(home)
    table = []
    for name, system in systems.items():
        scores = judged_scores(system, questions, key_of)
        (tm, tp), (dm, dp) = summary(scores, splits["test"]), summary(scores, splits["dev"])
        kh, kb, _ = known_item_rates(
            lambda t, system=system: system.search(t, 10), items, stories if system.collapse else None
        )
        table.append(f"| {name} | {tm:.4f} | {tp:.4f} | {dm:.4f} | {dp:.4f} | {kh:.1%} | {kb:.1%} |")
        print("  " + table[-1], flush=True)
    body = f"""## Search relevance on both search backends

`python -m bench.relevance --backends`, {today()}, {machine()}. The collection of "Search relevance" ({len(rows):,}
stored articles) ingested twice with the same command: into the SQLite archive with the `whoosh` search backend
and into a PostgreSQL database with the `postgres` backend (the same article ids). Judged questions: MAP over the
top {DEPTH} and P@10 on the {len(splits["test"])} held-back and {len(splits["dev"])} development questions; known
items: {len(items)} articles (seed {args.seed}) found in the top 10 by their pasted headline and by 8 body words.
Targets for the postgres backend: held-back MAP at least 0.88, known items at least 99% / 97%.

| search backend, view | test MAP | test P@10 | dev MAP | dev P@10 | known: headline | known: body words |
| --- | --- | --- | --- | --- | --- | --- |
{chr(10).join(table)}
"""
    update_benchmarks("relevance-backends", body)
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
