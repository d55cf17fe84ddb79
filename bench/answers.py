"""Every answer of a fixed set of requests, written to a file, so two versions of the code can be compared
byte for byte on the same archive: a speed change must leave them equal.

    python -m bench.answers --home DIR --out answers.json      # with this checkout
    git worktree add /tmp/before <commit> && cd /tmp/before && \\
        NEWSARCHIVE_CORPUS=$PWD/../shared/corpus python -m bench.answers --home DIR --out before.json
    cmp answers.json before.json

The requests: bench.speed's 96 queries (single words, pairs, pasted headlines, questions), each asked four
ways: page 1 (every second with two years chosen), page 3, newest first (collapsed or not), and page 2
uncollapsed. Hits (ids, scores, snippets), totals, facets, histograms, suggestions and notices are written;
only `took_ms` is left out.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from search.request import SearchRequest
from store.read import Archive
from store.settings import Settings

from .common import archive_env, query_mix, require_corpus


def requests(count: int = 96) -> list[SearchRequest]:
    out = []
    for i, (_, text) in enumerate(query_mix(count)):
        out.append(SearchRequest(q=text, filters={"year": ["2008", "2011"]} if i % 2 else {}))
        out.append(SearchRequest(q=text, page=3))
        out.append(SearchRequest(q=text, sort="newest", collapse=i % 3 != 0))
        out.append(SearchRequest(q=text, collapse=False, page=2))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", required=True, help="the archive (NEWSARCHIVE_HOME) to ask")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    require_corpus()
    archive = Archive(Settings.from_env(archive_env(Path(args.home))))
    answers = []
    try:
        for request in requests():
            answer = archive.search(request)
            answer.pop("took_ms")
            answers.append(answer)
    finally:
        archive.close()
    Path(args.out).write_text(json.dumps(answers, default=str, sort_keys=True))
    print(f"{len(answers)} answers written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
