"""The article-extraction benchmark (181 saved news pages) ingested through the real pipeline.

Every page ends archived or quarantined with a reason; the pages whose caption markup carries AP photo
credits keep those captions as captions, credited to AP, and out of the body; and the stored bodies
score at least the F1 the issue asks for with the benchmark's own metric (on tokens).
"""

import gzip
import importlib.util
import json
import re
from concurrent.futures import ProcessPoolExecutor

import pytest
from bs4 import BeautifulSoup
from readability import Document
from sqlalchemy import select

from ingest.errors import InputError
from ingest.pipeline import Ingester
from ingest.readers import read_bytes
from store.db import make_engine, make_sessionmaker, upgrade
from store.models import Article, IngestFile
from store.settings import Settings

from .conftest import CORPUS, ROOT

pytestmark = pytest.mark.corpus

BENCHMARK = CORPUS / "article-extraction-benchmark"
HTML = BENCHMARK / "html"
MIN_F1 = 0.965
# An AP photo credit as caption markup shows it: "(AP Photo/Evan Vucci)" or "Photo: Evan Vucci, AP".
AP_CREDIT = re.compile(r"\bAP\s+Photo\b|\bPhoto:\s*[^,]{2,60},\s*AP\b")
CAPTION_MARKUP = re.compile(r"caption|credit", re.I)


def page_id(path: str) -> str:
    return path.rsplit("/", 1)[-1].removesuffix(".gz").removesuffix(".html")


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """The benchmark pages ingested into a fresh archive: (settings, ingest summary, rows by page id)."""
    settings = Settings.from_env({}, home=tmp_path_factory.mktemp("html-corpus") / "home")
    upgrade(settings)
    with Ingester(settings) as ingester:
        summary = ingester.run([HTML])
    engine = make_engine(settings)
    with make_sessionmaker(engine)() as session:
        files = {page_id(f.path): (f.status, f.reason) for f in session.scalars(select(IngestFile))}
        articles = {
            page_id(a.original_file): {
                "headline": a.headline,
                "body": a.body,
                "language": a.language,
                "captions": [(c.text, c.credit, c.photographer, c.agency) for c in a.captions],
            }
            for a in session.scalars(select(Article))
        }
    engine.dispose()
    return summary, files, articles


def test_every_page_is_archived_or_quarantined_with_a_reason(archive):
    summary, files, articles = archive
    pages = {p.name.removesuffix(".html.gz") for p in HTML.glob("*.html.gz")}
    assert len(pages) == 181
    assert set(files) == pages, "a page has no ingest record: it was lost"
    for key, (status, reason) in files.items():
        if status == "ingested":
            assert key in articles and articles[key]["body"].strip()
        else:
            assert status in ("failed", "duplicate") and reason, (key, status, reason)
    assert summary.ingested == len(articles)
    assert summary.ingested + summary.duplicates + summary.failed == len(pages)


def ap_captions_in_markup(html: str) -> list[str]:
    soup = BeautifulSoup(html, "lxml")
    found = []
    for element in soup.find_all("figcaption") + soup.find_all(class_=CAPTION_MARKUP):
        text = " ".join(element.get_text(" ").split())
        if AP_CREDIT.search(text) and len(text.split()) <= 150:
            found.append(text)
    return found


def test_ap_photo_captions_are_captions_credited_to_ap_and_not_body(archive):
    _, files, articles = archive
    checked = 0
    for path in sorted(HTML.glob("*.html.gz")):
        markup = ap_captions_in_markup(gzip.decompress(path.read_bytes()).decode("utf-8"))
        if not markup:
            continue
        checked += 1
        key = path.name.removesuffix(".html.gz")
        assert key in articles, (key, files.get(key))
        article = articles[key]
        ap = [c for c in article["captions"] if c[3] == "AP"]
        assert ap, (key, article["captions"])
        for text, credit, photographer, _agency in ap:
            assert credit and photographer, (key, text, credit)
            assert text[:60] not in article["body"] and credit not in article["body"]
        for text in markup:
            # The caption's words, without the credit and gallery furniture, never reach the body.
            words = re.sub(r"\(?AP Photo[^)]*\)?|Photo:.*$|Image \d+ of \d+|\.\.\. more|\bless\b", "", text).strip()
            if len(words.split()) >= 5:  # not a credit line on its own
                assert words[:60] not in article["body"], (key, words[:60])
        assert not AP_CREDIT.search(article["body"]), key
    assert checked >= 9


def _bench():
    spec = importlib.util.spec_from_file_location("bench_extract", ROOT / "bench" / "extract.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stored_bodies_reach_the_target_f1(archive):
    _, _, articles = archive
    bench = _bench()
    truth = json.loads((BENCHMARK / "ground-truth.json").read_text(encoding="utf-8"))
    predictions = {key: articles[key]["body"] if key in articles else "" for key in truth}
    (precision, recall, f1), _ = bench.score(truth, predictions, 1)
    assert f1 >= MIN_F1, (precision, recall, f1)
    for key, article in articles.items():
        assert article["language"], key


# The three HTML sets: every page of the two with gold article text, and of html-metadata every page
# whose hand-picked segments say what its main text holds, must be archived. Any other page may be refused
# only when neither reference extractor (trafilatura, readability-lxml) finds a story's worth of text in it.
GOLD_SETS = ("article-extraction-benchmark", "news-extraction-big9")
STORY_WORDS = 100


def _read_or_refuse(path) -> tuple[str, str | None]:
    data = gzip.decompress(path.read_bytes())
    try:
        read_bytes(data, path.name.removesuffix(".gz"))
    except InputError as exc:
        return path.name, str(exc)
    return path.name, None


def _reference_words(path) -> int:
    import trafilatura  # noqa: PLC0415 (only for the few refused pages)

    html = gzip.decompress(path.read_bytes()).decode("utf-8", "replace")
    found = [len((trafilatura.extract(html, include_comments=False) or "").split())]
    try:
        found.append(len(BeautifulSoup(Document(html).summary(html_partial=True), "lxml").get_text(" ").split()))
    except ValueError:
        pass
    return max(found)


def test_no_page_with_article_text_is_refused_on_any_html_set():
    with_text = {json.loads(line)["id"] for line in (CORPUS / "html-metadata" / "segments.jsonl").open()}
    pages = []
    for folder in (*GOLD_SETS, "html-metadata"):
        pages += sorted((CORPUS / folder / "html").glob("*.html.gz"))
    assert len(pages) >= 1730
    with ProcessPoolExecutor(max_workers=2) as pool:
        outcomes = dict(pool.map(_read_or_refuse, pages, chunksize=8))
    refused = [p for p in pages if outcomes[p.name] is not None]
    for path in refused:
        reason = outcomes[path.name]
        assert reason.startswith("no article text found in the HTML page"), (path.name, reason)
        assert path.parent.parent.name not in GOLD_SETS, (path.name, "has gold article text", reason)
        assert path.name.removesuffix(".html.gz") not in with_text, (path.name, "has main-text segments", reason)
        assert _reference_words(path) < STORY_WORDS, (path.name, "a reference extractor finds a story", reason)
    assert len(refused) <= 0.01 * len(pages), [p.name for p in refused]


# news-extraction-big9 is held out of all tuning: the reader must stay above trafilatura without comments
# (the better reference extractor there: token F1 0.958 in bench/extract.py's run).
BIG9 = CORPUS / "news-extraction-big9"
BIG9_ANCHOR_F1 = 0.958


def _body(path) -> tuple[str, str]:
    key = path.name.removesuffix(".html.gz")
    try:
        [article] = read_bytes(gzip.decompress(path.read_bytes()), key + ".html")
    except InputError:
        return key, ""
    return key, article.body


def test_held_out_news_pages_are_read_better_than_the_reference_extractor():
    truth = json.loads((BIG9 / "ground-truth.json").read_text(encoding="utf-8"))
    with ProcessPoolExecutor(max_workers=2) as pool:
        bodies = dict(pool.map(_body, [BIG9 / "html" / f"{key}.html.gz" for key in sorted(truth)], chunksize=8))
    (precision, recall, f1), _ = _bench().score(truth, bodies, 1)
    assert f1 > BIG9_ANCHOR_F1, (precision, recall, f1)


# trafilatura's own evaluation set (html-metadata segments): the reader's second opinion on short readings
# was tuned here, to stay above trafilatura without comments (segment F1 0.9260 in bench/extract.py's run).
HTML_METADATA_ANCHOR_F1 = 0.926


def test_trafilatura_evaluation_pages_are_read_better_than_trafilatura():
    bench = _bench()
    _, truth, files = bench.load_set(CORPUS, "html-metadata")
    with ProcessPoolExecutor(max_workers=2) as pool:
        bodies = dict(pool.map(_body, files, chunksize=8))
    precision, recall, f1 = bench.segment_score(truth, bodies)
    assert f1 > HTML_METADATA_ANCHOR_F1, (precision, recall, f1)
