"""Show a corpus page the way a text browser would, for a person judging its captions and title.

Prints the page's metadata (the `<title>`, `og:title`, `og:image:alt`, JSON-LD headline and image captions),
then the page's text in reading order with each picture marked where it stands:
`[IMG alt="..." src=...]`. Scripts, styles and comments are left out. This is a viewer, not the archive's
reader: it finds nothing and decides nothing.

    python -m bench.captions.show SET PAGE [--raw]     (--raw prints the HTML itself)
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from pathlib import Path

from bs4 import BeautifulSoup, Comment, NavigableString, Tag

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from ingest.errors import InputError  # noqa: E402
from ingest.normalise import decode_bytes  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
BLOCKS = {
    "p",
    "div",
    "section",
    "article",
    "header",
    "footer",
    "aside",
    "nav",
    "main",
    "figure",
    "figcaption",
    "li",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "table",
    "tr",
    "blockquote",
    "br",
    "hr",
    "dl",
    "dt",
    "dd",
    "form",
    "center",
    "pre",
    "address",
}


def page_html(set_name: str, page: str) -> str:
    data = gzip.decompress((CORPUS / set_name / "html" / f"{page}.html.gz").read_bytes())
    # decoded as a browser would: UTF-8, else the encoding detected (a windows-1250 or Latin-1 page reads right)
    try:
        return decode_bytes(data)[0]
    except InputError:
        return data.decode("utf-8", "replace")


def render(node: Tag, out: list[str]) -> None:
    for child in node.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            out.append(str(child))
            continue
        if not isinstance(child, Tag) or child.name in ("script", "style", "template", "svg", "head"):
            continue
        if child.name == "img":
            alt = " ".join((child.get("alt") or "").split())
            src = child.get("src") or child.get("data-src") or ""
            out.append(f'\n[IMG alt="{alt}" src={str(src)[-60:]}]\n')
            continue
        block = child.name in BLOCKS
        if block:
            out.append("\n")
        if child.name in ("h1", "h2", "h3"):
            out.append(f"<{child.name}> ")
        render(child, out)
        if block:
            out.append("\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("set")
    parser.add_argument("page")
    parser.add_argument("--raw", action="store_true")
    args = parser.parse_args()
    html = page_html(args.set, args.page)
    if args.raw:
        sys.stdout.write(html)
        return 0
    soup = BeautifulSoup(html, "html.parser")
    print("== metadata")
    if soup.title:
        print("<title>:", " ".join(soup.title.get_text(" ").split()))
    for meta in soup.find_all("meta"):
        key = (meta.get("property") or meta.get("name") or "").lower()
        if key in ("og:title", "og:image:alt", "twitter:title", "twitter:image:alt"):
            print(f"{key}:", " ".join(str(meta.get("content") or "").split()))
    for script in soup.find_all("script", type=re.compile("ld\\+json", re.I)):
        text = script.string or ""
        for key in ("headline", "caption", "creditText", "copyrightHolder", "creator"):
            for value in re.findall(rf'"{key}"\s*:\s*("(?:[^"\\]|\\.)*"|\{{[^}}]*\}})', text)[:5]:
                try:
                    value = json.loads(value)
                except ValueError:
                    pass
                print(f"JSON-LD {key}:", value)
    print("== page")
    body = soup.body or soup
    out: list[str] = []
    render(body, out)
    text = "".join(out)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    previous = None
    for line in lines:
        if line and line != previous:
            print(line)
        previous = line
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
