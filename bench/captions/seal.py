"""Seal the judgments: replace every text copied from a corpus page by the hashes of its words.

The corpus stays outside the repository, and so does its text. A judgment keeps, for each caption and
title, the SHA-256 (first 10 hex digits) of each of its words as `measure.py` cuts them (NFKC, case folded,
soft hyphens dropped), in order: enough to score token-F1 against what the archive finds, and to compare two
readings, without holding the page's words. Photographer and agency names are kept the same way, as the
hash of the whole name folded (`measure.fold`; an agency by its one name, `measure.agency_name`). Judges write plain text; this runs once on their files.

    python -m bench.captions.seal FILE.jsonl ...
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bench.captions.measure import agency_name, name_hash, word_hashes


def seal(row: dict) -> dict:
    if "title" in row and not isinstance(row["title"], list):
        row["title"] = word_hashes(row["title"])
    for caption in row.get("captions", []):
        caption.pop("note", None)  # a judge's note on one caption: the page's words, not kept
        if "text" in caption:
            caption["words"] = word_hashes(caption.pop("text"))
            caption["credit"] = bool(caption.get("credit"))
            caption["photographer"] = name_hash(caption.get("photographer"))
            caption["agency"] = name_hash(agency_name(caption.get("agency")))
    row.pop("note", None)
    return row


def main() -> int:
    for name in sys.argv[1:]:
        path = Path(name)
        rows = [seal(json.loads(line)) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
        print(f"{path}: {len(rows)} judgments sealed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
