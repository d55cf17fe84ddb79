"""Captions, credits and titles of real pages against the judged caption set, and titles on every HTML set.

Captions (bench/captions/judged/*.jsonl, judged by reading; see GUIDELINES.md): each page goes through the
archive's reader as `newsarchive ingest` reads it (`read_bytes`). A found caption matches a judged one when
their texts reach token-F1 0.8 (each judged caption matched at most once, best first). Recall is matched
judged captions over judged captions; precision is matched found captions over found captions. A credit
is right when a matched caption whose judged credit is not null has the judged photographer and agency
(names compared without case, accents and punctuation; agencies by the built-in agency names, so "AP" and
"Associated Press" are one). Scores are given for the `dev` half; `--held` adds the held-back half
(sites never looked at while the rules were written, until it had been scored five times; now read), and
`--fresh` the later held-back samples (pages-fresh.jsonl, pages-fresh2.jsonl: one page on each of 120 sites
drawn in no earlier draw, judged after the previous held-back set had been scored and read; score each once,
at the end of a round).

Titles, at token-F1 0.8 or more, beside trafilatura's title on the same bytes:
- html-metadata: the set's expected titles;
- news-extraction-big9: the gold text's first line (the headline in this set; a standfirst follows on the next line);
- article-extraction-benchmark: the judged titles (bench/captions/titles.jsonl and the judged set).

`--check` looks each judged title's and caption's words up in its own page (a judgment written under another
page's name shows as words mostly absent from it).
`--agreement` compares the second, blind readings (bench/captions/second.jsonl, second-fresh.jsonl, second-fresh5.jsonl,
second-fresh6.jsonl, second-fresh7.jsonl, second-fresh8.jsonl)
with the first.
Misses on the halves already read (dev, the first held-back half, the first fresh sample) are written to
bench/out/captions-misses.jsonl.

    python -m bench.captions.measure [--held] [--fresh] [--read] [--agreement] [--check] [--no-titles]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import html
import json
import logging
import os
import platform
import re
import sys
import time
import unicodedata
from collections import Counter, defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Iterable, Optional

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.extract import _version, corpus_root  # noqa: E402
from ingest.credits import find_agency  # noqa: E402
from ingest.errors import InputError  # noqa: E402
from ingest.readers import read_bytes  # noqa: E402

HERE = Path(__file__).resolve().parent
# The halves whose misses are written out: read while rules were written. The first held-back half and the
# first five fresh samples were read once scored (BENCHMARKS.md); a next sample stays unread until scored.
# fresh6 was drawn and judged at the start of the fourth round of 2026-12-07 and scored at its end (BENCHMARKS.md).
# fresh7 was drawn and judged at the start of the article-credit round and scored once at its end; read after.
# fresh8 (62 pages: the last sites in no earlier draw) was judged at the start of the fresh7-read round and scored
# once at its end (BENCHMARKS.md), read from the fresh8-read round on. No unseen site is left in the corpus after
# it: fresh9 (60 pages never drawn, on sites drawn before: sample.py --seen) was judged at the start of that round,
# scored once at its end and read from the next round on; fresh10 (60 more such pages) was judged at that round's start.
READ = ("dev", "held", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8", "fresh9")
MATCH_F1 = 0.8
HTML_SETS = ("html-metadata", "news-extraction-big9", "article-extraction-benchmark")


def tokens(text: Optional[str]) -> list[str]:
    text = unicodedata.normalize("NFKC", text or "").replace("\u00ad", "").casefold()  # soft hyphens are invisible
    return re.findall(r"\w+", text)


def word_hashes(text: Optional[str]) -> list[str]:
    """The words of a text as the sealed judgments keep them (seal.py): SHA-256 of each, 10 hex digits."""
    return [hashlib.sha256(t.encode()).hexdigest()[:10] for t in tokens(text)]


def name_hash(name: Optional[str]) -> Optional[str]:
    return hashlib.sha256(fold(name).encode()).hexdigest()[:10] if name and fold(name) else None


def agency_name(name: Optional[str]) -> Optional[str]:
    """One name per agency ("Associated Press" and "AP" are one), else the name without a leading "The"."""
    if not name:
        return None
    known = find_agency(name)
    return known.short if known else re.sub(r"^the\s+", "", fold(name))


def words_f1(a: list[str], b: list[str]) -> float:
    if not a or not b:
        return 1.0 if not a and not b else 0.0
    common = sum((Counter(a) & Counter(b)).values())
    if not common:
        return 0.0
    p, r = common / len(a), common / len(b)
    return 2 * p * r / (p + r)


def token_f1(a: Optional[str], b: Optional[str]) -> float:
    return words_f1(tokens(a), tokens(b))


def fold(text: Optional[str]) -> str:
    text = unicodedata.normalize("NFKD", text or "")
    return " ".join(re.findall(r"\w+", "".join(c for c in text if not unicodedata.combining(c)).casefold()))


def credit_right(judged: dict, found: dict) -> bool:
    """Judged (sealed) and found credits name the same photographer and agency. An agency is the same under any
    of its names: a judgment sealed before the archive knew an agency keeps the name as the judge wrote it
    ("Ritzau Scanpix"), which the archive may now give by its short name ("Scanpix")."""
    if judged.get("photographer") != name_hash(found.get("photographer")):
        return False
    known = find_agency(found["agency"]) if found.get("agency") else None
    names = {agency_name(found.get("agency"))} | {
        re.sub(r"^the\s+", "", fold(a)) for a in (known.aliases if known else ())
    }
    return judged.get("agency") in {name_hash(n) for n in names}


def match(judged: list[dict], found: list[dict]) -> list[tuple[int, int]]:
    """Pairs (judged index, found index), best token-F1 first, each side used once. Both sides are sealed
    (`words`); found captions are sealed here."""
    found_words = [f.get("words") or word_hashes(f.get("text")) for f in found]
    scored = sorted(
        ((words_f1(j["words"], fw), ji, fi) for ji, j in enumerate(judged) for fi, fw in enumerate(found_words)),
        reverse=True,
    )
    used_j: set[int] = set()
    used_f: set[int] = set()
    pairs = []
    for score, ji, fi in scored:
        if score < MATCH_F1:
            break
        if ji in used_j or fi in used_f:
            continue
        used_j.add(ji)
        used_f.add(fi)
        pairs.append((ji, fi))
    return pairs


def read_judged(paths: Iterable[Path]) -> dict[tuple[str, str], dict]:
    rows: dict[tuple[str, str], dict] = {}
    for path in paths:
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                # A photo that shows only a credit (judged with empty text) has no caption to find.
                row["credit_only"] = [c for c in row.get("captions", []) if not c.get("words")]
                row["captions"] = [c for c in row.get("captions", []) if c.get("words")]
                rows[row["set"], row["page"]] = row
    return rows


# A judged title or caption of this many words is written under the wrong page when fewer than this share of its
# words are anywhere in that page's markup (two judgments of fresh9 were found swapped that way).
CHECK_MIN_WORDS = 4
CHECK_MIN_SHARE = 0.6


def check_judged(corpus: Path) -> int:
    """Each judged title's and caption's words are looked up in its own page: a judgment written under another
    page's name (a slip while copying) shows as text mostly absent from the page. Prints each suspect; exits 1."""
    suspects = 0
    paths = [*sorted((HERE / "judged").glob("*.jsonl")), *sorted(HERE.glob("second*.jsonl"))]
    for path in paths:
        for (set_name, page), row in read_judged([path]).items():
            raw = gzip.decompress((corpus / set_name / "html" / f"{page}.html.gz").read_bytes()).decode(
                "utf-8", "replace"
            )
            on_page = set(word_hashes(raw)) | set(word_hashes(html.unescape(raw)))
            texts = {"title": row.get("title") or []} | {
                f"caption {i + 1}": c["words"] for i, c in enumerate(row["captions"])
            }
            for what, words in texts.items():
                share = sum(w in on_page for w in words) / len(words) if words else 1.0
                if len(words) >= CHECK_MIN_WORDS and share < CHECK_MIN_SHARE:
                    suspects += 1
                    print(f"{path.name}: {set_name} {page}: {what}: {share:.0%} of {len(words)} words on the page")
    print(f"{suspects} judged texts mostly absent from their page")
    return 1 if suspects else 0


def read_page(job: tuple[Path, str, str, bool]) -> tuple[str, str, dict]:
    """The archive's (and optionally trafilatura's) answer for one page; runs in a worker process."""
    corpus, set_name, page, with_trafilatura = job
    logging.disable(logging.CRITICAL)
    data = gzip.decompress((corpus / set_name / "html" / f"{page}.html.gz").read_bytes())
    answer: dict = {"title": None, "captions": []}
    try:
        article = read_bytes(data, page + ".html")[0]
        answer["title"] = article.headline
        answer["captions"] = [c.as_dict() for c in article.captions]
    except InputError:
        pass
    if with_trafilatura:
        import trafilatura  # noqa: PLC0415 (worker process)

        try:
            doc = trafilatura.bare_extraction(data, with_metadata=True, output_format="python")
            answer["trafilatura"] = doc.title if doc else None
        except Exception:  # trafilatura failing on a page answers nothing for it
            answer["trafilatura"] = None
    return set_name, page, answer


def title_gold(corpus: Path) -> dict[tuple[str, str], list[str]]:
    """Each page's title as sealed words."""
    gold: dict[tuple[str, str], list[str]] = {}
    folder = corpus / "html-metadata"
    for line in (folder / "expected.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("title"):
            gold["html-metadata", row["id"]] = word_hashes(row["title"])
    truth = json.loads((corpus / "news-extraction-big9" / "ground-truth.json").read_text(encoding="utf-8"))
    for page, row in truth.items():
        first = row["articleBody"].strip().split("\n")[0].strip()
        if first:
            gold["news-extraction-big9", page] = word_hashes(first)
    judged = read_judged([HERE / "titles.jsonl", *sorted((HERE / "judged").glob("*.jsonl"))])
    for (set_name, page), row in judged.items():
        if set_name == "article-extraction-benchmark" and row.get("title"):
            gold[set_name, page] = row["title"] if isinstance(row["title"], list) else word_hashes(row["title"])
    return gold


def agreement() -> int:
    first = read_judged(sorted((HERE / "judged").glob("*.jsonl")))
    for name in (
        "second.jsonl",
        "second-fresh.jsonl",
        "second-fresh5.jsonl",
        "second-fresh6.jsonl",
        "second-fresh7.jsonl",
        "second-fresh8.jsonl",
        "second-fresh9.jsonl",
        "second-fresh10.jsonl",
    ):
        if (HERE / name).is_file():
            print(f"{name}: ", end="")
            agree(first, read_judged([HERE / name]))
    return 0


def agree(first: dict, second: dict) -> None:
    pages = [key for key in second if key in first]
    n1 = n2 = matched = credits = credits_same = titles = 0
    for key in pages:
        a, b = first[key]["captions"], second[key]["captions"]
        n1, n2 = n1 + len(a), n2 + len(b)
        pairs = match(a, b)
        matched += len(pairs)
        for ji, fi in pairs:
            if a[ji].get("credit") or b[fi].get("credit"):
                credits += 1
                credits_same += (a[ji]["photographer"], a[ji]["agency"]) == (b[fi]["photographer"], b[fi]["agency"])
        titles += words_f1(first[key]["title"], second[key]["title"]) >= MATCH_F1
    print(
        f"{len(pages)} pages read twice: first reading {n1} captions, second {n2}, {matched} the same (token-F1 >= 0.8)"
    )
    if n1 and n2:
        print(
            f"agreement: {matched / n1:.1%} of the first reading's captions, {matched / n2:.1%} of the second's; "
            f"credits split alike {credits_same}/{credits}; titles alike {titles}/{len(pages)}"
        )


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=corpus_root())
    parser.add_argument("--held", action="store_true", help="score the held-back half too (report only)")
    parser.add_argument("--fresh", action="store_true", help="score the fresh held-back samples too (report only)")
    parser.add_argument("--read", action="store_true", help="score every half already read (READ), no other")
    parser.add_argument("--agreement", action="store_true", help="compare the second reading with the first")
    parser.add_argument("--check", action="store_true", help="check each judgment's words are on its page")
    parser.add_argument("--no-titles", action="store_true", help="captions only")
    parser.add_argument("--no-trafilatura", action="store_true", help="titles without trafilatura's (3x faster)")
    args = parser.parse_args(argv)
    if args.agreement:
        return agreement()
    if not (args.corpus / "html-metadata").is_dir():
        print(f"skipped: the corpus is not at {args.corpus}")
        return 0
    if args.check:
        return check_judged(args.corpus)
    halves = {
        json.loads(line)["page"]: json.loads(line)["half"]
        for path in sorted(HERE.glob("pages*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
    }
    judged = read_judged(sorted((HERE / "judged").glob("*.jsonl")))
    gold_titles = {} if args.no_titles else title_gold(args.corpus)
    jobs = {key: False for key in judged}
    jobs.update({key: not args.no_trafilatura for key in gold_titles})
    print(
        f"{len(judged)} judged pages, {len(gold_titles)} pages with a title; {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, trafilatura {_version('trafilatura')}"
    )
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        answers = {
            (s, p): a
            for s, p, a in pool.map(read_page, [(args.corpus, s, p, t) for (s, p), t in jobs.items()], chunksize=8)
        }
    print(f"read in {time.perf_counter() - started:.0f} s")

    misses = []
    lines = [
        "| half | pages | judged captions | found | matched | recall | precision | credits right |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    fresh = sorted({h for h in halves.values() if h.startswith("fresh")}, key=lambda h: (len(h), h))
    shown = ["dev"] + (["held"] if args.held else []) + (fresh if args.fresh else [])
    for half in list(READ) if args.read else shown:
        n_pages = n_judged = n_found = n_matched = n_credit = n_credit_right = 0
        for key, row in sorted(judged.items()):
            if halves.get(key[1]) != half:
                continue
            found = answers[key]["captions"]
            pairs = match(row["captions"], found)
            n_pages += 1
            n_judged += len(row["captions"])
            n_found += len(found)
            n_matched += len(pairs)
            paired = dict(pairs)
            for ji, j in enumerate(row["captions"]):
                if ji in paired and j.get("credit"):
                    n_credit += 1
                    right = credit_right(j, found[paired[ji]])
                    n_credit_right += right
                    if not right and half in READ:
                        misses.append(
                            {"page": key, "half": half, "kind": "credit", "judged": j, "found": found[paired[ji]]}
                        )
                elif ji not in paired and half in READ:
                    misses.append({"page": key, "half": half, "kind": "missed", "judged": j})
            if half in READ:
                for fi in sorted(set(range(len(found))) - {fi for _, fi in pairs}):
                    misses.append({"page": key, "half": half, "kind": "extra", "found": found[fi]})
        recall = n_matched / n_judged if n_judged else 0.0
        precision = n_matched / n_found if n_found else 0.0
        credit = n_credit_right / n_credit if n_credit else 0.0
        lines.append(
            f"| {half} | {n_pages} | {n_judged} | {n_found} | {n_matched} | {recall:.3f} | {precision:.3f} "
            f"| {n_credit_right}/{n_credit} ({credit:.1%}) |"
        )
    print("\n".join(lines))

    if gold_titles:
        lines = [
            "| set | pages with a title | newsarchive at F1 >= 0.8 | trafilatura at F1 >= 0.8 | result |",
            "| --- | --- | --- | --- | --- |",
        ]
        per_set: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for key, title in gold_titles.items():
            answer = answers[key]
            counts = per_set[key[0]]
            counts[0] += 1
            ours = words_f1(word_hashes(answer["title"]), title) >= MATCH_F1
            counts[1] += ours
            counts[2] += words_f1(word_hashes(answer.get("trafilatura")), title) >= MATCH_F1
            if not ours and halves.get(key[1]) == "dev":
                misses.append(
                    {
                        "page": key,
                        "kind": "title",
                        "found": answer["title"],
                        "trafilatura": answer.get("trafilatura"),
                    }
                )
        for set_name in HTML_SETS:
            n, ours, theirs = per_set[set_name]
            if n:
                verdict = "**pass**" if ours / n >= 0.9 and ours >= theirs else "**fail**"
                lines.append(
                    f"| {set_name} | {n} | {ours} ({ours / n:.1%}) | {theirs} ({theirs / n:.1%}) | {verdict} |"
                )
        print("\n".join(lines))
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    with (out / "captions-misses.jsonl").open("w", encoding="utf-8") as handle:
        for miss in misses:
            handle.write(json.dumps(miss, ensure_ascii=False, default=str) + "\n")
    print(f"{len(misses)} misses (halves already read, and titles) written to bench/out/captions-misses.jsonl")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
