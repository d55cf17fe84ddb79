"""Choose the pages of the judged caption set (bench/captions/pages.jsonl) from three HTML sets of the corpus.

Pages are drawn at random (fixed seed) among those with at least one `<figure>` or two `<img>`: a page
with a news photo usually has both a logo and the photo. The choice is made from the raw markup alone, never
from what the archive's reader finds, so the set does not favour pages the reader already handles.

- news-extraction-big9: 12 pages per site (3 per year), 108 in all;
- article-extraction-benchmark and html-metadata: 81 pages each, at most 2 per domain.

Half is development and half held back, by site: every page of a site (a big9 site, or a registered domain
elsewhere) falls in the same half, chosen by a hash of its name, so held-back scores are on sites the rules
were never looked at on.

A second draw (`--more N`) adds N development pages from html-metadata and the article-extraction
benchmark, on sites of the development half not drawn before (at most 2 per site), to
`pages-more.jsonl`: more sites to find general failures on, while the held-back sites stay unread.

A third draw (`--fresh N`) is a second held-back sample, made once the first had been scored too often to be
a fresh measure: N pages from html-metadata and the article-extraction benchmark on sites drawn in neither
earlier draw (one page per site, either hash half), to `pages-fresh.jsonl`. Its pages are judged like the
rest and scored once, at the end of the work they judge (`measure.py --fresh`). Once scored and read, the
next sample is drawn the same way under another label (`--fresh 120 --label fresh2`: `pages-fresh2.jsonl`,
seed 3538), on sites in no earlier draw; `measure.py --fresh` scores every such sample.

Once no unseen site was left (after fresh8), `--seen N --label fresh9` draws N pages not drawn before on
sites that were: one per html-metadata or benchmark site, one per big9 site and year. They share templates
with pages already read, so they measure less than a sample on new sites: how the rules hold on new pages
of known sites (new articles, other years of a site's layout).

    python -m bench.captions.sample [--corpus DIR] [--more N | --fresh N [--label fresh2] | --seen N --label L]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import re
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[2]
OUT = Path(__file__).resolve().parent / "pages.jsonl"
BIG9_SITES = ("arstechnica", "bbc", "cnn", "forbes", "foxnews", "latimes", "nymag", "nypost", "yahoo")
_ARCHIVED = re.compile(r"web/\d{8,14}[a-z_]*/(https?://[^\s\"'<>]+)")
_URL_IN_META = re.compile(r"(?:canonical|og:url)[^>]{0,80}?(?:href|content)=[\"']([^\"']+)", re.I)


def site_of(url: str) -> str:
    m = _ARCHIVED.search(url)
    host = urlsplit(m.group(1) if m else url).hostname or ""
    parts = host.lower().removeprefix("www.").split(".")
    # the registered name: "money.cnn.com" -> "cnn.com", "bbc.co.uk" -> "bbc.co.uk"
    keep = 3 if len(parts) >= 3 and parts[-2] in ("co", "com", "org", "gov", "ac", "net") else 2
    return ".".join(parts[-keep:])


def half_of(site: str) -> str:
    return "dev" if hashlib.sha256(site.encode()).digest()[0] % 2 == 0 else "held"


def looks_illustrated(html: str) -> bool:
    lower = html.lower()
    return "<figure" in lower or lower.count("<img") >= 2


def big9_site(html: str) -> str:
    counts = Counter()
    for url in _URL_IN_META.findall(html)[:4] + _ARCHIVED.findall(html)[:400]:
        host = site_of(url)
        for name in BIG9_SITES:
            if name in host:
                counts[name] += 1
    return counts.most_common(1)[0][0] if counts else "unknown"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--more", type=int, default=0, help="draw this many more development pages")
    parser.add_argument("--fresh", type=int, default=0, help="draw this many pages for a second held-back sample")
    parser.add_argument("--seen", type=int, default=0, help="draw this many undrawn pages on already-drawn sites")
    parser.add_argument("--label", default="fresh", help="the fresh sample's name: fresh, fresh2, ...")
    args = parser.parse_args()
    if args.seen:
        return seen(args.corpus, args.seen, args.label)
    if args.more:
        return more(args.corpus, args.more)
    if args.fresh:
        return more(args.corpus, args.fresh, fresh=args.label)
    rng = random.Random(35)
    chosen: list[dict] = []

    folder = args.corpus / "news-extraction-big9"
    truth = json.loads((folder / "ground-truth.json").read_text(encoding="utf-8"))
    by_site_year: dict[tuple[str, int], list[str]] = defaultdict(list)
    for page, row in sorted(truth.items()):
        html = gzip.decompress((folder / "html" / f"{page}.html.gz").read_bytes()).decode("utf-8", "replace")
        if looks_illustrated(html):
            by_site_year[big9_site(html), row["year"]].append(page)
    for (site, _year), pages in sorted(by_site_year.items()):
        for page in rng.sample(pages, min(3, len(pages))):
            chosen.append({"set": "news-extraction-big9", "page": page, "site": site, "half": half_of(site)})

    for name, urls in (
        (
            "article-extraction-benchmark",
            {
                k: v["url"]
                for k, v in json.loads(
                    (args.corpus / "article-extraction-benchmark" / "ground-truth.json").read_text(encoding="utf-8")
                ).items()
            },
        ),
        (
            "html-metadata",
            {
                json.loads(line)["id"]: json.loads(line)["url"]
                for line in (args.corpus / "html-metadata" / "expected.jsonl").read_text(encoding="utf-8").splitlines()
            },
        ),
    ):
        pages = sorted(urls)
        rng.shuffle(pages)
        per_site: Counter = Counter()
        taken = 0
        for page in pages:
            site = site_of(urls[page] or "")
            if taken >= 81 or per_site[site] >= 2:
                continue
            html = gzip.decompress((args.corpus / name / "html" / f"{page}.html.gz").read_bytes()).decode(
                "utf-8", "replace"
            )
            if not looks_illustrated(html):
                continue
            per_site[site] += 1
            taken += 1
            chosen.append({"set": name, "page": page, "site": site, "half": half_of(site)})

    with OUT.open("w", encoding="utf-8") as handle:
        for row in chosen:
            handle.write(json.dumps(row) + "\n")
    print(
        f"{len(chosen)} pages: "
        + ", ".join(f"{k} {v}" for k, v in Counter(r["set"] for r in chosen).items())
        + "; halves "
        + ", ".join(f"{k} {v}" for k, v in Counter(r["half"] for r in chosen).items())
    )
    print(Counter(r["site"] for r in chosen if r["set"] == "news-extraction-big9"))
    return 0


def _undrawn(corpus: Path, seen_pages: set[str]) -> list[tuple[str, str, str]]:
    """(set, page, site) of every benchmark and html-metadata page not drawn yet, in a fixed order."""
    candidates = []
    benchmark = json.loads((corpus / "article-extraction-benchmark" / "ground-truth.json").read_text(encoding="utf-8"))
    metadata = (corpus / "html-metadata" / "expected.jsonl").read_text(encoding="utf-8").splitlines()
    for name, urls in (
        ("article-extraction-benchmark", {k: v["url"] for k, v in benchmark.items()}),
        ("html-metadata", {json.loads(line)["id"]: json.loads(line)["url"] for line in metadata}),
    ):
        candidates += [(name, page, site_of(url or "")) for page, url in sorted(urls.items()) if page not in seen_pages]
    return candidates


def more(corpus: Path, count: int, fresh: str = "") -> int:
    out = OUT.parent / (f"pages-{fresh}.jsonl" if fresh else "pages-more.jsonl")
    drawn = [OUT] + ([p for p in sorted(OUT.parent.glob("pages-*.jsonl")) if p != out] if fresh else [])
    taken = [json.loads(line) for path in drawn for line in path.read_text(encoding="utf-8").splitlines()]
    seen_pages = {row["page"] for row in taken}
    seen_sites = {row["site"] for row in taken}
    rng = random.Random(3536 + int(fresh.removeprefix("fresh") or 1) if fresh else 3536)
    candidates = []
    candidates += _undrawn(corpus, seen_pages)
    rng.shuffle(candidates)
    per_site: Counter = Counter()
    chosen = []
    for name, page, site in candidates:
        if len(chosen) >= count or not site or site in seen_sites or per_site[site] >= (1 if fresh else 2):
            continue
        if not fresh and half_of(site) != "dev":
            continue
        html = gzip.decompress((corpus / name / "html" / f"{page}.html.gz").read_bytes()).decode("utf-8", "replace")
        if looks_illustrated(html):
            per_site[site] += 1
            chosen.append({"set": name, "page": page, "site": site, "half": fresh or "dev"})
    with out.open("w", encoding="utf-8") as handle:
        for row in chosen:
            handle.write(json.dumps(row) + "\n")
    print(f"{len(chosen)} {'fresh held-back' if fresh else 'more development'} pages on {len(per_site)} sites")
    return 0


def seen(corpus: Path, count: int, label: str) -> int:
    """`count` pages never drawn, on sites drawn before (every site of the three sets has been)."""
    out = OUT.parent / f"pages-{label}.jsonl"
    taken = [
        json.loads(line)
        for path in sorted(OUT.parent.glob("pages*.jsonl"))
        if path != out
        for line in path.read_text(encoding="utf-8").splitlines()
    ]
    seen_pages = {row["page"] for row in taken}
    rng = random.Random(3536 + sum(map(ord, label)))
    candidates = []
    truth = json.loads((corpus / "news-extraction-big9" / "ground-truth.json").read_text(encoding="utf-8"))
    candidates += [("news-extraction-big9", page, "") for page in sorted(truth) if page not in seen_pages]
    candidates += _undrawn(corpus, seen_pages)
    rng.shuffle(candidates)
    used: set[str] = set()
    chosen = []
    for name, page, site in candidates:
        if len(chosen) >= count:
            break
        html = gzip.decompress((corpus / name / "html" / f"{page}.html.gz").read_bytes()).decode("utf-8", "replace")
        if name == "news-extraction-big9":
            site = big9_site(html)
            slot = f"{site}-{truth[page]['year']}"
        else:
            slot = site
        if not site or slot in used or not looks_illustrated(html):
            continue
        used.add(slot)
        chosen.append({"set": name, "page": page, "site": site, "half": label})
    with out.open("w", encoding="utf-8") as handle:
        for row in chosen:
            handle.write(json.dumps(row) + "\n")
    print(
        f"{len(chosen)} pages on {len(used)} sites (big9: sites and years) drawn before: "
        + ", ".join(f"{k} {v}" for k, v in Counter(r["set"] for r in chosen).items())
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
