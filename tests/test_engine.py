"""The array engine matches and scores exactly as Whoosh does, query type by query type."""

import pytest

from search.query import parse_user_query

QUERIES = ["kobani", "refugee camp", "kobani OR oil", "kobani AND NOT turkey", "kurdish NOT syria", '"refugee camp"',
           "kob*", "ref*gee", "caption:refugee", "credit:gurel", 'source:"associated press"', "place:turkey",
           "year:2015", "headline:oil OR body:harbour", "(kobani OR tokyo) AND shares", "kobani^3 oil",
           "withering", "harbour", "nothingmatchesthis", "NOT kobani", "dateline:beirut", "byline:writer"]


@pytest.mark.parametrize("q", QUERIES)
def test_same_matches_and_scores_as_whoosh(app, q):
    searcher = app.extensions["newsarchive"].searcher()
    parsed = parse_user_query(searcher.schema, q)
    ids, scores = searcher.view.evaluate(parsed)
    whoosh_hits = {hit.docnum: hit.score for hit in searcher.searcher.search(parsed, limit=None)}
    assert sorted(ids.tolist()) == sorted(whoosh_hits)
    for docnum, score in zip(ids.tolist(), scores.tolist()):
        assert score == pytest.approx(whoosh_hits[docnum], rel=1e-6, abs=1e-9), (q, docnum)
