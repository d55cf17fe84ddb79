"""Tools for judging relevance by reading: pooled candidates for a question, an article's full text, a word search.

    python -m bench.judge build                 # once: FTS5 and plain-Whoosh indexes of the collection
    python -m bench.judge pool "QUESTION" [--depth 10] [--chars 1200] [--skip-judged FILE]
    python -m bench.judge show KEY [KEY ...]
    python -m bench.judge grep WORD [WORD ...] [--limit 40]

The pool is TREC-style: the top `depth` articles of several independent rankers, merged, each shown once
with its headline and the opening of its body, in key order (so the order tells nothing about any
ranker). The rankers: SQLite FTS5 bm25 with the words OR'ed and with them AND'ed (porter stemming), plain
Whoosh BM25F with the words OR'ed, and a coordination ranker (articles holding more of the question's
words first). None of them is the archive's own engine, so the judgments do not favour it.
Indexes live in bench/out/judge/ (never committed); the collection is bench/collection.py's.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sqlite3
import sys
from collections import Counter
from pathlib import Path

import whoosh.index
from whoosh import qparser
from whoosh.fields import ID, TEXT, Schema

from .collection import all_docs, canonical_keys
from .common import ROOT

OUT = ROOT / "bench" / "out" / "judge"
FTS = OUT / "fts5.sqlite"
WHOOSH = OUT / "whoosh"
WORD = re.compile(r"\w+", re.UNICODE)


def build() -> None:

    OUT.mkdir(parents=True, exist_ok=True)
    if FTS.exists():
        FTS.unlink()
    canon = canonical_keys()
    docs = [d for d in all_docs() if canon[d.key] == d.key]  # each article once, as the archive stores it
    db = sqlite3.connect(FTS)
    db.executescript("""
        CREATE TABLE docs (rowid INTEGER PRIMARY KEY, key TEXT UNIQUE, headline TEXT, body TEXT);
        CREATE VIRTUAL TABLE fts USING fts5(headline, body, content='docs', content_rowid='rowid',
                                            tokenize='porter unicode61');
    """)
    db.executemany(
        "INSERT INTO docs VALUES (?, ?, ?, ?)", [(i, d.key, d.headline, d.body) for i, d in enumerate(docs, start=1)]
    )
    db.execute("INSERT INTO fts(fts) VALUES ('rebuild')")
    db.commit()
    db.close()
    shutil.rmtree(WHOOSH, ignore_errors=True)
    WHOOSH.mkdir(parents=True)
    ix = whoosh.index.create_in(str(WHOOSH), Schema(key=ID(stored=True, unique=True), headline=TEXT, body=TEXT))
    writer = ix.writer(procs=2, multisegment=True, limitmb=256)
    for d in docs:
        writer.add_document(key=d.key, headline=d.headline, body=d.body)
    writer.commit()
    print(f"indexed {len(docs):,} distinct articles into {OUT}")


def words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


def fts_query(text: str, op: str) -> str:
    return f" {op} ".join('"' + w.replace('"', "") + '"' for w in dict.fromkeys(words(text)))


def fts_rank(db: sqlite3.Connection, text: str, op: str, depth: int) -> list[str]:
    q = fts_query(text, op)
    if not q:
        return []
    rows = db.execute(
        "SELECT d.key FROM fts JOIN docs d ON d.rowid = fts.rowid WHERE fts MATCH ? ORDER BY bm25(fts) LIMIT ?",
        (q, depth),
    ).fetchall()
    return [r[0] for r in rows]


def whoosh_rank(text: str, depth: int) -> list[str]:

    ix = whoosh.index.open_dir(str(WHOOSH))
    parser = qparser.MultifieldParser(["headline", "body"], ix.schema, group=qparser.OrGroup)
    with ix.searcher() as s:
        return [hit["key"] for hit in s.search(parser.parse(" ".join(words(text))), limit=depth)]


def coordination_rank(db: sqlite3.Connection, text: str, depth: int) -> list[str]:
    """Articles holding more of the words first, then FTS5 bm25 over all the words."""
    terms = list(dict.fromkeys(words(text)))
    if not terms:
        return []
    counts: Counter = Counter()
    for term in terms:
        for (rowid,) in db.execute("SELECT rowid FROM fts WHERE fts MATCH ?", ('"' + term.replace('"', "") + '"',)):
            counts[rowid] += 1
    score = {
        rowid: s
        for rowid, s in db.execute("SELECT rowid, bm25(fts) FROM fts WHERE fts MATCH ?", (fts_query(text, "OR"),))
    }
    best = sorted(counts, key=lambda r: (-counts[r], score.get(r, 0.0)))[:depth]
    keys = (
        dict(db.execute(f"SELECT rowid, key FROM docs WHERE rowid IN ({','.join('?' * len(best))})", best))
        if best
        else {}
    )
    return [keys[r] for r in best]


def pool(text: str, depth: int) -> list[str]:
    db = sqlite3.connect(FTS)
    found: set[str] = set()
    for ranking in (
        fts_rank(db, text, "OR", depth),
        fts_rank(db, text, "AND", depth),
        whoosh_rank(text, depth),
        coordination_rank(db, text, depth),
    ):
        found.update(ranking)
    db.close()
    return sorted(found)


def fetch(keys: list[str]) -> dict[str, tuple[str, str]]:
    db = sqlite3.connect(FTS)
    out = {}
    for key in keys:
        row = db.execute("SELECT headline, body FROM docs WHERE key = ?", (key,)).fetchone()
        if row:
            out[key] = row
    db.close()
    return out


def show(key: str, headline: str, body: str, chars: int | None) -> None:
    text = re.sub(r"[ \t]*\n[ \t]*(?!\n)", " ", body)  # undo the Reuters hard line wraps, keep paragraphs
    text = re.sub(r"\n{2,}", "\n", re.sub(r" {2,}", " ", text)).strip()
    if chars is not None and len(text) > chars:
        text = text[:chars].rsplit(" ", 1)[0] + " …"
    print(f"=== {key}\n# {headline}\n{text}\n")


def judged_keys(path: Path) -> set[str]:
    if not path.exists():
        return set()
    data = json.loads(path.read_text())
    return {k for q in data for k in q.get("judged", [])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("build")
    p = sub.add_parser("pool")
    p.add_argument("question")
    p.add_argument("--depth", type=int, default=10)
    p.add_argument("--chars", type=int, default=1200)
    p.add_argument("--skip", nargs="*", default=[], help="keys already judged for this question")
    s = sub.add_parser("show")
    s.add_argument("keys", nargs="+")
    g = sub.add_parser("grep")
    g.add_argument("words", nargs="+")
    g.add_argument("--limit", type=int, default=40)
    args = parser.parse_args()
    if args.command == "build":
        build()
        return 0
    if not FTS.exists():
        print("run `python -m bench.judge build` first", file=sys.stderr)
        return 1
    if args.command == "pool":
        keys = [k for k in pool(args.question, args.depth) if k not in set(args.skip)]
        docs = fetch(keys)
        print(f"{len(keys)} candidates for: {args.question}\n")
        for key in keys:
            show(key, *docs[key], args.chars)
    elif args.command == "show":
        docs = fetch(args.keys)
        for key in args.keys:
            if key in docs:
                show(key, *docs[key], None)
            else:
                print(f"=== {key}: not in the collection (or a copy of another key)\n")
    elif args.command == "grep":
        db = sqlite3.connect(FTS)
        q = fts_query(" ".join(args.words), "AND")
        rows = db.execute(
            "SELECT d.key, d.headline FROM fts JOIN docs d ON d.rowid = fts.rowid WHERE fts MATCH ? "
            "ORDER BY bm25(fts) LIMIT ?",
            (q, args.limit),
        ).fetchall()
        total = db.execute("SELECT count(*) FROM fts WHERE fts MATCH ?", (q,)).fetchone()[0]
        print(f"{total} articles hold all of {args.words}; the first {len(rows)} by bm25:")
        for key, headline in rows:
            print(f"  {key}  {headline}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
